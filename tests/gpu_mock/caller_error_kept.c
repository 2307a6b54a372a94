/* The library never clears a CUDA error the caller's own code left pending:
 * after moves, puts, gets and ticket tests (in flight or done),
 * cudaGetLastError still returns the caller's error. Should the runtime
 * make cudaErrorNotReady the last error (it overwrites the caller's then),
 * the library leaves no cudaErrorNotReady behind. */
#include "gpu_mock/mock_helpers.h"

static const size_t SIZE = 64 * KiB;
static int notready_overwrites;

static void expect_kept(const char *what)
{
    cudaError_t e = cudaPeekAtLastError();
    if (notready_overwrites)
        cr_assert(e == cudaErrorInvalidDevice || e == cudaSuccess,
                  "%s left CUDA error %d pending", what, (int)e);
    else
        cr_assert_eq(e, cudaErrorInvalidDevice,
                     "%s cleared the caller's pending CUDA error (now %d)", what, (int)e);
}

static void check(int notready_sets_last)
{
    cuda_mock_notready_sets_last_error(notready_sets_last);
    notready_overwrites = notready_sets_last;
    ebb_pool *h = pinned_host_pool(0, 2, SIZE);
    ebb_pool *g = gpu_pool(0, 2, SIZE, 16 * KiB);
    fill_random(slot_ptr(h, 0), SIZE, 1);
    ebb_ticket t;
    cr_assert_eq(ebb_move(g, 0, h, 0, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "host -> gpu");

    /* the caller's own failure, left pending */
    cr_assert_eq(cudaSetDevice(99), cudaErrorInvalidDevice);
    expect_kept("nothing");
    cuda_mock_hold_all();
    cr_assert_eq(ebb_move(h, 1, g, 0, &t), EBB_OK, "%s", ebb_last_error());
    expect_kept("ebb_move gpu -> host");
    int done = 1;
    cr_assert_eq(ebb_ticket_test(&t, &done), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(done, 0);
    expect_kept("ebb_ticket_test of a copy in flight");
    ebb_ticket u;
    cr_assert_eq(ebb_move(g, 1, g, 0, &u), EBB_OK, "%s", ebb_last_error());
    expect_kept("ebb_move gpu -> gpu");
    /* a busy slot is refused, and the refusal leaves the error alone too */
    ebb_ticket refused;
    cr_assert_eq(ebb_pool_put(g, 1, slot_ptr(h, 0), &refused), EBB_ERR_STATE);
    expect_kept("a refused put");
    cuda_mock_release_all();
    mock_wait_ok(&t, "gpu -> host");
    mock_wait_ok(&u, "gpu -> gpu");
    expect_kept("ebb_ticket_wait");
    cr_assert_eq(ebb_pool_put(g, 1, slot_ptr(h, 0), &u), EBB_OK, "%s", ebb_last_error());
    expect_kept("ebb_pool_put");
    mock_wait_ok(&u, "put");
    cr_assert_eq(ebb_pool_get(g, 1, slot_ptr(h, 1), &u), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&u, "get");
    expect_kept("ebb_pool_get");
    ebb_pool_destroy(g);
    ebb_pool_destroy(h);
    expect_kept("ebb_pool_destroy");
    if (!notready_overwrites)
        cr_assert_eq(cudaGetLastError(), cudaErrorInvalidDevice);
}

Test(caller_error_kept, not_ready_is_not_a_last_error)
{
    check(0);
}

Test(caller_error_kept, not_ready_is_a_last_error)
{
    check(1);
}
