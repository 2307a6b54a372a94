/* The run's creation with what only the library's own layers pass
 * (create.c): faults injected into the disk pool, for the tests; the
 * processes' agreement, for mpi/. */
#ifndef EBB_PLANNER_CREATE_H
#define EBB_PLANNER_CREATE_H

#include "runtime/engine.h"

/* tests: ebb_run_create with faults injected into the disk pool. */
ebb_status ebb_run_create_with_faults(const ebb_run_options *options,
                                      const ebb_storage_fault *disk_fault, ebb_run **out);
/* mpi/: ebb_run_create with the processes' agreement, which the run owns
 * from then on (destroyed with it; still the caller's when creation fails). */
ebb_status ebb_run_create_agreed(const ebb_run_options *options, rt_agree *agree, ebb_run **out);

#endif
