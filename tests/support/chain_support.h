/* Helpers of the heterogeneous-chain tests (code in chain_support.c): a
 * chain held in arrays, and the replay of a chain schedule through a
 * validator that knows every state's size. */
#ifndef EBB_TESTS_CHAIN_SUPPORT_H
#define EBB_TESTS_CHAIN_SUPPORT_H

#include <stdint.h>

#include "ebb/ebb.h"

enum { TEST_CHAIN_MAX = 32 };

typedef struct test_chain {
    int n;
    double fwd[TEST_CHAIN_MAX], rev[TEST_CHAIN_MAX];
    uint64_t bytes[TEST_CHAIN_MAX];
    uint64_t budget;
    int taped;                  /* 1: the steps may keep tapes (bwd, tape) */
    double bwd[TEST_CHAIN_MAX]; /* a step's reverse from its tape */
    uint64_t tape[TEST_CHAIN_MAX];
    int slow;                   /* 1: states may also go to the disk tier */
    double write_per_byte, read_per_byte;
} test_chain;

/* What a replayed stream did. */
typedef struct chain_replay {
    double cost;            /* forward costs of every step run + reverse costs */
    int64_t forward_steps;  /* TAPE actions included */
    int64_t tapes;          /* TAPE actions */
    uint64_t peak_bytes;    /* the most bytes the tier held at once */
    double predicted;       /* ebb_chain_schedule_info's cost */
} chain_replay;

ebb_chain test_chain_view(const test_chain *c);

/* Creates the chain's schedule (memory_levels 65536: exact units for small
 * sizes), replays it through a validator sized in bytes, and fails the
 * test, naming the chain, if anything is refused. */
chain_replay chain_replayed(const test_chain *c);

/* Replays schedule s of chain ch through a validator sized in bytes with
 * `budget` (tapes counted in it where ch has them), fails the test if
 * anything is refused, a step is reversed out of order or never, or the
 * peak passes the budget; destroys s. A TAPE costs its step's forward
 * cost, a REVERSE from a tape its backward cost. */
chain_replay chain_replay_schedule(ebb_schedule *s, const ebb_chain *ch, uint64_t budget);

/* As chain_replay_schedule, with states also in slow_tier (EBB_TIER_COUNT:
 * none), unbudgeted: a store there or a move into it costs
 * write_per_byte, a restore from it or a move out of it read_per_byte,
 * times the state's bytes. */
chain_replay chain_replay_schedule_tiers(ebb_schedule *s, const ebb_chain *ch, uint64_t budget,
                                         ebb_tier slow_tier, double write_per_byte,
                                         double read_per_byte);

#endif
