/* The pools that hold compressed states reserve for a fixed-rate state what
 * zfp writes, also where the stream does not end on a whole word (odd
 * rates, odd block counts, partial blocks, 1- to 4-d, float32 and float64):
 * a host pool's stride is zfp's count rounded up to EBB_HOST_PACKED_ALIGN,
 * a disk pool's rounded up to its alignment (where it is below the state:
 * otherwise the state is stored raw), each store counts zfp's bytes, and
 * what comes back is the codec's own round trip. */
#include "storage/codec_helpers.h"
#include "support/zfp_odd_cases.h"

static size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

/* The codec's round trip of x, the reference. */
static void codec_round_trip(const ebb_codec_options *o, size_t size, const void *x, void *out)
{
    ebb_codec *c;
    cr_assert_eq(ebb_codec_create(o, size, &c), EBB_OK, "%s", ebb_last_error());
    size_t cap = ebb_codec_bound(c), len = 0;
    void *z = malloc(cap);
    cr_assert_not_null(z);
    cr_assert_eq(ebb_codec_compress(c, x, z, cap, &len), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_codec_decompress(c, z, len, out), EBB_OK, "%s", ebb_last_error());
    free(z);
    ebb_codec_destroy(c);
}

/* Each case once: shape, element, rate; fn(case state) for every one. */
typedef void (*case_fn)(const zfp_odd_shape *sh, ebb_element e, const ebb_codec_options *o,
                        size_t size, void *x, size_t zfp_n, void *arg);

static int each_case(case_fn fn, void *arg, int stride)
{
    int odd_cases = 0, k = 0;
    for (int e = EBB_ELEMENT_FLOAT32; e <= EBB_ELEMENT_FLOAT64; e++) {
        size_t es = ebb_element_size((ebb_element)e);
        for (int si = 0; si < ZFP_ODD_SHAPES; si++) {
            const zfp_odd_shape *sh = &zfp_odd_shapes[si];
            size_t size = zfp_odd_values(sh) * es;
            void *x = malloc(size);
            cr_assert_not_null(x);
            fill_data(x, size, (ebb_element)e, DATA_SMOOTH, (uint64_t)si + 1);
            for (int r = 0; r < ZFP_ODD_RATES; r++) {
                if (zfp_odd_rates[r] > (double)(8 * es) || k++ % stride)
                    continue;
                ebb_codec_options o = zfp_odd_options(sh, (ebb_element)e, zfp_odd_rates[r]);
                int odd = 0;
                size_t zfp_n = zfp_odd_written(&o, sh, x, &odd);
                odd_cases += odd;
                fn(sh, (ebb_element)e, &o, size, x, zfp_n, arg);
            }
            free(x);
        }
    }
    return odd_cases;
}

static void host_case(const zfp_odd_shape *sh, ebb_element e, const ebb_codec_options *c,
                      size_t size, void *x, size_t zfp_n, void *arg)
{
    (void)arg;
    const int32_t slots = 3;
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_HOST);
    o.slot_size = size;
    o.slots = slots;
    o.compression = c;
    o.codec_threads = 1;
    ebb_pool *p = NULL;
    cr_assert_eq(ebb_pool_create(&o, &p), EBB_OK, "%s", ebb_last_error());
    ebb_pool_info info;
    cr_assert_eq(ebb_pool_info_get(p, &info), EBB_OK);
    const char *what = ebb_element_name(e);
    size_t want = round_up(zfp_n, EBB_HOST_PACKED_ALIGN);
    cr_assert_eq(info.slot_stride, want,
                 "%s, %zu values in %d dims at rate %g: stride %zu, zfp writes %zu bytes", what,
                 zfp_odd_values(sh), (int)sh->dims, c->rate, info.slot_stride, zfp_n);
    cr_assert_eq(info.bytes, (uint64_t)slots * want);
    unsigned char *ref = malloc(size), *got = malloc(size);
    cr_assert(ref && got);
    ebb_ticket t;
    for (int32_t s = 0; s < slots; s++) {
        cr_assert_eq(ebb_pool_put(p, s, x, &t), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "%s at rate %g: %s", what, c->rate,
                     ebb_last_error());
    }
    codec_round_trip(c, size, x, ref);
    for (int32_t s = 0; s < slots; s++) {
        memset(got, 0, size);
        cr_assert_eq(ebb_pool_get(p, s, got, &t), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "%s at rate %g: %s", what, c->rate,
                     ebb_last_error());
        cr_assert(memcmp(got, ref, size) == 0, "%s at rate %g, slot %d: not the codec's round "
                  "trip", what, c->rate, s);
    }
    ebb_pool_stats st;
    cr_assert_eq(ebb_pool_stats_get(p, &st), EBB_OK);
    cr_assert_eq(st.bytes_after_compression, (uint64_t)slots * zfp_n,
                 "%s at rate %g: %llu bytes counted for %d stores of %zu", what, c->rate,
                 (unsigned long long)st.bytes_after_compression, (int)slots, zfp_n);
    free(ref);
    free(got);
    ebb_pool_destroy(p);
}

Test(fixed_rate_odd_sizes, host_pool_reserves_what_zfp_writes)
{
    int odd = each_case(host_case, NULL, 1);
    cr_assert_gt(odd, 100, "%d cases end inside a word", odd);
}

typedef struct disk_arg {
    const char *dir;
    size_t align;
    int shrunk; /* cases stored compressed */
} disk_arg;

static void disk_case(const zfp_odd_shape *sh, ebb_element e, const ebb_codec_options *c,
                      size_t size, void *x, size_t zfp_n, void *arg)
{
    disk_arg *a = arg;
    const int32_t slots = 3;
    const char *dirs[] = {a->dir};
    ebb_pool *h = host_pool(size, 2);
    ebb_pool *d = codec_disk(dirs, size, slots, EBB_DISK_BACKEND_AUTO, 1, 64 * KiB, c, 1, h);
    ebb_pool_info info;
    cr_assert_eq(ebb_pool_info_get(d, &info), EBB_OK);
    const char *what = ebb_element_name(e);
    int packed = zfp_n < size;
    size_t want = round_up(packed ? zfp_n : size, a->align);
    cr_assert_eq(info.slot_stride, want,
                 "%s, %zu values in %d dims at rate %g: stride %zu, zfp writes %zu bytes of a "
                 "%zu-byte state",
                 what, zfp_odd_values(sh), (int)sh->dims, c->rate, info.slot_stride, zfp_n, size);
    unsigned char *ref = malloc(size);
    cr_assert_not_null(ref);
    for (int32_t s = 0; s < slots; s++) {
        memcpy(slot_ptr(h, 0), x, size);
        memset(slot_ptr(h, 1), 0, size);
        store_load(h, d, 0, s, 1);
        if (s == 0 && packed)
            codec_round_trip(c, size, x, ref);
        else if (s == 0)
            memcpy(ref, x, size);
        cr_assert(memcmp(slot_ptr(h, 1), ref, size) == 0,
                  "%s at rate %g, disk slot %d: not the codec's round trip", what, c->rate, s);
    }
    ebb_pool_stats st;
    cr_assert_eq(ebb_pool_stats_get(d, &st), EBB_OK);
    if (packed) {
        cr_assert_eq(st.stored_raw, 0);
        cr_assert_eq(st.bytes_after_compression, (uint64_t)slots * zfp_n,
                     "%s at rate %g: %llu bytes counted for %d stores of %zu", what, c->rate,
                     (unsigned long long)st.bytes_after_compression, (int)slots, zfp_n);
        a->shrunk++;
    }
    free(ref);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
}

Test(fixed_rate_odd_sizes, disk_pool_reserves_what_zfp_writes)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    /* the pool's alignment: the stride of a one-byte state stored raw */
    ebb_pool_options o;
    disk_options(&o, dirs, 1, 1, 1, EBB_DISK_BACKEND_AUTO);
    ebb_pool *raw = create_or_skip(&o, NULL);
    ebb_pool_info info;
    cr_assert_eq(ebb_pool_info_get(raw, &info), EBB_OK);
    ebb_pool_destroy(raw);
    disk_arg a = {dir, info.slot_stride, 0};
    int odd = each_case(disk_case, &a, 1);
    cr_assert_gt(odd, 100, "%d cases end inside a word", odd);
    cr_assert_gt(a.shrunk, 100, "%d cases stored compressed", a.shrunk);
    rm_tmpdir(dir);
}
