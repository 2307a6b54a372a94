/* Host tier: making slots ready. A host pool maps all its slots at
 * creation; making a range of them ready faults its pages in (prefault),
 * registers it with CUDA (a pinned pool) and creates the slots' tracking
 * events. A pool created whole does that once; one created with
 * ready_slots (a run with n unknown, whose budget may be far more than it
 * fills) does it for its first slots, then in doubling extents as slots
 * above them are first used, so that a tiny run does not take half the
 * machine's memory and the forward sweep pays no fault per store. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/error_internal.h"
#include "storage/cuda.h"
#include "storage/storage_internal.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* Faults every page of extent `extent` (1-based) in, so that a shortage
 * shows now. MADV_POPULATE_WRITE reports a shortage as an error (ENOMEM;
 * EFAULT or EHWPOISON for memory that cannot be had): that is the pool's
 * failure. Only where the kernel lacks the advice (EINVAL, before 5.14) is
 * every page touched instead, since touching memory that is not there is an
 * OOM kill or a SIGBUS. Returns 0 or an errno. */
int ebb_host_prefault(const struct ebb_pool *pool, unsigned char *base, size_t bytes,
                      int32_t extent)
{
    size_t page = ebb_host_page_size();
    /* whole pages (a compressed pool's extents need not start on one): the
     * page shared with the extent below is faulted in already */
    uintptr_t lo = (uintptr_t)base / page * page;
    bytes = ((uintptr_t)base - lo + bytes + page - 1) / page * page;
    base = (unsigned char *)lo;
    int inject = pool->fault.prefault_errno &&
                 (pool->fault.prefault_nth == 0 || pool->fault.prefault_nth == (uint32_t)extent);
    for (int attempt = 0;; attempt++) {
        int r = madvise(base, bytes, MADV_POPULATE_WRITE);
        int e = errno;
        if (inject) {
            r = -1;
            e = pool->fault.prefault_errno;
        }
        if (r == 0)
            return 0;
        if ((e == EINTR || e == EAGAIN) && attempt < 16)
            continue; /* a signal, or a page briefly locked: the kernel asks to retry */
        if (e != EINVAL)
            return e;
        break;
    }
    for (size_t off = 0; off < bytes; off += page)
        ((volatile unsigned char *)base)[off] = 0;
    return 0;
}

/* The memory of slots [from, to) given back to the kernel (their pages
 * freed, the range still mapped): an extent that could not be made ready
 * keeps nothing. */
static void give_back(struct ebb_pool *pool, int32_t from, int32_t to)
{
    /* the whole pages within (a page shared with a ready slot keeps its data) */
    size_t page = ebb_host_page_size();
    size_t lo = ((size_t)from * pool->stride + page - 1) / page * page;
    size_t hi = (size_t)to * pool->stride / page * page;
    if (hi > lo)
        (void)madvise(pool->base + lo, hi - lo, MADV_DONTNEED);
}

void ebb_host_pin_span(const struct ebb_pool *pool, int32_t from, int32_t to, unsigned char **at,
                       size_t *bytes)
{
    /* whole pages: slots of states below a page share pages, and CUDA pins
     * (and refuses to pin twice) by pages; a page shared with the slots
     * below `from` was registered with them */
    size_t page = ebb_host_page_size();
    size_t lo = ((size_t)from * pool->stride + page - 1) / page * page;
    size_t hi = ((size_t)to * pool->stride + page - 1) / page * page;
    *at = pool->base + lo;
    *bytes = hi > lo ? hi - lo : 0;
}

/* Slots [from, to) made ready as extent pool->extents + 1: faulted in,
 * registered (the pool is pinned), their events created (it tracks gpu
 * copies). 0, or -1 with `why` saying what failed (the extent given back). */
static int ready_extent(struct ebb_pool *pool, int32_t from, int32_t to, char *why,
                        size_t why_len)
{
    unsigned char *base = pool->base + (size_t)from * pool->stride;
    size_t bytes = (size_t)(to - from) * pool->stride;
    int e = pool->prefault ? ebb_host_prefault(pool, base, bytes, pool->extents + 1) : 0;
    if (e) {
        snprintf(why, why_len, "faulting its pages in failed: %s", strerror(e));
        give_back(pool, from, to);
        return -1;
    }
    unsigned char *pin_at;
    size_t pin_bytes;
    ebb_host_pin_span(pool, from, to, &pin_at, &pin_bytes);
    if (pool->pinned && pin_bytes > 0 &&
        ebb_cuda_host_register(pin_at, pin_bytes, pool->pin_device, why, why_len) != 0) {
        give_back(pool, from, to);
        return -1;
    }
    if (pool->gpu_events &&
        ebb_cuda_events_create(pool->gpu_events_device, pool->gpu_events + from, to - from, why,
                               why_len) != 0) {
        if (pool->pinned && pin_bytes > 0)
            ebb_cuda_host_unregister(pin_at, pool->pin_device);
        give_back(pool, from, to);
        return -1;
    }
    pool->ext_start[pool->extents++] = from;
    return 0;
}

ebb_status ebb_host_make_ready(struct ebb_pool *pool, int32_t slot)
{
    if (slot < atomic_load_explicit(&pool->ready, memory_order_acquire))
        return EBB_OK;
    pthread_mutex_lock(&pool->grow_mu);
    ebb_status s = EBB_OK;
    int32_t from = atomic_load_explicit(&pool->ready, memory_order_relaxed);
    if (slot >= from) {
        int32_t to = ebb_pool_next_extent_end(pool, from, slot);
        char why[320];
        if (pool->extents >= EBB_HOST_EXTENTS) /* cannot happen: doubling */
            snprintf(why, sizeof why, "the pool has made %d extents ready already",
                     (int)pool->extents);
        if (pool->extents >= EBB_HOST_EXTENTS || ready_extent(pool, from, to, why,
                                                              sizeof why) != 0)
            s = ebb_fail(EBB_ERR_NO_MEMORY,
                         "host pool: slot %d is beyond the %d slots made ready so far, and making "
                         "slots %d .. %d ready (%zu bytes, extent %d) failed: %s; lower the host "
                         "budget (tier.host.budget), give the run its steps (ebb_run_options.steps, "
                         "so that only the slots the schedule uses are allocated), or free memory",
                         (int)slot, (int)from, (int)from, (int)to - 1,
                         (size_t)(to - from) * pool->stride, (int)pool->extents + 1, why);
        else
            atomic_store_explicit(&pool->ready, to, memory_order_release);
    }
    pthread_mutex_unlock(&pool->grow_mu);
    return s;
}

void ebb_host_unregister_extents(struct ebb_pool *pool)
{
    if (pool->pinned) {
        int32_t ready = atomic_load(&pool->ready);
        for (int32_t k = 0; k < pool->extents; k++) {
            unsigned char *at;
            size_t bytes;
            ebb_host_pin_span(pool, pool->ext_start[k],
                              k + 1 < pool->extents ? pool->ext_start[k + 1] : ready, &at, &bytes);
            if (bytes > 0)
                ebb_cuda_host_unregister(at, pool->pin_device);
        }
    }
    pool->pinned = 0;
}

ebb_status ebb_host_debug_get(const ebb_pool *pool, ebb_host_debug *out)
{
    if (!pool || !out)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_host_debug_get: NULL argument");
    if (pool->tier == EBB_TIER_DISK)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_host_debug_get: a disk pool, not a host or gpu "
                        "pool");
    struct ebb_pool *p = (struct ebb_pool *)pool; /* the mutex; nothing else changes */
    pthread_mutex_lock(&p->grow_mu);
    out->ready_slots = atomic_load(&p->ready);
    out->ready_bytes = (uint64_t)out->ready_slots * p->stride;
    out->extents = p->extents;
    pthread_mutex_unlock(&p->grow_mu);
    return EBB_OK;
}
