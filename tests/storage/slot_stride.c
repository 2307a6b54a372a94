/* Slot sizing has one rule, ebb_slot_stride: over random state sizes the
 * host pool lays its slots out by it, and the configuration's slot count
 * for a budget is the budget over it (host and disk tiers), so neither can
 * round another way. */
#include "storage/helpers.h"

static size_t random_size(uint64_t *s)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    size_t kind = (*s >> 60) & 3;
    size_t v = (size_t)(*s >> 20);
    return kind == 0 ? 1 + v % 64 : kind == 1 ? 4096 * (1 + v % 8) : 1 + v % (3 * MiB);
}

Test(slot_stride, the_host_pool_lays_its_slots_out_by_it)
{
    uint64_t s = 11;
    for (int i = 0; i < 40; i++) {
        size_t size = random_size(&s);
        ebb_pool *h = host_pool(size, 2);
        ebb_pool_info info;
        cr_assert_eq(ebb_pool_info_get(h, &info), EBB_OK);
        size_t want = ebb_slot_stride(EBB_TIER_HOST, size, 0);
        cr_expect_eq(info.slot_stride, want, "state of %zu bytes", size);
        cr_expect_eq((char *)slot_ptr(h, 1) - (char *)slot_ptr(h, 0), (ptrdiff_t)want);
        ebb_pool_destroy(h);
    }
}

Test(slot_stride, a_budget_holds_budget_over_it)
{
    uint64_t s = 12;
    for (int i = 0; i < 200; i++) {
        size_t size = random_size(&s);
        ebb_tier tier = i % 2 ? EBB_TIER_DISK : EBB_TIER_HOST;
        uint64_t budget = ((uint64_t)size * (1 + i % 9) + (uint64_t)(i * 977)) / 4096 * 4096 + 4096;
        ebb_config cfg;
        cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
        cfg.host.budget = budget;
        cfg.disk.budget = budget;
        size_t stride = ebb_slot_stride(tier, size, 0);
        ebb_pool_options o;
        ebb_status st = ebb_config_pool_options(&cfg, tier, size, &o);
        if (budget / stride == 0) {
            cr_expect_eq(st, EBB_ERR_CONFIG, "%s", ebb_last_error());
        } else {
            cr_assert_eq(st, EBB_OK, "%s", ebb_last_error());
            cr_expect_eq((uint64_t)o.slots, budget / stride, "%s: %zu bytes in %llu",
                         ebb_tier_name(tier), size, (unsigned long long)budget);
        }
        ebb_config_dispose(&cfg);
    }
}

Test(slot_stride, the_tiers_units)
{
    cr_expect_eq(ebb_slot_stride(EBB_TIER_GPU, 1, 0), 256);
    cr_expect_eq(ebb_slot_stride(EBB_TIER_GPU, 257, 0), 512);
    cr_expect_eq(ebb_slot_stride(EBB_TIER_DISK, 4097, 0), 8192);
    cr_expect_eq(ebb_slot_stride(EBB_TIER_HOST, 48, 1), EBB_HOST_PACKED_ALIGN);
    cr_expect_eq(ebb_slot_stride(EBB_TIER_HOST, 48, 0), EBB_HOST_SMALL_ALIGN);
    cr_expect_eq(ebb_slot_stride(EBB_TIER_HOST, 5000, 0) % 4096, 0);
    cr_expect_eq(ebb_slot_stride(EBB_TIER_HOST, SIZE_MAX - 1, 0), SIZE_MAX, "overflow");
    cr_expect_eq(ebb_slot_stride((ebb_tier)7, 48, 0), 0);
}
