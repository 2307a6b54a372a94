/*
 * ebb — the planner: predicts what each strategy costs on given hardware.
 *
 * A problem is n steps of a state of S bytes, a forward step of f seconds and
 * a reverse step of b seconds, the slots each tier holds, and the bandwidth
 * and latency of the channels between tiers. The planner runs the runtime
 * itself (the same engine, the same decisions) over simulated channels
 * (gpu -> host, host -> gpu, and one disk shared by reads and writes, with
 * its pace and block pipelining) on a virtual clock that the steps advance
 * by f and b, and predicts from that run: the wall time, both sweeps, the
 * time stalled on transfers, the forward steps, stores, restores, reads
 * ahead and peak slots per tier. docs/planner.md gives the model and its
 * limits.
 *
 *     ebb_plan_problem p;
 *     ebb_plan_problem_init(&p);
 *     p.steps = 1000; p.state_size = 16 << 20; p.forward_s = 0.01; p.reverse_s = 0.02;
 *     ebb_plan_problem_from_config(&p, &cfg);       // slots from the budgets
 *     ebb_plan_channels_measure(&p, &cfg);          // or set p.channel[] yourself
 *     ebb_plan_prediction all[EBB_PLAN_MAX];
 *     size_t count; int best;
 *     ebb_plan_all(&p, all, &count, &best);
 */
#ifndef EBB_PLANNER_H
#define EBB_PLANNER_H

#include <stddef.h>
#include <stdint.h>

#include "ebb/codec.h"
#include "ebb/config.h"
#include "ebb/error.h"
#include "ebb/schedule.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The channels between tiers. The disk channel is one device: a read and a
 * write share it (EBB_PLAN_HOST_TO_DISK's and EBB_PLAN_DISK_TO_HOST's
 * bandwidths are the rates of each direction on that one device). */
typedef enum ebb_plan_channel_id {
    EBB_PLAN_GPU_TO_HOST = 0,
    EBB_PLAN_HOST_TO_GPU = 1,
    EBB_PLAN_HOST_TO_DISK = 2,
    EBB_PLAN_DISK_TO_HOST = 3,
    EBB_PLAN_CHANNEL_COUNT = 4
} ebb_plan_channel_id;

/* "gpu->host", "host->gpu", "host->disk", "disk->host"; "?" otherwise. */
EBB_API const char *ebb_plan_channel_name(ebb_plan_channel_id channel);

typedef struct ebb_plan_channel {
    double bandwidth; /* bytes per second; 0 = infinite (a transfer takes `latency`) */
    double latency;   /* seconds added to every transfer, not occupying the channel */
} ebb_plan_channel;

typedef struct ebb_plan_problem {
    int64_t steps;         /* n >= 1 */
    size_t state_size;     /* S > 0 bytes */
    ebb_tier state_tier;   /* EBB_TIER_HOST (default) or EBB_TIER_GPU */
    double forward_s;      /* one forward step, >= 0 */
    double reverse_s;      /* one reverse step, >= 0 */
    int32_t slots[EBB_TIER_COUNT]; /* states each tier's budget holds; 0 = tier not used */
    ebb_plan_channel channel[EBB_PLAN_CHANNEL_COUNT];
    double disk_pace;      /* tier.disk.max_bandwidth in bytes/s, 0 = none: each request
                              of disk_block bytes, read or write, starts no earlier than
                              the previous one's start + its bytes / disk_pace (a request
                              late by up to 1 ms is made up for, as the runtime's pacer) */
    size_t disk_block;     /* bytes per disk request (tier.disk.block_size); 0 = 8 MiB */
    int32_t staging;       /* host buffers for disk transfers (ebb_run_options.staging);
                              0 = 2, as the runtime */
    int64_t period;        /* periodic k, disk-revolve m; 0 = as the runtime derives it */
    double io_ratio;       /* disk-revolve R; 0 = 1, as the runtime */
    int disk_fallback;     /* 1 (default): a strategy the fast tier is too small for is
                              planned with its slots on disk, as `ebb run` does */
    double step_slowdown;  /* how much longer a step takes while the disk moves a state
                              beside it (its threads take CPU and memory bandwidth): the
                              part of a step that overlaps disk transfers runs
                              1 + step_slowdown times as long; 0 (default): not at all.
                              ebb_plan_channels_measure measures it for a step that
                              streams memory on the CPU; a GPU step: leave it 0 */
    ebb_codec_rates codec; /* the disk channel compressed (ebb/codec.h, docs/compression.md):
                              ratio 0 (default): states go raw. Else a disk write takes
                              a codec thread (of `threads`) for state_size / compress_bps,
                              then moves state_size / ratio bytes; a read moves those,
                              then takes a thread for state_size / decompress_bps; as the
                              disk tier, states go raw where ebb_codec_pays says
                              compressing would be slower, unless codec_fixed */
    int codec_fixed;       /* 1: every state compressed (a fixed rate below the state's
                              size: the disk slots hold only that) */
    ebb_codec_rates host_codec; /* the host tier's slots compressed (tier.host.compression
                              = "fixed-rate", docs/compression.md, *The host tier*):
                              ratio 0 (default): they hold states as they are. Else
                              slots[host] are compressed slots (from_config counts
                              budget / the fixed size, as the runtime), every state goes
                              compressed, and the same codec channel as the disk's runs
                              on the host tier's own `threads`: a store into a host slot
                              takes a thread for state_size / compress_bps while the
                              forward goes on, a restore waits for one to decompress it
                              (state_size / decompress_bps); a move between host and
                              disk goes through an uncompressed buffer, so it takes both */
    /* Steps of different times (both NULL, the default: every step takes
     * forward_s and reverse_s): step i's forward and reverse times in
     * seconds, `steps` each, finite and >= 0 (as ebb_run_step_times
     * measures them; not copied). Every strategy's steps then take these
     * times, and revolve and store-all run with them as their costs
     * (ebb_run_options.forward_costs: the schedule of least total time). */
    const double *forward_step_s;
    const double *reverse_step_s;
    /* States of different sizes (NULL, the default: every state state_size
     * bytes): x_i's bytes, steps + 1 entries, each 1 .. state_size (the
     * largest), a host state only (not copied). As in a run
     * (ebb_run_options.state_sizes), revolve runs the chain program over
     * them and the steps' times within slots[host] states of state_size
     * bytes, store-all fits where x_0 .. x_{n-1} do, and the other
     * strategies, which keep states of one size, do not fit. */
    const size_t *state_sizes;
} ebb_plan_problem;

/* Defaults: host state, no slots, every channel infinite with no latency,
 * disk_fallback 1. Cannot fail. */
EBB_API void ebb_plan_problem_init(ebb_plan_problem *problem);

/* Slots per tier from the budgets of *cfg for problem->state_size
 * (ebb_config_pool_options; "auto" resolved now), 0 for disabled tiers;
 * disk_block and disk_pace from tier.disk.block_size and .max_bandwidth;
 * with compression on, codec from tier.disk.codec_threads, codec_ratio,
 * compress_rate and decompress_rate (the planner's figures: they depend on
 * the data), and with a fixed rate below the state's size codec_fixed and
 * the ratio it gives; with tier.host.compression on, host_codec the same
 * way from tier.host.* (its ratio the fixed rate's). */
EBB_API ebb_status ebb_plan_problem_from_config(ebb_plan_problem *problem, const ebb_config *cfg);

/* Measures the disk channels on the spot: writes and reads a few states
 * through a disk pool of *cfg (well under a second; up to 8 states of at
 * most 16 MiB, fewer, or a part of one, where tier.disk.budget or
 * tier.host.budget holds fewer: never beyond either), and one state alone
 * for the latency; and step_slowdown:
 * passes over 4 MiB of memory timed alone and while the transfers run. */
EBB_API ebb_status ebb_plan_channels_measure(ebb_plan_problem *problem, const ebb_config *cfg);

/* Whether the problem's disk states go compressed: codec_fixed, or a
 * codec.ratio > 0 for which ebb_codec_pays on the disk's rates (each
 * direction's bandwidth, capped by the pace), as the disk tier decides. */
EBB_API int ebb_plan_disk_compressed(const ebb_plan_problem *problem);

/* Sets the disk's pace, tier.disk.max_bandwidth (bytes/s; 0: none). */
EBB_API void ebb_plan_cap_disk(ebb_plan_problem *problem, double bytes_per_s);

typedef struct ebb_plan_prediction {
    ebb_config_strategy strategy;  /* as asked (auto: the one picked, see `picked`) */
    int fits;                      /* 0: why_not says what does not fit */
    char why_not[256];
    ebb_strategy schedule;         /* the schedule that would run */
    ebb_tier fast_tier, slow_tier;
    int on_disk;                   /* 1: planned with its slots on disk (disk_fallback) */
    int32_t slots[EBB_TIER_COUNT]; /* schedule slots per tier */
    int64_t period;                /* periodic, disk-revolve: the period used */
    double predicted_s;            /* wall time, both sweeps */
    double forward_s, reverse_s;   /* each sweep */
    double stall_s;                /* time the compute waited for transfers */
    double stall_tier_s[EBB_TIER_COUNT];
    int64_t forward_steps, recomputed_steps, reverse_steps;
    int64_t stores[EBB_TIER_COUNT], restores[EBB_TIER_COUNT];
    int64_t prefetches, cache_hits; /* disk reads started ahead; restores served from memory */
    int32_t peak_slots[EBB_TIER_COUNT];
    int best;                      /* ebb_plan_all: 1 on the fastest that fits */
    int picked;                    /* auto: 1, and `schedule` is what it picked */
} ebb_plan_prediction;

/* Every strategy ebb_plan_all predicts (async and the seven schedules). */
enum { EBB_PLAN_MAX = 8 };

/* Predicts one strategy (auto: the least predicted time of ebb_plan_all;
 * a run's "auto" prefers async within 2% of that, docs/runtime.md). A
 * strategy that does not fit is not an error: fits = 0 and why_not (the
 * runtime's own message). Errors: EBB_ERR_INVALID_ARG for a bad problem
 * (naming the field). */
EBB_API ebb_status ebb_plan_predict(const ebb_plan_problem *problem, ebb_config_strategy strategy,
                                    ebb_plan_prediction *out);

/* Predicts every strategy into out[0 .. *count-1] (at most EBB_PLAN_MAX);
 * *best (may be NULL): the index of the least predicted time among those
 * that fit, -1 if none (its `best` is set too). */
EBB_API ebb_status ebb_plan_all(const ebb_plan_problem *problem, ebb_plan_prediction *out,
                                size_t *count, int *best);

/* Sizing: the least disk bandwidth (bytes/s, both directions scaled
 * together from the problem's figures, or set to it where they are 0) for
 * which `strategy` (auto: the best) predicts wall <= target * n * (f + b).
 * EBB_ERR_INVALID_ARG, saying the best ratio reached, when no bandwidth up
 * to 10 TB/s meets it (or the strategy never fits). */
EBB_API ebb_status ebb_plan_size_disk_bandwidth(const ebb_plan_problem *problem,
                                                ebb_config_strategy strategy, double target,
                                                double *bytes_per_s);

/* Sizing: the least host slots for the same target (up to n); the same
 * error when even n slots do not meet it. */
EBB_API ebb_status ebb_plan_size_host_slots(const ebb_plan_problem *problem,
                                            ebb_config_strategy strategy, double target,
                                            int32_t *slots);

#ifdef __cplusplus
}
#endif

#endif
