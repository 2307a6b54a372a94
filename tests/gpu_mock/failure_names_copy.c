/* A copy that fails on the device is reported by its ticket with the right
 * direction: host -> device, device -> host, or device -> device (gpu -> gpu
 * moves, and put / get with the caller's device memory). The failures are
 * not sticky, so that one context sees all six (sticky ones:
 * sticky_error_ends_cleanly). */
#include "gpu_mock/mock_helpers.h"

static const size_t SIZE = 64 * KiB;

typedef struct rig {
    ebb_pool *h, *g, *g2;
    void *dev; /* the caller's device memory */
} rig;

static void rig_open(rig *r)
{
    r->h = pinned_host_pool(0, 2, SIZE);
    r->g = gpu_pool(0, 1, SIZE, SIZE);
    r->g2 = gpu_pool(0, 1, SIZE, SIZE);
    cr_assert_eq(cudaMalloc(&r->dev, SIZE), cudaSuccess);
}

static void rig_close(rig *r)
{
    ebb_pool_destroy(r->g2);
    ebb_pool_destroy(r->g);
    ebb_pool_destroy(r->h);
    cr_assert_eq(cudaFree(r->dev), cudaSuccess);
}

static void fails_naming(ebb_status s, const ebb_ticket *t, const char *want, const char *what)
{
    cr_assert_eq(s, EBB_OK, "%s: %s", what, ebb_last_error());
    cr_assert_eq(ebb_ticket_wait(t), EBB_ERR_IO, "%s: the failure was lost", what);
    cr_assert(strstr(ebb_last_error(), want) != NULL, "%s: '%s' does not name '%s'", what,
              ebb_last_error(), want);
}

Test(failure_names_copy, every_direction)
{
    rig r;
    rig_open(&r);
    ebb_ticket t;
    cuda_mock_fail_async(0, cudaErrorUnknown);
    fails_naming(ebb_move(r.g, 0, r.h, 0, &t), &t, "host -> device copy", "host -> gpu");
    cuda_mock_fail_async(0, cudaErrorUnknown);
    fails_naming(ebb_move(r.h, 1, r.g, 0, &t), &t, "device -> host copy", "gpu -> host");
    cuda_mock_fail_async(0, cudaErrorUnknown);
    fails_naming(ebb_move(r.g2, 0, r.g, 0, &t), &t, "device -> device copy", "gpu -> gpu");
    cuda_mock_fail_async(0, cudaErrorUnknown);
    fails_naming(ebb_pool_put(r.g, 0, r.dev, &t), &t, "device -> device copy",
                 "put from device memory");
    cuda_mock_fail_async(0, cudaErrorUnknown);
    fails_naming(ebb_pool_get(r.g, 0, r.dev, &t), &t, "device -> device copy",
                 "get into device memory");
    cuda_mock_fail_async(0, cudaErrorUnknown);
    fails_naming(ebb_pool_get(r.g, 0, slot_ptr(r.h, 1), &t), &t, "device -> host copy",
                 "get into pinned memory");
    rig_close(&r);
}
