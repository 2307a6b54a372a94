/*
 * The collectives ebb makes under MPI (one message shape, see
 * mpi_internal.h) and the failure protocol; below the hooks that use them
 * (agree.c, decide.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "mpi/mpi_internal.h"

int64_t mpi_double_bits(double v)
{
    if (!(v >= 0)) /* NaN: never the least */
        v = INFINITY;
    int64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

double mpi_bits_double(int64_t bits)
{
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

ebb_status mpi_error(mpi_agree *m, int code, const char *call)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "error %d", code);
    m->done = 1;
    return ebb_fail(EBB_ERR_IO, "rank %d: %s failed: %s", m->rank, call, text);
}

ebb_status mpi_post(mpi_agree *m, mpi_tag tag, const int64_t v[MPI_MSG])
{
    memcpy(m->send, v, sizeof m->send);
    m->send[0] = 0;
    m->send[MSG_TAG] = tag;
    m->send[MSG_TAG + 1] = -(int64_t)tag;
    int rc = MPI_Iallreduce(m->send, m->recv, MPI_MSG, MPI_INT64_T, MPI_MAX, m->comm, &m->req);
    return rc == MPI_SUCCESS ? EBB_OK : mpi_error(m, rc, "MPI_Iallreduce");
}

/* A failure was agreed: the failing rank `root` broadcasts its status and
 * message (this rank's own, st, when it is root). No collective after. */
static ebb_status agreed_failure(mpi_agree *m, int root, ebb_status st)
{
    struct {
        int32_t status;
        char msg[1020];
    } b;
    memset(&b, 0, sizeof b);
    if (root == m->rank) {
        b.status = (int32_t)st;
        snprintf(b.msg, sizeof b.msg, "%s", ebb_last_error());
    }
    m->done = 1;
    int rc = MPI_Bcast(&b, (int)sizeof b, MPI_BYTE, root, m->comm);
    if (rc != MPI_SUCCESS)
        return mpi_error(m, rc, "MPI_Bcast (of a failure)");
    b.msg[sizeof b.msg - 1] = '\0';
    ebb_status out = b.status > 0 && b.status <= EBB_ERR_INTERNAL ? (ebb_status)b.status
                                                                   : EBB_ERR_INTERNAL;
    return ebb_fail(out, "rank %d failed: %s", root, b.msg);
}

static const char *tag_name(int64_t tag)
{
    static const char *const names[] = {
        "?", "creating the run", "auto's planning", "choosing the strategy", "the end of creation",
        "a store decision of the forward sweep", "the end of the forward sweep",
        "the end of the reverse sweep", "ebb_mpi_stats_reduce", "agreeing on the measured "
        "step costs", "naming ranks"};
    return tag >= 0 && tag <= TAG_WHO ? names[tag] : "?";
}

/* Values differ (max != min): one more round finds a rank holding each.
 * Every rank saw the same difference, so every rank makes this round. */
ebb_status mpi_who(mpi_agree *m, int64_t mine, int64_t max, int64_t min, int *rank_max,
                   int *rank_min)
{
    int64_t v[MPI_MSG] = {0};
    v[MSG_DATA] = mine == max ? m->rank : -1;
    v[MSG_DATA + 1] = mine == min ? m->rank : -1;
    ebb_status st = mpi_collective(m, TAG_WHO, v);
    m->done = 1; /* the disagreement is every rank's error */
    *rank_max = (int)v[MSG_DATA];
    *rank_min = (int)v[MSG_DATA + 1];
    return st;
}

ebb_status mpi_complete(mpi_agree *m, int64_t out[MPI_MSG])
{
    int rc = MPI_Wait(&m->req, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return mpi_error(m, rc, "MPI_Wait");
    memcpy(out, m->recv, sizeof m->recv);
    if (out[0] > 0)
        return agreed_failure(m, (int)(out[0] - 1), EBB_OK);
    int64_t hi = out[MSG_TAG], lo = -out[MSG_TAG + 1];
    if (hi == lo)
        return EBB_OK;
    int rank_hi, rank_lo;
    ebb_status st = mpi_who(m, m->send[MSG_TAG], hi, lo, &rank_hi, &rank_lo);
    if (st != EBB_OK)
        return st;
    return ebb_fail(EBB_ERR_STATE,
                    "the ranks are at different points of the run: rank %d at %s, rank %d at "
                    "%s; every rank must make the same calls, with the same steps, strategy and "
                    "step times",
                    rank_hi, tag_name(hi), rank_lo, tag_name(lo));
}

ebb_status mpi_collective(mpi_agree *m, mpi_tag tag, int64_t v[MPI_MSG])
{
    if (m->done)
        return ebb_fail(EBB_ERR_STATE, "the run stopped on an error on some rank; destroy it");
    ebb_status st = mpi_post(m, tag, v);
    return st != EBB_OK ? st : mpi_complete(m, v);
}

/* This rank failed with st: it completes the collective it has in flight,
 * then posts one with the failure flag, which matches whatever collective
 * the others make next. The first failure agreed is the one reported. */
ebb_status mpi_fail(rt_agree *a, ebb_status st)
{
    mpi_agree *m = (mpi_agree *)a;
    if (m->done)
        return st; /* the error is already an agreed one */
    char mine[1024];
    snprintf(mine, sizeof mine, "%s", ebb_last_error());
    int64_t r[MPI_MSG];
    if (m->decision == DEC_POSTED) {
        m->decision = DEC_NONE;
        ebb_status other = mpi_complete(m, r);
        if (other != EBB_OK)
            return other; /* another rank failed first */
    }
    memset(m->send, 0, sizeof m->send);
    m->send[0] = m->rank + 1;
    int rc = MPI_Iallreduce(m->send, m->recv, MPI_MSG, MPI_INT64_T, MPI_MAX, m->comm, &m->req);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&m->req, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return mpi_error(m, rc, "MPI_Iallreduce (of a failure)");
    ebb_fail(st, "%s", mine);
    return agreed_failure(m, (int)(m->recv[0] - 1), st);
}
