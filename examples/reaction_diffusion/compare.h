/* --compare: the run just made beside the same gradient under async and
 * under store-all with every state in memory, each run for real, with its
 * time and the bytes it held (compare.c). */
#ifndef EBB_EXAMPLE_RD_COMPARE_H
#define EBB_EXAMPLE_RD_COMPARE_H

#include "adjoint.h"
#include "ebb/ebb.h"
#include "model.h"

/* Prints a table: the run `res` (whose gradient is in `done`), async on the
 * same configuration (unless the run was async), and store-all in host
 * memory alone (the disk tier off, a host budget of n states); for each its
 * wall time, recomputed steps, the state bytes it held at its peak and what
 * its tiers reserved, in memory and on disk, and whether its J, dJ/du0 and
 * dJ/dr are the run's bit for bit. A strategy that does not fit here (a
 * host budget of n states beyond this machine's memory) says why and is
 * skipped. Returns 0, or -1 when a run that started failed or a gradient
 * differed. */
int compare_runs(const rd_params *p, const ebb_config *cfg, const rd_result *res,
                 const rd_adjoint *done, const double *u0);

#endif
