/* A host pool given a fixed-rate codec keeps each state compressed in a
 * slot of the fixed size (rounded up to EBB_HOST_PACKED_ALIGN), so a budget
 * holds ratio times the slots; stores compress and loads decompress on the
 * pool's codec threads, and what comes back is bitwise what the codec's
 * own round trip gives (within zfp's error). */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "storage/codec_helpers.h"
#include "support/codec_fixed.h"

static ebb_pool *packed_pool(size_t size, int32_t slots, const ebb_codec_options *c, int threads)
{
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_HOST);
    o.slot_size = size;
    o.slots = slots;
    o.compression = c;
    o.codec_threads = threads;
    ebb_pool *p = NULL;
    cr_assert_eq(ebb_pool_create(&o, &p), EBB_OK, "%s", ebb_last_error());
    return p;
}

/* What the codec gives on the calling thread: the reference. */
static void codec_round_trip(const ebb_codec_options *c, size_t size, const void *in, void *out)
{
    ebb_codec *codec;
    cr_assert_eq(ebb_codec_create(c, size, &codec), EBB_OK, "%s", ebb_last_error());
    size_t cap = ebb_codec_bound(codec), len = 0;
    void *packed = malloc(cap);
    cr_assert_eq(ebb_codec_compress(codec, in, packed, cap, &len), EBB_OK);
    cr_assert_eq(ebb_codec_decompress(codec, packed, len, out), EBB_OK);
    free(packed);
    ebb_codec_destroy(codec);
}

Test(host_codec_fixed_rate, slots_take_the_fixed_size)
{
    /* random shapes and rates: the stride is the fixed size rounded up to
     * the alignment, the memory the slots' */
    uint64_t seed = 0x5eed;
    for (int trial = 0; trial < 40; trial++) {
        ebb_element e = rng_next(&seed) % 2 ? EBB_ELEMENT_FLOAT64 : EBB_ELEMENT_FLOAT32;
        size_t values = 1 + rng_next(&seed) % 20000;
        size_t size = values * ebb_element_size(e);
        ebb_codec_options c = codec_opts(EBB_COMPRESSION_FIXED_RATE, e);
        c.rate = (double)(1 + rng_next(&seed) % (8 * ebb_element_size(e)));
        int32_t slots = 1 + (int32_t)(rng_next(&seed) % 9);
        ebb_pool *p = packed_pool(size, slots, &c, 1);
        ebb_pool_info info;
        cr_assert_eq(ebb_pool_info_get(p, &info), EBB_OK);
        size_t fixed = codec_fixed_size_of(&c, size);
        size_t want = (fixed + EBB_HOST_PACKED_ALIGN - 1) / EBB_HOST_PACKED_ALIGN *
                      EBB_HOST_PACKED_ALIGN;
        cr_assert_eq(info.slot_size, size);
        cr_assert_eq(info.slot_stride, want, "trial %d: %zu values of %s at rate %g: stride %zu, "
                     "fixed size %zu", trial, values, ebb_element_name(e), c.rate,
                     info.slot_stride, fixed);
        cr_assert_eq(info.bytes, (uint64_t)slots * want);
        cr_assert_str_eq(info.compression, "fixed-rate");
        cr_assert_eq(info.codec_threads, 1);
        cr_assert_eq(info.pinned, 0, "a compressed pool is never pinned");
        ebb_pool_destroy(p);
    }
    /* the case: float64 at 16 bits a value, a quarter of the state */
    ebb_codec_options c = codec_opts(EBB_COMPRESSION_FIXED_RATE, EBB_ELEMENT_FLOAT64);
    ebb_pool *p = packed_pool(8 * MiB, 4, &c, 2);
    ebb_pool_info info;
    ebb_pool_info_get(p, &info);
    cr_assert_eq(info.slot_stride, 2 * MiB);
    ebb_pool_destroy(p);
}

Test(host_codec_fixed_rate, round_trip_is_the_codecs)
{
    const size_t size = 1 * MiB;
    const int32_t slots = 6;
    for (int e = EBB_ELEMENT_FLOAT32; e <= EBB_ELEMENT_FLOAT64; e++) {
        ebb_codec_options c = codec_opts(EBB_COMPRESSION_FIXED_RATE, (ebb_element)e);
        c.rate = e == EBB_ELEMENT_FLOAT64 ? 16 : 12;
        ebb_pool *p = packed_pool(size, slots, &c, 3);
        ebb_pool *h = host_pool(size, 2 * slots);
        unsigned char *want = malloc(size), *got = malloc(size), *mine = malloc(size * slots);
        for (int k = 0; k < DATA_KINDS; k++) {
            ebb_ticket t[12];
            /* half the slots from the caller's memory (put), half moved in
             * from an uncompressed host pool; all in flight at once */
            for (int32_t s = 0; s < slots; s++) {
                unsigned char *src = s % 2 ? mine + (size_t)s * size : slot_ptr(h, s);
                fill_data(src, size, (ebb_element)e, (data_kind)k, (uint64_t)(s + 10 * k));
                if (s % 2)
                    cr_assert_eq(ebb_pool_put(p, s, src, &t[s]), EBB_OK, "%s", ebb_last_error());
                else
                    cr_assert_eq(ebb_move(p, s, h, s, &t[s]), EBB_OK, "%s", ebb_last_error());
                cr_assert_not_null(t[s].pool, "the codec runs on the pool's threads");
            }
            cr_assert_eq(ebb_ticket_wait_all(t, (size_t)slots), EBB_OK, "%s", ebb_last_error());
            for (int32_t s = 0; s < slots; s++) {
                /* back into the caller's memory (get) or a host slot (move) */
                if (s % 2)
                    cr_assert_eq(ebb_pool_get(p, s, got, &t[0]), EBB_OK, "%s", ebb_last_error());
                else
                    cr_assert_eq(ebb_move(h, slots + s, p, s, &t[0]), EBB_OK, "%s",
                                 ebb_last_error());
                cr_assert_eq(ebb_ticket_wait(&t[0]), EBB_OK, "%s", ebb_last_error());
                const unsigned char *in = s % 2 ? mine + (size_t)s * size : slot_ptr(h, s);
                const unsigned char *out = s % 2 ? got : slot_ptr(h, slots + s);
                codec_round_trip(&c, size, in, want);
                cr_assert(memcmp(out, want, size) == 0, "%s %s, slot %d: not the codec's round "
                          "trip", ebb_element_name((ebb_element)e), data_name((data_kind)k), s);
                double worst = 0;
                for (size_t i = 0; i < size / ebb_element_size((ebb_element)e); i++) {
                    double x = e == EBB_ELEMENT_FLOAT64 ? ((const double *)in)[i]
                                                        : ((const float *)in)[i];
                    double y = e == EBB_ELEMENT_FLOAT64 ? ((const double *)out)[i]
                                                        : ((const float *)out)[i];
                    worst = fabs(x - y) > worst ? fabs(x - y) : worst;
                }
                cr_assert_lt(worst, 0.05, "%s: error %g", data_name((data_kind)k), worst);
            }
        }
        ebb_pool_stats st;
        ebb_pool_stats_get(p, &st);
        cr_assert_eq(st.writes, (uint64_t)slots * DATA_KINDS);
        cr_assert_eq(st.reads, (uint64_t)slots * DATA_KINDS);
        cr_assert_eq(st.bytes_after_compression, st.writes * codec_fixed_size_of(&c, size));
        free(want);
        free(got);
        free(mine);
        ebb_pool_destroy(p);
        ebb_pool_destroy(h);
    }
}

Test(host_codec_fixed_rate, moves_within_the_pool_copy_the_compressed_state)
{
    const size_t size = 256 * KiB;
    ebb_codec_options c = codec_opts(EBB_COMPRESSION_FIXED_RATE, EBB_ELEMENT_FLOAT64);
    ebb_pool *p = packed_pool(size, 3, &c, 1);
    ebb_pool *h = host_pool(size, 2);
    fill_data(slot_ptr(h, 0), size, EBB_ELEMENT_FLOAT64, DATA_SMOOTH, 7);
    ebb_ticket t;
    cr_assert_eq(ebb_move(p, 0, h, 0, &t), EBB_OK);
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK);
    cr_assert_eq(ebb_move(p, 2, p, 0, &t), EBB_OK, "%s", ebb_last_error());
    cr_assert_null(t.pool, "a copy as it is: complete at once");
    cr_assert_eq(ebb_move(h, 0, p, 0, &t), EBB_OK);
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK);
    cr_assert_eq(ebb_move(h, 1, p, 2, &t), EBB_OK);
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK);
    cr_assert(memcmp(slot_ptr(h, 0), slot_ptr(h, 1), size) == 0, "the copy lost nothing more");
    ebb_pool_destroy(p);
    ebb_pool_destroy(h);
}

Test(host_codec_fixed_rate, what_it_refuses)
{
    const size_t size = 64 * KiB;
    ebb_codec_options c = codec_opts(EBB_COMPRESSION_FIXED_RATE, EBB_ELEMENT_FLOAT64);
    ebb_pool *p = packed_pool(size, 2, &c, 1);
    ebb_pool *h = host_pool(size, 2);
    void *ptr;
    ebb_ticket t;
    cr_assert_eq(ebb_pool_slot_ptr(p, 0, &ptr), EBB_ERR_UNSUPPORTED);
    cr_assert(strstr(ebb_last_error(), "compressed"), "%s", ebb_last_error());
    cr_assert_eq(ebb_move(h, 0, p, 1, &t), EBB_ERR_STATE, "a slot never stored holds nothing");
    cr_assert(strstr(ebb_last_error(), "holds no state"), "%s", ebb_last_error());
    /* the modes whose size is not known before */
    ebb_compression modes[] = {EBB_COMPRESSION_LOSSLESS, EBB_COMPRESSION_FIXED_PRECISION,
                               EBB_COMPRESSION_FIXED_ACCURACY};
    for (int i = 0; i < 3; i++) {
        ebb_codec_options v = codec_opts(modes[i], EBB_ELEMENT_FLOAT64);
        ebb_pool_options o;
        ebb_pool_options_init(&o, EBB_TIER_HOST);
        o.slot_size = size;
        o.slots = 2;
        o.compression = &v;
        ebb_pool *q = NULL;
        cr_assert_eq(ebb_pool_create(&o, &q), EBB_ERR_INVALID_ARG, "%s",
                     ebb_compression_name(modes[i]));
        cr_assert_null(q);
        cr_assert(strstr(ebb_last_error(), ebb_compression_name(modes[i])) &&
                      strstr(ebb_last_error(), "not known before"),
                  "%s", ebb_last_error());
    }
    /* a disk pool cannot stage through it */
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    ebb_pool_options o;
    disk_options(&o, dirs, 1, size, 2, EBB_DISK_BACKEND_THREADS);
    o.staging = p;
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create(&o, &d), EBB_ERR_INVALID_ARG);
    o.staging = h;
    d = create_or_skip(&o, NULL);
    fill_data(slot_ptr(h, 0), size, EBB_ELEMENT_FLOAT64, DATA_SMOOTH, 1);
    cr_assert_eq(ebb_move(p, 0, h, 0, &t), EBB_OK);
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK);
    cr_assert_eq(ebb_move(d, 0, p, 0, &t), EBB_ERR_UNSUPPORTED, "compressed host -> disk");
    cr_assert_eq(ebb_move(p, 0, d, 0, &t), EBB_ERR_UNSUPPORTED, "disk -> compressed host");
    ebb_pool_destroy(d);
    rm_tmpdir(dir);
    ebb_pool_destroy(p);
    ebb_pool_destroy(h);
}

Test(host_codec_fixed_rate, destroy_waits_for_its_operations)
{
    /* the uncompressed pool destroyed first waits for the moves that read it */
    const size_t size = 2 * MiB;
    ebb_codec_options c = codec_opts(EBB_COMPRESSION_FIXED_RATE, EBB_ELEMENT_FLOAT64);
    ebb_pool *p = packed_pool(size, 4, &c, 1);
    ebb_pool *h = host_pool(size, 4);
    ebb_ticket t[4];
    for (int32_t s = 0; s < 4; s++) {
        fill_data(slot_ptr(h, s), size, EBB_ELEMENT_FLOAT64, DATA_RANDOM, (uint64_t)s);
        cr_assert_eq(ebb_move(p, s, h, s, &t[s]), EBB_OK);
    }
    cr_assert_eq(ebb_pool_put(h, 3, slot_ptr(h, 1), &t[0]), EBB_ERR_STATE,
                 "a host slot being compressed cannot be overwritten");
    ebb_pool_destroy(h);
    ebb_pool_destroy(p);
}

/* The rates the codec threads measure, each way on its own (ebb_pool_stats.
 * measured, what a run reports for the planner's tier.host.compress_rate and
 * decompress_rate): none before a state, the compression alone after stores,
 * then the decompression too; the ratio and threads the pool's. */
Test(host_codec_fixed_rate, measures_each_way)
{
    const size_t size = 256 * 1024;
    ebb_codec_options c = codec_opts(EBB_COMPRESSION_FIXED_RATE, EBB_ELEMENT_FLOAT64);
    ebb_pool *p = packed_pool(size, 4, &c, 2);
    unsigned char *x = malloc(size);
    fill_data(x, size, EBB_ELEMENT_FLOAT64, DATA_SMOOTH, 7);
    ebb_pool_stats st;
    cr_assert_eq(ebb_pool_stats_get(p, &st), EBB_OK);
    cr_assert(st.measured.compress_bps == 0 && st.measured.decompress_bps == 0);
    ebb_ticket t;
    for (int32_t s = 0; s < 4; s++) {
        cr_assert_eq(ebb_pool_put(p, s, x, &t), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "%s", ebb_last_error());
    }
    cr_assert_eq(ebb_pool_stats_get(p, &st), EBB_OK);
    cr_assert(st.measured.compress_bps > 0 && st.measured.decompress_bps == 0,
              "after stores alone: compress %g B/s, decompress %g B/s",
              st.measured.compress_bps, st.measured.decompress_bps);
    double stored_s = st.codec_s;
    cr_assert(fabs(4.0 * (double)size / st.measured.compress_bps - stored_s) <= 1e-6 * stored_s,
              "4 states at %g B/s, %g s in the codec", st.measured.compress_bps, stored_s);
    cr_assert_eq(ebb_pool_get(p, 2, x, &t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_pool_stats_get(p, &st), EBB_OK);
    cr_assert(st.measured.decompress_bps > 0 &&
                  fabs((double)size / st.measured.decompress_bps - (st.codec_s - stored_s)) <=
                      1e-6 * st.codec_s,
              "one load at %g B/s, %g s more in the codec", st.measured.decompress_bps,
              st.codec_s - stored_s);
    cr_assert(st.measured.ratio == (double)size / (double)codec_fixed_size_of(&c, size) &&
              st.measured.threads == 2, "ratio %g, %d threads", st.measured.ratio,
              (int)st.measured.threads);
    free(x);
    ebb_pool_destroy(p);
}
