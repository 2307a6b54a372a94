/* Two host -> gpu copies (two gpu pools, two streams) read one host slot.
 * The first is held on its stream; the second runs. The host slot must stay
 * protected until both finished: a write into it (a put) is refused, and
 * the second copy's ticket does not complete before the first copy did. The
 * held stream reaches the interleaving that random scheduling seldom does. */
#include "gpu_mock/mock_helpers.h"

static const size_t SIZE = 256 * KiB;

Test(host_slot_two_readers, slot_protected_until_both_read_it)
{
    cuda_mock_set_mode(CUDA_MOCK_LAZY); /* holds decide the interleaving */
    cuda_mock_set_step_probability(0);
    ebb_pool *h = pinned_host_pool(0, 1, SIZE);
    ebb_pool *a = gpu_pool(0, 1, SIZE, 64 * KiB);
    ebb_pool *b = gpu_pool(0, 1, SIZE, 64 * KiB);
    unsigned char *x = malloc(SIZE), *y = malloc(SIZE);
    cr_assert(x && y);
    fill_random(x, SIZE, 10);
    fill_random(y, SIZE, 11);
    memcpy(slot_ptr(h, 0), x, SIZE);
    ebb_ticket ta, tb, tp;
    cuda_mock_hold_all();
    cr_assert_eq(ebb_move(a, 0, h, 0, &ta), EBB_OK, "%s", ebb_last_error());
    cudaStream_t sa = cuda_mock_last_stream();
    cr_assert_eq(ebb_move(b, 0, h, 0, &tb), EBB_OK, "%s", ebb_last_error());
    cr_assert_neq(cuda_mock_last_stream(), sa);
    cuda_mock_release_all();
    cuda_mock_hold(sa);
    cuda_mock_run_all();
    cr_assert(memcmp(slot_ptr(b, 0), x, SIZE) == 0, "the second copy did not run");
    cr_assert(!mock_done(&tb, "second reader"),
              "the second reader's ticket completed while the first still reads the slot");
    mock_refused(ebb_pool_put(h, 0, y, &tp), "in use by a host -> gpu copy",
                 "a put into the slot the first copy still reads");
    cuda_mock_release(sa);
    mock_wait_ok(&ta, "first reader");
    mock_wait_ok(&tb, "second reader");
    cr_assert(memcmp(slot_ptr(a, 0), x, SIZE) == 0, "the first copy read an overwritten slot");
    cr_assert_eq(ebb_pool_put(h, 0, y, &tp), EBB_OK, "%s", ebb_last_error());
    ebb_pool_destroy(b);
    ebb_pool_destroy(a);
    ebb_pool_destroy(h);
    free(x);
    free(y);
}
