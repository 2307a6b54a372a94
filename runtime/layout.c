/*
 * ebb_layout_get: each public struct's size and its fields' names, offsets
 * and sizes, as this library was compiled, for the bindings that mirror
 * them (include/ebb/layout.h). A field added to one of these structs is
 * added to its table here; tests/runtime/layout_tables.c fails until the
 * table covers the whole struct.
 */
#include <stddef.h>
#include <string.h>

#include "common/error_internal.h"
#include "ebb/ebb.h"

typedef struct field {
    const char *name;
    size_t offset, size;
} field;

#define F(type, member) {#member, offsetof(type, member), sizeof(((type *)0)->member)}

static const field run_options[] = {
    F(ebb_run_options, state_size),      F(ebb_run_options, state_tier),
    F(ebb_run_options, device),          F(ebb_run_options, stream),
    F(ebb_run_options, forward),         F(ebb_run_options, forward_inplace),
    F(ebb_run_options, reverse),         F(ebb_run_options, user),
    F(ebb_run_options, steps),           F(ebb_run_options, config),
    F(ebb_run_options, strategy),        F(ebb_run_options, fast_tier),
    F(ebb_run_options, slow_tier),       F(ebb_run_options, slots),
    F(ebb_run_options, slow_slots),      F(ebb_run_options, period),
    F(ebb_run_options, io_ratio),        F(ebb_run_options, audit),
    F(ebb_run_options, staging),         F(ebb_run_options, trace),
    F(ebb_run_options, forward_seconds), F(ebb_run_options, reverse_seconds),
    F(ebb_run_options, element),         F(ebb_run_options, dims),
    F(ebb_run_options, shape),           F(ebb_run_options, error_samples),
    F(ebb_run_options, forward_costs),   F(ebb_run_options, reverse_costs),
    F(ebb_run_options, measure_costs),   F(ebb_run_options, state_sizes),
};

static const field run_info[] = {
    F(ebb_run_info, strategy),  F(ebb_run_info, strategy_name), F(ebb_run_info, fast_tier),
    F(ebb_run_info, slow_tier), F(ebb_run_info, slots),         F(ebb_run_info, buffers),
    F(ebb_run_info, staging),   F(ebb_run_info, bytes),         F(ebb_run_info, steps),
    F(ebb_run_info, audit),     F(ebb_run_info, inplace),       F(ebb_run_info, warnings),
    F(ebb_run_info, reason),    F(ebb_run_info, error_samples), F(ebb_run_info, error_sample_bytes),
};

static const field run_stats[] = {
    F(ebb_run_stats, steps),           F(ebb_run_stats, forward_steps),
    F(ebb_run_stats, recomputed_steps), F(ebb_run_stats, reverse_steps),
    F(ebb_run_stats, stores),          F(ebb_run_stats, restores),
    F(ebb_run_stats, copies),          F(ebb_run_stats, prefetches),
    F(ebb_run_stats, cache_hits),      F(ebb_run_stats, bytes_written),
    F(ebb_run_stats, bytes_read),      F(ebb_run_stats, peak_slots),
    F(ebb_run_stats, stall_s),         F(ebb_run_stats, stall_total_s),
    F(ebb_run_stats, forward_callback_s), F(ebb_run_stats, reverse_callback_s),
    F(ebb_run_stats, copy_s),          F(ebb_run_stats, forward_sweep_s),
    F(ebb_run_stats, reverse_sweep_s), F(ebb_run_stats, wall_s),
    F(ebb_run_stats, bytes_before_compression), F(ebb_run_stats, bytes_after_compression),
    F(ebb_run_stats, stored_raw),      F(ebb_run_stats, codec_s),
    F(ebb_run_stats, stored_raw_slower), F(ebb_run_stats, codec_ratio),
    F(ebb_run_stats, compress_bps),    F(ebb_run_stats, decompress_bps),
    F(ebb_run_stats, bytes_before_compression_tier),
    F(ebb_run_stats, bytes_after_compression_tier),
    F(ebb_run_stats, codec_s_tier),    F(ebb_run_stats, compressions),
    F(ebb_run_stats, decompressions),
    F(ebb_run_stats, host_compress_bps), F(ebb_run_stats, host_decompress_bps),
    F(ebb_run_stats, error_samples),   F(ebb_run_stats, error_samples_differ),
    F(ebb_run_stats, state_rel_error_max), F(ebb_run_stats, state_rel_error_rms),
    F(ebb_run_stats, gradient_rel_error_estimate),
};

static const field schedule_options[] = {
    F(ebb_schedule_options, strategy),    F(ebb_schedule_options, steps),
    F(ebb_schedule_options, slots),       F(ebb_schedule_options, disk_slots),
    F(ebb_schedule_options, period),      F(ebb_schedule_options, io_ratio),
    F(ebb_schedule_options, fast_tier),   F(ebb_schedule_options, slow_tier),
    F(ebb_schedule_options, write_cost),  F(ebb_schedule_options, read_cost),
    F(ebb_schedule_options, reverse_cost),
};

static const field schedule_stats[] = {
    F(ebb_schedule_stats, steps),         F(ebb_schedule_stats, actions),
    F(ebb_schedule_stats, forward_steps), F(ebb_schedule_stats, reverse_steps),
    F(ebb_schedule_stats, stores),        F(ebb_schedule_stats, restores),
    F(ebb_schedule_stats, transfers_out), F(ebb_schedule_stats, transfers_in),
    F(ebb_schedule_stats, peak_slots),    F(ebb_schedule_stats, complete),
};

static const field action[] = {
    F(ebb_action, kind), F(ebb_action, tier), F(ebb_action, tier_to), F(ebb_action, slot),
    F(ebb_action, slot_to), F(ebb_action, step), F(ebb_action, to),
};

static const field chain[] = {
    F(ebb_chain, steps),      F(ebb_chain, forward_cost), F(ebb_chain, reverse_cost),
    F(ebb_chain, state_bytes), F(ebb_chain, tape_bytes),  F(ebb_chain, backward_cost),
};

static const field chain_options[] = {
    F(ebb_chain_options, memory_bytes),        F(ebb_chain_options, tier),
    F(ebb_chain_options, memory_levels),       F(ebb_chain_options, slow_tier),
    F(ebb_chain_options, write_cost_per_byte), F(ebb_chain_options, read_cost_per_byte),
};

static const field chain_info[] = {
    F(ebb_chain_info, cost), F(ebb_chain_info, unit_bytes), F(ebb_chain_info, units),
};

#define N(a) (sizeof a / sizeof *a)

static const struct table {
    const char *name;
    size_t size;
    const field *fields;
    size_t count;
} tables[] = {
    {"ebb_run_options", sizeof(ebb_run_options), run_options, N(run_options)},
    {"ebb_run_info", sizeof(ebb_run_info), run_info, N(run_info)},
    {"ebb_run_stats", sizeof(ebb_run_stats), run_stats, N(run_stats)},
    {"ebb_schedule_options", sizeof(ebb_schedule_options), schedule_options,
     N(schedule_options)},
    {"ebb_schedule_stats", sizeof(ebb_schedule_stats), schedule_stats, N(schedule_stats)},
    {"ebb_action", sizeof(ebb_action), action, N(action)},
    {"ebb_chain", sizeof(ebb_chain), chain, N(chain)},
    {"ebb_chain_options", sizeof(ebb_chain_options), chain_options, N(chain_options)},
    {"ebb_chain_info", sizeof(ebb_chain_info), chain_info, N(chain_info)},
    {"ebb_config", sizeof(ebb_config), NULL, 0},
};

ebb_status ebb_layout_get(const char *struct_name, size_t *size, size_t *count, size_t max,
                          size_t *offsets, size_t *sizes, const char **names)
{
    if (!struct_name || !size || !count)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_layout_get: struct_name, size and count "
                                             "must not be NULL");
    for (size_t t = 0; t < N(tables); t++) {
        const struct table *tb = &tables[t];
        if (strcmp(tb->name, struct_name) != 0)
            continue;
        *size = tb->size;
        *count = tb->count;
        for (size_t i = 0; i < tb->count && i < max; i++) {
            if (offsets)
                offsets[i] = tb->fields[i].offset;
            if (sizes)
                sizes[i] = tb->fields[i].size;
            if (names)
                names[i] = tb->fields[i].name;
        }
        return EBB_OK;
    }
    return ebb_fail(EBB_ERR_INVALID_ARG,
                    "ebb_layout_get: no public struct named '%s'; known: ebb_run_options, "
                    "ebb_run_info, ebb_run_stats, ebb_schedule_options, ebb_schedule_stats, "
                    "ebb_action, ebb_chain, ebb_chain_options, ebb_chain_info, ebb_config",
                    struct_name);
}
