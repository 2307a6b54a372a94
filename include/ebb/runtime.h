/*
 * ebb — the runtime: drives the user's forward and reverse steps under a
 * checkpointing schedule, over real storage tiers.
 *
 * The user gives the size of one state, where the live state lives (host
 * memory, or CUDA device memory with the user's stream), a forward step and
 * a reverse step. ebb runs the forward sweep, hands back x_n, and later runs
 * the reverse sweep, calling reverse(i) with the state equal to x_i for
 * i = n-1 .. 0. Which states are kept, in which tier, and which are
 * recomputed is the schedule's business (ebb/schedule.h), chosen by the
 * configuration ([run] strategy and the tier budgets) or by the options.
 *
 *     ebb_run_options o;
 *     ebb_run_options_init(&o);
 *     o.state_size = bytes;  o.steps = n;
 *     o.forward = my_forward;  o.reverse = my_reverse;  o.user = &model;
 *     ebb_run *run;  void *xn;
 *     if (ebb_run_create(&o, &run) != EBB_OK ||
 *         ebb_run_forward(run, x0, &xn) != EBB_OK ||   // x_n: compute the loss
 *         ebb_run_reverse(run) != EBB_OK)               // reverse(n-1) .. reverse(0)
 *         fprintf(stderr, "ebb: %s\n", ebb_last_error());
 *     ebb_run_destroy(run);
 *
 * A framework that owns the time loop (PETSc's TSTrajectory) drives the
 * sweeps itself instead: it hands each state it computed to ebb_run_push
 * (the forward callback then only recomputes, in the reverse sweep) and
 * pulls x_{n-1} .. x_0 with ebb_run_reverse_next (the reverse callback may
 * then be NULL):
 *
 *     ebb_run_begin(run, x0);
 *     for (k = 0; k < n; k++) { my_step(x); ebb_run_push(run, x); }
 *     ebb_run_finish_forward(run, NULL);
 *     int64_t i;  const void *xi;
 *     while (ebb_run_reverse_next(run, &i, &xi) == EBB_OK && i >= 0)
 *         my_adjoint_step(i, xi);
 *
 * Buffers handed to callbacks belong to ebb: a callback must not keep their
 * addresses past its return. The callbacks run on the thread that called
 * ebb_run_forward, ebb_run_advance, ebb_run_reverse or ebb_run_reverse_next,
 * never on ebb's I/O threads; a run is used by one thread at a time. docs/runtime.md describes
 * the costs.
 */
#ifndef EBB_RUNTIME_H
#define EBB_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "ebb/config.h"
#include "ebb/error.h"
#include "ebb/schedule.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a callback returns. 0 (EBB_STEP_OK): the step ran. EBB_STEP_LAST,
 * from a forward step of the first sweep when the run was created with
 * steps = 0 (n unknown): the step ran and produced the last state, x_n. Any
 * other value: the step failed; the run stops and returns EBB_ERR_CALLBACK
 * ("reverse step 417 failed: ..."), the message being the callback's own
 * (ebb_callback_fail) or the value returned. */
#define EBB_STEP_OK 0
#define EBB_STEP_LAST 0x4c415354

/* Out of place, the fast form: read x_i from `in`, write x_{i+1} to `out`.
 * Both are ebb's buffers of state_size bytes (device memory for a GPU
 * state: queue the work on the run's stream and return). `in` must not be
 * written. */
typedef int (*ebb_forward_fn)(void *user, int64_t step, const void *in, void *out);

/* In place: turn `state` from x_i into x_{i+1}. Each stored state then costs
 * ebb one copy (docs/runtime.md). */
typedef int (*ebb_forward_inplace_fn)(void *user, int64_t step, void *state);

/* The adjoint of step i: `state` holds x_i. The adjoint variables are the
 * user's. The callback may overwrite `state`: ebb never reads it again. */
typedef int (*ebb_reverse_fn)(void *user, int64_t step, void *state);

/* For a callback that fails: records the message ebb reports for it and
 * returns a failure value to return from the callback:
 *     return ebb_callback_fail("solver diverged at t = %g", t);
 * Returns EBB_ERR_CALLBACK (never EBB_STEP_OK or EBB_STEP_LAST). */
EBB_API int ebb_callback_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* As ebb_callback_fail("%s", message), without the variadic call that some
 * language bindings (ctypes, Fortran's bind(c)) cannot make portably.
 * `message` may be NULL ("(no message)"); it is cut at 767 bytes. Returns
 * EBB_ERR_CALLBACK. */
EBB_API int ebb_callback_fail_message(const char *message);

/* Audit modes ([run] audit, or the environment variable EBB_AUDIT, which
 * wins: "off", "replay", "hash"). */
typedef enum ebb_audit {
    EBB_AUDIT_OFF = 0,    /* trust the schedule */
    EBB_AUDIT_REPLAY = 1, /* every action is checked by the replay validator as it runs */
    EBB_AUDIT_HASH = 2    /* replay, and every state is hashed (XXH3) when first
                             computed and checked whenever it is recomputed or
                             restored: 8 bytes per step */
} ebb_audit;

/* "off", "replay", "hash"; "?" otherwise. Never NULL. */
EBB_API const char *ebb_audit_name(ebb_audit audit);

/* Parses "off", "replay", "hash". EBB_ERR_INVALID_ARG otherwise. */
EBB_API ebb_status ebb_audit_from_name(const char *name, ebb_audit *out);

/* Use -1 in an int option for "from the configuration". */
#define EBB_RUN_FROM_CONFIG (-1)

typedef struct ebb_run_options {
    /* the state */
    size_t state_size;       /* bytes of one state, > 0 */
    ebb_tier state_tier;     /* EBB_TIER_HOST (default) or EBB_TIER_GPU */
    int device;              /* gpu state: CUDA device; -1 (default) = tier.gpu.device */
    void *stream;            /* gpu state: the cudaStream_t the callbacks queue
                                work on (NULL: the legacy default stream) */

    /* the steps: exactly one of forward and forward_inplace, required even
       when the first sweep is pushed (ebb_run_push): the reverse sweep
       recomputes with it */
    ebb_forward_fn forward;
    ebb_forward_inplace_fn forward_inplace;
    ebb_reverse_fn reverse;  /* required by ebb_run_reverse; NULL when the reverse
                                sweep is pulled (ebb_run_reverse_next) */
    void *user;              /* passed to every callback */
    int64_t steps;           /* n >= 1; 0 = unknown: the forward says when it
                                ends (EBB_STEP_LAST or ebb_run_finish_forward) */

    /* the schedule; everything left at its default comes from the configuration */
    const ebb_config *config; /* NULL: the embedded default (ebb_config_init_default) */
    ebb_strategy strategy;   /* EBB_STRATEGY_FROM_CONFIG (default): run.strategy */
    int fast_tier;           /* tier of the schedule's C slots; -1 (default): the state's
                                tier if enabled, else the next enabled one */
    int slow_tier;           /* tier of the D slots (multistage, disk-revolve, h-revolve;
                                async: its first slower tier); -1 (default): the next
                                enabled tier after fast_tier */
    int32_t slots;           /* C; 0 (default): as many as the fast tier's budget holds;
                                more than it holds are taken, and the run's warnings say so */
    int32_t slow_slots;      /* D; 0 (default): as many as the slow tier's budget holds
                                (async: the first slower tier's slots); as slots beyond it */
    int64_t period;          /* periodic: k; disk-revolve: m; 0 = derived */
    double io_ratio;         /* disk-revolve: (write + read) / step time; 0 = 1 */
    int audit;               /* an ebb_audit, or -1 (default): EBB_AUDIT, else run.audit */
    int32_t staging;         /* host buffers for transfers to and from the disk tier
                                beyond the schedule's slots (write-behind and
                                read-ahead depth); 0 (default): tier.host.staging */
    const char *trace;       /* timeline file (Chrome trace-event JSON) or NULL; the
                                environment variable EBB_TRACE wins. Replaced when the
                                reverse sweep ends, as it was otherwise; a symbolic
                                link there is refused (docs/runtime.md). On several
                                ranks (ebb_mpi_run_create) one file per rank, the
                                rank before the extension: trace.json -> trace.1.json */
    double forward_seconds;  /* strategy "auto": the time of one forward step and one */
    double reverse_seconds;  /* reverse step, if known (0: not known); the planner then
                                predicts every strategy and the fastest runs (async
                                when within 2% of it; see ebb_run_create);
                                "h-revolve": its costs in forward steps come from them
                                (docs/runtime.md) */
    /* What a state is an array of, for compression (tier.disk.compression,
     * tier.host.compression; docs/compression.md): element an ebb_element
     * (ebb/codec.h), or -1 (default): tier.disk.element, tier.host.element
     * (each tier's own); dims 0 (default): one dimension, else
     * 1 .. 4 with the extents in shape, fastest varying first (zfp's lossy
     * modes compress a field given its shape better). */
    int element;
    int32_t dims;
    uint64_t shape[4];
    /* The lossy error estimate (docs/compression.md, *The error estimate*):
     * the first forward sweep keeps exact copies of this many states spread
     * over the sweep (error_samples x state_size bytes of host memory, and
     * with a lossy tier a double a value more: ebb_run_info.error_sample_bytes),
     * and the reverse sweep compares each
     * sampled state it hands out with its copy (ebb_run_stats.error_samples,
     * state_rel_error_max, state_rel_error_rms). 0: off; -1 (default):
     * run.error_samples (whose default is 0); the environment variable
     * EBB_ERROR_SAMPLES wins over both. 0 .. EBB_ERROR_SAMPLES_MAX; a host
     * state only (with a GPU state, EBB_ERR_UNSUPPORTED at create). */
    int32_t error_samples;
    /* Steps of different costs (both NULL, the default: every step costs the
     * same). forward_costs[i] and reverse_costs[i], i < steps, are step i's
     * forward and reverse costs on any one scale (seconds, solver
     * iterations), each >= 0; read at ebb_run_create only. Strategy
     * "revolve" then runs the schedule of least total cost for them within
     * the same fast slots (the chain program of ebb/chain.h, whose uniform
     * chain is Revolve's; docs/heterogeneous.md, *In a run*); "auto" takes
     * them as seconds (as ebb_run_step_times measures them): with a slower
     * tier the planner predicts every strategy with each step's times and
     * the fastest runs, without one revolve over them; "store-all" needs
     * no costs; "async" reverses each interval between its stored states
     * by the chain program over the interval's costs; any other strategy
     * asked for, n unknown and ebb_mpi_run_create are refused
     * (EBB_ERR_INVALID_ARG). n at most EBB_CHAIN_MAX_STEPS. */
    const double *forward_costs;
    const double *reverse_costs;
    /* 1: the costs are measured instead (strategy "online" or "async", n
     * known or not): the first sweep times each forward step and, once the
     * forward ends, the reverse sweep reverses each interval between the
     * kept checkpoints (async: the stored states) with the chain program
     * over those times (ebb_schedule_set_forward_costs;
     * docs/heterogeneous.md, *Measured in the run*). A GPU state's steps
     * are timed on the device, by two CUDA events on `stream` around each
     * step's work (the host then runs at most 256 steps ahead of the
     * device, and waits for the forward sweep's last step where it ends).
     * The times are kept as ebb_run_step_times gives them, 16 bytes a step.
     * 0 (default): not. Over MPI ranks (ebb_mpi_run_create) every rank must
     * set it alike, and each step's time is the largest any rank measured.
     * "auto" runs async where a slower tier takes states, else online, or
     * store-all where every state fits (which keeps the times and plans
     * nothing); "async" without a slower tier runs online. Refused with
     * forward_costs and another strategy (EBB_ERR_INVALID_ARG). */
    int measure_costs;
    /* States of different sizes (NULL, the default: every state state_size
     * bytes). state_sizes[i], i = 0 .. steps (n + 1 entries), is the bytes
     * of x_i, 1 .. state_size (state_size is then the largest, the size of
     * each buffer a callback is handed): ebb copies and hashes those bytes
     * of x_i, no more, so x_0 given to ebb_run_forward or ebb_run_begin and
     * a state handed to ebb_run_push need be only that long, and a forward
     * step writes x_{i+1}'s bytes at the start of `out`. Read at
     * ebb_run_create only. Strategy "revolve" (or "auto", which takes it)
     * then runs the chain program's schedule of least total cost (with
     * forward_costs and reverse_costs where given, else every step 1) whose
     * stored states never take more than the host tier's budget in bytes
     * (o.slots > 0: that many states of state_size bytes), x_0 included;
     * "store-all" keeps them all where they fit it. The host tier's memory
     * is taken as states are written and given back where it would pass
     * that budget and two working states (in huge pages where whole ones
     * add at most an eighth to the states' bytes, each state then counted
     * at its whole huge pages; docs/heterogeneous.md, *States of different
     * sizes*). Needs n known, a host state and the host tier enabled and
     * uncompressed; refused with another strategy, measure_costs and
     * ebb_mpi_run_create (EBB_ERR_INVALID_ARG). n at most
     * EBB_CHAIN_MAX_STEPS. */
    const size_t *state_sizes;
} ebb_run_options;

/* Sets the defaults. Returns nothing: it cannot fail. */
EBB_API void ebb_run_options_init(ebb_run_options *options);

typedef struct ebb_run ebb_run;

/* Checks the options, resolves the strategy and the slot counts, and
 * creates every pool the run needs (disk files preallocated), so that a
 * budget too small or a disk too full fails here, before the first step,
 * saying what would fit. "auto" picks store-all when the fast tier holds
 * n-1 states; else, with a slower tier enabled and forward_seconds given
 * (n known), the strategy the planner predicts fastest (async when within
 * 2% of it); else, with a slower tier and at least 2 fast slots, async;
 * else revolve (online when n is unknown). ebb_run_info.reason says which
 * rule chose. "async" with every state fitting the fast tier runs store-all,
 * and with no slower tier revolve (online when n is unknown). Errors:
 * EBB_ERR_INVALID_ARG, EBB_ERR_CONFIG (a strategy that needs a slower tier
 * without one), EBB_ERR_NO_MEMORY (a budget too small), EBB_ERR_UNSUPPORTED
 * (a GPU state or tier without CUDA or without a device), and those of
 * ebb_pool_create. */
EBB_API ebb_status ebb_run_create(const ebb_run_options *options, ebb_run **out);

/* Waits for every transfer in flight and frees everything, files included.
 * NULL is allowed. Returns nothing: it cannot fail. */
EBB_API void ebb_run_destroy(ebb_run *run);

/* The forward sweep in one call: ebb_run_begin(x0), ebb_run_advance until
 * the end, ebb_run_finish_forward(xn). */
EBB_API ebb_status ebb_run_forward(ebb_run *run, const void *x0, void **xn);

/* Starts the forward sweep from x_0, copied from `x0` (host memory for a
 * host state; device or pinned host memory for a GPU state). */
EBB_API ebb_status ebb_run_begin(ebb_run *run, const void *x0);

/* Runs up to `max_steps` more steps of the first forward sweep; stops early
 * at x_n (n known) or after a forward step returned EBB_STEP_LAST. *done
 * (may be NULL) receives the steps run by this call. Errors: EBB_ERR_STATE
 * outside the forward sweep or when the sweep is pushed (ebb_run_push;
 * the run goes on), EBB_ERR_INVALID_ARG for max_steps < 0, and a failed
 * step's or transfer's error (the run stops). */
EBB_API ebb_status ebb_run_advance(ebb_run *run, int64_t max_steps, int64_t *done);

/* The push form of the first sweep, for a caller that runs the time steps
 * itself: x_next is x_{k+1}, which the caller computed from x_k (k = the
 * states pushed so far; x_0 came from ebb_run_begin). ebb copies it in
 * (host memory for a host state; device or pinned host memory for a GPU
 * state, the copy ordered after the work queued on the run's stream) and
 * treats it as the output of forward step k: stored as the schedule says,
 * as if the forward callback had produced it, which is not called in this
 * sweep; the caller keeps its own state and `x_next` stays its own. The
 * forward callback still recomputes states in the reverse sweep, so it must
 * give bitwise the states pushed for the adjoint to be exact (audit "hash"
 * checks it). A pushed state counts in ebb_run_stats.forward_steps (as a
 * step of the first sweep) and its copy in copies and copy_s. The sweep
 * ends with ebb_run_finish_forward: after n pushes when n is known, at
 * whatever step the caller says when the run was created with steps = 0.
 * A sweep is pushed or advanced, never both. Errors: EBB_ERR_INVALID_ARG
 * (x_next NULL), EBB_ERR_STATE outside the forward sweep, after an
 * ebb_run_advance of this sweep, or beyond n states (the run goes on);
 * a failed copy or store (the run stops). */
EBB_API ebb_status ebb_run_push(ebb_run *run, const void *x_next);

/* Ends the forward sweep at the live state, which becomes x_n (n unknown:
 * n = steps run; n known: EBB_ERR_STATE unless all n ran). *xn (may be
 * NULL) receives ebb's buffer holding x_n (device memory for a GPU state),
 * valid until the reverse sweep starts. Errors: EBB_ERR_STATE outside the
 * forward sweep, or n known and fewer than n steps run or pushed (the run
 * goes on). */
EBB_API ebb_status ebb_run_finish_forward(ebb_run *run, void **xn);

/* The reverse sweep: reverse(n-1) .. reverse(0), recomputing and restoring
 * states as the schedule says. For a GPU state the callbacks' work may still
 * be queued on the stream when this returns. Errors: EBB_ERR_STATE before
 * ebb_run_finish_forward, after the reverse sweep, once ebb_run_reverse_next
 * pulled it, or when the run has no reverse callback (the run goes on:
 * pull the sweep instead); a failed step's or transfer's error (the run
 * stops); EBB_ERR_IO when the timeline (ebb_run_options.trace) could not be
 * written (the sweep ended; the trace file is as it was). */
EBB_API ebb_status ebb_run_reverse(ebb_run *run);

/* The pull form of the reverse sweep, for a caller that runs the adjoint
 * steps itself: each call returns the next state in reverse order, *step =
 * i and *state = x_i for i = n-1 down to 0, restoring and recomputing (with
 * the forward callback) as the schedule says; the reverse callback is not
 * called (it may be NULL). *state is ebb's buffer (device memory for a GPU
 * state, ready on the run's stream), read-only, valid until the next call
 * of ebb_run_reverse_next or ebb_run_destroy; the call after x_0 ends the
 * sweep, as ebb_run_reverse's end does, and returns EBB_OK with *step = -1
 * and *state = NULL. The caller may stop early: ebb_run_destroy frees
 * everything, files included. ebb_run_stats.reverse_steps counts the states
 * the caller was done with (asked past), reverse_sweep_s runs from the first
 * call to the end. Errors: EBB_ERR_INVALID_ARG (a NULL argument),
 * EBB_ERR_STATE before ebb_run_finish_forward, after the sweep ended or once
 * ebb_run_reverse ran (the run goes on); a failed recomputation or transfer
 * (EBB_ERR_CALLBACK with the forward callback's message, ...: the run
 * stops); EBB_ERR_IO from the call that ends the sweep when the timeline
 * could not be written, as ebb_run_reverse. */
EBB_API ebb_status ebb_run_reverse_next(ebb_run *run, int64_t *step, const void **state);

/* What the run resolved. Strings stay valid until the run is destroyed. */
typedef struct ebb_run_info {
    ebb_strategy strategy;        /* what runs: a schedule, or EBB_STRATEGY_ASYNC (whose
                                     intervals run revolve); never auto */
    const char *strategy_name;    /* its name (ebb_strategy_name) */
    ebb_tier fast_tier, slow_tier;
    int32_t slots[EBB_TIER_COUNT];   /* schedule slots per tier */
    int32_t buffers[EBB_TIER_COUNT]; /* pool slots allocated per tier (slots,
                                        working and staging buffers) */
    int32_t staging;              /* of buffers[host]: those for the disk's transfers */
    uint64_t bytes[EBB_TIER_COUNT];  /* memory or file space reserved per tier (a pool
                                        made ready in extents, n unknown: the most it
                                        takes, allocated as slots are first used) */
    int64_t steps;                /* n, 0 while unknown */
    ebb_audit audit;
    int inplace;                  /* 1: the in-place forward form */
    const char *warnings;         /* the pools' fallbacks, "; "-separated; "" if none */
    const char *reason;           /* why this strategy ("auto: ...", "async asked") */
    int32_t error_samples;        /* exact copies the error estimate keeps at most (the
                                     option, at most n when n is known); 0: off */
    uint64_t error_sample_bytes;  /* their host memory, allocated at create */
} ebb_run_info;

EBB_API ebb_status ebb_run_info_get(const ebb_run *run, ebb_run_info *info);

/* Statistics so far (times in seconds, from CLOCK_MONOTONIC). */
typedef struct ebb_run_stats {
    int64_t steps;                /* n, 0 while unknown */
    int64_t forward_steps;        /* forward callbacks, first sweep included (a pushed
                                     state counts as a step of it) */
    int64_t recomputed_steps;     /* forward_steps - n */
    int64_t reverse_steps;
    int64_t stores[EBB_TIER_COUNT];   /* STORE actions per tier */
    int64_t restores[EBB_TIER_COUNT]; /* RESTORE actions per tier */
    int64_t copies;               /* state copies on the compute thread (in-place form,
                                     pushed states) */
    int64_t prefetches;           /* disk reads started ahead of their RESTORE */
    int64_t cache_hits;           /* disk RESTOREs served from a host buffer that still
                                     held the state (no read) */
    uint64_t bytes_written[EBB_TIER_COUNT]; /* bytes stored into each tier's slots by a
                                               transfer (a store in the state's own
                                               memory moves nothing) */
    uint64_t bytes_read[EBB_TIER_COUNT];    /* bytes loaded out of each tier's slots */
    int32_t peak_slots[EBB_TIER_COUNT];     /* schedule slots in use at once */
    double stall_s[EBB_TIER_COUNT];  /* time the compute thread waited for transfers
                                        from or to each tier */
    double stall_total_s;
    double forward_callback_s;    /* time inside forward callbacks */
    double reverse_callback_s;    /* time inside reverse callbacks */
    double copy_s;                /* time in the copies counted above */
    double forward_sweep_s;       /* ebb_run_begin .. ebb_run_finish_forward */
    double reverse_sweep_s;       /* ebb_run_reverse (pulled: the first
                                     ebb_run_reverse_next to the end) */
    double wall_s;                /* both sweeps */
    /* Compression (tier.disk.compression, tier.host.compression:
     * docs/compression.md), summed over the tiers (per tier: the *_tier
     * arrays below): the states stored through a codec, their bytes before
     * and after (a state that did not shrink is stored raw and counts its
     * size in both), and the time the codec threads spent (not the compute
     * thread's). stored_raw, stored_raw_slower and the measured figures are
     * the disk tier's (a fixed-rate host tier stores every state compressed). */
    uint64_t bytes_before_compression;
    uint64_t bytes_after_compression;
    int64_t stored_raw;
    double codec_s;
    /* Never slower than off: of stored_raw, the states stored raw because
     * compressing would have made them slower through the channel than raw
     * (ebb_codec_pays); and what the codec threads measured, recent states
     * weighing most: the ratio, one thread's compress and decompress rates
     * in state bytes a second (0 until measured). */
    int64_t stored_raw_slower;
    double codec_ratio;
    double compress_bps;
    double decompress_bps;
    /* Per tier (0 where a tier has no codec; the gpu's always): the bytes of
     * the states stored into the tier's slots through its codec before and
     * after compression (their ratio is the tier's), its codec threads'
     * seconds, and the compressions (tries of states stored raw included)
     * and decompressions they ran (a span each on the timeline). */
    uint64_t bytes_before_compression_tier[EBB_TIER_COUNT];
    uint64_t bytes_after_compression_tier[EBB_TIER_COUNT];
    double codec_s_tier[EBB_TIER_COUNT];
    int64_t compressions[EBB_TIER_COUNT];
    int64_t decompressions[EBB_TIER_COUNT];
    /* tier.host.compression: one host codec thread's compress and decompress
     * rates over every state, in state bytes a second (0 until measured): the
     * planner's tier.host.compress_rate and decompress_rate
     * (docs/compression.md); its time is codec_s_tier[EBB_TIER_HOST]. */
    double host_compress_bps;
    double host_decompress_bps;
    /* The error estimate (ebb_run_options.error_samples; docs/compression.md,
     * *The error estimate*): the sampled states the reverse sweep handed out
     * and compared with their exact copies from the first sweep, those not
     * bitwise equal to it, and over the compared ones the largest and the
     * root mean square of |x~ - x|_2 / |x|_2 (x the exact copy, x~ the state
     * handed out; in double over the element type's values: float32 or
     * float64 from ebb_run_options.element, else the lossy tier's element;
     * 0 for an element type of bytes, where only error_samples_differ
     * counts). Exactly 0 without lossy compression and a deterministic
     * forward step. */
    int64_t error_samples;
    int64_t error_samples_differ;
    double state_rel_error_max;
    double state_rel_error_rms;
    /* The gradient's estimated relative error: (n / K') sqrt(S |D|_2) over
     * the K' compared states, S the sum of rho_s e_s, e_s the state's
     * relative error above and rho_s = |x_{s+1} - x_s|_2 / |x_s|_2 the first
     * sweep's step from it (how strongly a step, and so its adjoint, depends
     * on its input), D the sum of the error vectors rho_s (x~_s - x_s) /
     * |x_s|_2: the errors of the n reverse steps added as sizes and as
     * vectors, the two ways they add up in an adjoint. Measured within 3x
     * of the true error on a chaotic and a diffusive model
     * (docs/compression.md, *The error estimate*); above 1 the gradient has
     * no correct digit left. */
    double gradient_rel_error_estimate;
} ebb_run_stats;

EBB_API ebb_status ebb_run_stats_get(const ebb_run *run, ebb_run_stats *stats);

/* Each step's measured time, on the run's clock, for its first `count`
 * steps (count <= steps): forward_s[i] the time of step i's forward
 * callback in the first sweep, or for x_{i+1} pushed with ebb_run_push the
 * time from the previous push (or ebb_run_begin) returning to this push
 * (the caller's step); 0 for a step not run yet. reverse_s[i] is its
 * reverse step's (the reverse callback's,
 * or, pulled, from ebb_run_reverse_next handing x_i out to the next call;
 * 0 until then). Either array may be NULL. A later run of the same steps
 * takes them as ebb_run_options.forward_costs and reverse_costs
 * (docs/heterogeneous.md, *In a run*). Kept for a host state with n known
 * and at most EBB_CHAIN_MAX_STEPS steps (16 bytes a step), and with
 * ebb_run_options.measure_costs; a GPU state's only with measure_costs,
 * timed on the device (its callbacks queue their work: their host time is
 * not the step's), its forward times there once the forward sweep ended,
 * each reverse step's once the step was queued (this call then waits for
 * the device to run the steps it reports). Otherwise EBB_ERR_UNSUPPORTED,
 * saying which; EBB_ERR_IO where the device could not time a step (the run
 * went on, its schedule untold), EBB_ERR_NO_MEMORY where n was unknown
 * and the times could not grow. EBB_ERR_INVALID_ARG for count outside
 * 0 .. steps. */
EBB_API ebb_status ebb_run_step_times(const ebb_run *run, double *forward_s, double *reverse_s,
                                      int64_t count);

#ifdef __cplusplus
}
#endif

#endif
