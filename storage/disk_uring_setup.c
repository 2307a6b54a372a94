/* io_uring engine set-up, on each ring's thread (IORING_SETUP_SINGLE_ISSUER
 * wants registrations from the submitting task): the ring, the fixed files,
 * and the staging pool's memory as fixed buffers, as much of it as
 * RLIMIT_MEMLOCK lets through. */
#include <errno.h>
#include <inttypes.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/eventfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include "storage/disk_uring.h"
#include "storage/topology.h"

static int setup_ring(struct ebb_pool *pool, struct io_uring *ring, char *why, size_t why_len)
{
    ebb_disk *d = pool->disk;
    if (pool->fault.uring_errno) {
        snprintf(why, why_len, "io_uring_setup: %s (injected)", strerror(pool->fault.uring_errno));
        return -pool->fault.uring_errno;
    }
    unsigned entries = 1;
    while (entries < (unsigned)d->engine.depth + 2)
        entries <<= 1;
    /* Newest flags first; older kernels refuse them with EINVAL. */
    static const unsigned flag_sets[] = {
        IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
        IORING_SETUP_COOP_TASKRUN,
        0,
    };
    int r = -EINVAL;
    for (size_t i = 0; i < sizeof flag_sets / sizeof flag_sets[0]; i++) {
        struct io_uring_params p;
        memset(&p, 0, sizeof p);
        p.flags = flag_sets[i];
        r = io_uring_queue_init_params(entries, ring, &p);
        if (r != -EINVAL)
            break;
    }
    if (r < 0)
        snprintf(why, why_len, "io_uring_setup: %s%s", strerror(-r),
                 r == -EPERM ? " (seccomp or kernel.io_uring_disabled)" : "");
    return r;
}

static void human(uint64_t bytes, char *buf, size_t len)
{
    if (bytes >= ((uint64_t)1 << 30) && bytes % ((uint64_t)1 << 20) == 0)
        snprintf(buf, len, "%.2f GiB", (double)bytes / (double)((uint64_t)1 << 30));
    else if (bytes >= ((uint64_t)1 << 20))
        snprintf(buf, len, "%.2f MiB", (double)bytes / (double)((uint64_t)1 << 20));
    else
        snprintf(buf, len, "%" PRIu64 " KiB", bytes >> 10);
}

static void limit_text(rlim_t v, char *buf, size_t len)
{
    if (v == RLIM_INFINITY)
        snprintf(buf, len, "unlimited");
    else
        human((uint64_t)v, buf, len);
}

/* The staging pool's slots to register: all of them, or those of a pool
 * made ready in extents (ebb_pool_options.ready_slots) that are ready now,
 * since registering pins (faults in) the memory; the slots made ready
 * later use unregistered I/O. */
static int32_t staged_slots(const struct ebb_pool *h)
{
    return atomic_load(&h->ready);
}

/* Registers the first `slots` slots of the staging pool, in <= 1 GiB
 * pieces. 0 or -errno. */
static int register_slots(struct ebb_pool *pool, struct io_uring *ring, int32_t slots)
{
    struct ebb_pool *h = pool->disk->staging;
    size_t bytes = (size_t)slots * h->stride;
    size_t n = (bytes + EBB_DISK_REG_CHUNK - 1) / EBB_DISK_REG_CHUNK;
    if (n > 16384)
        return -ENOMEM;
    if (pool->fault.register_errno)
        return -pool->fault.register_errno;
    struct iovec *iov = calloc(n, sizeof *iov);
    if (!iov)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        iov[i].iov_base = h->base + i * EBB_DISK_REG_CHUNK;
        size_t left = bytes - i * EBB_DISK_REG_CHUNK;
        iov[i].iov_len = left < EBB_DISK_REG_CHUNK ? left : EBB_DISK_REG_CHUNK;
    }
    int r = io_uring_register_buffers(ring, iov, (unsigned)n);
    free(iov);
    return r;
}

/* The most slots that fit under the limit `rl` (registration refused all
 * with ENOMEM): at most what the limit holds (the kernel also counts the
 * ring's pages, and a huge page whole), then a bisection of at most 8 tries.
 * Leaves them registered; returns how many, 0 if none fit. */
static int32_t most_slots(struct ebb_pool *pool, struct io_uring *ring, const struct rlimit *rl,
                          int have_rl)
{
    struct ebb_pool *h = pool->disk->staging;
    int32_t lo = 0, hi = staged_slots(h), k = hi - 1; /* lo fits, hi does not */
    if (have_rl && rl->rlim_cur != RLIM_INFINITY && (uint64_t)rl->rlim_cur / h->stride < (uint64_t)k)
        k = (int32_t)((uint64_t)rl->rlim_cur / h->stride);
    int held = 0; /* lo slots are registered now */
    for (int tries = 0; tries < 8 && k > lo && k < hi; tries++) {
        if (held)
            io_uring_unregister_buffers(ring);
        held = register_slots(pool, ring, k) == 0;
        if (held)
            lo = k;
        else
            hi = k;
        k = lo + (hi - lo) / 2;
    }
    if (lo > 0 && !held)
        held = register_slots(pool, ring, lo) == 0;
    return held ? lo : 0;
}

/* Raises the RLIMIT_MEMLOCK soft limit in *rl to the hard one, if it is
 * lower, and registers all the slots again. 1 if raised (*rr says whether
 * the registration then worked), else 0. */
static int raise_memlock(struct ebb_pool *pool, struct io_uring *ring, struct rlimit *rl,
                         int *rr)
{
    if (rl->rlim_cur == RLIM_INFINITY ||
        (rl->rlim_max != RLIM_INFINITY && rl->rlim_cur >= rl->rlim_max))
        return 0;
    struct rlimit up = {rl->rlim_max, rl->rlim_max};
    if (setrlimit(RLIMIT_MEMLOCK, &up) != 0)
        return 0;
    *rl = up;
    *rr = register_slots(pool, ring, staged_slots(pool->disk->staging));
    return 1;
}

/* Warns about what register_buffers did: the limit raised (from `old` to
 * `lim`), no fixed buffers (`rr` the error), or fixed buffers for only `got`
 * slots. */
static void report_buffers(struct ebb_pool *pool, int32_t got, int rr, int raised, int have_rl,
                           const char *lim, const char *old)
{
    struct ebb_pool *h = pool->disk->staging;
    char reg[64], all[64];
    if (raised)
        ebb_pool_warn(pool,
                      "raised this process's RLIMIT_MEMLOCK soft limit from %s to its hard limit "
                      "%s for io_uring fixed buffers",
                      old, lim);
    if (got == 0) {
        ebb_pool_warn(pool,
                      "io_uring buffer registration failed (%s; RLIMIT_MEMLOCK is %s, raise "
                      "it with ulimit -l or LimitMEMLOCK= for fixed buffers); using unregistered "
                      "I/O",
                      strerror(-rr), have_rl ? lim : "unknown");
        return;
    }
    if (got == staged_slots(h))
        return;
    uint64_t reg_bytes = (uint64_t)got * h->stride;
    human(reg_bytes, reg, sizeof reg);
    human((uint64_t)h->slots * h->stride, all, sizeof all);
    ebb_pool_warn(pool,
                  "io_uring fixed buffers cover %d of the staging pool's %d slots (%" PRIu64
                  " of %" PRIu64 " bytes, %s of %s): RLIMIT_MEMLOCK is %s; moves from the "
                  "other slots use unregistered I/O (raise the limit with ulimit -l or "
                  "LimitMEMLOCK= to register them all)",
                  (int)got, (int)h->slots, reg_bytes, (uint64_t)h->slots * h->stride, reg, all,
                  lim);
}

/* Fixed buffers: all of the staging pool; where RLIMIT_MEMLOCK refuses
 * that (ENOMEM), the soft limit raised to the hard one and, if that is
 * still too little, the most slots that fit (found by halving). */
static void register_buffers(ebb_uring *u)
{
    struct ebb_pool *pool = u->pool;
    struct io_uring *ring = &u->ring;
    struct ebb_pool *h = pool->disk->staging;
    int32_t got = 0;
    int rr = register_slots(pool, ring, staged_slots(h));
    struct rlimit rl = {0, 0};
    int have_rl = getrlimit(RLIMIT_MEMLOCK, &rl) == 0, raised = 0;
    struct rlimit was = rl;
    if (rr == -ENOMEM && have_rl)
        raised = raise_memlock(pool, ring, &rl, &rr);
    if (rr == 0)
        got = staged_slots(h);
    else if (rr == -ENOMEM && (got = most_slots(pool, ring, &rl, have_rl)) == 0)
        rr = -ENOMEM;
    char lim[64], old[64];
    limit_text(rl.rlim_cur, lim, sizeof lim);
    limit_text(was.rlim_cur, old, sizeof old);
    report_buffers(pool, got, rr, raised, have_rl, lim, old);
    if (got == 0)
        return;
    u->reg_slots = got;
    u->reg_bytes = (uint64_t)got * h->stride;
    u->reg_base = h->base;
}

int ur_setup(ebb_uring *u, char *why, size_t why_len)
{
    struct ebb_pool *pool = u->pool;
    ebb_disk *d = pool->disk;
    int r = setup_ring(pool, &u->ring, why, why_len);
    if (r < 0)
        return r;
    u->ring_ok = 1;
    /* Fixed files: fewer file-table look-ups per request. Optional. */
    int rf = pool->fault.register_files_errno
                 ? -pool->fault.register_files_errno
                 : io_uring_register_files(&u->ring, d->files.fds, (unsigned)d->layout.nfiles);
    if (rf == 0)
        u->fixed_files = 1;
    else
        ebb_pool_warn(pool,
                      "io_uring file registration failed (%s); requests name the files by "
                      "descriptor (a little more work per request)",
                      strerror(-rf));
    if (d->staging)
        register_buffers(u);
    u->efd = eventfd(0, EFD_CLOEXEC);
    if (u->efd < 0) {
        int e = errno;
        snprintf(why, why_len, "eventfd: %s", strerror(e));
        return -e;
    }
    return 0;
}
