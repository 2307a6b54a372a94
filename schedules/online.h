/* Internal: the online strategy's forward count without generating the reverse. */
#ifndef EBB_SCHEDULES_ONLINE_H
#define EBB_SCHEDULES_ONLINE_H

#include "ebb/schedule.h"

/* Forward steps the online schedule with c slots spends on n steps, first
 * sweep included: the forward placement is the generator's own, the reverse
 * cost is summed with the binomial formula per interval (what the generator
 * then emits). O(n) time for the steps that keep nothing, O(c) binomial
 * evaluations per kept state (about one every rho + 1 steps, rho the
 * repetition number less one), O(c) memory. The kept states dominate, so
 * O(c n / rho) in all. No closed form or logarithmic count: the count
 * depends on which checkpoint each store dropped, which the placement
 * decides from the layout built so far. (Skipping the steps that keep
 * nothing was tried and saved under 10% of the CPU time at n = 2 * 10^6.)
 * EBB_ERR_INVALID_ARG for n < 1, c < 1 or a count beyond 64 bits. */
ebb_status ebb_online_forward_count(int64_t steps, int32_t slots, int64_t *count);

#endif
