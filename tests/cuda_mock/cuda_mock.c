/* A fake CUDA runtime for tests on machines without a GPU: see cuda_mock.h.
 * This file: the state, stream execution and the test control functions;
 * the runtime API is in cuda_mock_memory.c and cuda_mock_stream.c. The
 * definitions take their signatures from <cuda_runtime_api.h>, so any name
 * the header remaps comes out as the library expects it. */
#include "cuda_mock_internal.h"
#include "storage/cuda_sticky.h"

pthread_mutex_t cm_mu = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t cm_released = PTHREAD_COND_INITIALIZER;
struct CUstream_st *cm_streams, **cm_streams_tail = &cm_streams;
struct CUevent_st *cm_events;
struct CUstream_st *cm_default_stream[MAX_DEV];
range *cm_ranges;
fault cm_faults[MAX_FAULTS];
int cm_async_skip = -1;
cudaError_t cm_async_err;
int cm_ndev = 1;
cuda_mock_mode cm_mode = CUDA_MOCK_LAZY;
double cm_step_p = 0.3;
int cm_notready_last;
int cm_hold_all;
int cm_nstreams;
uint64_t cm_rng = 0x9E3779B97F4A7C15ull;
uint64_t cm_copies_run;
struct CUstream_st *cm_last_stream;
size_t cm_kernel_pieces = 8;
size_t cm_device_total = (size_t)80 << 30;
/* Per device: its primary context exists, how often one was created, the
 * sticky error that killed it, peer access enabled from it to another. */
int cm_ctx_live[MAX_DEV];
int cm_ctx_created[MAX_DEV];
cudaError_t cm_sticky[MAX_DEV];
int cm_peer_on[MAX_DEV][MAX_DEV];
uint64_t cm_polls, cm_sleeps, cm_staged_copies, cm_unportable_copies;
__thread struct CUstream_st *cm_per_thread_stream[MAX_DEV];
__thread int cm_cur_dev;
__thread cudaError_t cm_last_err;

void cm_misuse(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("cuda_mock: MISUSE: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(stderr);
    abort();
}

void cm_seed_rng(uint64_t seed)
{
    cm_rng = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    if (!cm_rng)
        cm_rng = 1;
}

__attribute__((constructor)) static void from_environment(void)
{
    const char *e;
    if ((e = getenv("CUDA_MOCK_DEVICES")))
        cm_ndev = atoi(e);
    if (cm_ndev < 0 || cm_ndev > MAX_DEV)
        cm_misuse("CUDA_MOCK_DEVICES=%s: expected 0 .. %d", e, MAX_DEV);
    if ((e = getenv("CUDA_MOCK_MODE")))
        cm_mode = strcmp(e, "eager") == 0 ? CUDA_MOCK_EAGER
                  : strcmp(e, "lag") == 0 ? CUDA_MOCK_LAG
                                          : CUDA_MOCK_LAZY;
    if ((e = getenv("CUDA_MOCK_SEED")))
        cm_seed_rng(strtoull(e, NULL, 10));
    if ((e = getenv("CUDA_MOCK_STEP_P")))
        cm_step_p = atof(e);
    static const char *const bw[] = {"CUDA_MOCK_H2D_BW", "CUDA_MOCK_D2H_BW", "CUDA_MOCK_D2D_BW"};
    for (int i = 0; i < E_COMPUTE; i++)
        if ((e = getenv(bw[i])) && !((cm_bw[i] = atof(e)) > 0))
            cm_misuse("%s=%s: expected bytes per second > 0", bw[i], e);
    if ((e = getenv("CUDA_MOCK_QUEUE_DEPTH")))
        cm_queue_depth = strtoull(e, NULL, 10);
    if ((e = getenv("CUDA_MOCK_COPY_LATENCY"))) {
        double l = atof(e);
        if (!(l >= 0))
            cm_misuse("CUDA_MOCK_COPY_LATENCY=%s: expected seconds >= 0", e);
        for (int i = 0; i < E_COMPUTE; i++)
            cm_lat[i] = l;
    }
}

uint64_t cm_next_rand(void)
{
    cm_rng ^= cm_rng << 13;
    cm_rng ^= cm_rng >> 7;
    cm_rng ^= cm_rng << 17;
    return cm_rng;
}

double cm_rnd01(void) { return (double)(cm_next_rand() >> 11) / 9007199254740992.0; }

cudaError_t cm_fail(cudaError_t e)
{
    if (e != cudaSuccess && (e != cudaErrorNotReady || cm_notready_last))
        cm_last_err = e;
    return e;
}

/* An injected failure for `name`, or cudaSuccess. */
cudaError_t cm_injected(const char *name)
{
    for (int i = 0; i < MAX_FAULTS; i++) {
        fault *f = &cm_faults[i];
        if (f->count <= 0 || strcmp(f->name, name) != 0)
            continue;
        if (f->skip > 0) {
            f->skip--;
            continue;
        }
        f->count--;
        return f->err;
    }
    return cudaSuccess;
}

/* The errors that kill a context: the library's own list, so that the
 * double and ebb agree on which faults are fatal. */
int cm_sticky_code(cudaError_t e)
{
    return ebb_cuda_sticky_code((int)e);
}

/* A call that works in device `dev`'s context: creates the context if it
 * is not there (counted), and fails with the context's sticky error. */
cudaError_t cm_in_context(int dev)
{
    if (dev < 0 || dev >= cm_ndev)
        return cudaSuccess;
    if (!cm_ctx_live[dev]) {
        cm_ctx_live[dev] = 1;
        cm_ctx_created[dev]++;
    }
    return cm_sticky[dev];
}



/* ---- memory ---- */

range *cm_find(const void *p)
{
    for (range *r = cm_ranges; r; r = r->next)
        if ((const char *)p >= r->p && (const char *)p < r->p + r->n)
            return r;
    return NULL;
}

int cm_overlaps(const void *a, size_t an, const void *b, size_t bn)
{
    const char *x = a, *y = b;
    return x < y + bn && y < x + an;
}

size_t cm_pending_touching(const void *p, size_t n)
{
    cm_lag_catch_up(); /* what completed by now is not pending */
    size_t k = 0;
    for (struct CUstream_st *s = cm_streams; s; s = s->next)
        for (uint64_t i = s->done; i < s->queued; i++) {
            command *c = &s->cmds[i];
            if (c->kind == C_COPY && (cm_overlaps(c->dst, c->n, p, n) || cm_overlaps(c->src, c->n, p, n)))
                k++;
        }
    return k;
}

range *cm_add_range(void *p, size_t n, int dev, int kind, int owned)
{
    range *r = calloc(1, sizeof *r);
    if (!r)
        cm_misuse("out of host memory for bookkeeping");
    r->p = p;
    r->n = n;
    r->dev = dev;
    r->kind = kind;
    r->owned = owned;
    r->next = cm_ranges;
    cm_ranges = r;
    return r;
}

void cm_remove_range(void *p, int pinned, const char *what)
{
    for (range **pp = &cm_ranges; *pp; pp = &(*pp)->next) {
        range *r = *pp;
        if (r->p != p || (r->kind == M_PINNED) != pinned)
            continue;
        size_t k = cm_pending_touching(r->p, r->n);
        if (k)
            cm_misuse("%s(%p): %zu copies that touch this memory are still pending (it must not "
                   "be released before they complete)",
                   what, p, k);
        *pp = r->next;
        if (r->owned)
            free(r->p);
        free(r);
        return;
    }
    cm_misuse("%s(%p): not a pointer the mock %s", what, p,
           pinned ? "registered" : "allocated");
}

const char *cm_kind_name(int kind)
{
    switch (kind) {
    case M_DEVICE: return "device";
    case M_PINNED: return "pinned host";
    case M_MANAGED: return "managed";
    default: return "pageable host";
    }
}

/* ---- streams and execution ---- */

struct CUstream_st *cm_new_stream(int dev, int is_default, int blocking)
{
    struct CUstream_st *s = calloc(1, sizeof *s);
    if (!s)
        cm_misuse("out of host memory for bookkeeping");
    s->dev = dev;
    s->id = cm_nstreams++;
    s->is_default = is_default;
    s->blocking = blocking;
    *cm_streams_tail = s;
    cm_streams_tail = &s->next;
    return s;
}

/* NULL and cudaStreamLegacy: the current device's legacy default stream;
 * cudaStreamPerThread: this thread's default stream on the current device,
 * a blocking stream (it synchronises with the legacy one). */
struct CUstream_st *cm_resolve(cudaStream_t st, const char *what)
{
    if (!st || st == cudaStreamLegacy) {
        if (!cm_default_stream[cm_cur_dev]) {
            cm_default_stream[cm_cur_dev] = cm_new_stream(cm_cur_dev, 1, 1);
            cm_default_stream[cm_cur_dev]->legacy = 1;
        }
        return cm_default_stream[cm_cur_dev];
    }
    if (st == cudaStreamPerThread) {
        if (!cm_per_thread_stream[cm_cur_dev])
            cm_per_thread_stream[cm_cur_dev] = cm_new_stream(cm_cur_dev, 1, 1);
        return cm_per_thread_stream[cm_cur_dev];
    }
    int known = 0;
    for (struct CUstream_st *s = cm_streams; s && !known; s = s->next)
        known = s == st;
    if (!known)
        cm_misuse("%s: %p is not a stream", what, (void *)st);
    if (st->destroyed)
        cm_misuse("%s: stream %d was destroyed", what, st->id);
    return st;
}

void cm_check_event(cudaEvent_t ev, const char *what)
{
    int known = 0;
    for (struct CUevent_st *e = cm_events; e && !known; e = e->next)
        known = e == ev;
    if (!known)
        cm_misuse("%s: %p is not an event", what, (void *)ev);
    if (ev->destroyed)
        cm_misuse("%s: the event was destroyed", what);
}

int cm_held(const struct CUstream_st *s)
{
    return s->held || cm_hold_all || (s->hold_at && s->done >= s->hold_at);
}

int cm_runnable(const struct CUstream_st *s)
{
    if (cm_held(s) || s->done >= s->queued || cm_sticky[s->dev] != cudaSuccess)
        return 0; /* a dead context runs nothing more */
    const command *c = &s->cmds[s->done];
    return c->kind != C_WAIT || c->wait_s->done >= c->wait_seq;
}

double cm_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cm_run_one(struct CUstream_st *s)
{
    command *c = &s->cmds[s->done];
    switch (c->kind) {
    case C_COPY:
        if (c->fail != cudaSuccess) {
            s->err = c->fail;
            if (cm_sticky_code(c->fail))
                cm_sticky[s->dev] = c->fail;
        } else {
            memcpy(c->dst, c->src, c->n);
            s->err = cudaSuccess;
        }
        cm_copies_run++;
        break;
    case C_RECORD:
        c->err = s->err;
        c->t = cm_now_s();
        break;
    case C_HOSTFN:
        c->fn(c->fn_data); /* CUDA: a host function must not call CUDA */
        break;
    case C_KERNEL:
        if (c->fn)
            c->fn(c->fn_data); /* the same rule */
        break;
    case C_FILL: {
        /* a kernel writing its buffer over time: one piece per step */
        size_t k = c->n - c->off < c->piece ? c->n - c->off : c->piece;
        memset((char *)c->dst + c->off, c->value, k);
        c->off += k;
        if (c->off < c->n)
            return;
        break;
    }
    default: break;
    }
    s->done++;
}

int cm_count_runnable(void)
{
    int n = 0;
    for (struct CUstream_st *s = cm_streams; s; s = s->next)
        n += cm_runnable(s);
    return n;
}

void cm_step_random(void)
{
    int n = cm_count_runnable();
    if (!n)
        return;
    int k = (int)(cm_next_rand() % (uint64_t)n);
    for (struct CUstream_st *s = cm_streams; s; s = s->next)
        if (cm_runnable(s) && k-- == 0) {
            cm_run_one(s);
            return;
        }
}

void cm_run_everything(void)
{
    while (cm_count_runnable())
        cm_step_random();
}

void cm_settle(void)
{
    if (cm_mode == CUDA_MOCK_EAGER)
        cm_run_everything();
    cm_lag_catch_up();
}

int cm_event_done(const struct CUevent_st *ev) { return !ev->s || ev->s->done >= ev->seq; }

cudaError_t cm_event_result(const struct CUevent_st *ev)
{
    if (!ev->s)
        return cudaSuccess;
    return ev->s->cmds[ev->seq - 1].err;
}

/* Runs random commands until done(arg); a misuse if that can never happen. */
/* Stops early when device dev's context dies (a sticky error). */
uint64_t cm_drain_until(int (*done)(const void *), const void *arg, const char *what, int dev)
{
    if (cm_mode == CUDA_MOCK_LAG)
        return cm_lag_wait(done, arg, what, dev);
    uint64_t steps = 0;
    for (; !done(arg) && cm_sticky[dev] == cudaSuccess; steps++) {
        if (!cm_count_runnable()) {
            int any_held = cm_hold_all;
            for (struct CUstream_st *s = cm_streams; s && !any_held; s = s->next)
                any_held = cm_held(s) && s->done < s->queued;
            /* Held: another thread (the test's) may release it; this one
             * sleeps until then, as a synchronize on a real device would. */
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_sec += 10;
            if (any_held && pthread_cond_timedwait(&cm_released, &cm_mu, &until) == 0)
                continue;
            cm_misuse("%s would wait forever: %s", what,
                   any_held ? "the work it waits for is held (cuda_mock_hold*) and nothing "
                              "released it within 10 s"
                            : "nothing can run (a wait on work never queued)");
        }
        cm_step_random();
    }
    return steps;
}

int cm_cond_event(const void *a) { return cm_event_done(a); }
int cm_cond_stream(const void *a)
{
    const struct CUstream_st *s = a;
    return s->done >= s->queued;
}

void cm_push_raw(struct CUstream_st *s, command c)
{
    if (s->queued == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        command *n = realloc(s->cmds, s->cap * sizeof *n);
        if (!n)
            cm_misuse("out of host memory for bookkeeping");
        s->cmds = n;
    }
    if (c.kind == C_RECORD || c.kind == C_WAIT || c.kind == C_HOSTFN) {
        c.engine = E_NONE;
        c.dur = 0;
    }
    c.gseq = ++cm_gseq;
    c.enq_t = cm_now_s();
    c.started = 0;
    s->cmds[s->queued++] = c;
}

/* The legacy default stream's implicit synchronisation: work queued on it
 * waits for the work queued before on every blocking stream of its device,
 * and work queued on a blocking stream waits for the work queued before on
 * the legacy stream. Non-blocking streams take part in neither. */
void cm_push(struct CUstream_st *s, command c)
{
    cm_lag_room(s);
    cm_lag_catch_up(); /* the implicit waits below are for work still running */
    if (s->legacy) {
        for (struct CUstream_st *t = cm_streams; t; t = t->next)
            if (t != s && t->dev == s->dev && t->blocking && t->done < t->queued)
                cm_push_raw(s, (command){.kind = C_WAIT, .wait_s = t, .wait_seq = t->queued});
    } else if (s->blocking) {
        struct CUstream_st *l = cm_default_stream[s->dev];
        if (l && l->done < l->queued)
            cm_push_raw(s, (command){.kind = C_WAIT, .wait_s = l, .wait_seq = l->queued});
    }
    cm_push_raw(s, c);
    cm_last_stream = s;
    cm_settle();
}

/* ---- control API ---- */

void cuda_mock_set_devices(int n)
{
    if (n < 0 || n > MAX_DEV)
        cm_misuse("cuda_mock_set_devices(%d): expected 0 .. %d", n, MAX_DEV);
    LOCK();
    cm_ndev = n;
    UNLOCK();
}

void cuda_mock_set_mode(cuda_mock_mode m)
{
    LOCK();
    cm_mode = m;
    cm_settle();
    UNLOCK();
}

void cuda_mock_set_seed(uint64_t seed)
{
    LOCK();
    cm_seed_rng(seed);
    UNLOCK();
}

void cuda_mock_set_step_probability(double p)
{
    LOCK();
    cm_step_p = p;
    UNLOCK();
}

void cuda_mock_notready_sets_last_error(int on)
{
    LOCK();
    cm_notready_last = on;
    UNLOCK();
}

void cuda_mock_hold(cudaStream_t stream)
{
    LOCK();
    cm_resolve(stream, "cuda_mock_hold")->held = 1;
    UNLOCK();
}

void cuda_mock_release(cudaStream_t stream)
{
    LOCK();
    struct CUstream_st *s = cm_resolve(stream, "cuda_mock_release");
    cm_lag_released(s);
    s->held = 0;
    s->hold_at = 0;
    pthread_cond_broadcast(&cm_released);
    cm_settle();
    UNLOCK();
}

void cuda_mock_hold_at(cudaStream_t stream, uint64_t commands)
{
    LOCK();
    struct CUstream_st *s = cm_resolve(stream, "cuda_mock_hold_at");
    s->hold_at = s->done + commands;
    s->held = commands == 0;
    UNLOCK();
}

void cuda_mock_hold_all(void)
{
    LOCK();
    cm_hold_all = 1;
    UNLOCK();
}

void cuda_mock_release_all(void)
{
    LOCK();
    for (struct CUstream_st *s = cm_streams; s; s = s->next)
        cm_lag_released(s);
    cm_hold_all = 0;
    for (struct CUstream_st *s = cm_streams; s; s = s->next)
        s->held = 0;
    pthread_cond_broadcast(&cm_released);
    cm_settle();
    UNLOCK();
}

cudaStream_t cuda_mock_last_stream(void)
{
    LOCK();
    cudaStream_t s = cm_last_stream;
    UNLOCK();
    return s;
}

void cuda_mock_run_all(void)
{
    LOCK();
    if (cm_mode == CUDA_MOCK_LAG)
        cm_lag_wait(NULL, NULL, "cuda_mock_run_all", -1);
    else
        cm_run_everything();
    UNLOCK();
}

size_t cuda_mock_pending(void)
{
    LOCK();
    cm_lag_catch_up();
    size_t n = 0;
    for (struct CUstream_st *s = cm_streams; s; s = s->next)
        n += (size_t)(s->queued - s->done);
    UNLOCK();
    return n;
}

size_t cuda_mock_pending_touching(const void *p, size_t n)
{
    LOCK();
    size_t k = cm_pending_touching(p, n);
    UNLOCK();
    return k;
}

uint64_t cuda_mock_copies_run(void)
{
    LOCK();
    cm_lag_catch_up();
    uint64_t n = cm_copies_run;
    UNLOCK();
    return n;
}

void cuda_mock_fail_call(const char *function, int skip, int count, cudaError_t err)
{
    LOCK();
    for (int i = 0; i < MAX_FAULTS; i++)
        if (cm_faults[i].count <= 0) {
            snprintf(cm_faults[i].name, sizeof cm_faults[i].name, "%s", function);
            cm_faults[i].skip = skip;
            cm_faults[i].count = count;
            cm_faults[i].err = err;
            UNLOCK();
            return;
        }
    cm_misuse("cuda_mock_fail_call: more than %d faults armed", MAX_FAULTS);
}

void cuda_mock_fail_async(int skip, cudaError_t err)
{
    LOCK();
    cm_async_skip = skip;
    cm_async_err = err;
    UNLOCK();
}

/* ---- test control added for ordering, polling and context checks ---- */

void cuda_mock_kernel_fill(cudaStream_t stream, void *ptr, size_t bytes, int value)
{
    LOCK();
    struct CUstream_st *s = cm_resolve(stream, "cuda_mock_kernel_fill");
    range *r = cm_find(ptr);
    if (!r || (r->kind != M_DEVICE && r->kind != M_MANAGED) ||
        (char *)ptr + bytes > r->p + r->n)
        cm_misuse("cuda_mock_kernel_fill(%p, %zu bytes): not inside device memory", ptr, bytes);
    if (r->kind == M_DEVICE && r->dev != s->dev)
        cm_misuse("cuda_mock_kernel_fill: memory of device %d on a stream of device %d", r->dev,
               s->dev);
    if (cm_in_context(s->dev) == cudaSuccess) {
        size_t piece = (bytes + cm_kernel_pieces - 1) / cm_kernel_pieces;
        command c = {.kind = C_FILL, .dst = ptr, .n = bytes, .piece = piece ? piece : 1,
                     .value = value, .engine = E_COMPUTE,
                     .dur = cm_lat[CUDA_MOCK_D2D] + (double)bytes / cm_bw[CUDA_MOCK_D2D]};
        cm_push(s, c);
    }
    UNLOCK();
}

void cuda_mock_set_kernel_pieces(size_t pieces)
{
    LOCK();
    cm_kernel_pieces = pieces ? pieces : 1;
    UNLOCK();
}

void cuda_mock_set_device_memory(size_t total)
{
    LOCK();
    cm_device_total = total;
    UNLOCK();
}

size_t cuda_mock_device_bytes(int device)
{
    LOCK();
    size_t n = cm_device_bytes(device);
    UNLOCK();
    return n;
}

#define COUNTER(name, var)                                                                        \
    uint64_t name(void)                                                                           \
    {                                                                                             \
        LOCK();                                                                                   \
        uint64_t v_ = var;                                                                        \
        UNLOCK();                                                                                 \
        return v_;                                                                                \
    }
COUNTER(cuda_mock_polls, cm_polls)
COUNTER(cuda_mock_sleeps, cm_sleeps)
COUNTER(cuda_mock_staged_copies, cm_staged_copies)
COUNTER(cuda_mock_unportable_copies, cm_unportable_copies)

int cuda_mock_contexts_created(int device)
{
    LOCK();
    int n = device >= 0 && device < MAX_DEV ? cm_ctx_created[device] : 0;
    UNLOCK();
    return n;
}

int cuda_mock_registration(const void *p, int *portable)
{
    LOCK();
    range *r = cm_find(p);
    int dev = r && r->kind == M_PINNED ? r->reg_dev : -1;
    if (portable)
        *portable = r && r->kind == M_PINNED ? r->portable : 0;
    UNLOCK();
    return dev;
}

int cuda_mock_stream_blocking(cudaStream_t stream)
{
    LOCK();
    int b = cm_resolve(stream, "cuda_mock_stream_blocking")->blocking;
    UNLOCK();
    return b;
}

cudaError_t cuda_mock_sticky_error(int device)
{
    LOCK();
    cudaError_t e = device >= 0 && device < MAX_DEV ? cm_sticky[device] : cudaSuccess;
    UNLOCK();
    return e;
}

