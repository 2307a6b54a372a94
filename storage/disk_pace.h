/* The disk tier's bandwidth limit (disk_pace.c), per pool, reads and writes
 * together. A request may be sent when the clock has reached next_ns;
 * sending `bytes` moves it on by bytes / rate from there, or from 1 ms ago
 * when the engine came later than that (disk_pace_rule.h: lateness up to
 * 1 ms is made up for, idle time earns nothing). So over any interval of T seconds at most
 * rate x T + one request + 1 ms x rate bytes are sent. */
#ifndef EBB_STORAGE_DISK_PACE_H
#define EBB_STORAGE_DISK_PACE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "storage/disk_pace_rule.h"

struct ebb_pool;
struct ebb_op;

typedef struct ebb_disk_pacer {
    double rate;             /* bytes per second; 0: no limit */
    double ns_per_byte;
    uint64_t next_ns;        /* CLOCK_MONOTONIC; the ring thread's, or under the core lock */
    int held;                /* the request at hand was held back (for paced_waits) */
    _Atomic int off;         /* destroy: what is left goes at once */
    _Atomic uint64_t paced_waits; /* requests the limit held back */
    pthread_cond_t cv;       /* threads engine: workers wait for their time */
    int clock;               /* cv's clock: CLOCK_MONOTONIC (or CLOCK_REALTIME) */
    int cv_init;             /* cv exists */
} ebb_disk_pacer;

/* init: creates cv, cannot fail. destroy: cv, if init ran. */
void ebb_disk_pace_init(ebb_disk_pacer *p, double rate);
void ebb_disk_pace_destroy(ebb_disk_pacer *p);
/* Before block `block` of `op` is sent (by the ring thread, or by a worker
 * holding the core lock): 0, and the request is counted, or the nanoseconds
 * to wait before asking again. */
uint64_t ebb_disk_pace(struct ebb_pool *pool, const struct ebb_op *op, uint32_t block);
/* Threads engine, `lock` (the core lock) held: waits up to `ns` (less if lifted). */
void ebb_disk_pace_sleep(ebb_disk_pacer *p, pthread_mutex_t *lock, uint64_t ns);
/* The pool is being destroyed (core lock held): no more pacing, sleepers wake. */
void ebb_disk_pace_lift(ebb_disk_pacer *p);
/* The limit again, after an engine that failed to start lifted it on its
 * way out (the engine that takes over paces as asked). */
void ebb_disk_pace_resume(ebb_disk_pacer *p);

#endif
