/*
 * The runtime's internals, shared by its files:
 *   run.c        creating a run from rt_create_args (engine.h), the sweeps'
 *                control flow, destroy, info and statistics;
 *   run_config.c a real run's arguments from its options and configuration
 *                (ebb_run_create itself is planner/auto.c's: auto asks the
 *                planner, which sits above);
 *   run_setup.c  resolving the strategy, the tiers and the slot counts;
 *   io_storage.c the real io (io.h): the clock and ebb/storage.h;
 *   h_costs.c    h-revolve's costs from the step times and bandwidths;
 *   execute.c    one action at a time over the pools;
 *   buffers.c    the physical buffers behind the schedule's slots;
 *   packed.c     the host tier's compressed slots (tier.host.compression);
 *   source.c     where the actions come from: a schedule or async.c;
 *   async.c      the asynchronous strategy's generator (async.h);
 *   prefetch.c   reading the next disk RESTORE ahead in the reverse sweep;
 *   audit.c      the validator replay and the state hashes;
 *   error_sample.c the lossy error estimate's exact copies and comparisons;
 *   step_times.c each step's measured forward and reverse time;
 *   trace.c      the timeline file (trace.h).
 */
#ifndef EBB_RUNTIME_RUNTIME_INTERNAL_H
#define EBB_RUNTIME_RUNTIME_INTERNAL_H

#include <stdint.h>

#include "ebb/planner.h"
#include "ebb/runtime.h"
#include "ebb/storage.h"
#include "schedules/validator_slots.h"
#include "runtime/agree.h"
#include "schedules/async.h"
#include "runtime/engine.h"
#include "runtime/io.h"
#include "runtime/trace.h"
#include "runtime/window.h"

/* What a buffer is free for (buffers.c keeps one list of each, so a free
 * buffer is found without scanning): RT_HELD holds something (a schedule
 * slot, the live state, x_{n-1}, x_n, the audit scratch, a read ahead);
 * RT_BUSY is free once its transfer ends (listed in the order they were
 * started); RT_CACHED free but still holding a disk slot's data (handed out
 * last, so the copy lives long); RT_IDLE free. */
enum { RT_HELD = 0, RT_BUSY, RT_CACHED, RT_IDLE, RT_CLASSES };

/* The largest huge page states of different sizes are counted in (a
 * system whose huge pages are larger maps them in its pages). */
#define RT_HUGE_MAX ((size_t)32 << 20)

/* One physical buffer: a slot of the host or gpu pool. The schedule's slots
 * of that tier map onto buffers, so that storing the live state is a change
 * of map, not a copy. */
typedef struct rt_buf {
    int32_t holders;    /* schedule slots mapped to this buffer (0 or 1) */
    int32_t pins;       /* the run's own references: live, prev, xn, scratch, read ahead */
    rt_ticket pending; /* the last transfer that reads or fills it (pool NULL: none) */
    int pending_tier;   /* the other end of that transfer, for stall accounting */
    int fills;          /* 1: the pending transfer writes this buffer */
    int32_t cached;     /* host: disk slot + 1 whose data this buffer still holds, 0: none */
    int8_t cls;         /* its list (RT_HELD ...) */
    int32_t next, prev; /* neighbours in that list, -1 at the ends */
} rt_buf;

/* A memory tier (host or gpu): its pool, its buffers, the schedule's map. */
typedef struct rt_mem {
    rt_pool *pool;
    ebb_tier tier;
    int32_t count;   /* buffers */
    rt_buf *buf;
    int32_t fresh;   /* buffers [fresh, count) were never taken: free, in no list, their
                        entries untouched (a run with n unknown may have millions) */
    int32_t untaken; /* buffer fresh - 1 while it heads the idle list, not taken yet; -1 */
    int32_t slots;   /* schedule slots */
    int32_t *map;    /* schedule slot -> buffer + 1, 0 when empty (zeroed: a slot's
                        page is touched only once it is used; rt_map_get/set) */
    int32_t head[RT_CLASSES], tail[RT_CLASSES], size[RT_CLASSES]; /* the lists */
    int32_t spare;   /* buffers beyond the schedule's slots and the working ones */
    int32_t ahead;   /* buffers the reads ahead hold (prefetch.c), at most spare (host: - 1) */
    int32_t marked;  /* one past the highest buffer ever given a transfer (rt_mark): rt_drain
                        looks no further */
    /* a lazy host pool (states of different sizes, rt_lazy_wrote): its io,
     * else NULL; per buffer the bytes its pages may hold (the most written
     * since they were given back) and the bytes of the state it holds;
     * the pages' sum, and the most it may be */
    rt_io *lazy;
    uint64_t *held, *used;
    uint64_t held_total, held_limit;
    size_t unit;     /* lazy: what a state's bytes are rounded up to (a huge page), or 1 */
} rt_mem;

/* The buffer schedule slot `slot` holds, -1 when it holds none. */
static inline int32_t rt_map_get(const rt_mem *m, int32_t slot)
{
    return m->map[slot] - 1;
}

/* Schedule slot `slot` holds buffer b (-1: none). */
static inline void rt_map_set(rt_mem *m, int32_t slot, int32_t b)
{
    m->map[slot] = b + 1;
}

/* A read started ahead of its action (prefetch.c): disk slot -> host buffer
 * (from EBB_TIER_DISK), or host slot -> gpu buffer (from EBB_TIER_HOST). */
typedef struct rt_ahead {
    int8_t from;
    int32_t slot;
    int64_t step; /* the state it holds */
    int32_t buf;  /* the buffer it fills (pinned until taken) */
} rt_ahead;

/* The lossy hash audit's record of one forward step (audit.c). */
typedef struct rt_memo_cell {
    int64_t step;    /* -1: empty */
    uint64_t in, out; /* hashes of x_step and of the x_{step+1} computed from it */
} rt_memo_cell;

/* The lossy error estimate's exact copies (error_sample.c). */
typedef struct rt_errs {
    int32_t cap;          /* copies kept at most; 0: off */
    int32_t count;        /* copies kept */
    int64_t every;        /* n unknown: the steps kept are multiples of this */
    int64_t *step;        /* each copy's step, ascending */
    unsigned char *data;  /* cap states, mapped (bytes) */
    size_t bytes;
    double *rho;          /* each copy's |x_{s+1} - x_s|_2 / |x_s|_2 (the step's change) */
    int32_t pending;      /* the copy whose x_{s+1} comes next, else -1 */
    double sum_rho_err;   /* of rho x the relative error compared */
    int element;          /* an ebb_element: how states are compared */
    double sum_sq;        /* of the relative errors compared */
    double *drift;        /* float types: per value, the sum over the compared states of
                             rho_s (x~_s - x_s) / |x_s|_2 (mapped, drift_bytes) */
    size_t values, drift_bytes;
    double drift_norm;    /* |drift|_2 */
} rt_errs;

/* The clock read that ended the last forward or reverse callback. The next
 * callback starts from it when only bookkeeping ran between (execute.c):
 * one clock read a step, not two, which is most of the engine's own cost
 * per step. */
/* A GPU state's steps timed on the device (step_times.c): a ring of
 * entries, each a start and an end event around one step's queued work.
 * An entry's time is read when the ring comes round to it again (the host
 * then runs at most `entries` steps ahead of the device) or when the
 * sweep's times are needed (rt_step_times_settle). */
typedef struct rt_step_timer {
    void **events;   /* 2 an entry (start, end); NULL: steps not timed on the device */
    int64_t *slot;   /* per entry: the step_s index its time goes to, -1 none */
    int32_t entries, next;
    int device;      /* the events' device */
    int open;        /* entry `next` has its start recorded, not its end */
} rt_step_timer;

typedef struct rt_step_clock {
    double t; /* < 0: read the clock */
    double stall;
    int64_t prefetches;
} rt_step_clock;

typedef enum rt_phase {
    RT_CREATED = 0, /* before ebb_run_begin */
    RT_FORWARD,     /* first sweep running */
    RT_TURNED,      /* forward finished, x_n handed out */
    RT_REVERSED,    /* END reached */
    RT_FAILED       /* stopped on an error; every resource released */
} rt_phase;

/* The first sweep's form: not chosen yet, the forward callback
 * (ebb_run_advance, ebb_run_forward) or states handed in (ebb_run_push). */
enum { RT_FORM_NONE = 0, RT_FORM_CALLBACK, RT_FORM_PUSH };

struct ebb_run {
    rt_io *io;             /* time and transfers (io.h): real, or the planner's */
    ebb_run_options opt;
    ebb_codec_options codec; /* the disk pool's compression: the configuration's with
                                the options' element and shape */
    ebb_codec_options host_codec; /* the same for the host tier's (packed below) */
    ebb_run_info info;
    ebb_run_stats stats;
    rt_phase phase;
    char failure[1024];    /* the error that stopped the run */
    char warnings[1024];

    ebb_schedule *schedule; /* NULL for async */
    rt_async *async;        /* the asynchronous strategy, else NULL */
    ebb_tier async_tier[3]; /* its tiers, fastest first */
    rt_ticket last_in[EBB_TIER_COUNT]; /* the last transfer into each tier */
    char reason[256];       /* why this strategy (ebb_run_info.reason) */
    rt_trace trace;         /* the timeline; trace.f NULL when off */
    int64_t cur_step;       /* the state the current action concerns (trace labels) */
    rt_window win;         /* the actions being worked through (window.h) */
    rt_ahead *ahead;       /* the reads ahead in flight, a ring in action order (prefetch.c) */
    int32_t ahead_cap, ahead_first, ahead_len;
    int64_t advance_at;    /* within the current ADVANCE: the next step to run */
    int64_t last_step_at;  /* n unknown: the forward said x_{this} is the last, else -1 */
    int steps_told;        /* online with n known: ebb_schedule_set_steps called */
    int forward_form;      /* the first sweep's form once chosen: RT_FORM_* */
    const void *pushed;    /* within ebb_run_push: x_{k+1}, the caller's, copied in
                              instead of calling the forward callback */
    int pulling;           /* the reverse sweep is pulled (ebb_run_reverse_next) */
    int64_t pulled;        /* pull form: the step whose x_i the caller holds, else -1 */
    double pulled_at;      /* when it was handed out (its span on the timeline) */
    rt_step_clock clock;   /* the last callback's end (rt_step_clock); t < 0 between calls,
                              after the schedule was asked, or after a transfer */

    rt_mem host, gpu;      /* gpu.pool NULL for a host state */
    rt_mem *state;         /* the memory the live state lives in */
    rt_pool *disk;
    int32_t disk_slots;
    /* tier.host.compression: the schedule's host slots are this compressed
     * pool's (packed.c), not buffers of `host`; NULL otherwise */
    rt_pool *packed;
    int host_plain;        /* auto chose the host slots uncompressed (faster here) */
    int32_t packed_slots;
    rt_ticket *packed_pending; /* per packed slot: the last transfer touching it */
    rt_ticket *disk_pending; /* per disk slot: the last transfer touching it */
    int32_t disk_high;       /* one past the highest disk slot given a transfer
                                (rt_disk_pending_set): rt_drain looks no further */
    int32_t *disk_cache;      /* per disk slot: 1 + a host buffer still holding its data,
                                 0 none (zeroed memory: nothing written for slots unused);
                                 read with rt_disk_cached */
    int32_t live;          /* buffer of the live state in *state, -1 when undefined */
    int64_t live_step;
    int32_t prev;          /* buffer of x_{to-1} right after an ADVANCE, else -1 */
    int32_t xn;            /* buffer of x_n between finish_forward and the turn */
    int64_t computed;      /* highest state index computed so far (first sweep) */
    int32_t in_use[EBB_TIER_COUNT];

    /* audit */
    ebb_validator *validator;
    uint64_t *hash;        /* hash[i] of x_i, i <= computed (no lossy tier) */
    int64_t hash_cap;
    int32_t scratch;       /* host buffer to hash a gpu state, -1 if none */
    /* "hash" with a lossy tier (audit.c): a restored state is its slot's
     * round trip, so forward steps are checked by their input, restores by
     * their slot's copy */
    int audit_lossy;
    int lossy[EBB_TIER_COUNT];  /* a state stored to this tier comes back changed */
    rt_memo_cell *memo;         /* (step, hash of x_step) -> hash of x_{step+1}, open addressing */
    size_t memo_size, memo_used;
    vslots expect[EBB_TIER_COUNT]; /* per slot: the hash of what its restore gives, -1 unknown */
    uint64_t live_hash, prev_hash; /* of the live state, and of x_{to-1} after an ADVANCE */

    rt_errs errs;          /* the lossy error estimate (error_sample.c) */
    double *step_s;        /* step i's first-sweep forward time at 2i, its reverse's at
                              2i + 1, or NULL (step_times.c) */
    int64_t step_cap;      /* steps step_s has room for */
    int step_times_lost;   /* growing step_s (n unknown) or timing on the device failed:
                              none are kept; step_times_why says why */
    char step_times_why[256];
    rt_step_timer timer;   /* a GPU state's: its steps timed on the device */
    size_t *sizes;         /* state_sizes copied (n + 1), or NULL: every state state_size */
    uint64_t sized_budget; /* with sizes: the bytes the schedule's stored states take at most */
    size_t huge;           /* with sizes: the huge page the host buffers take memory in, each
                              state counted in whole ones; 0: the system's pages */

    rt_tiers tiers;        /* what each tier offers (engine.h) */
    rt_agree *agree;       /* other processes run the same schedule (agree.h); NULL: none */
    uint64_t actions_hash; /* with agree: every action fetched, hashed (source.c) */
    int32_t slot_cap[EBB_TIER_COUNT]; /* with agree: the least slots over the processes */
    /* auto's planner measured the disk: its channels, for h-revolve's costs */
    int planned_channels;
    ebb_plan_channel plan_channel[EBB_PLAN_CHANNEL_COUNT];
    double t_forward_begin, t_reverse_begin;
    double pushed_mark;    /* push form: when ebb_run_begin or the last push returned */
};

/* The io's calls, for the run's io. */
static inline double rt_clock(const ebb_run *run)
{
    return run->io->ops->now(run->io);
}
static inline ebb_status rt_move(ebb_run *run, rt_pool *dst, int32_t ds, rt_pool *src, int32_t ss,
                                 rt_ticket *t)
{
    return run->io->ops->move(run->io, dst, ds, src, ss, t);
}
static inline ebb_status rt_test(ebb_run *run, const rt_ticket *t, int *done)
{
    return run->io->ops->test(run->io, t, done);
}
/* The bytes of x_step that ebb copies and hashes. */
static inline size_t rt_state_bytes(const ebb_run *run, int64_t step)
{
    return run->sizes && step >= 0 && step <= run->opt.steps ? run->sizes[step]
                                                              : run->opt.state_size;
}
/* The copies that read what the user's stream produced wait for it. */
static inline ebb_status rt_order_after(ebb_run *run, rt_pool *pool)
{
    return run->io->ops->order_after(run->io, pool, run->opt.stream);
}

/* tests: the pools behind a run (to corrupt a file, say; NULL under the planner's io). */
ebb_pool *ebb_run_debug_pool(ebb_run *run, ebb_tier tier);

/* run_setup.c: resolves strategy, tiers and slot counts into the schedule
 * options and creates the schedule (or async's generator). */
ebb_status rt_setup_schedule(ebb_run *run, const rt_create_args *args);
/* run_setup.c: creates the pools the schedule needs. */
ebb_status rt_setup_pools(ebb_run *run, const rt_create_args *args);

/* source.c: the next actions, and n once the forward learnt it (or
 * reached a known n: the measured costs are handed over then) */
ebb_status rt_source_next(void *run, ebb_action *out, size_t cap, size_t *count);
ebb_status rt_source_set_steps(ebb_run *run, int64_t steps);

/* execute.c */
ebb_status rt_execute(ebb_run *run, const ebb_action *a);
ebb_status rt_run_steps(ebb_run *run, int64_t to, int64_t max_steps, int64_t *done);
/* A buffer of the state's memory taken and filled with the caller's state
 * at `src` (x_0, or a pushed x_{k+1}; for a GPU state ordered after the
 * work on the user's stream, and the stream waits for the copy). */
ebb_status rt_put_state(ebb_run *run, const void *src, int64_t step, int32_t *out);
/* Pull form: the caller is done with the x_i it was handed (run->pulled);
 * the bookkeeping a reverse callback's return does. */
ebb_status rt_reverse_done(ebb_run *run);

/* buffers.c */
ebb_status rt_mem_init(rt_mem *m, rt_pool *pool, ebb_tier tier, int32_t count, int32_t slots);
/* Faults in the buffer table and the slot map (n known: the run uses every
 * buffer, and its sweeps then pay no page fault per first use). */
void rt_mem_populate(rt_mem *m);
void rt_mem_free(rt_mem *m);
void *rt_buf_ptr(const ebb_run *run, const rt_mem *m, int32_t b);
/* A buffer free for new data: held by nothing, no transfer in flight
 * (waited for; `for_user` on a gpu: the stream waits instead). An error if
 * none can be had. Constant time: the lists, not a scan. */
ebb_status rt_take(ebb_run *run, rt_mem *m, int for_user, int32_t *out);
/* A buffer free now without waiting, if `keep` others stay free or busy
 * (read ahead: never the last ones the steps need); -1 if none. */
ebb_status rt_take_spare(ebb_run *run, rt_mem *m, int32_t keep, int32_t *out);
/* Whether a read ahead may hold one more buffer of m (rt_take_spare's
 * rule; also for keeping a cached one). */
int rt_may_pin_ahead(const rt_mem *m, int32_t keep);
/* Puts buffer b in the list its fields say; after every change of holders,
 * pins, pending or cached (rt_mark, rt_settle, rt_remember, rt_forget and
 * the ref setters call it themselves). */
void rt_buf_update(rt_mem *m, int32_t b);
/* *ref (run->live, prev, xn, scratch: buffers of m) := b, pinning b and
 * unpinning the old one. */
void rt_set_ref(rt_mem *m, int32_t *ref, int32_t b);
/* Whether x's transfer is over, without waiting (its failure in *st). */
int rt_idle(ebb_run *run, rt_mem *m, int32_t b, ebb_status *st);
/* A lazy pool's buffer b is about to hold a state of `bytes`: counted,
 * and pages given back (idle buffers' first, then what buffers hold past
 * their states) while the count passes held_limit. Nothing where the pool
 * is not lazy. */
void rt_lazy_wrote(rt_mem *m, int32_t b, size_t bytes);
/* Waits for buffer b's transfer, if any. */
ebb_status rt_settle(ebb_run *run, rt_mem *m, int32_t b);
ebb_status rt_wait(ebb_run *run, const rt_ticket *t, int tier);
/* The user's stream waits for t; what the io says the compute was held
 * counts as a stall of `tier`. */
ebb_status rt_stream_wait(ebb_run *run, const rt_ticket *t, int tier);
/* Records a transfer that touches buffer b. */
ebb_status rt_mark(ebb_run *run, rt_mem *m, int32_t b, rt_ticket t, int other_tier, int fills);
/* Copies buffer sb of `src` into buffer db of `dst` (host <-> gpu, gpu <->
 * gpu; host -> host is a memcpy). */
ebb_status rt_copy_buf(ebb_run *run, rt_mem *dst, int32_t db, rt_mem *src, int32_t sb,
                       int64_t step);
ebb_status rt_disk_settle(ebb_run *run, int32_t slot);
/* The host buffer b holds what disk slot `slot` holds (it was written from
 * it or read into it); rt_forget: b is about to change. A RESTORE from the
 * slot then uses b instead of reading the disk. */
void rt_remember(ebb_run *run, int32_t b, int32_t slot);
void rt_forget(ebb_run *run, rt_mem *m, int32_t b);
ebb_status rt_drain(ebb_run *run);

/* Disk slot `slot`'s last transfer is `t` (its entry of disk_pending). */
void rt_disk_pending_set(ebb_run *run, int32_t slot, rt_ticket t);

/* The host buffer still holding disk slot `slot`'s data, or -1. */
static inline int32_t rt_disk_cached(const ebb_run *run, int32_t slot)
{
    return run->disk_cache[slot] - 1;
}
/* tests: 0 when every buffer of every tier sits in the list its fields say
 * and the lists are well formed; else -1 with the first fault in ebb's
 * message. */
int ebb_run_debug_check_buffers(ebb_run *run);

/* packed.c: with run->packed, a STORE into host slot `slot` from buffer b
 * of src (started), a RESTORE out of it into a buffer of dst (waited for);
 * buffers.c: the wait for a slot's transfer. */
ebb_status rt_packed_store(ebb_run *run, int32_t slot, rt_mem *src, int32_t b);
ebb_status rt_packed_restore(ebb_run *run, int32_t slot, rt_mem *dst, int32_t *out);
ebb_status rt_packed_settle(ebb_run *run, int32_t slot);

/* prefetch.c: starts the coming actions' reads early (reverse sweep) */
ebb_status rt_ahead_init(ebb_run *run);
void rt_ahead_free(ebb_run *run);
ebb_status rt_lookahead(ebb_run *run);
/* The buffer a read ahead fills with `step` from slot `slot` of tier `from`
 * (disk: a host buffer; host: a gpu buffer), unpinned; -1 if none. */
int32_t rt_take_ahead(ebb_run *run, int from, int32_t slot, int64_t step);

/* audit.c */
ebb_status rt_audit_init(ebb_run *run);
void rt_audit_free(ebb_run *run);
ebb_status rt_audit_action(ebb_run *run, const ebb_action *a);
/* After x_step was produced by a forward step (first == 1: for the first time). */
ebb_status rt_audit_computed(ebb_run *run, int64_t step, int32_t buf);
ebb_status rt_audit_restored(ebb_run *run, const ebb_action *a, int32_t buf);
/* After a STORE, PREFETCH or EVICT: what the slot written will give back. */
ebb_status rt_audit_stored(ebb_run *run, const ebb_action *a);
/* At the TURN: the live state is x_{n-1} again. */
void rt_audit_turned(ebb_run *run);
/* Whether a state stored to (or moved into) `tier` comes back changed. */
int rt_tier_lossy(const ebb_run *run, int tier);

/* error_sample.c: the exact copies allocated at create (a GPU state is
 * refused), taken as the first sweep computes x_step in buffer b, compared
 * when the reverse sweep hands x_step out in buffer b. */
ebb_status rt_errs_init(ebb_run *run);
void rt_errs_free(ebb_run *run);
ebb_status rt_errs_computed(ebb_run *run, int64_t step, int32_t b);
ebb_status rt_errs_compare(ebb_run *run, int64_t step, int32_t b);

/* step_times.c: the times allocated at create where they are kept, set as
 * the first sweep's forward callbacks and the reverse steps end. */
ebb_status rt_step_times_init(ebb_run *run);
void rt_step_times_free(ebb_run *run);
/* measure_costs: the forward sweep's times to the online schedule, right
 * after it was told n (nothing where none are kept). */
ebb_status rt_step_times_to_schedule(ebb_run *run, int64_t steps);
void rt_step_forward_time(ebb_run *run, int64_t step, double seconds);
void rt_step_reverse_time(ebb_run *run, int64_t step, double seconds);
/* A GPU state's step on the device: begin before its work is queued (a
 * callback, or the caller's work between pushes or pulls), end after, with
 * the step and whether it is a reverse step. No-ops where steps are not
 * timed on the device. settle: every time recorded read (waiting for the
 * device to reach it): when the forward's times go to the schedule, and
 * when ebb_run_step_times asks. */
void rt_step_device_begin(ebb_run *run);
void rt_step_device_end(ebb_run *run, int64_t step, int reverse);
void rt_step_times_settle(ebb_run *run);

#endif
