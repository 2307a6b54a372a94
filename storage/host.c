/* Host tier: page-aligned anonymous memory on the right NUMA node, pinned for
 * CUDA when a GPU exists. One buffer serves GPU DMA, direct I/O (slots of
 * whole pages; a disk pool reads and writes smaller ones through the page
 * cache) and io_uring fixed buffers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/error_internal.h"
#include "storage/cuda.h"
#include "storage/storage_internal.h"
#include "storage/topology.h"

/* One CUDA event per slot on `device`, so that ebb_host_slot_check sees the
 * gpu copies in flight: the table for every slot, the events for the first
 * `first` (the others' with their extents). Failing leaves tracking off,
 * with a warning. */
static void gpu_tracking_create(struct ebb_pool *pool, int device, int32_t first)
{
    char why[256];
    void **events = calloc((size_t)pool->slots, sizeof *events);
    unsigned char *use = calloc((size_t)pool->slots, sizeof *use);
    if (!events || !use)
        snprintf(why, sizeof why, "cannot allocate the bookkeeping");
    else if (ebb_cuda_events_create(device, events, first, why, sizeof why) == 0) {
        pool->gpu_events = events;
        pool->gpu_use = use;
        pool->gpu_events_device = device;
        return;
    }
    free(events);
    free(use);
    ebb_pool_warn(pool,
                  "gpu copies to and from this pool's slots are not tracked (%s); wait for their "
                  "tickets before reusing the slots",
                  why);
}

/* Allocation: the slots' memory, mapped anonymous, each slot the state
 * rounded up by ebb_slot_stride (to a cache line below a page, else to whole
 * pages; a compressed pool's to EBB_HOST_PACKED_ALIGN). */
static ebb_status map_slots(struct ebb_pool *pool, const ebb_pool_options *o)
{
    size_t held = pool->held ? pool->held : o->slot_size;
    /* lazy in huge pages: each slot whole huge pages, the first aligned */
    size_t huge = o->lazy == EBB_LAZY_HUGE ? ebb_huge_page_size() : 0;
    pool->stride = ebb_slot_stride(EBB_TIER_HOST, held, pool->hc != NULL);
    if (huge)
        pool->stride = (held + huge - 1) / huge * huge;
    if (pool->stride > (SIZE_MAX - huge) / (size_t)o->slots)
        return ebb_fail(EBB_ERR_INVALID_ARG, "host pool: %d slots of %zu bytes overflow", (int)o->slots,
                        o->slot_size);
    size_t bytes = pool->stride * (size_t)o->slots;
    pool->bytes = bytes;
    pool->map_bytes = bytes;
    /* lazy: an address range only (not counted against overcommit), its
     * pages taken as written */
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | (o->lazy ? MAP_NORESERVE : 0);
    void *mem = mmap(NULL, bytes + huge, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (mem != MAP_FAILED && huge) { /* the range from the first huge page on */
        uintptr_t at = (uintptr_t)mem, first = (at + huge - 1) / huge * huge;
        if (first > at)
            (void)munmap(mem, first - at);
        if (at + huge > first)
            (void)munmap((void *)(first + bytes), at + huge - first);
        mem = (void *)first;
    }
    if (mem == MAP_FAILED)
        return ebb_fail_errno(EBB_ERR_NO_MEMORY, errno,
                              "host pool: cannot map %zu bytes (%d slots of %zu bytes); lower the "
                              "host budget",
                              bytes, (int)o->slots, o->slot_size);
    pool->base = mem;
    /* Transparent huge pages cut TLB misses and pinning cost; advice only.
     * A lazy pool in the system's pages takes and gives back each alone. */
    (void)madvise(mem, bytes, o->lazy == EBB_LAZY_PAGES ? MADV_NOHUGEPAGE : MADV_HUGEPAGE);
    return EBB_OK;
}

/* Placement: the memory bound to the NUMA node the options name or, when
 * they leave it to ebb (-1), the GPU's. Only a named node that does not
 * exist is an error; the rest are warnings. */
static ebb_status place(struct ebb_pool *pool, const ebb_pool_options *o)
{
    int node = o->numa_node;
    int node_auto = node < 0;
    if (node_auto && ebb_gpu_count() > 0)
        ebb_topology_gpu_node(o->device, &node);
    if (node < 0)
        return EBB_OK;
    int b = ebb_topo_bind_memory(pool->base, pool->map_bytes, node);
    if (b == 1) {
        pool->numa_node = node;
    } else if (b == -1 && !node_auto) {
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "host pool: NUMA node %d does not exist on this machine; use -1 (auto) "
                        "or a node that lstopo lists",
                        node);
    } else {
        ebb_pool_warn(pool, "memory not bound to NUMA node %d (%s); using the default policy",
                      node, b == -1 ? "no such node" : strerror(errno));
    }
    return EBB_OK;
}

/* Pinning for CUDA of the first `first` slots (the others' with their
 * extents), with the gpu copies' tracking; without a device, or if the
 * registration fails, the pool stays unpinned with a warning. */
static void pin(struct ebb_pool *pool, const ebb_pool_options *o, int32_t first)
{
    if (ebb_gpu_count() <= 0) {
        ebb_pool_warn(pool, "not pinned: no CUDA device");
        return;
    }
    char why[256];
    /* on the pool's device: no context on whichever is current (a device
     * that does not exist: the current one) */
    int dev = o->device < ebb_gpu_count() ? o->device : -1;
    unsigned char *at;
    size_t bytes;
    ebb_host_pin_span(pool, 0, first, &at, &bytes);
    if (ebb_cuda_host_register(at, bytes, dev, why, sizeof why) == 0) {
        pool->pinned = 1;
        pool->pin_device = dev;
        gpu_tracking_create(pool, o->device, first);
    } else
        ebb_pool_warn(pool, "not pinned: %s; GPU transfers from this pool are refused", why);
}

/* The slots made ready at creation: all, or the first ready_slots (the
 * tests' fault.ready_slots instead, when set). */
static int32_t first_extent(const struct ebb_pool *pool, const ebb_pool_options *o)
{
    if (o->ready_slots <= 0)
        return o->slots;
    int32_t k = pool->fault.ready_slots > 0 ? pool->fault.ready_slots : o->ready_slots;
    return k < o->slots ? k : o->slots;
}

ebb_status ebb_host_create(struct ebb_pool *pool, const ebb_pool_options *o)
{
    pool->gpu_events_device = -1;
    pthread_mutex_init(&pool->drain_mu, NULL);
    pthread_cond_init(&pool->drain_cv, NULL);
    pthread_mutex_init(&pool->grow_mu, NULL);
    pool->drain_init = 1;
    ebb_status s = map_slots(pool, o);
    if (s == EBB_OK)
        s = place(pool, o);
    if (s != EBB_OK) {
        ebb_host_destroy(pool);
        return s;
    }
    pool->readers = calloc((size_t)o->slots, sizeof *pool->readers);
    pool->writers = calloc((size_t)o->slots, sizeof *pool->writers);
    if (!pool->readers || !pool->writers) {
        ebb_host_destroy(pool);
        return ebb_fail(EBB_ERR_NO_MEMORY, "host pool: cannot allocate slot bookkeeping");
    }
    pool->lazy = o->lazy;
    int32_t first = o->lazy ? o->slots : first_extent(pool, o);
    size_t bytes = (size_t)first * pool->stride;
    pool->prefault = o->prefault && !o->lazy;
    int e = pool->prefault ? ebb_host_prefault(pool, pool->base, bytes, 1) : 0;
    if (e) {
        ebb_host_destroy(pool);
        return ebb_fail_errno(EBB_ERR_NO_MEMORY, e,
                              "host pool: cannot fault in %zu bytes (%d slots of %zu bytes)%s; "
                              "lower the host budget (tier.host.budget), free memory, or check "
                              "the memory limits of this process (NUMA binding, cgroup)",
                              bytes, (int)first, o->slot_size,
                              pool->numa_node >= 0 ? " on its NUMA node" : "");
    }
    if (o->pin && !pool->hc && !pool->lazy)
        pin(pool, o, first);
    pool->ext_start[0] = 0;
    pool->extents = 1;
    atomic_store_explicit(&pool->ready, first, memory_order_release);
    return EBB_OK;
}

unsigned char *ebb_host_slot_addr(const struct ebb_pool *host, int32_t slot)
{
    return host->base + (size_t)slot * host->stride;
}

size_t ebb_huge_page_size(void)
{
    /* the kernel's transparent huge page; 0 where it has none */
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "r");
    unsigned long long bytes = 0;
    if (f) {
        if (fscanf(f, "%llu", &bytes) != 1)
            bytes = 0;
        fclose(f);
    }
    return (size_t)bytes;
}

ebb_status ebb_host_discard(struct ebb_pool *host, int32_t slot, size_t from)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)ebb_host_slot_addr(host, slot);
    uintptr_t end = start + host->slot_size;
    start += from;
    start = (start + page - 1) / page * page; /* the pages the slot has alone */
    end = end / page * page;
    if (end <= start)
        return EBB_OK;
    if (madvise((void *)start, end - start, MADV_DONTNEED) != 0)
        return ebb_fail_errno(EBB_ERR_IO, errno,
                              "host pool: cannot give back slot %d's %zu bytes (madvise)",
                              (int)slot, (size_t)(end - start));
    return EBB_OK;
}

void ebb_host_disk_begin(struct ebb_pool *host, int32_t slot, int reads_slot)
{
    atomic_fetch_add(reads_slot ? &host->readers[slot] : &host->writers[slot], 1);
    pthread_mutex_lock(&host->drain_mu);
    host->disk_ops++;
    pthread_mutex_unlock(&host->drain_mu);
}

void ebb_host_disk_end(struct ebb_pool *host, int32_t slot, int reads_slot)
{
    atomic_fetch_sub(reads_slot ? &host->readers[slot] : &host->writers[slot], 1);
    pthread_mutex_lock(&host->drain_mu);
    if (--host->disk_ops == 0)
        pthread_cond_broadcast(&host->drain_cv);
    pthread_mutex_unlock(&host->drain_mu);
}

void ebb_host_gpu_mark(const struct ebb_pool *host, int32_t slot, ebb_copy_mark *mark)
{
    mark->event = NULL;
    mark->device = -1;
    mark->recorded = 0;
    if (host->gpu_events) {
        mark->event = host->gpu_events[slot];
        mark->device = host->gpu_events_device;
    }
}

void ebb_host_gpu_marked(struct ebb_pool *host, int32_t slot, const ebb_copy_mark *mark,
                         int to_device)
{
    if (mark->recorded)
        host->gpu_use[slot] = to_device ? EBB_HOST_GPU_READ : EBB_HOST_GPU_WRITE;
}

/* The host slot's tracking event goes with the copy (when the host pool
 * has events), and once ebb_device_copy recorded it the slot remembers
 * whether that copy reads it (host -> gpu) or writes it (gpu -> host). */
ebb_status ebb_host_gpu_copy(struct ebb_pool *gpu, int32_t gpu_slot, struct ebb_pool *host,
                             int32_t slot, int to_device, const ebb_copy_split *split,
                             ebb_ticket *ticket)
{
    ebb_copy_mark mark;
    ebb_host_gpu_mark(host, slot, &mark);
    ebb_status s = ebb_device_copy(gpu, gpu_slot, ebb_host_slot_addr(host, slot), to_device, 0,
                                   NULL, &mark, split, ticket);
    ebb_host_gpu_marked(host, slot, &mark, to_device);
    return s;
}

void ebb_host_destroy(struct ebb_pool *pool)
{
    if (pool->drain_init) {
        /* Disk operations still reading or filling a slot (their disk pool
         * not destroyed first, or still running) must finish before the
         * memory and the slot counters they touch go. */
        pthread_mutex_lock(&pool->drain_mu);
        while (pool->disk_ops > 0)
            pthread_cond_wait(&pool->drain_cv, &pool->drain_mu);
        pthread_mutex_unlock(&pool->drain_mu);
    }
    int32_t ready = atomic_load(&pool->ready); /* slots beyond have no events */
    if (pool->gpu_events) {
        /* A tracked gpu copy still in flight (its gpu pool not destroyed
         * first) must finish before the memory is unpinned and unmapped. */
        for (int32_t i = 0; i < ready; i++)
            if (pool->gpu_use[i] != EBB_HOST_GPU_NONE)
                ebb_cuda_event_wait(pool->gpu_events[i]);
        ebb_cuda_events_destroy(pool->gpu_events_device, pool->gpu_events, ready);
    }
    free(pool->gpu_events);
    free(pool->gpu_use);
    pool->gpu_events = NULL;
    pool->gpu_use = NULL;
    pool->gpu_events_device = -1;
    ebb_host_unregister_extents(pool);
    if (pool->base)
        munmap(pool->base, pool->map_bytes);
    pool->base = NULL;
    free((void *)pool->readers);
    free((void *)pool->writers);
    pool->readers = pool->writers = NULL;
    if (pool->drain_init) {
        pthread_mutex_destroy(&pool->drain_mu);
        pthread_cond_destroy(&pool->drain_cv);
        pthread_mutex_destroy(&pool->grow_mu);
        pool->drain_init = 0;
    }
}

ebb_status ebb_host_slot_check(const struct ebb_pool *pool, int32_t slot, int writing)
{
    int32_t w = atomic_load(&pool->writers[slot]);
    int32_t r = atomic_load(&pool->readers[slot]);
    if (w > 0)
        return ebb_fail(EBB_ERR_STATE,
                        "host slot %d is being filled by a disk read still in flight; wait for "
                        "its ticket before using the slot",
                        (int)slot);
    if (writing && r > 0)
        return ebb_fail(EBB_ERR_STATE,
                        "host slot %d is being written to disk (a move still in flight); wait for "
                        "its ticket before overwriting the slot",
                        (int)slot);
    /* The last tracked gpu copy: one that fills the slot forbids any use, one
     * that reads it forbids writing, while its event says it is in flight
     * (or cannot say: the device's context failed, the copy may still run). */
    if (pool->gpu_events) {
        unsigned char use = pool->gpu_use[slot];
        char why[160] = "";
        int busy = use == EBB_HOST_GPU_WRITE || (use == EBB_HOST_GPU_READ && writing)
                       ? ebb_cuda_event_state(pool->gpu_events[slot], why, sizeof why)
                       : 0;
        const char *copy = use == EBB_HOST_GPU_WRITE ? "gpu -> host" : "host -> gpu";
        if (busy > 0)
            return ebb_fail(EBB_ERR_STATE,
                            "host slot %d is in use by a %s copy still in flight; wait for its "
                            "ticket first",
                            (int)slot, copy);
        if (busy < 0)
            return ebb_fail(EBB_ERR_IO,
                            "host slot %d: the %s copy that last used it cannot be known to have "
                            "ended: %s; destroy the pools and reset the device",
                            (int)slot, copy, why);
    }
    return EBB_OK;
}
