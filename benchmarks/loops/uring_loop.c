/* The plain io_uring O_DIRECT loop; see uring_loop.h. */
#include "uring_loop.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

enum { BL_ALIGN = 4096 };

typedef struct bl_req {
    uint64_t offset; /* file offset of the request's first byte not yet done */
    size_t len;      /* bytes of the whole request */
    size_t left;     /* bytes not yet done */
    size_t done;     /* bytes done (offset into the buffer) */
} bl_req;

static double bl_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int bl_fail(bl_uring_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, ap);
    va_end(ap);
    return -1;
}

void bl_uring_options_init(bl_uring_options *o)
{
    memset(o, 0, sizeof *o);
    o->dir = "/tmp";
    o->bytes = UINT64_C(4) << 30;
    o->block = (size_t)8 << 20;
    o->depth = 16;
    o->register_buffers = 1;
    o->direct = 1;
    o->hugepages = 1;
}

/* A private file in dir: O_TMPFILE, else a named file unlinked at once. */
static int bl_open(const char *dir, int direct, bl_uring_result *r)
{
    int flags = O_RDWR | O_CLOEXEC | (direct ? O_DIRECT : 0);
    int fd = open(dir, O_TMPFILE | flags, 0600);
    if (fd >= 0)
        return fd;
    char path[4096];
    if (snprintf(path, sizeof path, "%s/ebb-baseline-XXXXXX", dir) >= (int)sizeof path)
        return bl_fail(r, "directory name too long: '%s'", dir);
    int tmp = mkstemp(path);
    if (tmp < 0)
        return bl_fail(r, "cannot create a file in '%s': %s", dir, strerror(errno));
    fd = open(path, flags);
    int e = errno;
    unlink(path);
    close(tmp);
    if (fd < 0)
        return bl_fail(r, "cannot open '%s'%s: %s", path, direct ? " with O_DIRECT" : "",
                       strerror(e));
    return fd;
}

static void bl_prep(struct io_uring_sqe *sqe, int write, int fd, unsigned char *buf,
                    const bl_req *q, int fixed, int index)
{
    unsigned len = (unsigned)q->left;
    if (fixed) {
        if (write)
            io_uring_prep_write_fixed(sqe, fd, buf + q->done, len, q->offset, index);
        else
            io_uring_prep_read_fixed(sqe, fd, buf + q->done, len, q->offset, index);
    } else {
        if (write)
            io_uring_prep_write(sqe, fd, buf + q->done, len, q->offset);
        else
            io_uring_prep_read(sqe, fd, buf + q->done, len, q->offset);
    }
    io_uring_sqe_set_data64(sqe, (uint64_t)index);
}

/* One pass over the file: depth requests in flight until `bytes` are done. */
static int bl_phase(const bl_uring_options *o, bl_uring_result *r, struct io_uring *ring, int fd,
                    unsigned char *mem, bl_req *reqs, int fixed, int write, uint64_t bytes,
                    double *seconds)
{
    uint64_t next = 0, done = 0;
    int inflight = 0;
    int *free_list = (int *)(reqs + o->depth); /* depth ints after the requests */
    int nfree = 0;
    for (int i = o->depth - 1; i >= 0; i--)
        free_list[nfree++] = i;
    double t0 = bl_now(), last = t0;
    while (done < bytes) {
        while (nfree > 0 && next < bytes) {
            int i = free_list[--nfree];
            bl_req *q = &reqs[i];
            q->offset = next;
            q->left = bytes - next < o->block ? (size_t)(bytes - next) : o->block;
            q->len = q->left;
            q->done = 0;
            next += q->left;
            struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
            if (!sqe)
                return bl_fail(r, "io_uring submission queue full");
            bl_prep(sqe, write, fd, mem + (size_t)i * o->block, q, fixed, i);
            inflight++;
        }
        int ret = io_uring_submit_and_wait(ring, 1);
        if (ret < 0 && ret != -EINTR && ret != -EAGAIN)
            return bl_fail(r, "io_uring_submit_and_wait: %s", strerror(-ret));
        struct io_uring_cqe *cqe;
        unsigned head, seen = 0;
        int failed = 0;
        io_uring_for_each_cqe(ring, head, cqe)
        {
            seen++;
            int i = (int)io_uring_cqe_get_data64(cqe);
            bl_req *q = &reqs[i];
            int res = cqe->res;
            if (res == -EAGAIN || res == -EINTR || (res > 0 && (size_t)res < q->left)) {
                if (res > 0) {
                    q->offset += (uint64_t)res;
                    q->done += (size_t)res;
                    q->left -= (size_t)res;
                }
                r->retries++;
                struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
                if (!sqe) {
                    failed = bl_fail(r, "io_uring submission queue full");
                    continue;
                }
                bl_prep(sqe, write, fd, mem + (size_t)i * o->block, q, fixed, i);
                continue;
            }
            if (res <= 0) {
                failed = bl_fail(r, "%s at offset %llu: %s", write ? "write" : "read",
                                 (unsigned long long)q->offset,
                                 res == 0 ? "unexpected end of file" : strerror(-res));
                continue;
            }
            done += q->len; /* the whole request, not only its last piece */
            inflight--;
            free_list[nfree++] = i;
        }
        io_uring_cq_advance(ring, seen);
        if (failed)
            return -1;
        double t = bl_now();
        if (o->progress && t - last > 0.2) {
            o->progress(o->user, write ? 0 : 1, done, bytes);
            last = t;
        }
    }
    (void)inflight;
    *seconds = bl_now() - t0;
    if (o->progress)
        o->progress(o->user, write ? 0 : 1, bytes, bytes);
    return 0;
}

int bl_uring_run(const bl_uring_options *o, bl_uring_result *r)
{
    memset(r, 0, sizeof *r);
    if (!o->dir || o->depth < 1 || o->block == 0 || o->block % BL_ALIGN ||
        o->block > ((size_t)1 << 30) || o->bytes == 0)
        return bl_fail(r, "bad options: a directory, depth >= 1, a block that is a multiple of "
                          "4096 up to 1 GiB, and bytes > 0 are needed");
    uint64_t bytes = (o->bytes + BL_ALIGN - 1) / BL_ALIGN * BL_ALIGN;
    r->bytes = bytes;
    r->direct = o->direct;
    int rc = -1;
    struct io_uring ring;
    int ring_ok = 0;
    size_t memlen = (size_t)o->depth * o->block;
    unsigned char *mem = MAP_FAILED;
    struct iovec *iov = NULL;
    bl_req *reqs = NULL;
    int fd = bl_open(o->dir, o->direct, r);
    if (fd < 0)
        return -1;
    if (fallocate(fd, 0, 0, (off_t)bytes) != 0) {
        if (errno == ENOSPC || errno == EDQUOT) {
            bl_fail(r, "no space for %llu bytes in '%s'", (unsigned long long)bytes, o->dir);
            goto out;
        }
        if (ftruncate(fd, (off_t)bytes) != 0) {
            bl_fail(r, "cannot size the file in '%s': %s", o->dir, strerror(errno));
            goto out;
        }
    }
    mem = mmap(NULL, memlen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        bl_fail(r, "cannot map %zu bytes of buffers: %s", memlen, strerror(errno));
        goto out;
    }
    if (o->hugepages)
        (void)madvise(mem, memlen, MADV_HUGEPAGE);
    for (size_t i = 0; i < memlen; i += 4096) /* touch every page, non-zero data */
        memset(mem + i, (int)(0x5a ^ (i >> 12)), 4096);
    reqs = calloc((size_t)o->depth, sizeof *reqs + sizeof(int));
    iov = calloc((size_t)o->depth, sizeof *iov);
    if (!reqs || !iov) {
        bl_fail(r, "out of memory");
        goto out;
    }
    int ret = io_uring_queue_init((unsigned)o->depth, &ring, 0);
    if (ret < 0) {
        bl_fail(r, "io_uring_queue_init: %s", strerror(-ret));
        goto out;
    }
    ring_ok = 1;
    if (o->register_buffers) {
        for (int i = 0; i < o->depth; i++) {
            iov[i].iov_base = mem + (size_t)i * o->block;
            iov[i].iov_len = o->block;
        }
        r->registered = io_uring_register_buffers(&ring, iov, (unsigned)o->depth) == 0;
    }
    if (bl_phase(o, r, &ring, fd, mem, reqs, r->registered, 1, bytes, &r->write_s) != 0)
        goto out;
    if (bl_phase(o, r, &ring, fd, mem, reqs, r->registered, 0, bytes, &r->read_s) != 0)
        goto out;
    rc = 0;
out:
    if (ring_ok)
        io_uring_queue_exit(&ring);
    if (mem != MAP_FAILED)
        munmap(mem, memlen);
    free(iov);
    free(reqs);
    close(fd);
    return rc;
}
