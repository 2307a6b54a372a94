/* A copy that fails on the device after it was queued, whose ticket nobody
 * tested: the next operation on that gpu slot is refused once with the
 * failure (EBB_ERR_STATE, naming it), and the one after goes ahead. Only a
 * failure that is not sticky leaves the context usable for that (with a
 * sticky one nothing recovers: sticky_error_ends_cleanly). */
#include "gpu_mock/mock_helpers.h"

static const size_t SIZE = 64 * KiB;

Test(async_failure_reported_once, untested_failure_refuses_the_next_operation_once)
{
    ebb_pool *h = pinned_host_pool(0, 2, SIZE);
    ebb_pool *g = gpu_pool(0, 1, SIZE, SIZE);
    fill_random(slot_ptr(h, 0), SIZE, 1);
    ebb_ticket t;
    cuda_mock_fail_async(0, cudaErrorUnknown);
    cr_assert_eq(ebb_move(g, 0, h, 0, &t), EBB_OK, "%s", ebb_last_error());
    cuda_mock_run_all(); /* it fails; its ticket is never tested */
    cr_assert_eq(ebb_move(h, 1, g, 0, &t), EBB_ERR_STATE, "the failure was lost");
    cr_assert(strstr(ebb_last_error(), "previous operation failed") != NULL, "%s",
              ebb_last_error());
    cr_assert(strstr(ebb_last_error(), "cudaErrorUnknown") != NULL, "%s", ebb_last_error());
    cr_assert(strstr(ebb_last_error(), "host -> device") != NULL, "%s", ebb_last_error());
    ebb_pool_stats st;
    ebb_pool_stats_get(g, &st);
    cr_assert_eq(st.errors, 1);
    /* reported once: the next attempt goes ahead */
    cr_assert_eq(ebb_move(g, 0, h, 0, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "host -> gpu again");
    cr_assert_eq(ebb_move(h, 1, g, 0, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "gpu -> host");
    cr_assert(memcmp(slot_ptr(h, 0), slot_ptr(h, 1), SIZE) == 0);
    ebb_pool_destroy(g);
    ebb_pool_destroy(h);
}

/* A failure that its ticket reported is not reported a second time. */
Test(async_failure_reported_once, tested_failure_is_not_repeated)
{
    ebb_pool *h = pinned_host_pool(0, 2, SIZE);
    ebb_pool *g = gpu_pool(0, 1, SIZE, SIZE);
    ebb_ticket t;
    cuda_mock_fail_async(0, cudaErrorUnknown);
    cr_assert_eq(ebb_move(g, 0, h, 0, &t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_ticket_wait(&t), EBB_ERR_IO);
    cr_assert(strstr(ebb_last_error(), "cudaErrorUnknown") != NULL, "%s", ebb_last_error());
    cr_assert_eq(ebb_move(g, 0, h, 0, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "host -> gpu again");
    ebb_pool_destroy(g);
    ebb_pool_destroy(h);
}
