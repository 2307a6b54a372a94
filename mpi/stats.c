/* ebb_mpi_stats_reduce: this rank's figures and the ranks' together. */
#include <string.h>

#include "common/error_internal.h"
#include "ebb/mpi.h"
#include "mpi/mpi_internal.h"
#include "runtime/engine.h"

ebb_status ebb_mpi_stats_reduce(const ebb_run *run, ebb_mpi_stats *out)
{
    if (!run || !out)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_mpi_stats_reduce: NULL argument");
    mpi_agree *m = (mpi_agree *)ebb_run_agreement(run);
    if (!m)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_mpi_stats_reduce: the run was not made by ebb_mpi_run_create");
    ebb_run_stats s;
    ebb_status st = ebb_run_stats_get(run, &s);
    if (st != EBB_OK)
        return st;
    memset(out, 0, sizeof *out);
    out->ranks = m->size;
    out->rank = m->rank;
    out->ranks_per_node = m->node_ranks_max;
    out->actions_hash = ebb_run_actions_hash(run);
    /* compared as its upper 63 bits and its lowest: no value overflows when negated */
    int64_t h = (int64_t)(out->actions_hash >> 1), l = (int64_t)(out->actions_hash & 1);
    int64_t stall = mpi_double_bits(s.stall_total_s);
    int64_t v[MPI_MSG] = {0};
    int64_t *d = v + MSG_DATA;
    d[0] = stall;
    d[1] = mpi_double_bits(s.wall_s);
    d[2] = h;
    d[3] = -h;
    d[4] = m->agreements;
    d[5] = l;
    d[6] = -l;
    if ((st = mpi_collective(m, TAG_STATS, v)) != EBB_OK)
        return st;
    out->stall_max_s = mpi_bits_double(d[0]);
    out->wall_max_s = mpi_bits_double(d[1]);
    out->actions_agree = d[2] == -d[3] && d[5] == -d[6];
    out->agreements = d[4];
    int64_t w[MPI_MSG] = {0};
    w[MSG_DATA] = stall == d[0] ? m->rank : -1;
    if ((st = mpi_collective(m, TAG_STATS, w)) != EBB_OK)
        return st;
    out->stall_max_rank = (int)w[MSG_DATA];
    /* the sums: every rank is here, after two agreements without a failure */
    uint64_t mine[2 * EBB_TIER_COUNT], sum[2 * EBB_TIER_COUNT];
    memcpy(mine, s.bytes_written, sizeof s.bytes_written);
    memcpy(mine + EBB_TIER_COUNT, s.bytes_read, sizeof s.bytes_read);
    int rc = MPI_Allreduce(mine, sum, 2 * EBB_TIER_COUNT, MPI_UINT64_T, MPI_SUM, m->comm);
    if (rc != MPI_SUCCESS)
        return mpi_error(m, rc, "MPI_Allreduce");
    memcpy(out->bytes_written_total, sum, sizeof out->bytes_written_total);
    memcpy(out->bytes_read_total, sum + EBB_TIER_COUNT, sizeof out->bytes_read_total);
    return EBB_OK;
}
