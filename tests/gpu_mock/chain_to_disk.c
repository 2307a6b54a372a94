/* ebb_move_via gpu -> host -> disk: the disk write follows the device ->
 * host copy block by block. With the copy held after k of m blocks, exactly
 * the first k blocks go to disk (not none: pipelined; not more: gated);
 * random sizes round-trip with checksums on and off on both engines; a
 * block whose copy fails fails the disk leg naming it, and the slots work
 * afterwards; a sticky error ends both pools cleanly in either order. */
#include "gpu_mock/chain_helpers.h"

/* m blocks of `block` bytes, the gpu copying block by block (one chunk a
 * block: a copy then the block's event on the stream, two commands each). */
static void held_after(ebb_disk_backend backend, int checksum)
{
    enum { M = 8, K = 3 };
    const size_t block = 16 * KiB, size = M * block - 1000; /* a short last block */
    chain_pools p;
    chain_open(&p, size, 2, 1, block, 1, block, backend, checksum, NULL);
    ebb_pool *h = p.h, *g = p.g, *d = p.d;
    ebb_ticket t[2];
    fill_random(slot_ptr(h, 1), size, 42 + (uint64_t)backend);
    cr_assert_eq(ebb_pool_put(g, 0, slot_ptr(h, 1), &t[0]), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t[0], "put");
    uint64_t before = chain_disk_requests(d);

    cuda_mock_hold_all(); /* nothing runs until the hold below is in place */
    cr_assert_eq(ebb_move_via(d, 0, h, 0, g, 0, t), EBB_OK, "%s", ebb_last_error());
    cudaStream_t s = cuda_mock_last_stream();
    cuda_mock_hold_at(s, 2 * K);
    cuda_mock_release_all();

    /* the first K blocks reach the disk while the rest are held on the gpu */
    uint64_t n = 0;
    for (int i = 0; i < 5000 && (n = chain_disk_requests(d) - before) < K; i++)
        chain_sleep_ms(1);
    cr_assert_eq(n, (uint64_t)K,
                 "%s%s: %llu of the %d blocks that crossed went to disk within 5 s (the write "
                 "waits for the whole copy?)",
                 ebb_disk_backend_name(backend), checksum ? " + checksums" : "",
                 (unsigned long long)n, K);
    chain_sleep_ms(100);
    n = chain_disk_requests(d) - before;
    cr_assert_eq(n, (uint64_t)K, "%s: %llu blocks went to disk, only %d had crossed",
                 ebb_disk_backend_name(backend), (unsigned long long)n, K);
    cr_assert_eq(mock_done(&t[1], "disk leg"), 0, "the disk leg completed with blocks held");
    cr_assert(cuda_mock_pending() > 0);

    cuda_mock_release(s);
    mock_wait_ok(&t[0], "gpu leg");
    mock_wait_ok(&t[1], "disk leg");
    cr_assert_eq(chain_disk_requests(d) - before, (uint64_t)M);
    chain_check_disk(d, 0, h, 1, g, 0, size, "after the hold");
    chain_close(&p);
}

Test(chain_to_disk, held_uring) { held_after(EBB_DISK_BACKEND_URING, 0); }
Test(chain_to_disk, held_uring_checksums) { held_after(EBB_DISK_BACKEND_URING, 1); }
Test(chain_to_disk, held_threads) { held_after(EBB_DISK_BACKEND_THREADS, 0); }
Test(chain_to_disk, held_threads_checksums) { held_after(EBB_DISK_BACKEND_THREADS, 1); }

/* Random slot sizes (not multiples of anything), disk blocks and gpu
 * chunks; several chains in flight at once; both engines, checksums on and
 * off; each disk slot read back and compared with its gpu slot. */
Test(chain_to_disk, random_sizes_round_trip)
{
    uint64_t x = 0x5eed;
    for (int c = 0; c < 24; c++) {
        chain_case k = chain_random_case(&x, c);
        size_t block = k.block, size = k.size;
        size_t chunk = (size_t)(1 + (x >> 45) % 5) * 3 * KiB;
        int32_t slots = k.slots;
        ebb_disk_backend backend = k.backend;
        int checksum = k.checksum;
        chain_pools p;
        chain_open(&p, size, 2 * slots, slots, chunk, slots, block, backend, checksum, NULL);
        ebb_pool *h = p.h, *g = p.g, *d = p.d;
        ebb_ticket t[3][2];
        for (int32_t i = 0; i < slots; i++) {
            fill_random(slot_ptr(h, slots + i), size, x + (uint64_t)i);
            cr_assert_eq(ebb_pool_put(g, i, slot_ptr(h, slots + i), &t[i][0]), EBB_OK);
            mock_wait_ok(&t[i][0], "put");
        }
        for (int32_t i = 0; i < slots; i++)
            cr_assert_eq(ebb_move_via(d, i, h, i, g, i, t[i]), EBB_OK,
                         "case %d (size %zu, block %zu): %s", c, size, block, ebb_last_error());
        for (int32_t i = 0; i < slots; i++) {
            mock_wait_ok(&t[i][0], "gpu leg");
            mock_wait_ok(&t[i][1], "disk leg");
        }
        for (int32_t i = 0; i < slots; i++)
            chain_check_disk(d, i, h, slots + i, g, i, size, "random case");
        chain_close(&p);
    }
}

/* The copy of block 2 fails on the device (an error of its own, not
 * sticky): the disk leg fails naming that block, the disk slot holds no
 * data, and all three slots work for the next chain. */
Test(chain_to_disk, failing_block_named)
{
    for (int k = 0; k < 2; k++) {
        const size_t block = 16 * KiB, size = 6 * block;
        chain_pools p;
        chain_open(&p, size, 2, 1, block, 1, block, CHAIN_BACKENDS[k], 0, NULL);
        ebb_pool *h = p.h, *g = p.g, *d = p.d;
        ebb_ticket t[2];
        fill_random(slot_ptr(h, 1), size, 7);
        cr_assert_eq(ebb_pool_put(g, 0, slot_ptr(h, 1), &t[0]), EBB_OK);
        mock_wait_ok(&t[0], "put");
        cuda_mock_fail_async(2, cudaErrorInvalidValue);
        cr_assert_eq(ebb_move_via(d, 0, h, 0, g, 0, t), EBB_OK, "%s", ebb_last_error());
        (void)ebb_ticket_wait(&t[0]);
        ebb_status st = ebb_ticket_wait(&t[1]);
        cr_assert_eq(st, EBB_ERR_IO, "%s: the failed block was written", ebb_disk_backend_name(CHAIN_BACKENDS[k]));
        const char *msg = ebb_last_error();
        cr_assert(strstr(msg, "block 2 ") && strstr(msg, "gpu -> host") &&
                      strstr(msg, "cudaErrorInvalidValue"),
                  "the message does not name the block and the cause: %s", msg);
        cr_assert_eq(ebb_move(h, 1, d, 0, &t[0]), EBB_ERR_STATE, "the failed write left data");
        cr_assert_eq(ebb_move_via(d, 0, h, 0, g, 0, t), EBB_OK, "slots after: %s", ebb_last_error());
        mock_wait_ok(&t[0], "gpu leg again");
        mock_wait_ok(&t[1], "disk leg again");
        chain_check_disk(d, 0, h, 1, g, 0, size, "after the failure");
        chain_close(&p);
    }
}

/* A sticky error kills the context mid-chain: the disk leg fails with the
 * real cause and destroying the pools, in either order, returns. */
Test(chain_to_disk, sticky_error_ends_cleanly)
{
    for (int order = 0; order < 4; order++) {
        const size_t block = 16 * KiB, size = 5 * block;
        chain_pools p;
        chain_open(&p, size, 2, 1, block, 1, block, CHAIN_BACKENDS[order % 2], order >= 2, NULL);
        ebb_pool *h = p.h, *g = p.g, *d = p.d;
        ebb_ticket t[2];
        cr_assert_eq(ebb_pool_put(g, 0, slot_ptr(h, 1), &t[0]), EBB_OK);
        mock_wait_ok(&t[0], "put");
        cuda_mock_fail_async(1, cudaErrorLaunchFailure);
        cuda_mock_hold_all(); /* the copy fails after the call returned (also in eager mode) */
        cr_assert_eq(ebb_move_via(d, 0, h, 0, g, 0, t), EBB_OK, "%s", ebb_last_error());
        cuda_mock_release_all();
        cr_assert_eq(ebb_ticket_wait(&t[1]), EBB_ERR_IO, "a dead context's copy was written");
        cr_assert(strstr(ebb_last_error(), "cudaErrorLaunchFailure"), "%s", ebb_last_error());
        cr_assert_neq(ebb_ticket_wait(&t[0]), EBB_OK, "the gpu leg succeeded in a dead context");
        chain_close_dead(&p, order % 2);
    }
}

/* One disk slot chained from gpu pools on two devices in turn: its block
 * events are made again for the other device, and every state arrives. */
Test(chain_to_disk, gpu_pools_on_two_devices)
{
    const size_t block = 16 * KiB, size = 3 * block + 5;
    chain_pools p;
    chain_open(&p, size, 2, 1, 0, 1, block, EBB_DISK_BACKEND_AUTO, 0, NULL);
    ebb_pool *g1 = gpu_pool(1, 1, size, 0);
    ebb_pool *gs[3] = {p.g, g1, p.g};
    for (int i = 0; i < 3; i++) {
        ebb_ticket t[2];
        fill_random(slot_ptr(gs[i], 0), size, 100 + (uint64_t)i); /* mock: device memory is host's */
        cr_assert_eq(ebb_move_via(p.d, 0, p.h, 0, gs[i], 0, t), EBB_OK, "%d: %s", i,
                     ebb_last_error());
        mock_wait_ok(&t[1], "disk leg");
        chain_check_disk(p.d, 0, p.h, 1, gs[i], 0, size, i == 1 ? "device 1" : "device 0");
    }
    ebb_pool_destroy(g1);
    chain_close(&p);
}
