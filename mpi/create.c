/*
 * ebb_mpi_run_create: the run, with the ranks' agreement (agree.c) in it.
 * Every rank duplicates the communicator and finds its node's ranks first,
 * so that a rank failing afterwards (options, configuration, pools) is heard
 * by the others in whatever agreement they are in; a last agreement at the
 * end catches a rank whose pools failed after the others had agreed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "ebb/mpi.h"
#include "mpi/mpi_internal.h"
#include "planner/create.h"

ebb_status ebb_mpi_run_create(const ebb_run_options *options, MPI_Comm comm, ebb_run **out)
{
    if (!out)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_mpi_run_create: out is NULL");
    *out = NULL;
    int inited = 0, finalized = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&finalized);
    if (!inited || finalized)
        return ebb_fail(EBB_ERR_STATE,
                        "ebb_mpi_run_create: MPI is not initialised (call MPI_Init first)");
    mpi_agree *m = calloc(1, sizeof *m);
    if (!m) /* nothing collective yet: every rank but this one will block; say so */
        return ebb_fail(EBB_ERR_NO_MEMORY, "ebb_mpi_run_create: cannot allocate %zu bytes",
                        sizeof *m);
    int rc = MPI_Comm_dup(comm, &m->comm);
    if (rc != MPI_SUCCESS) {
        m->comm = MPI_COMM_NULL;
        ebb_status st = mpi_error(m, rc, "MPI_Comm_dup");
        free(m);
        return st;
    }
    /* errors come back as codes, never through MPI's default abort */
    MPI_Comm_set_errhandler(m->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(m->comm, &m->rank);
    MPI_Comm_size(m->comm, &m->size);
    MPI_Comm node;
    m->node_ranks = 1;
    if ((rc = MPI_Comm_split_type(m->comm, MPI_COMM_TYPE_SHARED, m->rank, MPI_INFO_NULL, &node)) ==
        MPI_SUCCESS) {
        MPI_Comm_size(node, &m->node_ranks);
        MPI_Comm_free(&node);
    }
    mpi_agree_init_ops(m);

    ebb_run *run = NULL;
    ebb_status st = rc != MPI_SUCCESS ? mpi_error(m, rc, "MPI_Comm_split_type")
                    : options         ? ebb_run_create_agreed(options, &m->ops, &run)
                                      : ebb_fail(EBB_ERR_INVALID_ARG,
                                                 "ebb_mpi_run_create: options is NULL");
    if (st != EBB_OK) {
        /* the others hear of it in whatever agreement they are in */
        st = m->ops.fail(&m->ops, st);
        m->ops.destroy(&m->ops);
        return st;
    }
    int64_t v[MPI_MSG] = {0};
    v[MSG_DATA] = m->node_ranks;
    if ((st = mpi_collective(m, TAG_CREATED, v)) != EBB_OK) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", ebb_last_error());
        ebb_run_destroy(run); /* files removed; the agreement with it */
        return ebb_fail(st, "%s", msg);
    }
    m->node_ranks_max = (int)v[MSG_DATA];
    *out = run;
    return EBB_OK;
}
