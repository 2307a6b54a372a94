/* A host pool made ready in extents (ready_slots) that cannot fault the
 * next extent in (MADV_POPULATE_WRITE refuses, injected: ENOMEM) fails the
 * call that needed it with EBB_ERR_NO_MEMORY, a message naming the slot,
 * the extent's slots and bytes, the errno text and what to do; the ready
 * slots, their data and every other slot's use stay as they were, and the
 * pool is destroyed cleanly (ASan: nothing leaked). Each call that uses a
 * slot above the ready ones reports it: slot_ptr, put, get, a move at
 * either end. */
#include <errno.h>

#include "storage/helpers.h"

static ebb_pool *failing_pool(void)
{
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_HOST);
    o.slot_size = 4096;
    o.slots = 64;
    o.pin = 0;
    o.ready_slots = 4;
    ebb_storage_fault f = {0};
    f.prefault_errno = ENOMEM;
    f.prefault_nth = 2; /* the first extent after creation's */
    ebb_pool *h = NULL;
    cr_assert_eq(ebb_pool_create_with_faults(&o, &f, &h), EBB_OK, "%s", ebb_last_error());
    return h;
}

static void expect_refused(ebb_status st, int32_t slot)
{
    cr_assert_eq(st, EBB_ERR_NO_MEMORY, "slot %d: %s: %s", (int)slot, ebb_status_name(st),
                 ebb_last_error());
    const char *msg = ebb_last_error();
    char want[160];
    snprintf(want, sizeof want,
             "slot %d is beyond the 4 slots made ready so far, and making slots 4 .. %d ready "
             "(%d bytes, extent 2)",
             (int)slot, slot < 8 ? 7 : (int)slot, (slot < 8 ? 4 : (int)slot - 3) * 4096);
    cr_assert(strstr(msg, want), "no '%s' in: %s", want, msg);
    cr_assert(strstr(msg, "Cannot allocate memory"), "no errno text: %s", msg);
    cr_assert(strstr(msg, "tier.host.budget"), "no advice: %s", msg);
}

Test(host_grow_fails, every_use_reports_it)
{
    ebb_pool *h = failing_pool();
    unsigned char a[4096], b[4096];
    fill_random(a, sizeof a, 7);
    ebb_ticket t;
    cr_assert_eq(ebb_pool_put(h, 3, a, &t), EBB_OK, "%s", ebb_last_error());
    void *p = (void *)1;
    expect_refused(ebb_pool_slot_ptr(h, 4, &p), 4);
    cr_assert_eq(p, (void *)1, "no address handed out");
    expect_refused(ebb_pool_put(h, 5, a, &t), 5);
    expect_refused(ebb_pool_get(h, 63, b, &t), 63);
    expect_refused(ebb_move(h, 10, h, 3, &t), 10);
    expect_refused(ebb_move(h, 0, h, 6, &t), 6);
    ebb_host_debug d;
    cr_assert_eq(ebb_host_debug_get(h, &d), EBB_OK);
    cr_assert_eq(d.ready_slots, 4);
    cr_assert_eq(d.extents, 1);
    /* the ready slots work as before, their data kept */
    cr_assert_eq(ebb_move(h, 0, h, 3, &t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_pool_get(h, 0, b, &t), EBB_OK);
    cr_assert(memcmp(a, b, sizeof a) == 0);
    ebb_pool_destroy(h);
}
