/* The codec threads' spans (storage/codec_trace.h): nothing is recorded
 * until recording starts; then each compression and decompression of a
 * disk pool's and of a compressed host pool's codec threads is a span, in
 * order and not overlapping on its thread, naming its slot and its ticket's
 * generation; a ring that fills drops spans and counts them (never waits),
 * so the spans taken plus those dropped are the codec runs the pool counts. */
#include "storage/codec_helpers.h"
#include "storage/codec_trace.h"

enum { THREADS = 2, STATES = 12 };

/* Takes every span of every thread: checks each thread's order, returns the
 * spans (compress, decompress) and adds the dropped. */
static void take_all(ebb_pool *p, int32_t threads, size_t size, int64_t *compress,
                     int64_t *decompress, uint64_t *dropped)
{
    for (int32_t i = 0; i < threads; i++) {
        ebb_codec_span s[64];
        int32_t n = 0;
        uint64_t d = 0;
        cr_assert_eq(ebb_pool_codec_spans(p, i, s, 64, &n, &d), EBB_OK, "%s", ebb_last_error());
        *dropped += d;
        for (int32_t k = 0; k < n; k++) {
            cr_assert_leq(s[k].t0_ns, s[k].t1_ns);
            if (k > 0)
                cr_assert_leq(s[k - 1].t1_ns, s[k].t0_ns, "thread %d: spans %d and %d overlap",
                              (int)i, (int)k - 1, (int)k);
            cr_assert_eq(s[k].state_bytes, size);
            cr_assert(s[k].slot >= 0 && s[k].slot < STATES);
            cr_assert_eq(s[k].failed, 0);
            *(s[k].compress ? compress : decompress) += 1;
        }
    }
}

/* STATES states stored and loaded back through pool `c` (disk: staging
 * through h; host: a compressed host pool), with `capacity` spans a thread. */
static void spans_of(int disk, int32_t capacity)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    size_t size = 64 * KiB;
    ebb_pool *h = host_pool(size, 2 * STATES);
    /* a fixed rate: every state is compressed (a lossless disk may store
     * some raw without a try where compressing does not pay) */
    ebb_codec_options co = codec_opts(EBB_COMPRESSION_FIXED_RATE, EBB_ELEMENT_FLOAT64);
    ebb_pool *c;
    if (disk) {
        c = codec_disk(dirs, size, STATES, EBB_DISK_BACKEND_THREADS, 0, 64 * KiB, &co, THREADS, h);
    } else {
        ebb_pool_options o;
        ebb_pool_options_init(&o, EBB_TIER_HOST);
        o.slot_size = size;
        o.slots = STATES;
        o.compression = &co;
        o.codec_threads = THREADS;
        cr_assert_eq(ebb_pool_create(&o, &c), EBB_OK, "%s", ebb_last_error());
    }
    /* before recording starts: nothing to take */
    ebb_codec_span none[4];
    int32_t n = -1;
    uint64_t dropped = 1;
    cr_assert_eq(ebb_pool_codec_spans(c, 0, none, 4, &n, &dropped), EBB_OK);
    cr_assert_eq(n, 0);
    cr_assert_eq(dropped, 0);
    int32_t threads = 0;
    cr_assert_eq(ebb_pool_codec_trace_start(c, 0, &threads), EBB_ERR_INVALID_ARG);
    cr_assert_eq(ebb_pool_codec_trace_start(c, capacity, &threads), EBB_OK, "%s",
                 ebb_last_error());
    cr_assert_eq(threads, THREADS);
    int32_t again = 0;
    cr_assert_eq(ebb_pool_codec_trace_start(c, capacity, &again), EBB_ERR_STATE);
    uint64_t rng = 7;
    ebb_ticket t[STATES];
    for (int k = 0; k < STATES; k++) {
        fill_data(slot_ptr(h, k), size, EBB_ELEMENT_FLOAT64, DATA_SMOOTH, rng_next(&rng));
        cr_assert_eq(ebb_move(c, k, h, k, &t[k]), EBB_OK, "%s", ebb_last_error());
    }
    cr_assert_eq(ebb_ticket_wait_all(t, STATES), EBB_OK, "%s", ebb_last_error());
    for (int k = 0; k < STATES; k++)
        cr_assert_eq(ebb_move(h, STATES + k, c, k, &t[k]), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_ticket_wait_all(t, STATES), EBB_OK, "%s", ebb_last_error());
    int64_t compress = 0, decompress = 0;
    dropped = 0;
    take_all(c, threads, size, &compress, &decompress, &dropped);
    ebb_pool_stats st;
    ebb_pool_stats_get(c, &st);
    cr_assert_eq(st.compressions, STATES, "%llu compressions", (unsigned long long)st.compressions);
    cr_assert_eq(st.decompressions, STATES);
    cr_assert_eq((uint64_t)(compress + decompress) + dropped, 2 * STATES,
                 "%lld spans + %llu dropped for %d codec runs", (long long)(compress + decompress),
                 (unsigned long long)dropped, 2 * STATES);
    cr_assert_leq(compress + decompress, (int64_t)THREADS * capacity);
    if (capacity >= 2 * STATES)
        cr_assert_eq(dropped, 0);
    else /* more runs than the rings hold, none taken meanwhile */
        cr_assert_gt(dropped, 0);
    /* taken: nothing left, nothing dropped since */
    compress = decompress = 0;
    dropped = 0;
    take_all(c, threads, size, &compress, &decompress, &dropped);
    cr_assert_eq(compress + decompress + (int64_t)dropped, 0);
    ebb_pool_destroy(c);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(codec_trace_ring, disk_every_run_a_span) { spans_of(1, 64); }
Test(codec_trace_ring, disk_full_rings_count_what_they_drop) { spans_of(1, 3); }
Test(codec_trace_ring, host_every_run_a_span) { spans_of(0, 64); }
Test(codec_trace_ring, host_full_rings_count_what_they_drop) { spans_of(0, 3); }

Test(codec_trace_ring, a_pool_without_codec_threads_records_nothing)
{
    ebb_pool *h = host_pool(4096, 2);
    int32_t threads = -1;
    cr_assert_eq(ebb_pool_codec_trace_start(h, 8, &threads), EBB_OK);
    cr_assert_eq(threads, 0);
    ebb_pool_destroy(h);
}
