/* Internals of the fake CUDA runtime (tests/cuda_mock/cuda_mock.h), shared
 * by its four files: cuda_mock.c (state, stream execution, test control),
 * cuda_mock_memory.c (devices, errors, memory, peer access, reset),
 * cuda_mock_stream.c (streams, events, copies) and cuda_mock_lag.c (lag
 * mode's device clock). Every name is cm_-prefixed;
 * one mutex (cm_mu) guards all state; the current device and the last
 * error are per thread, as in the runtime. */
#ifndef EBB_TESTS_CUDA_MOCK_INTERNAL_H
#define EBB_TESTS_CUDA_MOCK_INTERNAL_H

#include "cuda_mock.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void cm_misuse(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

enum { C_COPY, C_RECORD, C_WAIT, C_HOSTFN, C_FILL, C_KERNEL };

/* Lag mode's engines: the three copy paths (cuda_mock_engine), then the
 * compute engine; E_NONE takes none. */
enum { E_NONE = -1, E_COMPUTE = 3, E_COUNT = 4 };

typedef struct command {
    int kind;
    void *dst;
    const void *src;
    size_t n;
    cudaError_t fail;              /* copy: error when it runs (fail_async) */
    cudaError_t err;            /* record: the stream's error when it ran */
    double t;                   /* record: host time (s) when it ran, for cudaEventElapsedTime */
    struct CUstream_st *wait_s; /* wait: the stream and position waited for */
    uint64_t wait_seq;
    cudaHostFn_t fn;            /* host function: the stand-in for a kernel */
    void *fn_data;
    size_t off;                 /* fill: bytes written so far (a piece per step) */
    size_t piece;
    int value;
    /* lag mode */
    uint64_t gseq; /* queue order over all streams: ties for an engine */
    int engine;    /* E_NONE or the engine it occupies */
    int started;   /* its start and end are fixed */
    double enq_t;  /* host time it was queued */
    double dur;    /* modelled duration (s) */
    double end;    /* modelled end on the device clock */
} command;

struct CUstream_st {
    int dev;
    int id;
    int destroyed;
    int held;
    uint64_t hold_at; /* cuda_mock_hold_at: held once `done` reaches it (0: never) */
    int is_default;
    int blocking; /* synchronises with the legacy default stream (flags 0) */
    int legacy;   /* the legacy default stream (NULL, cudaStreamLegacy) */
    command *cmds;
    size_t cap;
    uint64_t queued, done;
    cudaError_t err; /* set by a failed copy, cleared by a good one */
    double last_end;   /* lag: the end of its last completed command */
    double not_before; /* lag: when its hold was last lifted */
    struct CUstream_st *next;
};

struct CUevent_st {
    int dev;
    int destroyed;
    unsigned flags;
    struct CUstream_st *s; /* NULL: never recorded */
    uint64_t seq;          /* s->cmds[seq - 1] is the record */
    struct CUevent_st *next;
};

enum { M_DEVICE = 1, M_PINNED = 2, M_MANAGED = 3 };
typedef struct range {
    char *p;
    size_t n;
    int dev;
    int kind;
    int owned; /* allocated by the mock */
    int reg_dev;  /* pinned: device whose context registered or allocated it */
    int portable; /* pinned: cudaHostRegisterPortable / cudaHostAllocPortable */
    struct range *next;
} range;

typedef struct fault {
    char name[64];
    int skip, count;
    cudaError_t err;
} fault;

enum { MAX_DEV = 16, MAX_FAULTS = 16 };

extern pthread_mutex_t cm_mu;
extern pthread_cond_t cm_released; /* a hold was lifted */
extern struct CUstream_st *cm_streams, **cm_streams_tail;
extern struct CUevent_st *cm_events;
extern struct CUstream_st *cm_default_stream[MAX_DEV];
extern range *cm_ranges;
extern fault cm_faults[MAX_FAULTS];
extern int cm_async_skip;
extern cudaError_t cm_async_err;
extern int cm_ndev;
extern cuda_mock_mode cm_mode;
extern double cm_step_p;
extern int cm_notready_last;
extern int cm_hold_all;
extern int cm_nstreams;
extern uint64_t cm_rng;
extern uint64_t cm_copies_run;
extern struct CUstream_st *cm_last_stream;
extern size_t cm_kernel_pieces;
extern size_t cm_device_total; /* each device's memory (cuda_mock_set_device_memory) */
/* Per device: its primary context exists, how often one was created, the
 * sticky error that killed it, peer access enabled from it to another. */
extern int cm_ctx_live[MAX_DEV];
extern int cm_ctx_created[MAX_DEV];
extern cudaError_t cm_sticky[MAX_DEV];
extern int cm_peer_on[MAX_DEV][MAX_DEV];
extern uint64_t cm_polls, cm_sleeps, cm_staged_copies, cm_unportable_copies;
extern double cm_bw[E_COUNT], cm_lat[E_COUNT]; /* lag: the copy engines' model */
extern uint64_t cm_gseq;
extern uint64_t cm_queue_depth; /* lag: 0 or the most commands a stream holds */
extern __thread struct CUstream_st *cm_per_thread_stream[MAX_DEV];
extern __thread int cm_cur_dev;
extern __thread cudaError_t cm_last_err;

#define LOCK() pthread_mutex_lock(&cm_mu)
#define UNLOCK() pthread_mutex_unlock(&cm_mu)

#define CONTEXT(dev)                                                                              \
    do {                                                                                          \
        cudaError_t ctx_ = cm_in_context(dev);                                                       \
        if (ctx_ != cudaSuccess) {                                                                \
            UNLOCK();                                                                             \
            return cm_fail(ctx_);                                                                    \
        }                                                                                         \
    } while (0)

#define INJECT(name)                                                                              \
    do {                                                                                          \
        cudaError_t inj_ = cm_injected(name);                                                        \
        if (inj_ != cudaSuccess) {                                                                \
            UNLOCK();                                                                             \
            return cm_fail(inj_);                                                                    \
        }                                                                                         \
    } while (0)

void cm_seed_rng(uint64_t seed);
uint64_t cm_next_rand(void);
double cm_rnd01(void);
cudaError_t cm_fail(cudaError_t e);
cudaError_t cm_injected(const char *name);
int cm_sticky_code(cudaError_t e);
cudaError_t cm_in_context(int dev);
range *cm_find(const void *p);
size_t cm_device_bytes(int dev); /* cudaMalloc'ed on dev and not freed */
int cm_overlaps(const void *a, size_t an, const void *b, size_t bn);
size_t cm_pending_touching(const void *p, size_t n);
range *cm_add_range(void *p, size_t n, int dev, int kind, int owned);
void cm_remove_range(void *p, int pinned, const char *what);
const char *cm_kind_name(int kind);
struct CUstream_st *cm_new_stream(int dev, int is_default, int blocking);
struct CUstream_st *cm_resolve(cudaStream_t st, const char *what);
void cm_check_event(cudaEvent_t ev, const char *what);
int cm_held(const struct CUstream_st *s);
int cm_runnable(const struct CUstream_st *s);
double cm_now_s(void);
void cm_run_one(struct CUstream_st *s);
int cm_count_runnable(void);
void cm_step_random(void);
void cm_run_everything(void);
void cm_settle(void);
int cm_event_done(const struct CUevent_st *ev);
cudaError_t cm_event_result(const struct CUevent_st *ev);
uint64_t cm_drain_until(int (*done)(const void *), const void *arg, const char *what, int dev);
int cm_cond_event(const void *a);
int cm_cond_stream(const void *a);
/* Lag mode (cuda_mock_lag.c): catch_up runs, on the device clock, what
 * completed by now (a no-op in the other modes); wait sleeps until
 * done(arg), returning the times it woke. */
void cm_lag_catch_up(void);
uint64_t cm_lag_wait(int (*done)(const void *), const void *arg, const char *what, int dev);
void cm_lag_released(struct CUstream_st *s);
void cm_lag_room(struct CUstream_st *s);
void cm_lag_copy_model(command *c, int stream_dev, const range *rd, const range *rs,
                       enum cudaMemcpyKind kind);
void cm_push_raw(struct CUstream_st *s, command c);
void cm_push(struct CUstream_st *s, command c);
range *cm_allocate_range(void **p, size_t size, int kind, const char *name,
                             cudaError_t *err);
cudaError_t cm_allocate(void **p, size_t size, int kind, const char *name);
range *cm_copy_end(const void *p, size_t n, const char *which);
void cm_expect_kind(const range *r, int want, int dev, const char *which, const char *kind);
void cm_copy_path(int dev, const range *r);

#endif
