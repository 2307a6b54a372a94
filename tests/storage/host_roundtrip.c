/* Host tier: page-aligned slots; put/get and host -> host moves keep the data. */
#include "storage/helpers.h"

Test(host, put_get_and_move_roundtrip)
{
    const size_t size = 3 * MiB + 123;
    ebb_pool *h = host_pool(size, 4);
    ebb_pool_info info;
    cr_assert_eq(ebb_pool_info_get(h, &info), EBB_OK);
    cr_assert_str_eq(info.backend, "memory");
    cr_assert_eq(info.slot_size, size);
    cr_assert_eq(info.slot_stride % 4096, 0);
    cr_assert_geq(info.slot_stride, size);
    for (int32_t i = 0; i < 4; i++)
        cr_assert_eq((uintptr_t)slot_ptr(h, i) % 4096, 0, "slot %d is not page-aligned", i);
    if (ebb_gpu_count() == 0) {
        cr_assert_eq(info.pinned, 0);
        cr_assert(strstr(info.warnings, "not pinned") != NULL, "warnings: '%s'", info.warnings);
    }

    unsigned char *in = malloc(size), *out = malloc(size);
    fill_random(in, size, 1);
    ebb_ticket t;
    cr_assert_eq(ebb_pool_put(h, 1, in, &t), EBB_OK, "%s", ebb_last_error());
    cr_assert_null(t.pool, "a host put completes at once");
    cr_assert_eq(ebb_move(h, 3, h, 1, &t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_pool_get(h, 3, out, &t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK);
    cr_assert(memcmp(in, out, size) == 0);

    ebb_pool_stats st;
    cr_assert_eq(ebb_pool_stats_get(h, &st), EBB_OK);
    cr_assert_eq(st.writes, 2); /* the put and the move into slot 3 */
    cr_assert_eq(st.reads, 2);  /* the move out of slot 1 and the get */
    cr_assert_eq(st.bytes_written, 2 * size);
    ebb_pool_stats_reset(h);
    ebb_pool_stats_get(h, &st);
    cr_assert_eq(st.writes + st.reads + st.bytes_read, 0);
    free(in);
    free(out);
    ebb_pool_destroy(h);
}

Test(host, numa_node_that_does_not_exist_is_refused)
{
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_HOST);
    o.slot_size = 4096;
    o.slots = 1;
    o.numa_node = 999;
    ebb_pool *p = NULL;
    ebb_status s = ebb_pool_create(&o, &p);
    if (s == EBB_OK) {
        /* hwloc could not tell (no topology): then the pool must say so. */
        ebb_pool_info info;
        ebb_pool_info_get(p, &info);
        cr_assert(strstr(info.warnings, "NUMA node 999") != NULL, "warnings: '%s'", info.warnings);
        ebb_pool_destroy(p);
        return;
    }
    cr_assert_eq(s, EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "NUMA node 999 does not exist") != NULL, "%s",
              ebb_last_error());
    cr_assert_null(p);
}
