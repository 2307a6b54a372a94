/* ebb_move_via disk -> host -> gpu: each block read is copied on to the gpu
 * at once. With the read's completion held, every block's copy is already
 * queued (and runs) while the gpu leg is still incomplete; random sizes
 * round-trip gpu -> disk -> gpu on both engines with checksums on and off;
 * a failed read and a checksum mismatch fail the gpu leg too and the slots
 * work after; destroying the gpu pool waits for a read that still feeds it. */
#include <pthread.h>
#include <unistd.h>

#include "gpu_mock/chain_helpers.h"

/* A state written to disk slot 0 from gpu slot 0 (through host slot 0). */
static void store(ebb_pool *d, ebb_pool *h, ebb_pool *g, size_t size, uint64_t seed)
{
    ebb_ticket t[2];
    fill_random(slot_ptr(h, 1), size, seed);
    cr_assert_eq(ebb_pool_put(g, 0, slot_ptr(h, 1), &t[0]), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t[0], "put");
    cr_assert_eq(ebb_move_via(d, 0, h, 0, g, 0, t), EBB_OK, "store: %s", ebb_last_error());
    mock_wait_ok(&t[1], "store");
}

static void copies_before_read_ends(ebb_disk_backend backend, int checksum)
{
    enum { M = 6 };
    const size_t block = 16 * KiB, size = M * block - 300;
    chain_pools p;
    chain_open(&p, size, 2, 2, 0, 1, block, backend, checksum, NULL);
    ebb_pool *h = p.h, *g = p.g, *d = p.d;
    store(d, h, g, size, 5 + (uint64_t)backend);
    memset(slot_ptr(g, 1), 0, size);

    cr_assert_eq(ebb_disk_debug_hold(d, 1), EBB_OK); /* the read's completion waits */
    cuda_mock_hold_all();
    ebb_ticket t[2];
    cr_assert_eq(ebb_move_via(g, 1, h, 1, d, 0, t), EBB_OK, "%s", ebb_last_error());
    size_t queued = 0;
    for (int i = 0; i < 5000 && (queued = cuda_mock_pending_touching(slot_ptr(g, 1), size)) < M;
         i++)
        chain_sleep_ms(1);
    cr_assert_eq(queued, (size_t)M,
                 "%s%s: %zu of %d block copies queued before the read ended (it waits for the "
                 "whole read?)",
                 ebb_disk_backend_name(backend), checksum ? " + checksums" : "", queued, M);
    cr_assert_eq(mock_done(&t[1], "gpu leg"), 0, "the gpu leg completed before the read");
    cr_assert_eq(ebb_move(g, 1, h, 0, &t[0]), EBB_ERR_STATE, "the gpu slot looked free");
    cuda_mock_release_all();
    cuda_mock_run_all();
    cr_assert(memcmp(slot_ptr(g, 1), slot_ptr(g, 0), size) == 0,
              "the blocks copied before the read ended differ");
    cr_assert_eq(ebb_disk_debug_hold(d, 0), EBB_OK);
    mock_wait_ok(&t[1], "gpu leg");
    mock_wait_ok(&t[0], "disk leg");
    cr_assert(memcmp(slot_ptr(g, 1), slot_ptr(g, 0), size) == 0);
    chain_close(&p);
}

Test(chain_from_disk, copies_before_read_ends_uring)
{
    copies_before_read_ends(EBB_DISK_BACKEND_URING, 0);
}
Test(chain_from_disk, copies_before_read_ends_uring_checksums)
{
    copies_before_read_ends(EBB_DISK_BACKEND_URING, 1);
}
Test(chain_from_disk, copies_before_read_ends_threads)
{
    copies_before_read_ends(EBB_DISK_BACKEND_THREADS, 0);
}
Test(chain_from_disk, copies_before_read_ends_threads_checksums)
{
    copies_before_read_ends(EBB_DISK_BACKEND_THREADS, 1);
}

/* gpu -> disk -> gpu through chains only, random sizes, several at once. */
Test(chain_from_disk, random_sizes_round_trip)
{
    uint64_t x = 0xfeed;
    for (int c = 0; c < 24; c++) {
        chain_case k = chain_random_case(&x, c);
        chain_pools p;
        chain_open(&p, k.size, k.slots, 2 * k.slots, 0, k.slots, k.block, k.backend, k.checksum,
                   NULL);
        for (int32_t i = 0; i < k.slots; i++) /* mock: device memory is host's */
            fill_random(slot_ptr(p.g, i), k.size, x + (uint64_t)i);
        chain_round_trip(&p, c, &k, NULL);
        chain_close(&p);
    }
}

/* A read error on block 2 (of 4) and then a checksum mismatch in block 1:
 * both legs fail, the gpu leg quoting the read's failure; afterwards the
 * same slots move a state. */
Test(chain_from_disk, failed_read_fails_gpu_leg)
{
    for (int k = 0; k < 2; k++) {
        const size_t block = 16 * KiB, size = 4 * block;
        ebb_storage_fault f = {0};
        f.io_nth = 4 + 3; /* the store's 4 writes, then read block 2 */
        f.io_errno = EIO;
        chain_pools p;
        chain_open(&p, size, 2, 2, 0, 1, block, CHAIN_BACKENDS[k], 1, &f);
        ebb_pool *h = p.h, *g = p.g, *d = p.d;
        store(d, h, g, size, 9);
        ebb_ticket t[2];
        cr_assert_eq(ebb_move_via(g, 1, h, 1, d, 0, t), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(ebb_ticket_wait(&t[1]), EBB_ERR_IO, "%s: the gpu leg of a failed read",
                     ebb_disk_backend_name(CHAIN_BACKENDS[k]));
        const char *msg = ebb_last_error();
        cr_assert(strstr(msg, "disk read this host -> device copy follows failed") &&
                      strstr(msg, "block 2,") && strstr(msg, "Input/output error"),
                  "%s", msg);
        cr_assert_eq(ebb_ticket_wait(&t[0]), EBB_ERR_IO);

        /* a flipped byte in block 1 on disk */
        int fd = -1;
        int64_t off = 0;
        cr_assert_eq(ebb_disk_debug_locate(d, 0, 1, &fd, &off, NULL), EBB_OK);
        unsigned char b;
        cr_assert_eq(pread(fd, &b, 1, off + 10), 1);
        b ^= 0xff;
        cr_assert_eq(pwrite(fd, &b, 1, off + 10), 1);
        cr_assert_eq(ebb_move_via(g, 1, h, 1, d, 0, t), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(ebb_ticket_wait(&t[1]), EBB_ERR_CHECKSUM, "a corrupt block reached the gpu "
                                                               "unreported");
        cr_assert(strstr(ebb_last_error(), "checksum mismatch") &&
                      strstr(ebb_last_error(), "block 1"),
                  "%s", ebb_last_error());
        cr_assert_eq(ebb_ticket_wait(&t[0]), EBB_ERR_CHECKSUM);

        store(d, h, g, size, 10);
        cr_assert_eq(ebb_move_via(g, 1, h, 1, d, 0, t), EBB_OK, "after: %s", ebb_last_error());
        mock_wait_ok(&t[1], "gpu leg after");
        cr_assert(memcmp(slot_ptr(g, 0), slot_ptr(g, 1), size) == 0);
        chain_close(&p);
    }
}

static void *release_later(void *arg)
{
    chain_sleep_ms(100);
    (void)ebb_disk_debug_hold(arg, 0);
    return NULL;
}

/* The gpu pool is destroyed while a read still feeds one of its slots: the
 * destroy waits for the read (the engine would otherwise queue copies on a
 * destroyed stream into freed memory). */
Test(chain_from_disk, gpu_destroy_waits_for_read)
{
    for (int k = 0; k < 2; k++) {
        const size_t block = 16 * KiB, size = 3 * block;
        chain_pools p;
        chain_open(&p, size, 2, 2, 0, 1, block, CHAIN_BACKENDS[k], 0, NULL);
        ebb_pool *h = p.h, *g = p.g, *d = p.d;
        store(d, h, g, size, 11);
        cr_assert_eq(ebb_disk_debug_hold(d, 1), EBB_OK);
        ebb_ticket t[2];
        cr_assert_eq(ebb_move_via(g, 1, h, 1, d, 0, t), EBB_OK, "%s", ebb_last_error());
        pthread_t th;
        cr_assert_eq(pthread_create(&th, NULL, release_later, d), 0);
        ebb_pool_destroy(g);
        int done = 0;
        cr_assert_eq(ebb_ticket_test(&t[0], &done), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(done, 1, "the gpu pool was destroyed before the read that feeds it ended");
        pthread_join(th, NULL);
        ebb_pool_destroy(d);
        ebb_pool_destroy(h);
        rm_tmpdir(p.dir);
    }
}

/* The context dies (a sticky error in another copy) while a read feeds a gpu
 * slot: the gpu leg fails naming the error, the disk leg itself succeeds,
 * and the pools are destroyed cleanly in either order. */
Test(chain_from_disk, sticky_error_mid_read)
{
    for (int k = 0; k < 4; k++) {
        const size_t block = 16 * KiB, size = 4 * block;
        chain_pools p;
        chain_open(&p, size, 2, 2, 0, 1, block, CHAIN_BACKENDS[k % 2], k >= 2, NULL);
        ebb_pool *h = p.h, *g = p.g, *d = p.d;
        store(d, h, g, size, 12);
        cr_assert_eq(ebb_disk_debug_hold(d, 1), EBB_OK);
        cuda_mock_hold_all();
        ebb_ticket t[2], u;
        cr_assert_eq(ebb_move_via(g, 1, h, 1, d, 0, t), EBB_OK, "%s", ebb_last_error());
        /* gpu slot 0 -> host slot 0 fails on the device and kills the context */
        cuda_mock_fail_async(0, cudaErrorIllegalAddress);
        cr_assert_eq(ebb_move(h, 0, g, 0, &u), EBB_OK, "%s", ebb_last_error());
        cuda_mock_release_all();
        (void)ebb_ticket_wait(&u);
        /* the failure goes to the next copy queued: u, or one of the chain's
         * block copies when its engine thread queued one first; run them all */
        cuda_mock_run_all();
        cr_assert_neq(cuda_mock_sticky_error(0), cudaSuccess);
        cr_assert_eq(ebb_disk_debug_hold(d, 0), EBB_OK);
        cr_assert_eq(ebb_ticket_wait(&t[1]), EBB_ERR_IO, "the gpu leg succeeded in a dead context");
        cr_assert(strstr(ebb_last_error(), "cudaErrorIllegalAddress"), "%s", ebb_last_error());
        cr_assert_eq(ebb_ticket_wait(&t[0]), EBB_OK, "%s", ebb_last_error());
        chain_close_dead(&p, k % 2);
    }
}

/* Chains on device 1 only, with device 1 current in the caller's thread:
 * the engine threads that query, copy and record for them create no
 * context on device 0 (a restore of "their" device 0 would, since CUDA 12). */
Test(chain_from_disk, engine_threads_leave_device_0_alone)
{
    cr_assert_geq(ebb_gpu_count(), 2, "run with CUDA_MOCK_DEVICES=2");
    cr_assert_eq(cudaSetDevice(1), cudaSuccess);
    for (int k = 0; k < 4; k++) {
        const size_t block = 16 * KiB, size = 3 * block;
        char dir[64];
        make_tmpdir(dir, sizeof dir);
        ebb_pool *h = pinned_host_pool(1, 2, size);
        ebb_pool *g = gpu_pool(1, 2, size, 0);
        ebb_pool *d = chain_disk(dir, size, 1, block, CHAIN_BACKENDS[k % 2], k >= 2, NULL);
        ebb_ticket t[2];
        fill_random(slot_ptr(g, 0), size, 13);
        cr_assert_eq(ebb_move_via(d, 0, h, 0, g, 0, t), EBB_OK, "%s", ebb_last_error());
        mock_wait_ok(&t[1], "store");
        cr_assert_eq(ebb_move_via(g, 1, h, 1, d, 0, t), EBB_OK, "%s", ebb_last_error());
        mock_wait_ok(&t[1], "restore");
        cr_assert(memcmp(slot_ptr(g, 0), slot_ptr(g, 1), size) == 0);
        ebb_pool_destroy(d);
        ebb_pool_destroy(g);
        ebb_pool_destroy(h);
        rm_tmpdir(dir);
    }
    cr_assert_eq(cuda_mock_contexts_created(0), 0, "a context was created on device 0");
}
