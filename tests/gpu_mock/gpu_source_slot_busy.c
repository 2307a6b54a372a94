/* A gpu -> gpu copy reads its source slot on the destination pool's stream.
 * While it is in flight the source slot may be read (get, gpu -> host,
 * another gpu -> gpu from it) but not written (put, host -> gpu, gpu -> gpu
 * into it): EBB_ERR_STATE. Once its ticket completed the slot takes writes
 * again, and the copy's data is intact. Destroying the source pool first
 * waits for the copies that read it. The mock holds the streams, so "in
 * flight" is certain. */
#include "gpu_mock/mock_helpers.h"

static const size_t SIZE = 1 * MiB + 333;
static const char *WANT = "gpu slot 0 is being read by a gpu -> gpu copy still in flight";

Test(gpu_source_slot_busy, writes_refused_reads_allowed_while_read)
{
    ebb_pool *h = pinned_host_pool(0, 3, SIZE);
    ebb_pool *a = gpu_pool(0, 2, SIZE, 256 * KiB);
    ebb_pool *b = gpu_pool(0, 1, SIZE, 256 * KiB);
    ebb_pool *c = gpu_pool(0, 1, SIZE, 256 * KiB);
    unsigned char *x = malloc(SIZE);
    cr_assert_not_null(x);
    fill_random(x, SIZE, 7);
    memcpy(slot_ptr(h, 0), x, SIZE);
    fill_random(slot_ptr(h, 1), SIZE, 8);
    ebb_ticket t, u, w;
    cr_assert_eq(ebb_move(a, 0, h, 0, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "host -> gpu a 0");

    cuda_mock_hold_all();
    cr_assert_eq(ebb_move(b, 0, a, 0, &t), EBB_OK, "gpu a 0 -> gpu b 0: %s", ebb_last_error());
    /* writes into a's slot 0 */
    mock_refused(ebb_pool_put(a, 0, slot_ptr(h, 1), &u), WANT, "put into the source slot");
    mock_refused(ebb_move(a, 0, h, 1, &u), WANT, "host -> gpu into the source slot");
    mock_refused(ebb_move(a, 0, c, 0, &u), WANT, "gpu -> gpu into the source slot");
    /* reads of it, and use of a's other slot */
    cr_assert_eq(ebb_move(h, 2, a, 0, &u), EBB_OK, "gpu -> host from it: %s", ebb_last_error());
    cr_assert_eq(ebb_move(c, 0, a, 0, &w), EBB_OK, "gpu -> gpu from it: %s", ebb_last_error());
    cr_assert_eq(ebb_move(a, 1, h, 1, &w), EBB_OK, "a's other slot: %s", ebb_last_error());
    cuda_mock_release_all();
    mock_wait_ok(&t, "gpu a 0 -> gpu b 0");
    mock_wait_ok(&u, "gpu a 0 -> host 2");
    mock_wait_ok(&w, "host 1 -> gpu a 1");
    /* c's copy (a second reader) may still run: writes wait for it too */
    cr_assert(memcmp(slot_ptr(b, 0), x, SIZE) == 0, "gpu -> gpu copy corrupted");
    cr_assert(memcmp(slot_ptr(h, 2), x, SIZE) == 0, "gpu -> host copy corrupted");
    cuda_mock_run_all();

    /* done: writes are accepted again */
    cr_assert_eq(ebb_pool_put(a, 0, slot_ptr(h, 1), &u), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&u, "put after the reader completed");
    cr_assert(memcmp(slot_ptr(a, 0), slot_ptr(h, 1), SIZE) == 0);
    cr_assert(memcmp(slot_ptr(c, 0), x, SIZE) == 0, "second reader corrupted");
    ebb_pool_destroy(c);
    ebb_pool_destroy(b);
    ebb_pool_destroy(a);
    ebb_pool_destroy(h);
    free(x);
}

/* Two readers on different streams: the slot stays protected until both
 * completed, whichever finishes first. */
Test(gpu_source_slot_busy, two_readers_both_protect)
{
    ebb_pool *h = pinned_host_pool(0, 2, SIZE);
    ebb_pool *a = gpu_pool(0, 1, SIZE, SIZE);
    ebb_pool *b = gpu_pool(0, 1, SIZE, SIZE);
    ebb_pool *c = gpu_pool(0, 1, SIZE, SIZE);
    fill_random(slot_ptr(h, 0), SIZE, 9);
    ebb_ticket t, tb, tc;
    cr_assert_eq(ebb_move(a, 0, h, 0, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "host -> gpu");
    cuda_mock_hold_all();
    cr_assert_eq(ebb_move(b, 0, a, 0, &tb), EBB_OK, "%s", ebb_last_error());
    cudaStream_t sb = cuda_mock_last_stream();
    cr_assert_eq(ebb_move(c, 0, a, 0, &tc), EBB_OK, "%s", ebb_last_error());
    cuda_mock_release_all();
    cuda_mock_hold(cuda_mock_last_stream()); /* c's copy stays in flight */
    cr_assert_neq(sb, cuda_mock_last_stream());
    mock_wait_ok(&tb, "first reader");
    mock_refused(ebb_pool_put(a, 0, slot_ptr(h, 1), &t), WANT, "put with one reader left");
    cuda_mock_release_all();
    mock_wait_ok(&tc, "second reader");
    cr_assert_eq(ebb_pool_put(a, 0, slot_ptr(h, 1), &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "put");
    ebb_pool_destroy(c);
    ebb_pool_destroy(b);
    ebb_pool_destroy(a);
    ebb_pool_destroy(h);
}

/* Destroying the source pool while a copy still reads its memory waits for
 * the copy (the mock aborts if memory under a pending copy is freed). */
Test(gpu_source_slot_busy, destroying_the_source_waits_for_readers)
{
    cuda_mock_set_mode(CUDA_MOCK_LAZY);
    cuda_mock_set_step_probability(0);
    ebb_pool *h = pinned_host_pool(0, 1, SIZE);
    ebb_pool *a = gpu_pool(0, 1, SIZE, 256 * KiB);
    ebb_pool *b = gpu_pool(0, 1, SIZE, 256 * KiB);
    unsigned char *x = malloc(SIZE);
    cr_assert_not_null(x);
    fill_random(x, SIZE, 10);
    memcpy(slot_ptr(h, 0), x, SIZE);
    ebb_ticket t;
    cr_assert_eq(ebb_move(a, 0, h, 0, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "host -> gpu");
    cr_assert_eq(ebb_move(b, 0, a, 0, &t), EBB_OK, "%s", ebb_last_error());
    cr_assert_gt(cuda_mock_pending(), 0, "the copy should still be queued");
    ebb_pool_destroy(a);
    mock_wait_ok(&t, "gpu -> gpu after the source pool was destroyed");
    cr_assert(memcmp(slot_ptr(b, 0), x, SIZE) == 0);
    ebb_pool_destroy(b);
    ebb_pool_destroy(h);
    free(x);
}

/* Across devices the source slot cannot be tracked (an event is recorded on
 * a stream of its own device): the copy still works. */
Test(gpu_source_slot_busy, across_devices_the_copy_works)
{
    cuda_mock_set_devices(2);
    ebb_pool *h = pinned_host_pool(0, 2, SIZE);
    ebb_pool *a = gpu_pool(0, 1, SIZE, 256 * KiB);
    ebb_pool *b = gpu_pool(1, 1, SIZE, 256 * KiB);
    fill_random(slot_ptr(h, 0), SIZE, 11);
    ebb_ticket t;
    cr_assert_eq(ebb_move(a, 0, h, 0, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "host -> gpu");
    cr_assert_eq(ebb_move(b, 0, a, 0, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "gpu 0 -> gpu 1");
    cr_assert(memcmp(slot_ptr(b, 0), slot_ptr(h, 0), SIZE) == 0);
    ebb_pool_destroy(b);
    ebb_pool_destroy(a);
    ebb_pool_destroy(h);
}
