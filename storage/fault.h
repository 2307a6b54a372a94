/*
 * Fault injection for the storage tests: per pool, set at creation through
 * ebb_pool_create_with_faults(), never global. A zeroed struct injects
 * nothing. Counting is per pool: the n-th I/O request the pool issues
 * (1-based, continuations and retries included) is the one that fails.
 */
#ifndef EBB_STORAGE_FAULT_H
#define EBB_STORAGE_FAULT_H

#include <stdint.h>

#include "ebb/storage.h"

typedef struct ebb_storage_fault {
    uint64_t io_nth;        /* the io_nth-th request completes with -io_errno (0 = off) */
    int io_errno;           /* e.g. EIO; EAGAIN exercises the retry path */
    uint64_t io_count;      /* requests io_nth .. io_nth + io_count - 1 fail so (0 or 1: one;
                               resubmissions count as requests) */
    int io_reads_only;      /* 1: io_nth and short_nth count reads alone */
    uint64_t short_nth;     /* the short_nth-th request completes short (half, aligned) */
    int fallocate_errno;    /* fallocate fails with this errno (e.g. ENOSPC) */
    uint32_t fallocate_nth; /* with fallocate_errno: 0: every fallocate fails so; k > 0: the
                               pool's k-th and later (1: at creation; 2: the first extent
                               reserved after it, ebb_pool_options.ready_slots) */
    int odirect_open;       /* 1: open(O_DIRECT) fails with EINVAL, as some file systems do */
    int odirect_write;      /* 1: the first O_DIRECT write fails with EINVAL (probe at creation) */
    int uring_errno;        /* io_uring setup fails with this errno (ENOSYS, EPERM) */
    int register_errno;     /* io_uring buffer registration fails with this errno (ENOMEM) */
    int register_files_errno; /* io_uring file registration fails with this errno */
    /* io_uring engine: its enter_nth-th io_uring_enter (submit-and-wait) call,
     * 1-based, and the enter_count - 1 after it (enter_count 0: every later
     * one) fail with -enter_errno without reaching the kernel (0 = off) */
    uint64_t enter_nth;
    int enter_errno;
    uint64_t enter_count;
    int prefault_errno;     /* host: MADV_POPULATE_WRITE fails with this errno (ENOMEM, EINVAL) */
    uint32_t prefault_nth;  /* host: 0: every prefault fails so; k > 0: only the k-th
                               extent's (1: the one made ready at creation, 2: the first
                               made ready after it; ebb_pool_options.ready_slots) */
    int32_t ready_slots;    /* host created with ready_slots > 0: its first extent, in
                               slots, instead (0: as asked); tests' many growths */
    int no_tmpfile;         /* 1: behave as if O_TMPFILE were unsupported (EOPNOTSUPP) */
    uint32_t delay_us_max;  /* each operation's completion is held back 0 .. this many
                               microseconds (pseudo-random from delay_seed), so a missing
                               wait in a caller shows up as wrong data */
    uint64_t delay_seed;
    /* disk with compression: its codec_fail_nth-th compression (1-based)
     * and the codec_fail_count - 1 after it fail as a library failure would
     * (EBB_ERR_IO), without calling the codec (0 = off) */
    uint64_t codec_fail_nth;
    uint64_t codec_fail_count;
    /* disk with compression: every compression takes this many microseconds
     * longer (a slow codec; counted in the codec's time and rate) */
    uint32_t codec_delay_us;
    /* disk with lossless compression: every state that shrinks is taken to
     * pay (the rule's verdict fixed, whatever the machine's speed: tests of
     * what compressed states do) */
    int codec_always_pays;
    /* io_uring engine: a kick that woke a ring pauses this many microseconds
     * before it is done with the engine (a codec thread that loses the CPU
     * after queueing its write, while the ring completes it) */
    uint32_t kick_pause_us;
} ebb_storage_fault;

/* ebb_pool_create with faults to inject (NULL = none). */
ebb_status ebb_pool_create_with_faults(const ebb_pool_options *options,
                                       const ebb_storage_fault *fault, ebb_pool **out);

/* Tests: what the disk engine did since the pool was created. */
typedef struct ebb_disk_debug {
    uint32_t max_in_flight;   /* most block requests in flight at once (issued to the
                                 kernel and not yet completed) */
    uint64_t fixed_requests;  /* requests issued on registered (fixed) buffers */
    uint64_t plain_requests;  /* requests issued on unregistered buffers */
    uint64_t enter_calls;     /* io_uring engine: submit-and-wait calls made */
    uint64_t paced_waits;     /* block requests the bandwidth limit held back */
    uint32_t rings;           /* io_uring engine: rings (one per device group); 0: threads */
} ebb_disk_debug;

ebb_status ebb_disk_debug_get(const ebb_pool *pool, ebb_disk_debug *out);

/* Tests: hold = 1 makes the disk engine hold back every operation's
 * completion (its I/O is done, its ticket stays pending) until hold = 0;
 * destroying the pool releases it. */
ebb_status ebb_disk_debug_hold(ebb_pool *pool, int hold);

/* Tests: how much of a host or gpu pool is ready (ebb_pool_options.ready_slots):
 * its first `ready_slots` slots, `ready_bytes` of memory, made ready in
 * `extents` extents (1 for a pool made ready whole at creation). */
typedef struct ebb_host_debug {
    int32_t ready_slots;
    uint64_t ready_bytes;
    int32_t extents;
} ebb_host_debug;

ebb_status ebb_host_debug_get(const ebb_pool *pool, ebb_host_debug *out);

/* Tests: the descriptor, offset and name of the file that holds `block` of
 * disk `slot` (the file is unlinked, so this is the only way to reach it). */
ebb_status ebb_disk_debug_locate(ebb_pool *pool, int32_t slot, uint32_t block, int *fd,
                                 int64_t *offset, const char **name);

#endif
