/* The disk tier's bandwidth limit (ebb_pool_options.max_bandwidth,
 * tier.disk.max_bandwidth): one "next allowed send time" per pool, which
 * every new block request, read or write, must have reached. Both engines
 * ask before they take a block: the io_uring thread waits in its
 * submit-and-wait (with a timeout, so completions and new work still wake
 * it), a worker of the thread engine in a timed wait on the pacer's cv that
 * releases the core lock, so callers queueing work are never blocked by it.
 * Continuations of short requests and retries are part of their block and
 * are not counted again. */
#include <time.h>

#include "storage/disk.h"

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void ebb_disk_pace_init(ebb_disk_pacer *p, double rate)
{
    p->rate = rate > 0 ? rate : 0;
    p->ns_per_byte = rate > 0 ? 1e9 / rate : 0;
    p->next_ns = 0;
    p->cv_init = 1;
    /* Monotonic, so that a clock step neither stretches nor cuts a wait;
     * the realtime clock where the attribute is refused. */
    pthread_condattr_t attr;
    p->clock = CLOCK_MONOTONIC;
    if (pthread_condattr_init(&attr) == 0) {
        int ok = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0 &&
                 pthread_cond_init(&p->cv, &attr) == 0;
        pthread_condattr_destroy(&attr);
        if (ok)
            return;
    }
    p->clock = CLOCK_REALTIME;
    pthread_cond_init(&p->cv, NULL);
}

void ebb_disk_pace_destroy(ebb_disk_pacer *p)
{
    if (p->cv_init)
        pthread_cond_destroy(&p->cv);
    p->cv_init = 0;
}

uint64_t ebb_disk_pace(struct ebb_pool *pool, const ebb_op *op, uint32_t block)
{
    ebb_disk *d = pool->disk;
    ebb_disk_pacer *p = &d->pace;
    if (p->ns_per_byte == 0 || atomic_load_explicit(&p->off, memory_order_acquire))
        return 0;
    uint64_t now = mono_ns();
    if (now < p->next_ns) {
        p->held = 1;
        return p->next_ns - now;
    }
    if (p->held) {
        p->held = 0;
        atomic_fetch_add(&p->paced_waits, 1);
    }
    ebb_disk_loc loc;
    ebb_disk_locate_bytes(&d->layout, op->slot, block, op->bytes, &loc);
    /* Lateness of up to the slack is made up for; longer idle earns nothing. */
    uint64_t from = (uint64_t)ebb_disk_pace_from((double)p->next_ns, (double)now, 1e9);
    double step = (double)loc.io_len * p->ns_per_byte + 0.5;
    p->next_ns = from + (step < 1e18 ? (uint64_t)step : UINT64_C(1000000000000000000));
    return 0;
}

void ebb_disk_pace_sleep(ebb_disk_pacer *p, pthread_mutex_t *lock, uint64_t ns)
{
    struct timespec ts;
    clock_gettime(p->clock, &ts);
    if (ns > UINT64_C(3600) * 1000000000u)
        ns = UINT64_C(3600) * 1000000000u; /* asked again after an hour at most */
    uint64_t t = (uint64_t)ts.tv_nsec + ns % 1000000000u;
    ts.tv_sec += (time_t)(ns / 1000000000u + t / 1000000000u);
    ts.tv_nsec = (long)(t % 1000000000u);
    (void)pthread_cond_timedwait(&p->cv, lock, &ts);
}

void ebb_disk_pace_resume(ebb_disk_pacer *p)
{
    atomic_store_explicit(&p->off, 0, memory_order_release);
}

void ebb_disk_pace_lift(ebb_disk_pacer *p)
{
    atomic_store_explicit(&p->off, 1, memory_order_release);
    if (p->cv_init)
        pthread_cond_broadcast(&p->cv);
}
