/* Shared by the ebb_move_via tests (chain_*.c): a disk pool for chains, its
 * request count, a short sleep, and a disk slot compared with a gpu slot. */
#ifndef EBB_TESTS_GPU_MOCK_CHAIN_HELPERS_H
#define EBB_TESTS_GPU_MOCK_CHAIN_HELPERS_H

#include <time.h>

#include "gpu_mock/mock_helpers.h"
#include "storage/fault.h"

static const ebb_disk_backend CHAIN_BACKENDS[2] = {EBB_DISK_BACKEND_URING,
                                                   EBB_DISK_BACKEND_THREADS};

/* fault: NULL, or faults to inject */
static inline ebb_pool *chain_disk(const char *dir, size_t size, int32_t slots, size_t block,
                                   ebb_disk_backend backend, int checksum,
                                   const ebb_storage_fault *fault)
{
    const char *dirs[1] = {dir};
    ebb_pool_options o;
    disk_options(&o, dirs, 1, size, slots, backend);
    o.block = block;
    o.checksum = checksum;
    o.direct = 0; /* tmpfs: no O_DIRECT */
    o.threads = fault ? 1 : 0; /* faults: one worker, requests numbered in block order */
    return create_or_skip(&o, fault);
}

/* The three pools of a chain, the disk's in a fresh directory. */
typedef struct chain_pools {
    char dir[64];
    ebb_pool *h, *g, *d;
} chain_pools;

static inline void chain_open(chain_pools *p, size_t size, int32_t host_slots, int32_t gpu_slots,
                              size_t gpu_chunk, int32_t disk_slots, size_t block,
                              ebb_disk_backend backend, int checksum,
                              const ebb_storage_fault *fault)
{
    make_tmpdir(p->dir, sizeof p->dir);
    p->h = pinned_host_pool(0, host_slots, size);
    p->g = gpu_pool(0, gpu_slots, size, gpu_chunk);
    p->d = chain_disk(p->dir, size, disk_slots, block, backend, checksum, fault);
}

/* Destroys what is left (NULL for a pool the test destroyed itself). */
static inline void chain_close(chain_pools *p)
{
    ebb_pool_destroy(p->d);
    ebb_pool_destroy(p->g);
    ebb_pool_destroy(p->h);
    rm_tmpdir(p->dir);
}

/* After a sticky error: the gpu pool destroyed before the disk pool or
 * after it (each must return), then the device reset. */
static inline void chain_close_dead(chain_pools *p, int gpu_first)
{
    ebb_pool *first = gpu_first ? p->g : p->d, *second = gpu_first ? p->d : p->g;
    p->g = p->d = NULL;
    ebb_pool_destroy(first);
    ebb_pool_destroy(second);
    ebb_pool_destroy(p->h);
    p->h = NULL;
    cr_assert_eq(cudaDeviceReset(), cudaSuccess);
    chain_close(p);
}

static inline uint64_t chain_disk_requests(ebb_pool *d)
{
    ebb_pool_stats st;
    cr_assert_eq(ebb_pool_stats_get(d, &st), EBB_OK);
    return st.requests;
}

static inline void chain_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Disk slot ds read back into host slot hs (plain moves), compared with gpu
 * slot gs. */
static inline void chain_check_disk(ebb_pool *d, int32_t ds, ebb_pool *h, int32_t hs,
                                    ebb_pool *g, int32_t gs, size_t size, const char *what)
{
    ebb_ticket t;
    memset(slot_ptr(h, hs), 0xEE, size);
    cr_assert_eq(ebb_move(h, hs, d, ds, &t), EBB_OK, "%s: read back: %s", what, ebb_last_error());
    mock_wait_ok(&t, what);
    cr_assert(memcmp(slot_ptr(h, hs), slot_ptr(g, gs), size) == 0,
              "%s: disk slot %d differs from gpu slot %d", what, ds, gs);
}

#endif
