/* Helpers shared by the schedule tests; code in schedule_support.c
 * (ebb_test_support). */
#ifndef EBB_TESTS_SCHEDULE_SUPPORT_H
#define EBB_TESTS_SCHEDULE_SUPPORT_H

/* The headers the schedule tests have always had from here. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ebb/ebb.h"

ebb_schedule_options opts(ebb_strategy strategy, int64_t n, int32_t c);

/* Generates and validates; fails the test with the library's message. */
ebb_schedule_stats validated(const ebb_schedule_options *o);

/* Revolve's optimal forward count, first sweep included. */
int64_t revolve_count(int64_t n, int32_t c);

/* A tiny deterministic generator (xorshift) for sampled cases. */
uint64_t rng_next(uint64_t *state);
int64_t rng_range(uint64_t *state, int64_t lo, int64_t hi);

#endif
