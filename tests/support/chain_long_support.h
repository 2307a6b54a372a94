/* Helpers of the tests of long heterogeneous chains (code in
 * chain_long_support.c): a chain of any length, and its schedule made by
 * the program forced to groups of a given size, replayed through a
 * validator that knows every state's size. */
#ifndef EBB_TESTS_CHAIN_LONG_SUPPORT_H
#define EBB_TESTS_CHAIN_LONG_SUPPORT_H

#include <stdint.h>

#include "support/chain_support.h"

/* A chain of any length, its arrays allocated by long_chain_alloc. */
typedef struct long_chain {
    int n;
    double *fwd, *rev;
    uint64_t *bytes;
    uint64_t budget;
    double *bwd;    /* NULL, or tapes: a step's reverse from its tape */
    uint64_t *tape; /* with bwd */
} long_chain;

long_chain long_chain_alloc(int n);
/* Gives c tapes (bwd, tape), allocated. */
void long_chain_add_tapes(long_chain *c);
void long_chain_free(long_chain *c);

/* As chain_replayed, with memory_levels `levels`, at most `group` children
 * per node of the program (0: as ebb_chain_schedule_create chooses) and
 * Revolve on the largest state a candidate unless with_revolve is 0
 * (chain_schedule_create_grouped); also fails unless every step is reversed once, n-1 first, and
 * the peak fits the budget. */
chain_replay chain_replayed_grouped(const long_chain *c, int32_t levels, int32_t group,
                                    int with_revolve);

#endif
