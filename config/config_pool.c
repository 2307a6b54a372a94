/* From a configuration to the options of a storage pool (ebb/storage.h):
 * which fields come from which keys, and how many slots a tier's budget
 * holds once each slot is rounded up the way the pool rounds it. */
#include "ebb/config.h"

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "common/error_internal.h"
#include "config/config_internal.h"
#include "config/config_size.h"

static const ebb_config_key enabled_key[EBB_TIER_COUNT] = {
    EBB_KEY_GPU_ENABLED, EBB_KEY_HOST_ENABLED, EBB_KEY_DISK_ENABLED};
static const ebb_config_key budget_key[EBB_TIER_COUNT] = {
    EBB_KEY_GPU_BUDGET, EBB_KEY_HOST_BUDGET, EBB_KEY_DISK_BUDGET};
static const char *const auto_rule[EBB_TIER_COUNT] = {
    "half of the GPU's free memory", "half of MemAvailable",
    "a quarter of the free disk space over the processes on this node"};

/* The bytes of a state a slot keeps: the state, or its size at a fixed
 * rate when that is smaller (the disk pool's slots take only that), and on
 * the host tier, compressed at a fixed rate, that size (its pool keeps it). */
static uint64_t held_bytes(const ebb_codec_options *c, uint64_t state, int host)
{
    if (c->mode != EBB_COMPRESSION_FIXED_RATE || c->element == EBB_ELEMENT_BYTES)
        return state;
    ebb_codec *codec;
    if (ebb_codec_create(c, (size_t)state, &codec) != EBB_OK) {
        ebb_clear_error(); /* the pool says why when it is made */
        return state;
    }
    uint64_t fixed = ebb_codec_fixed_size(codec);
    ebb_codec_destroy(codec);
    return fixed > 0 && (host || fixed < state) ? fixed : state;
}

/* Whether the host tier's slots hold compressed states (a fixed rate with
 * its element known). */
static int host_packed(const ebb_config *cfg)
{
    const ebb_codec_options *c = &cfg->host.compression;
    return c->mode == EBB_COMPRESSION_FIXED_RATE && c->element != EBB_ELEMENT_BYTES;
}

/* How many slots of `state` bytes `budget` holds in `tier`; *need is the
 * smallest budget that holds one, and `why` says how a slot is rounded ("" when
 * it is not), both for the message when none fits. */
static uint64_t count_slots(const ebb_config *cfg, ebb_tier tier, uint64_t state, uint64_t budget,
                            uint64_t *need, char *why, size_t why_len)
{
    why[0] = '\0';
    int packed = tier == EBB_TIER_HOST && host_packed(cfg);
    if (tier == EBB_TIER_DISK)
        state = held_bytes(&cfg->disk.compression, state, 0);
    else if (packed)
        state = held_bytes(&cfg->host.compression, state, 1);
    if (tier == EBB_TIER_DISK && cfg->disk.path_count > 1) {
        /* Striped (storage/disk_create.c): slots go n at a time over the n
         * paths' files, block k of a slot to the next file, so a file holds
         * its share of the slots, each a state rounded up to a disk stride;
         * each path has an equal share of the budget. */
        uint64_t n = cfg->disk.path_count;
        uint64_t stride = ebb_slot_stride(EBB_TIER_DISK, state, 0);
        unsigned __int128 one = (unsigned __int128)stride * n;
        *need = one > UINT64_MAX ? UINT64_MAX : (uint64_t)one;
        char a[64];
        ebb_size_human(ebb_slot_stride(EBB_TIER_DISK, 1, 0), a, sizeof a);
        snprintf(why, why_len,
                 ": a slot is a state rounded up to %s (the direct-I/O alignment) and each of "
                 "the %llu paths holds an equal share of the budget",
                 a, (unsigned long long)n);
        return n * ((budget / n) / stride);
    }
    uint64_t stride = ebb_slot_stride(tier, state, packed);
    *need = stride;
    if (stride != state) {
        /* the unit a slot is rounded to: how much one more byte adds (on the
         * host tier a cache line below a page, the page from one on) */
        uint64_t unit = stride < SIZE_MAX ? ebb_slot_stride(tier, stride + 1, packed) - stride : 0;
        char a[64];
        ebb_size_human(unit, a, sizeof a);
        snprintf(why, why_len, ": a slot is a state%s rounded up to %s%s",
                 packed ? " compressed at the fixed rate (tier.host.rate)" : "", a,
                 tier == EBB_TIER_GPU || packed ? ""
                 : tier == EBB_TIER_HOST && unit == EBB_HOST_SMALL_ALIGN ? " (a cache line)"
                 : tier == EBB_TIER_HOST ? " (the page size)" : " (the direct-I/O alignment)");
    }
    return budget / stride;
}

ebb_status ebb_config_pool_options(const ebb_config *cfg, ebb_tier tier, size_t state_bytes,
                                   ebb_pool_options *out)
{
    if (!cfg || !out)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_config_pool_options: %s is NULL",
                        cfg ? "out" : "cfg");
    if ((unsigned)tier >= EBB_TIER_COUNT)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_config_pool_options: %d is not a tier", (int)tier);
    if (state_bytes == 0)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_config_pool_options: state_bytes is 0; expected the bytes of one state");
    const char *name = ebb_tier_name(tier);
    char at[512];
    const int enabled[EBB_TIER_COUNT] = {cfg->gpu.enabled, cfg->host.enabled, cfg->disk.enabled};
    if (!enabled[tier]) {
        ebb_config_where(cfg, enabled_key[tier], "", at, sizeof at);
        return ebb_fail(EBB_ERR_CONFIG,
                        "%s: the %s tier is disabled; expected tier.%s.enabled = true for a %s "
                        "pool", at, name, name, name);
    }
    ebb_status s = ebb_config_check_values(cfg);
    if (s != EBB_OK)
        return s;
    if (tier == EBB_TIER_DISK && (cfg->disk.path_count == 0 || !cfg->disk.paths ||
                                  cfg->disk.path_count > INT32_MAX)) {
        ebb_config_where(cfg, EBB_KEY_DISK_PATH, "", at, sizeof at);
        return ebb_fail(EBB_ERR_CONFIG, "%s: %zu directories given; expected at least one", at,
                        cfg->disk.path_count);
    }
    uint64_t budget = 0;
    if ((s = ebb_config_budget(cfg, tier, &budget)) != EBB_OK)
        return s;

    char why[256];
    uint64_t need = 0;
    uint64_t slots = count_slots(cfg, tier, state_bytes, budget, &need, why, sizeof why);
    if (slots == 0) {
        char b[64], st[64], nd[64], bud[160];
        ebb_size_human(budget, b, sizeof b);
        ebb_size_human(state_bytes, st, sizeof st);
        ebb_size_human(need, nd, sizeof nd);
        const uint64_t set[EBB_TIER_COUNT] = {cfg->gpu.budget, cfg->host.budget, cfg->disk.budget};
        if (set[tier] == EBB_BUDGET_AUTO)
            snprintf(bud, sizeof bud, "\"auto\" (%s, now %s)", auto_rule[tier], b);
        else
            snprintf(bud, sizeof bud, "%s", b);
        ebb_config_where(cfg, budget_key[tier], "", at, sizeof at);
        return ebb_fail(EBB_ERR_NO_MEMORY,
                        "%s: %s holds no state of %s%s; expected a budget of at least %s (raise "
                        "it, or disable the tier)",
                        at, bud, st, why, nd);
    }

    ebb_pool_options o;
    ebb_pool_options_init(&o, tier);
    o.slot_size = state_bytes;
    o.slots = slots > INT32_MAX ? INT32_MAX : (int32_t)slots;
    o.numa_node = cfg->host.numa;
    o.pin = cfg->host.pin ? 1 : 0;
    o.prefault = cfg->host.prefault ? 1 : 0;
    o.device = cfg->gpu.device;
    o.paths = (const char *const *)cfg->disk.paths;
    o.path_count = (int32_t)cfg->disk.path_count;
    o.backend = cfg->disk.backend;
    o.queue_depth = cfg->disk.queue_depth;
    o.threads = cfg->disk.threads;
    o.direct = cfg->disk.direct ? 1 : 0;
    o.checksum = cfg->disk.checksum ? 1 : 0;
    o.max_bandwidth = (double)cfg->disk.max_bandwidth;
    o.block = (size_t)(tier == EBB_TIER_GPU ? cfg->gpu.chunk_size : cfg->disk.block_size);
    o.staging = NULL;
    if (tier == EBB_TIER_DISK && cfg->disk.compression.mode != EBB_COMPRESSION_OFF) {
        o.compression = &cfg->disk.compression; /* borrowed, as the paths */
        o.codec_threads = cfg->disk.codec_threads;
    }
    if (tier == EBB_TIER_HOST && cfg->host.compression.mode != EBB_COMPRESSION_OFF) {
        o.compression = &cfg->host.compression;
        o.codec_threads = cfg->host.codec_threads;
    }
    *out = o;
    return EBB_OK;
}
