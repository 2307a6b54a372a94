/* Without a GPU (or without CUDA in the build) the gpu tier says it is
 * unavailable, clearly, and everything else keeps working. */
#include "storage/helpers.h"

Test(device, unavailable_without_gpu)
{
    if (ebb_gpu_count() > 0)
        cr_skip_test("a CUDA device is present: tier_pairs/gpu_pairs covers it");
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_GPU);
    cr_assert_eq(o.block, 64 * MiB, "gpu copy chunks default to 64 MiB");
    o.slot_size = 1 * MiB;
    o.slots = 2;
    ebb_pool *g = (ebb_pool *)0x1;
    cr_assert_eq(ebb_pool_create(&o, &g), EBB_ERR_UNSUPPORTED);
    cr_assert_null(g);
    const char *msg = ebb_last_error();
    cr_assert(strstr(msg, "no CUDA device") != NULL || strstr(msg, "built without CUDA") != NULL,
              "%s", msg);
    cr_assert(strstr(msg, "without the gpu tier") != NULL, "%s", msg);

    int node = 5;
    cr_assert_eq(ebb_topology_gpu_node(0, &node), EBB_OK);
    cr_assert_eq(node, -1);

    /* The host tier still works, unpinned, and says so. */
    ebb_pool *h = host_pool(64 * KiB, 1);
    ebb_pool_info info;
    ebb_pool_info_get(h, &info);
    cr_assert_eq(info.pinned, 0);
    cr_assert(strstr(info.warnings, "not pinned: no CUDA device") != NULL, "%s", info.warnings);
    ebb_ticket t;
    ebb_pool_put(h, 0, slot_ptr(h, 0), &t);
    cr_assert_eq(ebb_ticket_stream_wait(&t, NULL), EBB_OK, "a complete ticket needs no wait");
    cr_assert_eq(ebb_pool_order_after(h, NULL), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "only gpu pools") != NULL, "%s", ebb_last_error());
    ebb_pool_destroy(h);
}
