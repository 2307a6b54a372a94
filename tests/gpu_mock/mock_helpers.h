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
#include "storage/helpers.h" /* fill_random, slot_ptr, pool helpers, KiB/MiB */
#include "ebb/ebb.h"

static inline void mock_wait_ok(const ebb_ticket *t, const char *what)
{
    cr_assert_eq(ebb_ticket_wait(t), EBB_OK, "%s: %s", what, ebb_last_error());
}

/* Whether a ticket's operation completed (tested without waiting). */
static inline int mock_done(const ebb_ticket *t, const char *what)
{
    int done = 0;
    cr_assert_eq(ebb_ticket_test(t, &done), EBB_OK, "%s: %s", what, ebb_last_error());
    return done;
}

static inline int mock_all_bytes(const void *p, size_t n, int v)
{
    for (size_t i = 0; i < n; i++)
        if (((const unsigned char *)p)[i] != (unsigned char)v)
            return 0;
    return 1;
}

static inline void mock_refused(ebb_status s, const char *want, const char *what)
{
    cr_assert_eq(s, EBB_ERR_STATE, "%s: expected EBB_ERR_STATE, got %d (%s)", what, (int)s,
                 s == EBB_OK ? "accepted" : ebb_last_error());
    cr_assert(strstr(ebb_last_error(), want) != NULL, "%s: '%s' lacks '%s'", what,
              ebb_last_error(), want);
}

#endif
