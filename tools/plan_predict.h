/* `ebb plan` with step times: the planner's predictions (plan_predict.c),
 * called by plan.c when --state-size, --forward-ms or --reverse-ms is given. */
#ifndef EBB_TOOLS_PLAN_PREDICT_H
#define EBB_TOOLS_PLAN_PREDICT_H

#include "ebb/planner.h"

/* The process exit status: 0 ok, 1 failure, 2 bad usage. */
int ebb_cmd_plan_predict(int argc, char **argv);

/* plan_sweep.c: every strategy's predicted overhead at each compute/transfer
 * ratio (--ratios); same exit statuses. */
int plan_sweep_print(const ebb_plan_problem *problem, const double *ratios, int count, int json);

#endif
