/* A fixed rate below the state's size shrinks the disk tier's slots: each
 * takes the fixed size (rounded up to the alignment) on disk, so the files
 * are that much smaller and a budget holds that many more slots; every
 * state is stored compressed (never raw, which would not fit), random ones
 * included, and comes back within zfp's error. */
#include "storage/codec_helpers.h"

Test(disk_codec_fixed_slots, slots_take_the_fixed_size)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    const size_t size = 1 * MiB;
    const int32_t slots = 8;
    ebb_pool *h = host_pool(size, 2);
    ebb_codec_options c = codec_opts(EBB_COMPRESSION_FIXED_RATE, EBB_ELEMENT_FLOAT64);
    c.rate = 16;
    ebb_pool *d = codec_disk(dirs, size, slots, EBB_DISK_BACKEND_AUTO, 1, 64 * KiB, &c, 2, h);
    ebb_pool_info info;
    cr_assert_eq(ebb_pool_info_get(d, &info), EBB_OK);
    cr_assert_eq(info.slot_size, size, "a slot still holds a state of the state's size");
    cr_assert_eq(info.slot_stride, size / 4, "16 bits of 64: a quarter on disk, got %zu",
                 info.slot_stride);
    cr_assert_eq(info.bytes, (uint64_t)slots * (size / 4));
    for (int k = 0; k < DATA_KINDS; k++) {
        for (int32_t s = 0; s < slots; s++) {
            fill_data(slot_ptr(h, 0), size, EBB_ELEMENT_FLOAT64, (data_kind)k, (uint64_t)s);
            store_load(h, d, 0, s, 1);
            const double *x = slot_ptr(h, 0), *y = slot_ptr(h, 1);
            double worst = 0;
            for (size_t i = 0; i < size / 8; i++)
                worst = fabs(x[i] - y[i]) > worst ? fabs(x[i] - y[i]) : worst;
            cr_assert_lt(worst, 0.01, "%s, slot %d: error %g", data_name((data_kind)k), s, worst);
        }
    }
    ebb_pool_stats st;
    ebb_pool_stats_get(d, &st);
    cr_assert_eq(st.stored_raw, 0, "random states too are stored at the fixed rate");
    cr_assert_eq(st.bytes_after_compression * 4, st.bytes_before_compression);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}
