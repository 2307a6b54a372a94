/*
 * ebb — heterogeneous chains: steps that differ in cost and states that
 * differ in size.
 *
 * A chain of n steps: step i runs x_i -> x_{i+1} at forward_cost[i], its
 * reverse step costs reverse_cost[i], and x_i takes state_bytes[i] bytes
 * (x_n is never stored: the loss is taken there, as in ebb/schedule.h).
 * Costs are on any one scale (seconds, or units of some step's time).
 *
 * ebb_chain_schedule_create gives, for up to 32 steps, the schedule of least
 * total cost (forward steps, first sweep included, plus reverse steps) whose
 * stored states (and tapes, where the chain has them) never take more than
 * memory_bytes at once, x_0 included. It
 * is exact over every schedule, not only nested ones. A longer chain gets
 * the schedule of a hierarchy of such programs over groups of at most 12
 * steps or groups, or Revolve with the slots the budget holds of the
 * largest state where that costs less, or every state kept where they all
 * fit (docs/heterogeneous.md). The budget is
 * counted in units: the greatest common divisor of the states' sizes, or,
 * where that gives more than memory_levels units, memory_bytes /
 * memory_levels rounded up, each state rounded up to whole units (the
 * schedule then still fits in bytes, and may cost more than the optimum in
 * bytes). Uniform chains give Revolve's counts.
 */
#ifndef EBB_CHAIN_H
#define EBB_CHAIN_H

#include <stdint.h>

#include "ebb/schedule.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ebb_chain {
    int64_t steps;               /* n >= 1 */
    const double *forward_cost;  /* n costs >= 0: step i, x_i -> x_{i+1} */
    const double *reverse_cost;  /* n costs >= 0: step i's reverse step from x_i */
    const uint64_t *state_bytes; /* n sizes >= 1: x_0 .. x_{n-1} */
    /* Tapes (both NULL: none). A step may keep what its reverse step needs
     * (its tape: the graph a framework records) from a forward run
     * (EBB_ACT_TAPE), at its forward cost; its reverse step then costs
     * backward_cost[i] instead of reverse_cost[i]. The tape takes
     * tape_bytes[i] bytes of the budget beside x_i, which stays stored,
     * from that run to the reverse step. A longer chain's hierarchy
     * (docs/heterogeneous.md) tapes the single steps of its groups. */
    const uint64_t *tape_bytes;  /* n sizes >= 0, or NULL */
    const double *backward_cost; /* n costs >= 0 with tape_bytes, or NULL */
} ebb_chain;

typedef struct ebb_chain_options {
    uint64_t memory_bytes; /* the budget of the tier the states go to, x_0 included */
    ebb_tier tier;         /* default EBB_TIER_HOST */
    int32_t memory_levels; /* most units the budget is counted in; 0: 256; at most
                              65536, and fewer where the tables would pass 2^24
                              cells (n = 32: 2,562; n = 10,000: 969) */
    /* A slower tier (EBB_TIER_COUNT, the default: none) where states may
     * also go, as many as the schedule stores there: writing x_i there
     * costs write_cost_per_byte * state_bytes[i], bringing it back
     * read_cost_per_byte * state_bytes[i], on the costs' scale. Taken for
     * chains of up to 32 steps (the exact program); a tape is only made
     * from a state in `tier`. */
    ebb_tier slow_tier;
    double write_cost_per_byte;
    double read_cost_per_byte;
} ebb_chain_options;

/* The most steps a chain may have for ebb_chain_schedule_create (a chain
 * of that many takes about 20 s and 40 MiB: docs/heterogeneous.md). */
enum { EBB_CHAIN_MAX_STEPS = 100000 };

/* Sets the defaults (memory_bytes 0: set it). Returns nothing: it cannot fail. */
EBB_API void ebb_chain_options_init(ebb_chain_options *options);

/* The schedule of least cost for `chain` within options->memory_bytes. It
 * is an ebb_schedule like any other (ebb_schedule_next, _next_batch,
 * _destroy); its STORE actions name slots of options->tier, at most
 * ebb_schedule_tier_slots of them at once, and ebb_schedule_get_options
 * says strategy revolve (the uniform chain's schedule), steps n and slots
 * that count. The chain's arrays are copied. EBB_ERR_INVALID_ARG for a bad
 * chain or options (which, and why); EBB_ERR_NO_MEMORY when n >= 2 and x_0
 * does not fit memory_bytes. */
EBB_API ebb_status ebb_chain_schedule_create(const ebb_chain *chain,
                                             const ebb_chain_options *options,
                                             ebb_schedule **out);

/* What a chain schedule costs and how its budget was counted. */
typedef struct ebb_chain_info {
    double cost;         /* forward costs of every forward step run + reverse costs */
    uint64_t unit_bytes; /* one memory unit */
    int32_t units;       /* the budget in units: memory_bytes / unit_bytes, rounded down */
} ebb_chain_info;

/* The cost and units of a schedule from ebb_chain_schedule_create.
 * EBB_ERR_INVALID_ARG for NULL or another kind of schedule. */
EBB_API ebb_status ebb_chain_schedule_info(const ebb_schedule *schedule, ebb_chain_info *info);

/* The checkpoints that keep the fewest bytes at once when no step is
 * recomputed more than once, and their schedule: x_{c_0} = x_0, x_{c_1},
 * ... are stored in the first sweep, and each interval c_j .. c_{j+1} - 1
 * is reversed by recomputing it once from x_{c_j}, keeping its inner states
 * (the last interval's are kept in the first sweep), as
 * torch.utils.checkpoint_sequential does with segments of any lengths. The
 * least peak over every choice of checkpoints, exact in bytes, in O(n log n
 * log B) time for states of B bytes in all and O(n) memory. *peak_bytes
 * (may be NULL): the most bytes stored at once, x_0 included (0 for n = 1).
 * The schedule's STORE actions name slots of `tier`; its options say
 * strategy periodic, steps n and the slots it numbers. EBB_ERR_INVALID_ARG
 * for a bad chain (which step, and why) or tier. */
EBB_API ebb_status ebb_chain_least_peak_create(const ebb_chain *chain, ebb_tier tier,
                                               uint64_t *peak_bytes, ebb_schedule **out);

#ifdef __cplusplus
}
#endif

#endif
