/*
 * ebb over MPI ranks: the same action stream on every rank.
 *
 * Built when MPI is found (Debian: libopenmpi-dev); link ebb::ebb_mpi (the
 * whole library plus this part) instead of ebb::ebb.
 *
 * A domain-decomposed solver exchanges halos in every step, so when one rank
 * recomputes a step its neighbours must recompute it too. A run created here
 * is collective over the communicator: the ranks agree on the strategy, the
 * slot counts (the least over the ranks), and, while running, on every
 * decision that depends on timing (when the asynchronous strategy sends a
 * state down a tier). The agreement uses non-blocking collectives, at most
 * one per stored state. Each rank keeps its own tiers, budgets and files.
 *
 *     ebb_run *run;
 *     if (ebb_mpi_run_create(&options, MPI_COMM_WORLD, &run) != EBB_OK) ...
 *     ebb_run_forward(run, x0, &xn);   // collective
 *     ebb_run_reverse(run);            // collective
 *     ebb_run_destroy(run);            // local
 *
 * When a call fails on one rank, the same call (or the next collective one)
 * fails on every rank with the failing rank's status, and ebb_last_error()
 * names the failing rank and quotes its message ("rank 3 failed: forward
 * step 41 failed: ..."). Ranks that disagree (n, strategy, tiers) all fail
 * naming two of them. No rank hangs in ebb; ebb never calls MPI_Abort.
 * (A rank blocked in the user's own communication inside a callback is the
 * user's to release.) ebb_run_destroy is local; it frees the duplicated
 * communicator (MPI_Comm_free).
 *
 * The asynchronous strategy's rule (mpi/decide.c): at the first step g at
 * which a store may come, every rank posts MPI_Iallreduce(MAX) of the step
 * at which its channel to the slower tier is free (g, or its prediction);
 * every rank stores at its first decision step after the largest, and
 * needs the result one step later, so a rank never waits in ebb for a step
 * another rank has not run (halo exchanges in the callbacks are safe).
 */
#ifndef EBB_MPI_H
#define EBB_MPI_H

#include <mpi.h>
#include <stdint.h>

#include "ebb/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Collective over `comm` (duplicated; MPI must be initialised). Every rank
 * passes its own options (its own configuration, budgets, state size). */
EBB_API ebb_status ebb_mpi_run_create(const ebb_run_options *options, MPI_Comm comm,
                                      ebb_run **out);

/* Statistics reduced over the ranks of a run made by ebb_mpi_run_create
 * (collective: every rank calls it at the same point, after
 * ebb_run_reverse say), next to this rank's own (ebb_run_stats_get).
 * EBB_ERR_STATE after a run stopped on an error. */
typedef struct ebb_mpi_stats {
    int ranks;                         /* size of the communicator */
    int rank;                          /* this rank */
    int ranks_per_node;                /* most ranks sharing one node (disk bandwidth) */
    uint64_t actions_hash;             /* this rank's hash of the actions it executed */
    int actions_agree;                 /* 1: every rank's actions_hash is equal */
    double stall_max_s;                /* the largest stall_total_s over ranks */
    int stall_max_rank;                /* the rank that stalled most */
    double wall_max_s;                 /* the largest wall_s over ranks */
    uint64_t bytes_written_total[EBB_TIER_COUNT]; /* summed over ranks */
    uint64_t bytes_read_total[EBB_TIER_COUNT];
    int64_t agreements;                /* collectives ebb made for the asynchronous
                                          strategy's store decisions (the most over
                                          the ranks): one per stored state */
} ebb_mpi_stats;

EBB_API ebb_status ebb_mpi_stats_reduce(const ebb_run *run, ebb_mpi_stats *out);

#ifdef __cplusplus
}
#endif

#endif
