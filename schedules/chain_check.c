/* The checks every heterogeneous chain passes (chain_check.h). */
#include "schedules/chain_check.h"

#include <math.h>

#include "common/error_internal.h"

ebb_status chain_check_steps(const ebb_chain *ch)
{
    if (ch->steps < 1)
        return ebb_fail(EBB_ERR_INVALID_ARG, "a chain has at least 1 step, got %lld",
                        (long long)ch->steps);
    if (!ch->forward_cost || !ch->reverse_cost || !ch->state_bytes)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "the chain's forward_cost, reverse_cost and state_bytes must all be set");
    if (!ch->tape_bytes != !ch->backward_cost)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "the chain's tape_bytes and backward_cost go together: set both (tapes) "
                        "or neither");
    for (int64_t i = 0; i < ch->steps; i++) {
        double f = ch->forward_cost[i], r = ch->reverse_cost[i];
        if (!isfinite(f) || f < 0 || !isfinite(r) || r < 0)
            return ebb_fail(EBB_ERR_INVALID_ARG,
                            "step %lld's costs must be finite and >= 0, got forward %g, "
                            "reverse %g", (long long)i, f, r);
        if (ch->backward_cost && (!isfinite(ch->backward_cost[i]) || ch->backward_cost[i] < 0))
            return ebb_fail(EBB_ERR_INVALID_ARG,
                            "step %lld's backward cost must be finite and >= 0, got %g",
                            (long long)i, ch->backward_cost[i]);
        if (ch->state_bytes[i] == 0)
            return ebb_fail(EBB_ERR_INVALID_ARG, "x_%lld's size is 0 bytes: a state takes >= 1",
                            (long long)i);
    }
    return EBB_OK;
}
