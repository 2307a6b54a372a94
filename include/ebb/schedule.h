/*
 * ebb — checkpointing schedules as lazily generated action streams.
 *
 * A schedule says, one action at a time, what to do to reverse n steps:
 * advance the live state, store it in a slot of a tier, restore it, move it
 * between tiers, run the reverse step. The generator keeps O(slots) state, so
 * n = 10^9 costs no memory. Every stream can be checked by the replay
 * validator (ebb_validator_*), which proves that each REVERSE(i) sees x_i.
 *
 * The live state: the runtime holds one state, x_i, that forward steps
 * advance. ADVANCE(i -> j) runs forward steps i .. j-1 on it. The last step of
 * an ADVANCE is run out of place, so its input x_{j-1} is still at hand:
 * TURN(n), right after the ADVANCE that reached x_n (the loss is evaluated
 * there), makes x_{n-1} the live state again without recomputing it. This is
 * why the first forward sweep costs exactly n forward steps and Revolve's
 * count is r*n - binom(C+r, r-1) + 1.
 */
#ifndef EBB_SCHEDULE_H
#define EBB_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include "ebb/error.h"
#include "ebb/vocabulary.h"

#ifdef __cplusplus
extern "C" {
#endif


typedef enum ebb_action_kind {
    EBB_ACT_ADVANCE = 0,  /* run forward steps step .. to-1 on the live state */
    EBB_ACT_STORE = 1,    /* keep the live state x_step in (tier, slot); may complete later */
    EBB_ACT_RESTORE = 2,  /* make x_step the live state from (tier, slot); waits for its data */
    EBB_ACT_PREFETCH = 3, /* copy x_step from (tier, slot) to (tier_to, slot_to); source kept */
    EBB_ACT_EVICT = 4,    /* move x_step from (tier, slot) to (tier_to, slot_to); source freed */
    EBB_ACT_FREE = 5,     /* (tier, slot), holding x_step, may be reused */
    EBB_ACT_TURN = 6,     /* the forward sweep ended at x_step (= n); live state becomes x_{n-1} */
    EBB_ACT_REVERSE = 7,  /* the user's reverse step for step `step`; live state is x_step */
    EBB_ACT_END = 8,      /* the reverse sweep is complete */
    EBB_ACT_TAPE = 9      /* run forward step `step` on the live state x_step keeping what its
                             reverse step needs (its tape); the live state becomes x_{step+1},
                             and REVERSE(step) then runs from the tape, not from x_step
                             (heterogeneous chains, ebb/chain.h) */
} ebb_action_kind;

/* One action. Fields a kind does not use are zero. */
typedef struct ebb_action {
    int32_t kind;    /* ebb_action_kind */
    int16_t tier;    /* STORE, RESTORE, FREE: the tier; PREFETCH, EVICT: the source tier */
    int16_t tier_to; /* PREFETCH, EVICT: the destination tier */
    int32_t slot;    /* slot index within `tier` */
    int32_t slot_to; /* slot index within `tier_to` */
    int64_t step;    /* the state index i (ADVANCE: the first step; TURN: n) */
    int64_t to;      /* ADVANCE: one past the last step run */
} ebb_action;

/* Lower-case name of an action kind ("advance"); "?" if unknown. Never NULL. */
EBB_API const char *ebb_action_kind_name(int32_t kind);

/* Writes a one-line description of `a` ("restore 17 host[3]") into buf.
 * Returns the length the full text needs, as snprintf does (no error code:
 * it cannot fail, and truncation is visible from the return value). */
EBB_API int ebb_action_format(const ebb_action *a, char *buf, size_t len);

/* Parses one action in the text form ebb_action_format writes: "advance 0 ->
 * 4", "store 0 host[0]", "restore 2 host[1]", "free 6 disk[1]", "prefetch 3
 * disk[1] -> host[0]", "evict 3 host[0] -> disk[1]", "turn 8", "reverse 7",
 * "end", "tape 5". Spaces and tabs may separate the tokens; a trailing newline (and
 * carriage return) is allowed. *out is zeroed first, so the fields a kind
 * does not use are zero, and format -> parse gives back the same action.
 * Steps are read as signed 64-bit numbers and not range checked (the
 * validator refuses those outside 0 .. n). EBB_ERR_INVALID_ARG when the line
 * is not one action; the message says what is wrong (not repeating the line). */
EBB_API ebb_status ebb_action_parse(const char *line, ebb_action *out);


/* What a schedule is asked to do. Fill with ebb_schedule_options_init, then
 * set what differs from the defaults. */
typedef struct ebb_schedule_options {
    ebb_strategy strategy; /* default EBB_STRATEGY_REVOLVE */
    int64_t steps;         /* n >= 1; for EBB_STRATEGY_ONLINE ignored (learnt later) */
    int32_t slots;         /* C >= 1: slots in the fast tier, the one holding x_0 included */
    int32_t disk_slots;    /* D: slots in the slow tier; -1 (default) = as many as needed
                              (disk-revolve), 0 for the others; h-revolve needs D >= 0 */
    int64_t period;        /* periodic: k (0 = the smallest k that fits C slots);
                              disk-revolve: period m (0 = derived from io_ratio) */
    double io_ratio;       /* disk-revolve: R = (write + read time of one state) / step time */
    ebb_tier fast_tier;    /* tier of the C slots, default EBB_TIER_HOST */
    ebb_tier slow_tier;    /* tier of the D slots, default EBB_TIER_DISK */
    /* Costs in units of one forward step, for h-revolve's choice and for
     * comparing strategies (`ebb plan` reports each stream's cost with them).
     * Defaults 1, 1, 1: a slow-tier write or read and a reverse step as dear
     * as a forward step; the fast tier is free. */
    double write_cost;     /* one store into (or transfer to) the slow tier */
    double read_cost;      /* one restore from (or transfer out of) the slow tier */
    double reverse_cost;   /* one reverse step */
} ebb_schedule_options;

/* Sets the defaults. Returns nothing: it cannot fail. */
EBB_API void ebb_schedule_options_init(ebb_schedule_options *options);

typedef struct ebb_schedule ebb_schedule;

/* Creates a schedule. Checks every option and says which is wrong (e.g.
 * "store-all needs 9 slots for 10 steps, got 4"). */
EBB_API ebb_status ebb_schedule_create(const ebb_schedule_options *options, ebb_schedule **out);

/* Frees a schedule; NULL is allowed. Returns nothing: it cannot fail. */
EBB_API void ebb_schedule_destroy(ebb_schedule *schedule);

/* The next action. After END, keeps returning END. EBB_ERR_STATE when an
 * online schedule needs ebb_schedule_set_steps first (never, if the caller
 * calls it as soon as its forward stops). */
EBB_API ebb_status ebb_schedule_next(ebb_schedule *schedule, ebb_action *action);

/* Up to `capacity` next actions into `actions`; *count says how many. Stops
 * after END (which is included) and, for an online schedule, after each
 * ADVANCE, so the caller can say the forward stopped. */
EBB_API ebb_status ebb_schedule_next_batch(ebb_schedule *schedule, ebb_action *actions,
                                           size_t capacity, size_t *count);

/* Online schedules: the forward sweep stopped at x_n, right after the ADVANCE
 * that produced it. EBB_ERR_STATE if the live state is not x_n or n was set;
 * EBB_ERR_INVALID_ARG for an offline schedule. */
EBB_API ebb_status ebb_schedule_set_steps(ebb_schedule *schedule, int64_t steps);

/* Online schedules: the forward steps' costs (costs[i] >= 0 for step i, on
 * any one scale, such as the seconds each took in the forward sweep), given
 * after ebb_schedule_set_steps and before the next action; count is n. The
 * reverse sweep then reverses each interval between the kept checkpoints
 * with the chain program over them (ebb/chain.h; docs/online.md) instead of
 * the binomial schedule, at no more cost over them. Copied.
 * EBB_ERR_INVALID_ARG for another strategy, a count other than n or a cost
 * that is negative or not finite (naming the step); EBB_ERR_STATE before
 * n is known or once the reverse sweep began. */
EBB_API ebb_status ebb_schedule_set_forward_costs(ebb_schedule *schedule, const double *costs,
                                                  int64_t count);

/* Slots the schedule uses at most in each tier (its budget, not its peak). */
EBB_API ebb_status ebb_schedule_tier_slots(const ebb_schedule *schedule,
                                           int32_t slots[EBB_TIER_COUNT]);

/* The options as the schedule resolved them: the period periodic or
 * disk-revolve chose, and for online schedules the steps once known. */
EBB_API ebb_status ebb_schedule_get_options(const ebb_schedule *schedule,
                                            ebb_schedule_options *options);

/* Periodic Disk-Revolve's period for M memory slots and ratio R: beta(M, t)
 * = binom(M+t, t) with t the least integer such that beta(M+1, t) > R
 * (Aupy & Herrmann 2017). EBB_ERR_INVALID_ARG for M < 1 or R < 0. */
EBB_API ebb_status ebb_disk_revolve_period(int32_t memory_slots, double io_ratio,
                                           int64_t *period);

/* Revolve's forward step count, first sweep included, for n steps and C
 * slots: r*n - binom(C+r, r-1) + 1, r the least with binom(C+r, C) >= n.
 * EBB_ERR_INVALID_ARG when n < 1 or C < 1 or the count overflows int64. */
EBB_API ebb_status ebb_revolve_forward_count(int64_t steps, int32_t slots, int64_t *count);

/* ---- replay validator ---------------------------------------------------- */

/* What a validated stream cost. */
typedef struct ebb_schedule_stats {
    int64_t steps;                          /* n */
    int64_t actions;                        /* actions seen, END included */
    int64_t forward_steps;                  /* forward callback calls, first sweep included */
    int64_t reverse_steps;                  /* reverse callback calls (= n when complete) */
    int64_t stores[EBB_TIER_COUNT];         /* STORE actions per tier */
    int64_t restores[EBB_TIER_COUNT];       /* RESTORE actions per tier */
    int64_t transfers_out[EBB_TIER_COUNT];  /* PREFETCH/EVICT reading from a tier */
    int64_t transfers_in[EBB_TIER_COUNT];   /* PREFETCH/EVICT writing to a tier */
    int32_t peak_slots[EBB_TIER_COUNT];     /* most slots in use at once per tier */
    int complete;                           /* 1 once END was accepted */
} ebb_schedule_stats;

typedef struct ebb_validator ebb_validator;

/* A validator for n steps (0 = unknown: learnt from TURN, for online
 * schedules) and the given slot counts per tier. */
EBB_API ebb_status ebb_validator_create(int64_t steps, const int32_t slots[EBB_TIER_COUNT],
                                        ebb_validator **out);

/* Frees a validator; NULL is allowed. Returns nothing: it cannot fail. */
EBB_API void ebb_validator_destroy(ebb_validator *validator);

/* Replays `count` actions. EBB_ERR_SCHEDULE at the first that breaks a rule;
 * the message names the action, its index and the rule. The validator then
 * refuses further actions. Every action's step must be in 0 .. n (>= 0 while
 * n is unknown); docs/schedules.md lists every rule. */
EBB_API ebb_status ebb_validator_check(ebb_validator *validator, const ebb_action *actions,
                                       size_t count);

/* EBB_OK once END has been replayed after every step was reversed;
 * EBB_ERR_SCHEDULE otherwise, saying what is missing. */
EBB_API ebb_status ebb_validator_finish(const ebb_validator *validator);

/* Counts so far. */
EBB_API ebb_status ebb_validator_stats(const ebb_validator *validator, ebb_schedule_stats *stats);

/* States of different sizes (heterogeneous chains, ebb/chain.h): x_i takes
 * bytes[i] bytes (i < count; a state past count takes none), and from now
 * on the states `tier`'s slots hold must never take more than `budget`
 * bytes at once, else EBB_ERR_SCHEDULE names the action and the bytes. Call
 * it before the first action. EBB_ERR_INVALID_ARG for NULL (count > 0), a
 * bad tier, count < 0 or a validator that has seen actions. */
EBB_API ebb_status ebb_validator_set_state_bytes(ebb_validator *validator, ebb_tier tier,
                                                 const uint64_t *bytes, int64_t count,
                                                 uint64_t budget);

/* Tapes (EBB_ACT_TAPE): step i's tape takes bytes[i] bytes (i < count),
 * counted against `tier`'s budget from the TAPE that makes it to the
 * REVERSE that uses it, beside the states its slots hold; call
 * ebb_validator_set_state_bytes for the tier too. Call it before the first
 * action. EBB_ERR_INVALID_ARG as for ebb_validator_set_state_bytes. */
EBB_API ebb_status ebb_validator_set_tape_bytes(ebb_validator *validator, ebb_tier tier,
                                                const uint64_t *bytes, int64_t count);

/* The most bytes `tier`'s slots held at once (0 unless
 * ebb_validator_set_state_bytes was called for the tier). */
EBB_API ebb_status ebb_validator_peak_bytes(const ebb_validator *validator, ebb_tier tier,
                                            uint64_t *bytes);

/* Generates the whole schedule for `options` and replays it through a
 * validator sized by ebb_schedule_tier_slots; online schedules are told n =
 * options->steps when their forward reaches it. A long offline stream
 * (2^16 steps or more) is generated on a second thread while the calling
 * thread validates it; where that thread cannot start, both run in turn. */
EBB_API ebb_status ebb_schedule_validate(const ebb_schedule_options *options,
                                         ebb_schedule_stats *stats);

/* Called with each validated batch of actions; a status other than EBB_OK
 * stops the replay and is returned. */
typedef ebb_status (*ebb_action_visitor)(void *user, const ebb_action *actions, size_t count);

/* As ebb_schedule_validate, and hands every batch, once validated, to
 * `visit` (NULL: none), e.g. to print or execute it. `visit` is called on
 * the calling thread, never on the generator's. */
EBB_API ebb_status ebb_schedule_replay(const ebb_schedule_options *options,
                                       ebb_schedule_stats *stats, ebb_action_visitor visit,
                                       void *user);

/* As ebb_schedule_replay, on a schedule the caller created (and still
 * owns: it is not destroyed), which must be fresh, no action taken yet;
 * e.g. to read its ebb_schedule_tier_slots and resolved options first
 * without building it twice. `steps` is where an online schedule's forward
 * stops (>= 1; ignored for the others). EBB_ERR_SCHEDULE when the stream
 * breaks a rule; *stats then holds the counts up to it. */
EBB_API ebb_status ebb_schedule_replay_own(ebb_schedule *schedule, int64_t steps,
                                           ebb_schedule_stats *stats, ebb_action_visitor visit,
                                           void *user);

/* The price of each kind of action, to compare streams on one scale: a
 * forward step costs 1. */
typedef struct ebb_stream_costs {
    double write[EBB_TIER_COUNT]; /* one store into the tier (or transfer into it) */
    double read[EBB_TIER_COUNT];  /* one restore out of the tier (or transfer out of it) */
    double reverse;               /* one reverse step */
} ebb_stream_costs;

/* The cost of a validated stream's counts: forward steps + reverse steps x
 * reverse + per tier (stores + transfers in) x write + (restores +
 * transfers out) x read (the cost H-Revolve minimises). EBB_OK;
 * EBB_ERR_INVALID_ARG on NULL. */
EBB_API ebb_status ebb_stream_cost(const ebb_schedule_stats *stats, const ebb_stream_costs *costs,
                                   double *cost);

#ifdef __cplusplus
}
#endif

#endif
