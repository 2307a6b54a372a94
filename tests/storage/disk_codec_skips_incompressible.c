/* States that do not compress stop costing the codec's time: after 4 in a
 * row stored raw the next ones are stored raw without a try, 4, then 8, 16,
 * ... (at most 256) between tries; a state that shrinks again ends the
 * skipping. Seen through the injected failure of the n-th compression: it
 * fails a write only when that many compressions are tried. */
#include "storage/codec_helpers.h"

/* Writes `count` states of `kind` one after the other into slot 0..; the
 * number of failed writes. */
static int write_states(ebb_pool *d, ebb_pool *h, size_t size, int count, data_kind kind,
                        uint64_t seed)
{
    int failed = 0;
    for (int i = 0; i < count; i++) {
        fill_data(slot_ptr(h, 0), size, EBB_ELEMENT_FLOAT64, kind, seed + (uint64_t)i);
        ebb_ticket t;
        cr_assert_eq(ebb_move(d, i % 4, h, 0, &t), EBB_OK, "%s", ebb_last_error());
        failed += ebb_ticket_wait(&t) != EBB_OK;
    }
    return failed;
}

Test(disk_codec_skips_incompressible, tries_thin_out_and_come_back)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    const size_t size = 64 * KiB;
    ebb_codec_options c = codec_opts(EBB_COMPRESSION_LOSSLESS, EBB_ELEMENT_FLOAT64);
    ebb_pool *h = host_pool(size, 2);
    ebb_pool_options o;
    codec_disk_options(&o, dirs, size, 4, EBB_DISK_BACKEND_THREADS, &c, 1, h);
    /* paced well below the codec's rate, so that compressing the sparse
     * states pays (an unpaced file in the page cache may be faster than the
     * codec: raw then, by the rule of disk_codec_never_slower.c) */
    o.max_bandwidth = 20e6;
    ebb_storage_fault f = {0};
    f.codec_fail_nth = 10; /* the 10th compression tried fails its write */
    ebb_pool *d = create_or_skip(&o, &f);
    /* 120 random states: tries 1-4, then one after 4, 8, 16, 32, 64 skipped
     * (states 9, 18, 35, 68): 8 tries, none the 10th */
    cr_assert_eq(write_states(d, h, size, 120, DATA_RANDOM, 1), 0,
                 "every random state was tried: the 10th compression failed a write");
    ebb_pool_stats st;
    ebb_pool_stats_get(d, &st);
    cr_assert_eq(st.stored_raw, 120);
    cr_assert_eq(st.bytes_after_compression, st.bytes_before_compression);
    /* sparse states: the next try (after 128 skipped) shrinks and skipping
     * ends, so the 10th try comes within a few states */
    int failed = write_states(d, h, size, 140, DATA_SPARSE, 500);
    cr_assert_eq(failed, 1, "%d writes failed: tries did not resume", failed);
    ebb_pool_stats_get(d, &st);
    cr_assert_lt(st.bytes_after_compression, st.bytes_before_compression);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}
