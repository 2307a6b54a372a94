/*
 * The asynchronous strategy's store decisions, agreed over the ranks with
 * one collective per stored state and no wait on another rank's future.
 *
 * The rule. Once the spacing allows a store, the generator asks at every
 * decision step whether the channels down are free. At the first such step
 * g (the same on every rank: the streams are the same so far) every rank
 * posts MPI_Iallreduce(MAX) of the step at which its own channels are free:
 * g if they are now, else g + k, k its prediction (predict() below). Every
 * rank then stores at its first decision step i >= S + 1, S the largest
 * posted step, so the spacing follows the slowest rank, and the decision is
 * the same on every rank. A rank needs S from step g + 1 on and waits for it
 * there if it is still in flight: the collective overlaps one step of
 * compute, and the wait is only ever for messages every rank posted at step
 * g, before its forward step g. So a rank never waits in ebb for a step
 * another rank has not run yet, and a halo exchange inside the forward
 * callbacks cannot deadlock with it. A rank whose channel is still busy at
 * S + 1 (the prediction was short) stores anyway: the transfer queues
 * behind the one in flight, and the compute waits only when the staging
 * buffers run out, on this rank alone.
 *
 * (A rank posting only once its own channel came free would make the
 * others wait at their next step for a rank that, in a halo exchange, waits
 * for them: a deadlock when one rank's disk is slower.)
 */
#include <math.h>
#include <time.h>

#include "common/error_internal.h"
#include "mpi/mpi_internal.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Steps until this rank's channels are free: how long a transfer down has
 * been seen to take (kept in busy_s, at least 1.25 x what the one in flight
 * has taken so far), less what it has taken, at the seconds per step since
 * the last store. At least 1. */
static int64_t predict(mpi_agree *m, int64_t step, double now)
{
    if (m->store_time <= 0)
        return step > 1 ? step : 1; /* nothing seen yet: as long again as since x_0 */
    double elapsed = now - m->store_time;
    int64_t steps = step - m->store_step;
    if (m->busy_s < 1.25 * elapsed)
        m->busy_s = 1.25 * elapsed;
    double per_step = steps > 0 ? elapsed / (double)steps : 0;
    double k = per_step > 0 ? ceil((m->busy_s - elapsed) / per_step) : 1;
    return k < 1 ? 1 : k > 1e9 ? (int64_t)1e9 : (int64_t)k;
}

ebb_status mpi_decide_idle(rt_agree *a, rt_async_idle_fn local, void *local_ctx, int mask,
                           int64_t step, int *idle)
{
    mpi_agree *m = (mpi_agree *)a;
    *idle = 0;
    if (m->done)
        return ebb_fail(EBB_ERR_STATE, "the run stopped on an error on some rank");
    ebb_status st;
    if (m->decision == DEC_NONE) {
        int free_here = 0;
        if ((st = local(local_ctx, mask, step, &free_here)) != EBB_OK)
            return st;
        double now = now_s();
        int64_t v[MPI_MSG] = {0};
        v[MSG_DATA] = free_here ? step : step + predict(m, step, now);
        if (free_here && m->store_time > 0) /* it took no longer than this */
            m->busy_s = 0.5 * m->busy_s + 0.5 * (now - m->store_time);
        if ((st = mpi_post(m, TAG_DECIDE, v)) != EBB_OK)
            return st;
        m->decision = DEC_POSTED;
        m->agreements++;
        return EBB_OK;
    }
    if (m->decision == DEC_POSTED) {
        int64_t r[MPI_MSG];
        m->decision = DEC_NONE;
        if ((st = mpi_complete(m, r)) != EBB_OK)
            return st;
        m->agreed_step = r[MSG_DATA];
        m->decision = DEC_AGREED;
    }
    if (step > m->agreed_step) { /* i >= S + 1 */
        int free_here = 0;
        if ((st = local(local_ctx, mask, step, &free_here)) != EBB_OK)
            return st;
        double now = now_s();
        if (!free_here && m->store_time > 0 && m->busy_s < 2 * (now - m->store_time))
            m->busy_s = 2 * (now - m->store_time); /* predicted short: the store queues */
        m->decision = DEC_NONE;
        m->store_time = now;
        m->store_step = step;
        *idle = 1;
    }
    return EBB_OK;
}

ebb_status mpi_decide_settle(mpi_agree *m)
{
    if (m->done)
        return ebb_fail(EBB_ERR_STATE, "the run stopped on an error on some rank");
    /* every rank posted at the same step, so every rank has one in flight
     * here, or none */
    ebb_status st = EBB_OK;
    if (m->decision == DEC_POSTED) {
        int64_t r[MPI_MSG];
        m->decision = DEC_NONE;
        st = mpi_complete(m, r);
    }
    m->decision = DEC_NONE;
    return st;
}
