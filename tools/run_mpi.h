/* `ebb run --mpi` (run_mpi.c, built when MPI is found): every rank runs the
 * workload with its own x_0 through ebb_mpi_run_create on MPI_COMM_WORLD,
 * and rank 0 prints what the ranks did. */
#ifndef EBB_TOOLS_RUN_MPI_H
#define EBB_TOOLS_RUN_MPI_H

#include "tools/workload.h"

typedef struct run_mpi run_mpi;

/* MPI_Init; this process's rank and the ranks. NULL, saying why on
 * stderr, when MPI cannot start. */
run_mpi *run_mpi_begin(int *rank, int *size);

/* Points req's creation at ebb_mpi_run_create, and collects the reduced
 * statistics before the run goes. */
void run_mpi_request(run_mpi *m, workload_request *req);

/* After the run: each rank's figures to rank 0, which prints them (one JSON
 * object with json); a rank that failed says why on stderr. Finalises MPI
 * and frees m. Returns the exit status (every rank non-zero when one failed). */
int run_mpi_end(run_mpi *m, const workload_plan *plan, const workload_request *req,
                const workload_result *r, int outcome, int json);

#endif
