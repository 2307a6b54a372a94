/* ebb_move_via with a compressing disk pool: gpu -> host -> disk waits for
 * the whole state to cross (with the copy held after k of m blocks nothing
 * goes to disk), then compresses it; disk -> host -> gpu copies the state
 * on once it is decompressed; random sizes and data (compressible and not,
 * so packed and raw slots) round-trip gpu -> disk -> gpu bitwise on both
 * engines with checksums on and off; a failed gpu copy fails the disk leg
 * naming the block, and the slots work afterwards. */
#include "codec/data.h"
#include "gpu_mock/chain_helpers.h"

static ebb_pool *codec_chain_disk(const char *dir, size_t size, int32_t slots, size_t block,
                                  ebb_disk_backend backend, int checksum)
{
    const char *dirs[1] = {dir};
    ebb_codec_options c;
    ebb_codec_options_init(&c);
    c.mode = EBB_COMPRESSION_LOSSLESS;
    ebb_pool_options o;
    disk_options(&o, dirs, 1, size, slots, backend);
    o.block = block;
    o.checksum = checksum;
    o.direct = 0;
    o.compression = &c;
    o.codec_threads = 2;
    ebb_storage_fault f = {0};
    f.codec_always_pays = 1; /* compressed whatever the machine's speed */
    return create_or_skip(&o, &f);
}

static void open_codec(chain_pools *p, size_t size, int32_t host_slots, int32_t gpu_slots,
                       size_t gpu_chunk, int32_t disk_slots, size_t block,
                       ebb_disk_backend backend, int checksum)
{
    make_tmpdir(p->dir, sizeof p->dir);
    p->h = pinned_host_pool(0, host_slots, size);
    p->g = gpu_pool(0, gpu_slots, size, gpu_chunk);
    p->d = codec_chain_disk(p->dir, size, disk_slots, block, backend, checksum);
}

static void held_whole(ebb_disk_backend backend, int checksum)
{
    enum { M = 8, K = 3 };
    const size_t block = 16 * KiB, size = M * block - 1000;
    chain_pools p;
    open_codec(&p, size, 2, 1, block, 1, block, backend, checksum);
    ebb_pool *h = p.h, *g = p.g, *d = p.d;
    ebb_ticket t[2];
    fill_data(slot_ptr(h, 1), size, EBB_ELEMENT_BYTES, DATA_SPARSE, 42);
    cr_assert_eq(ebb_pool_put(g, 0, slot_ptr(h, 1), &t[0]), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t[0], "put");
    uint64_t before = chain_disk_requests(d);

    cuda_mock_hold_all();
    cr_assert_eq(ebb_move_via(d, 0, h, 0, g, 0, t), EBB_OK, "%s", ebb_last_error());
    cudaStream_t s = cuda_mock_last_stream();
    cuda_mock_hold_at(s, 2 * K);
    cuda_mock_release_all();
    chain_sleep_ms(150);
    cr_assert_eq(chain_disk_requests(d) - before, 0,
                 "%s%s: blocks went to disk before the whole state crossed",
                 ebb_disk_backend_name(backend), checksum ? " + checksums" : "");
    cr_assert_eq(mock_done(&t[1], "disk leg"), 0, "the disk leg completed with blocks held");

    cuda_mock_release(s);
    mock_wait_ok(&t[0], "gpu leg");
    mock_wait_ok(&t[1], "disk leg");
    uint64_t n = chain_disk_requests(d) - before;
    cr_assert(n >= 1 && n < M, "%llu requests for a state that compresses to fewer blocks",
              (unsigned long long)n);
    ebb_pool_stats st;
    ebb_pool_stats_get(d, &st);
    cr_assert_eq(st.stored_raw, 0);
    cr_assert_lt(st.bytes_after_compression, size / 2);
    chain_check_disk(d, 0, h, 1, g, 0, size, "compressed, after the hold");
    chain_close(&p);
}

Test(chain_compressed, held_uring) { held_whole(EBB_DISK_BACKEND_URING, 0); }
Test(chain_compressed, held_uring_checksums) { held_whole(EBB_DISK_BACKEND_URING, 1); }
Test(chain_compressed, held_threads) { held_whole(EBB_DISK_BACKEND_THREADS, 0); }
Test(chain_compressed, held_threads_checksums) { held_whole(EBB_DISK_BACKEND_THREADS, 1); }

/* gpu -> disk -> gpu through chains only, several at once. */
Test(chain_compressed, random_round_trip)
{
    uint64_t x = 0xc0dec;
    for (int c = 0; c < 16; c++) {
        chain_case k = chain_random_case(&x, c);
        chain_pools p;
        open_codec(&p, k.size, k.slots, 2 * k.slots, 0, k.slots, k.block, k.backend, k.checksum);
        const char *data[3];
        for (int32_t i = 0; i < k.slots; i++) { /* mock: device memory is host's */
            data_kind kind = (data_kind)((c + i) % 3);
            fill_data(slot_ptr(p.g, i), k.size, EBB_ELEMENT_BYTES, kind, x + (uint64_t)i);
            data[i] = data_name(kind);
        }
        chain_round_trip(&p, c, &k, data);
        chain_close(&p);
    }
}

/* The copy of block 2 fails: the disk leg fails naming it, nothing was
 * compressed or written, and the slots work for the next chain. */
Test(chain_compressed, failing_block_named)
{
    for (int k = 0; k < 2; k++) {
        const size_t block = 16 * KiB, size = 6 * block;
        chain_pools p;
        open_codec(&p, size, 2, 1, block, 1, block, CHAIN_BACKENDS[k], k);
        ebb_pool *h = p.h, *g = p.g, *d = p.d;
        ebb_ticket t[2];
        fill_data(slot_ptr(h, 1), size, EBB_ELEMENT_BYTES, DATA_SMOOTH, 7);
        cr_assert_eq(ebb_pool_put(g, 0, slot_ptr(h, 1), &t[0]), EBB_OK);
        mock_wait_ok(&t[0], "put");
        uint64_t before = chain_disk_requests(d);
        cuda_mock_fail_async(2, cudaErrorInvalidValue);
        cr_assert_eq(ebb_move_via(d, 0, h, 0, g, 0, t), EBB_OK, "%s", ebb_last_error());
        (void)ebb_ticket_wait(&t[0]);
        cr_assert_eq(ebb_ticket_wait(&t[1]), EBB_ERR_IO, "the failed state was written");
        const char *msg = ebb_last_error();
        cr_assert(strstr(msg, "block 2 ") && strstr(msg, "cudaErrorInvalidValue"), "%s", msg);
        cr_assert_eq(chain_disk_requests(d), before, "a state that never crossed was written");
        cr_assert_eq(ebb_move(h, 1, d, 0, &t[0]), EBB_ERR_STATE, "the failed write left data");
        ebb_pool_stats st;
        ebb_pool_stats_get(d, &st);
        cr_assert_eq(st.errors, 1);
        cr_assert_eq(st.bytes_before_compression, 0);
        cr_assert_eq(ebb_move_via(d, 0, h, 0, g, 0, t), EBB_OK, "slots after: %s",
                     ebb_last_error());
        mock_wait_ok(&t[0], "gpu leg again");
        mock_wait_ok(&t[1], "disk leg again");
        chain_check_disk(d, 0, h, 1, g, 0, size, "after the failure");
        chain_close(&p);
    }
}
