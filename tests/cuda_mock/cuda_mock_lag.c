/* The fake CUDA runtime's lag mode (see cuda_mock.h): a device clock on
 * which queued work starts and ends as the engines allow, so that the host
 * thread runs ahead of the device as on a GPU. The device is simulated
 * lazily: every call into the mock first runs, in time order, what the
 * device did up to now. */
#include "cuda_mock_internal.h"

#include <math.h>

double cm_bw[E_COUNT] = {25e9, 25e9, 1e12, 0};
double cm_lat[E_COUNT] = {5e-6, 5e-6, 5e-6, 0};
uint64_t cm_gseq;
uint64_t cm_queue_depth;

/* When each engine of each device finishes what it has started. */
static double engine_free[MAX_DEV][E_COUNT];

void cm_lag_copy_model(command *c, int stream_dev, const range *rd, const range *rs,
                       enum cudaMemcpyKind kind)
{
    (void)stream_dev;
    int e;
    switch (kind) {
    case cudaMemcpyHostToDevice: e = CUDA_MOCK_H2D; break;
    case cudaMemcpyDeviceToHost: e = CUDA_MOCK_D2H; break;
    case cudaMemcpyDeviceToDevice: e = CUDA_MOCK_D2D; break;
    default: /* cudaMemcpyDefault: by the memory; pinned to pinned on the h2d engine */
        e = rs->kind == M_PINNED ? CUDA_MOCK_H2D : rd->kind == M_PINNED ? CUDA_MOCK_D2H
                                                                          : CUDA_MOCK_D2D;
    }
    c->engine = e;
    c->dur = cm_lat[e] + (double)c->n / cm_bw[e];
}

typedef struct next_event {
    struct CUstream_st *s; /* NULL: nothing can happen until a hold is lifted */
    double t;
    int start;    /* 1: the head starts at t; 0: the started head ends at t */
    double ready; /* start: when its stream and waits allowed it */
    uint64_t gseq;
} next_event;

/* Ends before starts at the same time (a freed engine or a completed
 * predecessor counts at once); engines go to the command ready first. */
static int earlier(const next_event *a, const next_event *b)
{
    if (!b->s)
        return 1;
    if (a->t != b->t)
        return a->t < b->t;
    if (a->start != b->start)
        return !a->start;
    if (a->ready != b->ready)
        return a->ready < b->ready;
    return a->gseq < b->gseq;
}

static next_event next(void)
{
    next_event best = {.s = NULL, .t = INFINITY};
    for (struct CUstream_st *s = cm_streams; s; s = s->next) {
        if (s->done >= s->queued || cm_sticky[s->dev] != cudaSuccess)
            continue;
        command *c = &s->cmds[s->done];
        next_event e = {.s = s, .gseq = c->gseq};
        if (c->started) {
            e.t = c->end;
        } else {
            if (cm_held(s))
                continue;
            double ready = fmax(fmax(c->enq_t, s->last_end), s->not_before);
            if (c->kind == C_WAIT) {
                if (c->wait_s->done < c->wait_seq)
                    continue;
                ready = fmax(ready, c->wait_s->cmds[c->wait_seq - 1].end);
            }
            e.start = 1;
            e.ready = ready;
            e.t = c->engine == E_NONE ? ready : fmax(ready, engine_free[s->dev][c->engine]);
        }
        if (earlier(&e, &best))
            best = e;
    }
    return best;
}

static void complete(struct CUstream_st *s)
{
    command *c = &s->cmds[s->done];
    uint64_t at = s->done;
    while (s->done == at) /* a fill writes all its pieces */
        cm_run_one(s);
    if (c->kind == C_RECORD)
        c->t = c->end; /* cudaEventElapsedTime: the device clock */
    s->last_end = c->end;
}

static void advance(double now)
{
    for (;;) {
        next_event e = next();
        if (!e.s || e.t > now)
            return;
        if (!e.start) {
            complete(e.s);
            continue;
        }
        command *c = &e.s->cmds[e.s->done];
        c->started = 1;
        c->end = e.t + c->dur;
        if (c->engine != E_NONE)
            engine_free[e.s->dev][c->engine] = c->end;
    }
}

void cm_lag_catch_up(void)
{
    if (cm_mode == CUDA_MOCK_LAG)
        advance(cm_now_s());
}

void cm_lag_released(struct CUstream_st *s)
{
    if (cm_held(s))
        s->not_before = cm_now_s();
}

uint64_t cm_lag_wait(int (*done)(const void *), const void *arg, const char *what, int dev)
{
    uint64_t wakes = 0;
    for (;; wakes++) {
        advance(cm_now_s());
        if ((done && done(arg)) || (dev >= 0 && cm_sticky[dev] != cudaSuccess))
            return wakes;
        next_event e = next();
        if (!done && !e.s)
            return wakes; /* cuda_mock_run_all: nothing more can run */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        if (!e.s) {
            int any_held = cm_hold_all;
            for (struct CUstream_st *s = cm_streams; s && !any_held; s = s->next)
                any_held = cm_held(s) && s->done < s->queued;
            until.tv_sec += 10;
            /* a hold another thread may lift, as in the other modes */
            if (any_held && pthread_cond_timedwait(&cm_released, &cm_mu, &until) == 0)
                continue;
            cm_misuse("%s would wait forever: %s", what,
                      any_held ? "the work it waits for is held (cuda_mock_hold*) and nothing "
                                 "released it within 10 s"
                               : "nothing can run (a wait on work never queued)");
        }
        double dt = e.t - cm_now_s();
        if (dt <= 0)
            continue;
        /* the mutex is free meanwhile: other threads queue and poll */
        long long ns = until.tv_nsec + (long long)(dt * 1e9);
        until.tv_sec += (time_t)(ns / 1000000000);
        until.tv_nsec = (long)(ns % 1000000000);
        pthread_cond_timedwait(&cm_released, &cm_mu, &until);
    }
}

static int has_room(const void *a)
{
    const struct CUstream_st *s = a;
    return s->queued - s->done < cm_queue_depth;
}

void cm_lag_room(struct CUstream_st *s)
{
    if (cm_mode == CUDA_MOCK_LAG && cm_queue_depth)
        cm_lag_wait(has_room, s, "a launch into a full queue", s->dev);
}

void cuda_mock_set_queue_depth(uint64_t commands)
{
    LOCK();
    cm_queue_depth = commands;
    UNLOCK();
}

void cuda_mock_set_copy_model(cuda_mock_engine engine, double bytes_per_s, double latency_s)
{
    if ((int)engine < 0 || (int)engine >= E_COMPUTE || !(bytes_per_s > 0) || !(latency_s >= 0))
        cm_misuse("cuda_mock_set_copy_model(%d, %g, %g): an engine of cuda_mock_engine, a rate "
                  "> 0 and a latency >= 0",
                  (int)engine, bytes_per_s, latency_s);
    LOCK();
    cm_bw[engine] = bytes_per_s;
    cm_lat[engine] = latency_s;
    UNLOCK();
}

void cuda_mock_kernel(cudaStream_t stream, double seconds, cudaHostFn_t fn, void *arg)
{
    if (!(seconds >= 0))
        cm_misuse("cuda_mock_kernel: %g seconds", seconds);
    LOCK();
    struct CUstream_st *s = cm_resolve(stream, "cuda_mock_kernel");
    if (cm_in_context(s->dev) == cudaSuccess) {
        command c = {.kind = C_KERNEL, .fn = fn, .fn_data = arg, .engine = E_COMPUTE,
                     .dur = seconds};
        cm_push(s, c);
    }
    UNLOCK();
}
