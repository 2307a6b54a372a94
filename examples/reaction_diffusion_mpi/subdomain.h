/*
 * The reaction-diffusion adjoint of examples/reaction_diffusion, domain
 * decomposed: each MPI rank owns a block of consecutive grid points, and
 * every forward step and every adjoint step first exchanges one ghost value
 * with each neighbour (MPI_Sendrecv inside ebb's callbacks). ebb runs the
 * same schedule on every rank (ebb_mpi_run_create), so a step one rank
 * recomputes is recomputed by its neighbours too, and their halos match.
 */
#ifndef EBB_EXAMPLE_RD_SUBDOMAIN_H
#define EBB_EXAMPLE_RD_SUBDOMAIN_H

#include <mpi.h>
#include <stdint.h>

#include "ebb/mpi.h"
#include "model.h"

typedef struct rd_sub {
    rd_params p;           /* the whole grid's problem (p.points = N) */
    MPI_Comm comm;         /* the communicator the run is collective over */
    MPI_Comm halo_comm;    /* the program's own duplicate of it, for halos */
    int rank, ranks, left, right; /* this rank and its neighbours on the ring */
    int64_t lo, m;         /* this rank's points: lo .. lo + m - 1 */
    double *u0, *target;   /* m values each */
    double *lambda;        /* m values: lambda_i; dJ/du_0 at the end */
    double *scratch;       /* m values: lambda_{i+1} while step i is reversed */
    double objective;      /* this rank's share of J */
    double grad_r;         /* this rank's share of dJ/dr */
    int64_t seen;          /* forward steps of the first sweep so far */
    int64_t next_reverse;  /* the reverse step expected next */
    int unknown_steps;     /* run with steps = 0: the forward says when it ends */
    int64_t halos;         /* halo exchanges so far (forward and reverse) */
    char strategy[32];     /* the strategy the run resolved (ebb_run_info) */
} rd_sub;

/* Splits N points over the ranks of `comm` (the first N mod P ranks one
 * more) and allocates this rank's block: 0, or -1 with a message on stderr
 * (N < P, no memory, MPI_Comm_dup failed). Local. */
int rd_sub_init(rd_sub *d, const rd_params *p, MPI_Comm comm);
void rd_sub_free(rd_sub *d);

/* J, dJ/du_0 and dJ/dr through one ebb run on every rank of the
 * communicator (collective): this rank's block of dJ/du_0 in d->lambda, its
 * shares of J and dJ/dr in d->objective and d->grad_r. `base` holds what
 * the caller chooses (config, strategy); the state, callbacks and steps are
 * set here. *stats gets the statistics reduced over the ranks and *mine
 * this rank's own. EBB_OK, or the failing call's status (the same on every
 * rank) with ebb_last_error() naming the failing rank. */
ebb_status rd_sub_gradient(rd_sub *d, const ebb_run_options *base, ebb_mpi_stats *stats,
                           ebb_run_stats *mine);

#endif
