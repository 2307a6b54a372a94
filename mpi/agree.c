/*
 * The runtime's agreement hooks (runtime/agree.h) under MPI: at creation,
 * at the ends of the sweeps, and the asynchronous strategy's decisions
 * (decide.c), each made with the collectives of collective.c.
 */
#include <stdlib.h>

#include "common/error_internal.h"
#include "mpi/mpi_internal.h"

static const char *tier_or_none(int t)
{
    return t >= 0 && t < EBB_TIER_COUNT ? ebb_tier_name((ebb_tier)t) : "none";
}

static ebb_status setup(rt_agree *a, rt_agree_setup *s)
{
    mpi_agree *m = (mpi_agree *)a;
    int64_t tiers = (int64_t)s->measure_costs * 1000 + (int64_t)s->state_tier * 100 +
                    (s->fast + 1) * 10 + (s->slow + 1);
    int64_t v[MPI_MSG] = {0};
    int64_t *d = v + MSG_DATA;
    d[0] = s->steps;
    d[1] = -s->steps;
    d[2] = tiers;
    d[3] = -tiers;
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        d[4 + t] = -(int64_t)s->slots[t];
    ebb_status st = mpi_collective(m, TAG_SETUP, v);
    if (st != EBB_OK)
        return st;
    int hi, lo;
    if (d[0] != -d[1]) {
        if ((st = mpi_who(m, s->steps, d[0], -d[1], &hi, &lo)) != EBB_OK)
            return st;
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "the ranks disagree on the number of steps: rank %d has n = %lld, rank "
                        "%d has n = %lld (0: unknown); every rank must run the same steps",
                        hi, (long long)d[0], lo, (long long)-d[1]);
    }
    if (d[2] != -d[3]) {
        if ((st = mpi_who(m, tiers, d[2], -d[3], &hi, &lo)) != EBB_OK)
            return st;
        int64_t x = d[2], y = -d[3];
        if (x / 1000 != y / 1000)
            return ebb_fail(EBB_ERR_INVALID_ARG,
                            "the ranks disagree on ebb_run_options.measure_costs: rank %d has "
                            "%lld, rank %d has %lld; every rank must plan its reverse sweep alike",
                            hi, (long long)(x / 1000), lo, (long long)(y / 1000));
        x %= 1000;
        y %= 1000;
        return ebb_fail(EBB_ERR_CONFIG,
                        "the ranks disagree on the tiers: rank %d has a %s state, fast tier %s, "
                        "slow tier %s; rank %d has a %s state, fast tier %s, slow tier %s; give "
                        "every rank the same state tier and enabled tiers",
                        hi, tier_or_none((int)(x / 100)), tier_or_none((int)(x / 10 % 10) - 1),
                        tier_or_none((int)(x % 10) - 1), lo, tier_or_none((int)(y / 100)),
                        tier_or_none((int)(y / 10 % 10) - 1), tier_or_none((int)(y % 10) - 1));
    }
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        s->slots[t] = (int32_t)-d[4 + t];
    return EBB_OK;
}

static ebb_status predictions(rt_agree *a, double *seconds, int count)
{
    mpi_agree *m = (mpi_agree *)a;
    if (count > MSG_PAYLOAD)
        return ebb_fail(EBB_ERR_INTERNAL, "auto: %d predictions, at most %d agreed", count,
                        MSG_PAYLOAD);
    int64_t v[MPI_MSG] = {0};
    for (int k = 0; k < count; k++)
        v[MSG_DATA + k] = mpi_double_bits(seconds[k]);
    ebb_status st = mpi_collective(m, TAG_PREDICT, v);
    for (int k = 0; k < count && st == EBB_OK; k++)
        seconds[k] = mpi_bits_double(v[MSG_DATA + k]);
    return st;
}

static const char *strategy_name(int64_t code)
{
    return code < 0 ? "async" : ebb_strategy_name((ebb_strategy)code);
}

static ebb_status strategy(rt_agree *a, int code, const char *name)
{
    (void)name;
    mpi_agree *m = (mpi_agree *)a;
    int64_t v[MPI_MSG] = {0};
    v[MSG_DATA] = code;
    v[MSG_DATA + 1] = -(int64_t)code;
    ebb_status st = mpi_collective(m, TAG_STRATEGY, v);
    int64_t x = v[MSG_DATA], y = -v[MSG_DATA + 1];
    if (st != EBB_OK || x == y)
        return st;
    int hi, lo;
    if ((st = mpi_who(m, code, x, y, &hi, &lo)) != EBB_OK)
        return st;
    return ebb_fail(EBB_ERR_CONFIG,
                    "the ranks chose different strategies: rank %d runs %s, rank %d runs %s; "
                    "every rank must run the same schedule: give them the same [run] strategy "
                    "(or the same budgets and step times for auto)",
                    hi, strategy_name(x), lo, strategy_name(y));
}

static ebb_status finish_forward(rt_agree *a, int64_t n)
{
    mpi_agree *m = (mpi_agree *)a;
    ebb_status st = mpi_decide_settle(m);
    if (st != EBB_OK)
        return st;
    int64_t v[MPI_MSG] = {0};
    v[MSG_DATA] = n;
    v[MSG_DATA + 1] = -n;
    st = mpi_collective(m, TAG_FORWARD_END, v);
    int64_t x = v[MSG_DATA], y = -v[MSG_DATA + 1];
    if (st != EBB_OK || x == y)
        return st;
    int hi, lo;
    if ((st = mpi_who(m, n, x, y, &hi, &lo)) != EBB_OK)
        return st;
    return ebb_fail(EBB_ERR_STATE,
                    "the ranks' forward sweeps ended at different steps: rank %d ran %lld steps, "
                    "rank %d ran %lld; every rank must run the same steps",
                    hi, (long long)x, lo, (long long)y);
}

/* Every rank is here (the tagged collective hears of one that failed), then
 * the costs' largest over the ranks, in pieces an int counts. */
static ebb_status costs(rt_agree *a, double *c, int64_t count)
{
    mpi_agree *m = (mpi_agree *)a;
    /* the forward sweep ended (async with n known: at x_n, before
     * finish_forward): a store decision still in flight is completed
     * first, else two collectives would share the one request and buffer */
    ebb_status st = mpi_decide_settle(m);
    if (st != EBB_OK)
        return st;
    int64_t v[MPI_MSG] = {0};
    v[MSG_DATA] = count;
    v[MSG_DATA + 1] = -count;
    st = mpi_collective(m, TAG_COSTS, v);
    if (st != EBB_OK)
        return st;
    if (v[MSG_DATA] != -v[MSG_DATA + 1])
        return ebb_fail(EBB_ERR_INTERNAL, "the ranks measured %lld and %lld steps' costs",
                        (long long)v[MSG_DATA], (long long)-v[MSG_DATA + 1]);
    for (int64_t at = 0; at < count; at += (int64_t)1 << 28) {
        int piece = (int)(count - at < ((int64_t)1 << 28) ? count - at : (int64_t)1 << 28);
        int rc = MPI_Allreduce(MPI_IN_PLACE, c + at, piece, MPI_DOUBLE, MPI_MAX, m->comm);
        if (rc != MPI_SUCCESS)
            return mpi_error(m, rc, "MPI_Allreduce of the measured step costs");
    }
    return EBB_OK;
}

static ebb_status finish_reverse(rt_agree *a)
{
    int64_t v[MPI_MSG] = {0};
    return mpi_collective((mpi_agree *)a, TAG_REVERSE_END, v);
}

static void destroy(rt_agree *a)
{
    mpi_agree *m = (mpi_agree *)a;
    /* a collective still in flight (the run was dropped mid-forward) cannot
     * be freed, nor completed without the other ranks: it and the
     * communicator are left to MPI_Finalize */
    if (m->decision != DEC_POSTED)
        MPI_Comm_free(&m->comm);
    free(m);
}

void mpi_agree_init_ops(mpi_agree *m)
{
    m->ops.ranks_per_node = m->node_ranks;
    m->ops.rank = m->rank;
    m->ops.ranks = m->size;
    m->ops.setup = setup;
    m->ops.predictions = predictions;
    m->ops.costs = costs;
    m->ops.strategy = strategy;
    m->ops.idle = mpi_decide_idle;
    m->ops.finish_forward = finish_forward;
    m->ops.finish_reverse = finish_reverse;
    m->ops.fail = mpi_fail;
    m->ops.destroy = destroy;
}
