/* `ebb run --strategy all` prints the pools' warnings once, naming each run
 * that had them once, as its row is named by what was asked (async and
 * auto, not the strategy each resolved to, which repeated another row's
 * name). */
#include "support/cli_run.h"

Test(run_all_warnings, each_run_named_once)
{
    cli_result r = cli_run_line("run --strategy all --steps 30 --state-size 4KiB");
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *w = strstr(r.out, "\nwarnings (");
    if (!w) {
        cli_free(&r);
        cr_skip_test("no pool warned here (a CUDA device pins the host tier): nothing to list");
    }
    char list[512];
    cr_assert_eq(sscanf(w, "\nwarnings (%511[^)])", list), 1, "%s", w);
    static const char *const names[] = {"store-all", "periodic", "revolve", "online", "multistage",
                                        "disk-revolve", "h-revolve", "async", "auto"};
    char *save = NULL;
    int seen[9] = {0};
    for (char *t = strtok_r(list, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        int known = 0;
        for (int i = 0; i < 9; i++)
            if (strcmp(t, names[i]) == 0) {
                known = 1;
                cr_assert_eq(seen[i]++, 0, "'%s' listed twice: %s", t, w);
            }
        cr_assert(known, "'%s' is no run of --strategy all: %s", t, w);
    }
    cr_assert(seen[7] && seen[8], "async and auto share the others' warnings yet are not "
              "listed: %s", w);
    cli_free(&r);
}
