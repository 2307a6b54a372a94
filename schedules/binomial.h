/*
 * Binomial checkpointing arithmetic (Griewank & Walther, ACM TOMS 26(1), 2000).
 *
 * beta(c, r) = binom(c + r, c): the most steps c slots reverse with each step
 * run at most r + 1 times. T(l, c) = r*l - beta(c + 1, r - 1), r the least
 * with beta(c, r) >= l, is the fewest forward steps that reverse l steps
 * starting from a stored x_0, the reverse step of i being given x_i.
 */
#ifndef EBB_SCHEDULES_BINOMIAL_H
#define EBB_SCHEDULES_BINOMIAL_H

#include <stdint.h>

/* binom(c + r, c), saturated at INT64_MAX; 0 for r < 0. */
int64_t ebb_beta(int64_t c, int64_t r);

/* The least r >= 0 with beta(c, r) >= l (l >= 1, c >= 1). */
int64_t ebb_revolve_repetitions(int64_t l, int64_t c);

/* T(l, c) as above; -1 if it overflows int64 or c < 1 with l >= 2. */
int64_t ebb_revolve_cost(int64_t l, int64_t c);

/* An optimal first checkpoint offset m (1 <= m < l) for reversing l >= 2
 * steps with c >= 1 slots: advancing m steps, reversing the last l - m with
 * c - 1 slots, then the first m with c, costs exactly T(l, c). */
int64_t ebb_revolve_split(int64_t l, int64_t c);

#endif
