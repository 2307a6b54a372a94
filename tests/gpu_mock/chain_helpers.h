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

/* A random case of the round trips: the disk block, the state's size and
 * the slots at once from the next number of the generator *x (an LCG; the
 * caller may draw more from *x); case c's engine and checksums alternate. */
typedef struct chain_case {
    size_t block, size;
    int32_t slots;
    ebb_disk_backend backend;
    int checksum;
} chain_case;

static inline chain_case chain_random_case(uint64_t *x, int c)
{
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    chain_case k;
    k.block = (size_t)(1 + (*x >> 33) % 8) * 4 * KiB;
    k.size = 1 + (size_t)((*x >> 13) % (200 * KiB));
    k.slots = 1 + (int32_t)((*x >> 7) % 3);
    k.backend = CHAIN_BACKENDS[c % 2];
    k.checksum = (c / 2) % 2;
    return k;
}

/* gpu -> disk -> gpu through chains only: gpu slots 0 .. slots - 1 (filled
 * by the caller) stored at once, then restored at once into gpu slots
 * slots .. 2 slots - 1, each compared bitwise; data[i] names slot i's
 * contents in a failure (NULL: random bytes). */
static inline void chain_round_trip(const chain_pools *p, int c, const chain_case *k,
                                    const char *const *data)
{
    ebb_pool *h = p->h, *g = p->g, *d = p->d;
    ebb_ticket t[3][2];
    for (int32_t i = 0; i < k->slots; i++) {
        memset(slot_ptr(g, k->slots + i), 0, k->size);
        cr_assert_eq(ebb_move_via(d, i, h, i, g, i, t[i]), EBB_OK, "%s", ebb_last_error());
    }
    for (int32_t i = 0; i < k->slots; i++)
        mock_wait_ok(&t[i][1], "store");
    for (int32_t i = 0; i < k->slots; i++)
        cr_assert_eq(ebb_move_via(g, k->slots + i, h, i, d, i, t[i]), EBB_OK,
                     "case %d (size %zu, block %zu): %s", c, k->size, k->block, ebb_last_error());
    for (int32_t i = 0; i < k->slots; i++) {
        mock_wait_ok(&t[i][0], "disk leg");
        mock_wait_ok(&t[i][1], "gpu leg");
        cr_assert(memcmp(slot_ptr(g, i), slot_ptr(g, k->slots + i), k->size) == 0,
                  "case %d (%s%s, size %zu, block %zu, %s): slot %d differs after gpu -> disk "
                  "-> gpu",
                  c, ebb_disk_backend_name(k->backend), k->checksum ? " + checksums" : "",
                  k->size, k->block, data ? data[i] : "random bytes", i);
    }
}

#endif
