/*
 * What the chain schedule (schedules/chain.c) offers the tests beyond
 * ebb/chain.h: its hierarchical program forced on any chain.
 */
#ifndef EBB_SCHEDULES_CHAIN_INTERNAL_H
#define EBB_SCHEDULES_CHAIN_INTERNAL_H

#include <stdint.h>

#include "ebb/chain.h"

/* ebb_chain_schedule_create with at most `group` children per node of the
 * program's tree (2 .. CHAIN_DP_MAX_FORCED; chain_tree.h; 0 chooses as
 * ebb_chain_schedule_create does), and, unless with_revolve is 0, Revolve
 * with the largest state's slots where it costs no more than the tree. */
ebb_status chain_schedule_create_grouped(const ebb_chain *chain,
                                         const ebb_chain_options *options, int32_t group,
                                         int with_revolve, ebb_schedule **out);

#endif
