/* Shared helpers for the gpu_mock tests (a header: only *.c files are tests).
 * These programs link the library against the fake CUDA runtime
 * (tests/cuda_mock), so "device" memory is host memory a test may read. */
#ifndef EBB_TESTS_GPU_MOCK_HELPERS_H
#define EBB_TESTS_GPU_MOCK_HELPERS_H

#include <criterion/criterion.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_mock.h"
#include "ebb/ebb.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

static inline void fill_random(void *buf, size_t n, uint64_t seed)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    unsigned char *p = buf;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p[i] = (unsigned char)(x >> 24);
    }
}

static inline ebb_pool *mock_gpu_pool(int device, int32_t slots, size_t size, size_t block)
{
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_GPU);
    o.slot_size = size;
    o.slots = slots;
    o.device = device;
    o.block = block;
    ebb_pool *g = NULL;
    cr_assert_eq(ebb_pool_create(&o, &g), EBB_OK, "gpu pool: %s", ebb_last_error());
    return g;
}

static inline ebb_pool *mock_host_pool(int device, int32_t slots, size_t size)
{
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_HOST);
    o.slot_size = size;
    o.slots = slots;
    o.device = device;
    ebb_pool *h = NULL;
    cr_assert_eq(ebb_pool_create(&o, &h), EBB_OK, "host pool: %s", ebb_last_error());
    ebb_pool_info info;
    ebb_pool_info_get(h, &info);
    cr_assert_eq(info.pinned, 1, "host pool not pinned: %s", info.warnings);
    return h;
}

static inline void *mock_slot(ebb_pool *p, int32_t slot)
{
    void *ptr = NULL;
    cr_assert_eq(ebb_pool_slot_ptr(p, slot, &ptr), EBB_OK, "%s", ebb_last_error());
    return ptr;
}

static inline void mock_wait_ok(const ebb_ticket *t, const char *what)
{
    cr_assert_eq(ebb_ticket_wait(t), EBB_OK, "%s: %s", what, ebb_last_error());
}

static inline void mock_refused(ebb_status s, const char *want, const char *what)
{
    cr_assert_eq(s, EBB_ERR_STATE, "%s: expected EBB_ERR_STATE, got %d (%s)", what, (int)s,
                 s == EBB_OK ? "accepted" : ebb_last_error());
    cr_assert(strstr(ebb_last_error(), want) != NULL, "%s: '%s' lacks '%s'", what,
              ebb_last_error(), want);
}

#endif
