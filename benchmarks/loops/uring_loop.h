/*
 * The plain io_uring O_DIRECT loop that the disk tier is judged against.
 *
 * It knows nothing of ebb: one private file in a directory, preallocated with
 * fallocate, written from start to end with `depth` requests of `block`
 * bytes in flight, then read back the same way. Buffers are one mmap with
 * transparent huge pages requested, registered with io_uring (fixed
 * buffers) unless asked not to. Used by benchmarks/uring_baseline (the
 * standalone program) and by `ebb bench --baseline`.
 */
#ifndef EBB_BENCHMARKS_URING_LOOP_H
#define EBB_BENCHMARKS_URING_LOOP_H

#include <stddef.h>
#include <stdint.h>

typedef struct bl_uring_options {
    const char *dir;      /* directory for the file */
    uint64_t bytes;       /* bytes written, then read (rounded up to 4 KiB) */
    size_t block;         /* bytes per request, a multiple of 4096 */
    int depth;            /* requests in flight, >= 1 */
    int register_buffers; /* 1: io_uring_register_buffers + READ/WRITE_FIXED */
    int direct;           /* 1: O_DIRECT */
    int hugepages;        /* 1: madvise(MADV_HUGEPAGE) on the buffers */
    /* Called now and then while a phase runs (phase 0 write, 1 read); may be NULL. */
    void (*progress)(void *user, int phase, uint64_t done, uint64_t total);
    void *user;
} bl_uring_options;

typedef struct bl_uring_result {
    uint64_t bytes;       /* bytes per phase */
    double write_s;       /* seconds for the write phase */
    double read_s;        /* seconds for the read phase */
    int registered;       /* fixed buffers were in use */
    int direct;           /* O_DIRECT was in use */
    uint64_t retries;     /* requests resubmitted (EAGAIN, short I/O) */
    char error[512];      /* why it failed, when bl_uring_run returns -1 */
} bl_uring_result;

/* Sets the defaults: 8 MiB blocks, depth 16, 4 GiB, registered, direct, THP. */
void bl_uring_options_init(bl_uring_options *o);

/* Runs the write phase then the read phase. 0 on success; -1 with
 * result->error set otherwise. Nothing is left on disk. */
int bl_uring_run(const bl_uring_options *o, bl_uring_result *result);

#endif
