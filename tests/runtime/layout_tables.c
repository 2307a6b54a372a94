/* ebb_layout_get (include/ebb/layout.h): every mirrored struct is known,
 * its table covers the whole struct (fields in order, no overlap, no gap or
 * tail a field of 8 bytes could hide in), a short array gets the first
 * fields, and an unknown name is refused listing the known ones. */
#include <criterion/criterion.h>
#include <string.h>

#include "ebb/ebb.h"

static const char *structs[] = {"ebb_run_options",      "ebb_run_info",
                                "ebb_run_stats",        "ebb_schedule_options",
                                "ebb_schedule_stats",   "ebb_action",
                                "ebb_chain",            "ebb_chain_options",
                                "ebb_chain_info"};

Test(layout_tables, each_table_covers_its_struct)
{
    for (size_t s = 0; s < sizeof structs / sizeof *structs; s++) {
        size_t size = 0, count = 0, off[64], sz[64];
        const char *names[64];
        cr_assert_eq(ebb_layout_get(structs[s], &size, &count, 64, off, sz, names), EBB_OK,
                     "%s", ebb_last_error());
        cr_assert(count > 0 && count <= 64, "%s: %zu fields", structs[s], count);
        size_t end = 0;
        for (size_t i = 0; i < count; i++) {
            cr_assert(names[i] && names[i][0], "%s field %zu has no name", structs[s], i);
            cr_assert(off[i] >= end, "%s.%s at %zu overlaps the field before (ends at %zu)",
                      structs[s], names[i], off[i], end);
            cr_assert(off[i] - end < 8, "%s: %zu bytes before %s that no field covers",
                      structs[s], off[i] - end, names[i]);
            cr_assert(sz[i] > 0);
            end = off[i] + sz[i];
        }
        cr_assert(end <= size && size - end < 8, "%s: %zu bytes, its fields end at %zu",
                  structs[s], size, end);
    }
    size_t size = 0, count = 0, off[64];
    cr_assert_eq(ebb_layout_get("ebb_run_options", &size, &count, 64, off, NULL, NULL), EBB_OK);
    cr_assert_eq(size, sizeof(ebb_run_options));
    cr_assert_eq(off[count - 1], offsetof(ebb_run_options, state_sizes));
    cr_assert_eq(ebb_layout_get("ebb_config", &size, &count, 0, NULL, NULL, NULL), EBB_OK);
    cr_assert_eq(size, sizeof(ebb_config));
    cr_assert_eq(count, 0);
}

Test(layout_tables, a_short_array_gets_the_first_fields)
{
    size_t size = 0, count = 0, off[3] = {99, 99, 99};
    const char *names[3] = {NULL, NULL, NULL};
    cr_assert_eq(ebb_layout_get("ebb_action", &size, &count, 2, off, NULL, names), EBB_OK);
    cr_assert_eq(count, 7);
    cr_assert_str_eq(names[0], "kind");
    cr_assert_str_eq(names[1], "tier");
    cr_assert_eq(off[1], offsetof(ebb_action, tier));
    cr_assert_eq(off[2], 99, "wrote past max");
    cr_assert_null(names[2]);
}

Test(layout_tables, an_unknown_name_is_refused)
{
    size_t size = 0, count = 0;
    cr_assert_eq(ebb_layout_get("ebb_run_option", &size, &count, 0, NULL, NULL, NULL),
                 EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "no public struct named 'ebb_run_option'"), "%s",
              ebb_last_error());
    cr_assert(strstr(ebb_last_error(), "ebb_schedule_stats"), "%s", ebb_last_error());
    cr_assert_eq(ebb_layout_get(NULL, &size, &count, 0, NULL, NULL, NULL), EBB_ERR_INVALID_ARG);
    cr_assert_eq(ebb_layout_get("ebb_action", NULL, &count, 0, NULL, NULL, NULL),
                 EBB_ERR_INVALID_ARG);
}

Test(layout_tables, callback_fail_message_records_the_message)
{
    cr_assert_eq(ebb_callback_fail_message("solver diverged at t = 3"), EBB_ERR_CALLBACK);
    cr_assert_str_eq(ebb_last_error(), "solver diverged at t = 3");
    cr_assert_eq(ebb_callback_fail_message("100% sure"), EBB_ERR_CALLBACK);
    cr_assert_str_eq(ebb_last_error(), "100% sure", "the message is not a format");
    cr_assert_eq(ebb_callback_fail_message(NULL), EBB_ERR_CALLBACK);
    cr_assert_str_eq(ebb_last_error(), "(no message)");
}
