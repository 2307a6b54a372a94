/*
 * What every heterogeneous chain must be (ebb/chain.h), whichever schedule
 * is made of it.
 */
#ifndef EBB_SCHEDULES_CHAIN_CHECK_H
#define EBB_SCHEDULES_CHAIN_CHECK_H

#include "ebb/chain.h"

/* n >= 1, the three arrays set, costs finite and >= 0, every state >= 1
 * byte; EBB_ERR_INVALID_ARG naming the first that is not. */
ebb_status chain_check_steps(const ebb_chain *chain);

#endif
