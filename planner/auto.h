/* auto's choice (auto.c), which create.c hands to the engine. */
#ifndef EBB_PLANNER_AUTO_H
#define EBB_PLANNER_AUTO_H

#include "runtime/engine.h"

/* rt_auto_fn: the rules, or the planner when the step times are given; ctx
 * is the run's configuration (const ebb_config *). */
ebb_status planner_auto_choose(void *ctx, const rt_auto_ask *ask, rt_auto_answer *ans);

#endif
