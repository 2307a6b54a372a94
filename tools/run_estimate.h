/* `ebb run --error-samples K`: the library's lossy error estimate
 * (ebb_run_stats.gradient_rel_error_estimate, state_rel_error_max,
 * state_rel_error_rms; docs/compression.md,
 * *The error estimate*), printed beside the exact run's gradient relative
 * error (run_exact.h) and written into each run's --json object. */
#ifndef EBB_TOOLS_RUN_ESTIMATE_H
#define EBB_TOOLS_RUN_ESTIMATE_H

#include "ebb/runtime.h"
#include "tools/json.h"
#include "tools/workload.h"

/* A run's members: "error_samples" (kept), "error_sample_bytes",
 * "error_samples_compared", "error_samples_differ", "state_rel_error_max",
 * "state_rel_error_rms" and "gradient_rel_error_estimate" (null when the
 * estimate was off). */
void run_estimate_json(json_writer *w, const ebb_run_info *info, const ebb_run_stats *st);

/* The table's line per run that kept samples; nothing when none did. */
void run_estimate_print(const workload_result *res, int n);

#endif
