/* Never slower than off: a state that compresses, but whose codec is slower
 * than the disk would carry it raw (ebb_codec_pays on what the codec
 * threads measure and the disk's pace), is stored raw, counted in
 * stored_raw and stored_raw_slower, and tries come back now and then as
 * for incompressible data. The codec is made slow by the injected delay of
 * each compression (fault.codec_delay_us); the same states through a slow
 * disk, where compressing pays, all go compressed but the first. Until a
 * try says compressing pays, tries are made on a copy once the state's write
 * is queued, one at a time (two codec threads with many states in flight:
 * the others go raw meanwhile), so a try never holds a write back. */
#include <time.h>

#include "storage/codec_helpers.h"
#include "storage/codec_trace.h"

/* `count` sparse states (they compress well) written one after the other. */
static void write_states(ebb_pool *d, ebb_pool *h, size_t size, int count)
{
    for (int i = 0; i < count; i++) {
        fill_data(slot_ptr(h, 0), size, EBB_ELEMENT_FLOAT64, DATA_SPARSE, 7 + (uint64_t)i);
        ebb_ticket t;
        cr_assert_eq(ebb_move(d, i % 4, h, 0, &t), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "%s", ebb_last_error());
    }
}

/* A paced disk pool with lossless compression on one codec thread. */
static ebb_pool *paced_pool(const char *dir, ebb_pool *h, size_t size, double pace,
                            const ebb_codec_options *c, const ebb_storage_fault *f)
{
    const char *dirs[] = {dir};
    ebb_pool_options o;
    codec_disk_options(&o, dirs, size, 4, EBB_DISK_BACKEND_THREADS, c, 1, h);
    o.max_bandwidth = pace;
    return create_or_skip(&o, f);
}

Test(disk_codec_never_slower, a_codec_slower_than_the_disk_stores_states_raw)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const size_t size = 1 << 20;
    ebb_codec_options c = codec_opts(EBB_COMPRESSION_LOSSLESS, EBB_ELEMENT_FLOAT64);
    ebb_pool *h = host_pool(size, 2);
    ebb_storage_fault f = {0};
    f.codec_delay_us = 5000; /* 1 MiB in >= 5 ms: < 0.21 GB/s, the disk 1 GB/s */
    ebb_pool *d = paced_pool(dir, h, size, 1e9, &c, &f);
    /* the first verdict (slower) starts the skip at once, as the codec's and
       the disk's rates hold for the next states too: 1 try, 4 skipped, 1 try,
       8 skipped, 1 try, 16 skipped, 1 try at most (the states written while
       a try runs go raw without one) */
    write_states(d, h, size, 40);
    ebb_pool_stats st;
    ebb_pool_stats_get(d, &st);
    cr_assert_eq(st.stored_raw, 40, "%llu of 40 states raw for a slow codec",
                 (unsigned long long)st.stored_raw);
    cr_assert_gt(st.stored_raw_slower, 0, "raw as slower after the first verdict");
    cr_assert_eq(st.bytes_after_compression, st.bytes_before_compression);
    cr_assert(st.compressions >= 1 && st.compressions <= 4, "%llu tries",
              (unsigned long long)st.compressions);
    cr_assert(st.measured.ratio > 2, "ratio %g", st.measured.ratio);
    cr_assert(st.measured.compress_bps > 0 && st.measured.compress_bps < 0.25e9,
              "compress %g B/s", st.measured.compress_bps);
    cr_assert_eq(st.disk_bps, 1e9, "the rule takes the pace");
    ebb_pool_destroy(d);

    /* the same states on a disk 50 times slower: compressing pays, none raw
     * (the codec needs only 25 MB/s, a loaded machine's too) */
    const size_t small = 128 << 10;
    ebb_pool *h2 = host_pool(small, 2);
    d = paced_pool(dir, h2, small, 20e6, &c, NULL);
    write_states(d, h2, small, 40);
    ebb_pool_stats_get(d, &st);
    /* the first, tried on a copy, and any written while that try ran */
    cr_assert(st.stored_raw >= 1 && st.stored_raw <= 4, "%llu states raw where compressing pays",
              (unsigned long long)st.stored_raw);
    cr_assert_eq(st.stored_raw_slower, 0);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h2);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(disk_codec_never_slower, an_unpaced_disk_is_measured_raw_first)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const size_t size = 256 << 10;
    ebb_codec_options c = codec_opts(EBB_COMPRESSION_LOSSLESS, EBB_ELEMENT_FLOAT64);
    ebb_pool *h = host_pool(size, 2);
    /* the first state goes raw: the disk's rate is not known before a write
       completes, and a try would have nothing to weigh */
    ebb_pool *d = paced_pool(dir, h, size, 0, &c, NULL);
    write_states(d, h, size, 1);
    ebb_pool_stats st;
    ebb_pool_stats_get(d, &st);
    cr_assert_eq(st.compressions, 0);
    cr_assert_eq(st.stored_raw, 1);
    cr_assert_eq(st.stored_raw_slower, 0);
    cr_assert(st.disk_bps > 0, "the raw write's rate was not measured");
    ebb_pool_destroy(d);
    /* and with every state that shrinks compressed, the codec's rates too */
    ebb_storage_fault pays = {0};
    pays.codec_always_pays = 1;
    d = paced_pool(dir, h, size, 0, &c, &pays);
    write_states(d, h, size, 8);
    ebb_ticket t; /* a read, for the decompression's rate */
    cr_assert_eq(ebb_move(h, 1, d, 0, &t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "%s", ebb_last_error());
    ebb_pool_stats_get(d, &st);
    cr_assert(st.disk_bps > 0, "the writes' rate was not measured");
    cr_assert(st.measured.decompress_bps > 0 && st.measured.compress_bps > 0);
    cr_assert_eq(st.measured.threads, 1);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(disk_codec_never_slower, one_try_at_a_time_while_the_tries_say_raw)
{
    enum { STATES = 40, THREADS = 2 };
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    const size_t size = 256 << 10;
    ebb_codec_options c = codec_opts(EBB_COMPRESSION_LOSSLESS, EBB_ELEMENT_FLOAT64);
    ebb_pool *h = host_pool(size, STATES);
    ebb_storage_fault f = {0};
    f.codec_delay_us = 3000; /* 256 KiB in >= 3 ms: < 0.09 GB/s, the disk 1 GB/s */
    ebb_pool_options o;
    codec_disk_options(&o, dirs, size, STATES, EBB_DISK_BACKEND_THREADS, &c, THREADS, h);
    o.max_bandwidth = 1e9;
    ebb_pool *d = create_or_skip(&o, &f);
    int32_t threads = 0;
    cr_assert_eq(ebb_pool_codec_trace_start(d, 64, &threads), EBB_OK, "%s", ebb_last_error());
    ebb_ticket t[STATES];
    for (int k = 0; k < STATES; k++) {
        fill_data(slot_ptr(h, k), size, EBB_ELEMENT_FLOAT64, DATA_SPARSE, 11 + (uint64_t)k);
        cr_assert_eq(ebb_move(d, k, h, k, &t[k]), EBB_OK, "%s", ebb_last_error());
    }
    cr_assert_eq(ebb_ticket_wait_all(t, STATES), EBB_OK, "%s", ebb_last_error());
    ebb_codec_span s[THREADS][64];
    int32_t n[THREADS] = {0};
    ebb_pool_stats st;
    /* a try runs beside its write, which may complete first (stored raw):
     * the spans taken and the count agree once the last try has ended (up
     * to 5 s) */
    for (int wait = 0;; wait++) {
        for (int i = 0; i < THREADS; i++) {
            uint64_t dropped = 0;
            int32_t got = 0;
            cr_assert_eq(ebb_pool_codec_spans(d, i, s[i] + n[i], 64 - n[i], &got, &dropped),
                         EBB_OK);
            cr_assert_eq(dropped, 0);
            n[i] += got;
        }
        ebb_pool_stats_get(d, &st);
        if ((uint64_t)(n[0] + n[1]) == st.compressions || wait == 5000)
            break;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    uint64_t first_end = UINT64_MAX;
    for (int i = 0; i < THREADS; i++)
        for (int k = 0; k < n[i]; k++)
            first_end = s[i][k].t1_ns < first_end ? s[i][k].t1_ns : first_end;
    /* once the first verdict (raw) is in, no try overlaps another */
    int tries = 0;
    for (int k = 0; k < n[0]; k++)
        for (int j = 0; j < n[1]; j++) {
            const ebb_codec_span *a = &s[0][k], *b = &s[1][j];
            if (a->t0_ns < first_end || b->t0_ns < first_end)
                continue;
            cr_assert(a->t1_ns <= b->t0_ns || b->t1_ns <= a->t0_ns,
                      "tries of slots %d and %d overlap: %llu..%llu and %llu..%llu ns",
                      (int)a->slot, (int)b->slot, (unsigned long long)a->t0_ns,
                      (unsigned long long)a->t1_ns, (unsigned long long)b->t0_ns,
                      (unsigned long long)b->t1_ns);
        }
    tries = n[0] + n[1];
    cr_log_info("%d tries of %d states, %llu raw as slower", tries, STATES,
                (unsigned long long)st.stored_raw_slower);
    cr_assert_eq((uint64_t)tries, st.compressions);
    cr_assert_lt(tries, STATES / 2, "%d tries of %d states", tries, STATES);
    cr_assert_eq(st.bytes_after_compression, st.bytes_before_compression, "every state raw");
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(disk_codec_never_slower, a_try_on_a_copy_does_not_hold_its_write_back)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const size_t size = 256 << 10;
    ebb_codec_options c = codec_opts(EBB_COMPRESSION_LOSSLESS, EBB_ELEMENT_FLOAT64);
    ebb_pool *h = host_pool(size, 2);
    ebb_storage_fault f = {0};
    f.codec_delay_us = 1000000; /* the try takes a second */
    ebb_pool *d = paced_pool(dir, h, size, 1e9, &c, &f);
    write_states(d, h, size, 1);
    ebb_pool_stats st;
    ebb_pool_stats_get(d, &st);
    /* on disk raw while its try still runs: a try held its write back for it */
    cr_assert_eq(st.writes, 1);
    cr_assert_eq(st.stored_raw, 1);
    cr_assert_eq(st.compressions, 0, "the try ended before its state's write");
    ebb_pool_destroy(d); /* waits for the try */
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}
