/* Replaying long chain schedules for the tests (chain_long_support.h). */
#include "support/chain_long_support.h"

#include <criterion/criterion.h>
#include <stdlib.h>

#include "schedules/chain_internal.h"

long_chain long_chain_alloc(int n)
{
    long_chain c = {.n = n};
    c.fwd = malloc(sizeof *c.fwd * (size_t)n);
    c.rev = malloc(sizeof *c.rev * (size_t)n);
    c.bytes = malloc(sizeof *c.bytes * (size_t)n);
    cr_assert(c.fwd && c.rev && c.bytes);
    return c;
}

void long_chain_add_tapes(long_chain *c)
{
    c->bwd = malloc(sizeof *c->bwd * (size_t)c->n);
    c->tape = malloc(sizeof *c->tape * (size_t)c->n);
    cr_assert(c->bwd && c->tape);
}

void long_chain_free(long_chain *c)
{
    free(c->fwd);
    free(c->rev);
    free(c->bytes);
    free(c->bwd);
    free(c->tape);
}

chain_replay chain_replayed_grouped(const long_chain *c, int32_t levels, int32_t group,
                                    int with_revolve)
{
    ebb_chain ch = {.steps = c->n, .forward_cost = c->fwd, .reverse_cost = c->rev,
                    .state_bytes = c->bytes, .tape_bytes = c->tape, .backward_cost = c->bwd};
    ebb_chain_options o;
    ebb_chain_options_init(&o);
    o.memory_bytes = c->budget;
    o.memory_levels = levels;
    ebb_schedule *s = NULL;
    cr_assert_eq(chain_schedule_create_grouped(&ch, &o, group, with_revolve, &s), EBB_OK,
                 "n=%d budget %llu: %s", c->n, (unsigned long long)c->budget, ebb_last_error());
    return chain_replay_schedule(s, &ch, c->budget);
}
