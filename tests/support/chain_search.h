/* The exhaustive chain tests' common loop (code in chain_search.c): random
 * chains, each replayed through the library's schedule and compared with
 * the least cost the test's own search finds over every schedule. Each
 * test keeps its model of a situation (what is stored, held, live) and its
 * moves; the drawing of cases and the comparison are this. */
#ifndef EBB_TESTS_CHAIN_SEARCH_H
#define EBB_TESTS_CHAIN_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "support/chain_support.h"
#include "support/search.h"

/* The situation of a search over two sets of states (stored and taped, or
 * in the fast and the slow tier) of a chain of up to SITU_MAXN steps: the
 * sets as bitmasks, the live state (SITU_NOLIVE: none), t (the adjoint is
 * at x_t) and whether the forward sweep reached x_n; packed in one key of
 * SITU_KEYS. */
enum { SITU_MAXN = 8, SITU_NOLIVE = SITU_MAXN + 1 };
#define SITU_KEYS ((size_t)(1u << 2 * SITU_MAXN) * (SITU_MAXN + 2) * (SITU_MAXN + 1) * 2)

typedef struct situ {
    uint32_t a, b;
    int live, t, turned;
} situ;

static inline uint32_t situ_key(uint32_t a, uint32_t b, int live, int t, int turned)
{
    return (((a << SITU_MAXN | b) * (SITU_MAXN + 2) + (uint32_t)live) * (SITU_MAXN + 1) +
            (uint32_t)t) * 2 + (uint32_t)turned;
}

static inline situ situ_of(uint32_t k)
{
    situ s;
    s.turned = (int)(k % 2);
    k /= 2;
    s.t = (int)(k % (SITU_MAXN + 1));
    k /= SITU_MAXN + 1;
    s.live = (int)(k % (SITU_MAXN + 2));
    k /= SITU_MAXN + 2;
    s.b = k & ((1u << SITU_MAXN) - 1);
    s.a = k >> SITU_MAXN;
    return s;
}

/* Draws case `case_no`'s chain from the generator state `seed`. */
typedef void (*chain_draw_fn)(uint64_t *seed, test_chain *c, int case_no);

/* The least cost over every schedule of c (the test's search over s). */
typedef double (*chain_optimum_fn)(search *s, const test_chain *c);

/* What a test checks beyond the optimum, for each case (may be NULL). */
typedef void (*chain_case_fn)(int case_no, const test_chain *c, const chain_replay *r,
                              void *ctx);

/* `cases` chains drawn from `seed`, searched over `keys` situations: each
 * schedule's replayed cost and its predicted cost equal the optimum and
 * its peak fits the budget (the test fails naming the case otherwise);
 * every n from 1 to max_n is drawn at least once. */
void chains_cost_the_optimum(size_t keys, chain_draw_fn draw, chain_optimum_fn optimum,
                             int cases, uint64_t seed, int max_n, chain_case_fn each, void *ctx);

#endif
