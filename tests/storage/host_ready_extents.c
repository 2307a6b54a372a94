/* A host pool created with ready_slots maps all its slots but makes only the
 * first ready_slots ready (faulted in); a slot above them is made ready, with
 * the next extent (doubling the ready slots, at least to the slot, at most
 * to the pool's slots), by the first call that uses it: ebb_pool_slot_ptr,
 * ebb_pool_put / get, ebb_move at either end. Data already stored stays.
 * Resident memory follows the ready slots, not the pool's size. */
#include <sys/mman.h>

#include "storage/helpers.h"

static ebb_host_debug ready_of(ebb_pool *h)
{
    ebb_host_debug d;
    cr_assert_eq(ebb_host_debug_get(h, &d), EBB_OK, "%s", ebb_last_error());
    return d;
}

static ebb_pool *lazy_pool(size_t size, int32_t slots, int32_t ready)
{
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_HOST);
    o.slot_size = size;
    o.slots = slots;
    o.pin = 0;
    o.ready_slots = ready;
    ebb_pool *h = NULL;
    cr_assert_eq(ebb_pool_create(&o, &h), EBB_OK, "%s", ebb_last_error());
    return h;
}

/* Pages of [p, p + bytes) resident now. */
static size_t resident_pages(void *p, size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (bytes + page - 1) / page, in = 0;
    unsigned char *v = malloc(n);
    cr_assert_not_null(v);
    cr_assert_eq(mincore(p, bytes, v), 0);
    for (size_t i = 0; i < n; i++)
        in += v[i] & 1;
    free(v);
    return in;
}

Test(host_ready_extents, doubling_by_first_use)
{
    enum { SIZE = 5000, SLOTS = 100 }; /* a slot takes 2 pages */
    ebb_pool *h = lazy_pool(SIZE, SLOTS, 3);
    ebb_host_debug d = ready_of(h);
    cr_assert_eq(d.ready_slots, 3);
    cr_assert_eq(d.ready_bytes, 3 * 8192);
    cr_assert_eq(d.extents, 1);
    unsigned char in[SIZE], out[SIZE];
    ebb_ticket t;
    /* slots 0 .. 2 need nothing */
    fill_random(in, SIZE, 1);
    cr_assert_eq(ebb_pool_put(h, 2, in, &t), EBB_OK);
    cr_assert_eq(ready_of(h).ready_slots, 3);
    /* put into slot 3: 3 -> 6 */
    fill_random(in, SIZE, 2);
    cr_assert_eq(ebb_pool_put(h, 3, in, &t), EBB_OK, "%s", ebb_last_error());
    d = ready_of(h);
    cr_assert_eq(d.ready_slots, 6);
    cr_assert_eq(d.extents, 2);
    /* a move into slot 20: past twice the ready slots, to 21 */
    cr_assert_eq(ebb_move(h, 20, h, 3, &t), EBB_OK, "%s", ebb_last_error());
    d = ready_of(h);
    cr_assert_eq(d.ready_slots, 21);
    cr_assert_eq(d.extents, 3);
    /* a move from slot 30 (never written: zeros) into a ready one: 21 -> 42 */
    cr_assert_eq(ebb_move(h, 0, h, 30, &t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ready_of(h).ready_slots, 42);
    /* get of slot 50: 42 -> 84; slot_ptr of 99: 84 -> 100 (the pool's slots) */
    cr_assert_eq(ebb_pool_get(h, 50, out, &t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ready_of(h).ready_slots, 84);
    void *p = NULL;
    cr_assert_eq(ebb_pool_slot_ptr(h, 99, &p), EBB_OK, "%s", ebb_last_error());
    d = ready_of(h);
    cr_assert_eq(d.ready_slots, SLOTS);
    cr_assert_eq(d.ready_bytes, (uint64_t)SLOTS * 8192);
    cr_assert_eq(d.extents, 6);
    /* nothing lost on the way */
    cr_assert_eq(ebb_pool_get(h, 20, out, &t), EBB_OK);
    cr_assert(memcmp(in, out, SIZE) == 0);
    fill_random(in, SIZE, 1);
    cr_assert_eq(ebb_pool_get(h, 2, out, &t), EBB_OK);
    cr_assert(memcmp(in, out, SIZE) == 0);
    cr_assert_eq(ebb_pool_get(h, 0, out, &t), EBB_OK);
    for (int i = 0; i < SIZE; i++)
        cr_assert_eq(out[i], 0, "slot 30 read as zeros");
    ebb_pool_destroy(h);
}

/* The memory of the slots above the ready ones is not there: a pool of
 * 1 GiB with 4 ready slots of 1 MiB holds 4 MiB; storing 20 states, in
 * order, grows it to 32 slots in 4 more extents. A pool made ready whole
 * (ready_slots 0) holds all of it, as before. */
Test(host_ready_extents, resident_follows_ready)
{
    const size_t size = 1 << 20;
    const int32_t slots = 1024;
    ebb_pool *h = lazy_pool(size, slots, 4);
    void *base = slot_ptr(h, 0);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t all = (size_t)slots * size;
    size_t in = resident_pages(base, all) * page;
    cr_assert_geq(in, 4 * size, "the first extent is faulted in (%zu bytes)", in);
    cr_assert_lt(in, 4 * size + (4 << 20), "%zu bytes resident of a 4-slot extent", in);
    unsigned char *state = malloc(size);
    cr_assert_not_null(state);
    ebb_ticket t;
    for (int32_t s = 0; s < 20; s++) {
        fill_random(state, size, (uint64_t)s);
        cr_assert_eq(ebb_pool_put(h, s, state, &t), EBB_OK, "%s", ebb_last_error());
    }
    ebb_host_debug d = ready_of(h);
    cr_assert_eq(d.ready_slots, 32);
    cr_assert_eq(d.extents, 4);
    in = resident_pages(base, all) * page;
    cr_assert_geq(in, 32 * size);
    cr_assert_lt(in, 32 * size + (4 << 20), "%zu bytes resident of 32 ready slots", in);
    for (int32_t s = 0; s < 20; s++) {
        fill_random(state, size, (uint64_t)s);
        cr_assert(memcmp(state, slot_ptr(h, s), size) == 0, "slot %d", (int)s);
    }
    ebb_pool_destroy(h);
    h = lazy_pool(size, slots, 0);
    d = ready_of(h);
    cr_assert_eq(d.ready_slots, slots);
    cr_assert_eq(d.extents, 1);
    cr_assert_eq(resident_pages(slot_ptr(h, 0), all) * page, all);
    ebb_pool_destroy(h);
    free(state);
}

Test(host_ready_extents, negative_ready_slots_refused)
{
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_HOST);
    o.slot_size = 4096;
    o.slots = 4;
    o.ready_slots = -1;
    ebb_pool *h = NULL;
    cr_assert_eq(ebb_pool_create(&o, &h), EBB_ERR_INVALID_ARG);
    cr_assert_null(h);
    cr_assert(strstr(ebb_last_error(), "ready_slots is -1"), "%s", ebb_last_error());
}
