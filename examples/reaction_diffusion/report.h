/* What example_reaction_diffusion prints: the problem, the run, its
 * statistics, and what the other strategies cost (report.c). */
#ifndef EBB_EXAMPLE_RD_REPORT_H
#define EBB_EXAMPLE_RD_REPORT_H

#include "adjoint.h"
#include "ebb/ebb.h"
#include "model.h"

/* "11.3 MiB": a size rounded for people, into buf; returns buf. */
const char *report_size(uint64_t bytes, char *buf, size_t len);

/* The equation, the grid, the objective and where the configuration came from. */
void report_problem(const rd_params *p, const ebb_config *cfg, const char *config_path);

/* The strategy and the tiers the run resolved: slots, buffers, bytes. */
void report_run(const rd_result *res, const ebb_config *cfg);

/* Steps, stores and restores, bytes and stalls per tier, times. */
void report_stats(const rd_result *res);

/* Every strategy planned by ebb_schedule_validate for the same n and slots.
 * With `done` (the run just made), every other strategy also runs for real
 * and its J, dJ/du0 and dJ/dr are compared bit for bit with done's. Returns
 * 0, or -1 when a run that started failed or a gradient differed. */
int report_strategies(const rd_params *p, const ebb_config *cfg, const rd_result *res,
                      const rd_adjoint *done, const double *u0);

#endif
