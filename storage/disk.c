/* Disk tier: private preallocated O_DIRECT files, one per directory (drive),
 * blocks striped across them, I/O by io_uring or a thread pool. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "common/error_internal.h"
#include "storage/disk.h"
#include "storage/topology.h"

#define GIB(x) ((double)(x) / (double)(1ull << 30))

static size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

void ebb_disk_locate(const ebb_disk *d, size_t slot_size, int32_t slot, uint32_t block,
                     ebb_disk_loc *loc)
{
    size_t start = (size_t)block * d->block;
    loc->buf_offset = start;
    loc->data_len = slot_size - start < d->block ? slot_size - start : d->block;
    loc->io_len = round_up(loc->data_len, d->align);
    if (d->nfiles == 1) {
        loc->file = 0;
        loc->offset = (uint64_t)slot * d->dstride + start;
    } else {
        uint64_t g = (uint64_t)slot * d->bps + block;
        loc->file = (int)(g % (uint64_t)d->nfiles);
        loc->offset = (g / (uint64_t)d->nfiles) * d->block;
    }
}

int32_t ebb_disk_queue_front(ebb_disk *d)
{
    return d->qcount ? d->queue[d->qhead] : -1;
}

void ebb_disk_queue_pop(ebb_disk *d)
{
    d->qhead = (d->qhead + 1) % d->qcap;
    d->qcount--;
}

/* ---- creation ---------------------------------------------------------------- */

static ebb_status check_dir(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        int e = errno;
        if (e == ENOENT)
            return ebb_fail(EBB_ERR_IO,
                            "disk directory '%s' does not exist; create it or set another "
                            "tier.disk.path",
                            dir);
        return ebb_fail_errno(EBB_ERR_IO, e, "cannot stat disk directory '%s'", dir);
    }
    if (!S_ISDIR(st.st_mode))
        return ebb_fail(EBB_ERR_IO, "disk path '%s' is not a directory; give a directory for "
                                    "the disk tier's file",
                        dir);
    if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) != 0)
        return ebb_fail_errno(EBB_ERR_IO, errno,
                              "disk directory '%s' is not writable; fix its permissions or set "
                              "another tier.disk.path",
                              dir);
    return EBB_OK;
}

/* One attempt at a private file in dir: O_TMPFILE, or (where the file system
 * lacks it) a named file unlinked at once. Returns fd, or -1 with errno. */
static int open_one(struct ebb_pool *pool, const char *dir, int direct, int *tmpfile_ok,
                    char **name)
{
    if (direct && pool->fault.odirect_open) {
        errno = EINVAL;
        return -1;
    }
    int flags = O_RDWR | O_CLOEXEC | (direct ? O_DIRECT : 0);
    size_t n = strlen(dir) + 32;
    if (*tmpfile_ok) {
        int fd = open(dir, flags | O_TMPFILE, 0600);
        if (fd >= 0) {
            *name = malloc(n);
            if (*name)
                snprintf(*name, n, "%s/<unnamed O_TMPFILE>", dir);
            return fd;
        }
        if (errno != EOPNOTSUPP && errno != EISDIR && errno != ENOENT)
            return -1;
        *tmpfile_ok = 0;
    }
    char *tmpl = malloc(n);
    if (!tmpl) {
        errno = ENOMEM;
        return -1;
    }
    snprintf(tmpl, n, "%s/.ebb-disk-XXXXXX", dir);
    int fd = mkostemp(tmpl, O_CLOEXEC | (direct ? O_DIRECT : 0));
    if (fd < 0) {
        int e = errno;
        free(tmpl);
        errno = e;
        return -1;
    }
    unlink(tmpl); /* private: nothing outlives the process */
    (void)fchmod(fd, 0600);
    size_t m = strlen(tmpl) + 16;
    *name = malloc(m);
    if (*name)
        snprintf(*name, m, "%s (deleted)", tmpl);
    free(tmpl);
    return fd;
}

/* Opens the pool's file in dir. *direct in: want O_DIRECT; out: got it.
 * Returns fd, or -1 with the message set. */
static int open_private(struct ebb_pool *pool, const char *dir, int *direct, char **name)
{
    int tmpfile_ok = !pool->fault.no_tmpfile;
    if (*direct) {
        int fd = open_one(pool, dir, 1, &tmpfile_ok, name);
        if (fd >= 0)
            return fd;
        if (errno != EINVAL)
            return ebb_fail_errno(EBB_ERR_IO, errno, "cannot create a file in disk directory '%s'",
                                  dir),
                   -1;
        *direct = 0; /* O_DIRECT refused at open: buffered */
    }
    int fd = open_one(pool, dir, 0, &tmpfile_ok, name);
    if (fd < 0)
        return ebb_fail_errno(EBB_ERR_IO, errno, "cannot create a file in disk directory '%s'",
                              dir),
               -1;
    return fd;
}

static size_t dio_alignment(int fd)
{
#ifdef STATX_DIOALIGN
    struct statx stx;
    memset(&stx, 0, sizeof stx);
    if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 && (stx.stx_mask & STATX_DIOALIGN) &&
        stx.stx_dio_offset_align > 0) {
        size_t a = stx.stx_dio_offset_align;
        if (stx.stx_dio_mem_align > a)
            a = stx.stx_dio_mem_align;
        return a;
    }
#else
    (void)fd;
#endif
    return 4096;
}

/* A first O_DIRECT write: some file systems accept O_DIRECT at open() and
 * refuse it at write() with EINVAL. Returns 1 when direct I/O works. */
static int probe_direct(struct ebb_pool *pool, int fd, size_t align, int *err)
{
    *err = 0;
    if (pool->fault.odirect_write) {
        *err = EINVAL;
        return 0;
    }
    void *buf = NULL;
    if (posix_memalign(&buf, align < 4096 ? 4096 : align, align) != 0) {
        *err = ENOMEM;
        return 0;
    }
    memset(buf, 0, align);
    ssize_t w = pwrite(fd, buf, align, 0);
    if (w < 0)
        *err = errno;
    ssize_t r = w == (ssize_t)align ? pread(fd, buf, align, 0) : -1;
    if (w == (ssize_t)align && r < 0)
        *err = errno;
    free(buf);
    return w == (ssize_t)align && r == (ssize_t)align;
}

static ebb_status preallocate(struct ebb_pool *pool, int i, const char *dir, uint64_t need_fs,
                              uint64_t bytes)
{
    ebb_disk *d = pool->disk;
    struct statvfs vfs;
    if (fstatvfs(d->fds[i], &vfs) == 0) {
        uint64_t avail = (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize;
        if (need_fs > avail)
            return ebb_fail(EBB_ERR_NO_SPACE,
                            "disk directory '%s' has %" PRIu64 " bytes (%.2f GiB) free but the disk "
                            "tier needs %" PRIu64 " bytes (%.2f GiB) there for %d slots of %zu "
                            "bytes; free space, add directories or lower tier.disk.budget",
                            dir, avail, GIB(avail), need_fs, GIB(need_fs), (int)pool->slots,
                            pool->slot_size);
    }
    int r = 0, e = 0;
    if (pool->fault.fallocate_errno) {
        r = -1;
        e = pool->fault.fallocate_errno;
    } else {
        r = fallocate(d->fds[i], 0, 0, (off_t)bytes);
        e = errno;
    }
    if (r == 0)
        return EBB_OK;
    if (e == ENOSPC || e == EDQUOT) {
        uint64_t avail = 0;
        if (fstatvfs(d->fds[i], &vfs) == 0)
            avail = (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize;
        return ebb_fail_errno(EBB_ERR_NO_SPACE, e,
                              "cannot preallocate %" PRIu64 " bytes (%.2f GiB) for the disk tier in "
                              "'%s' (%" PRIu64 " bytes, %.2f GiB, free); free space, add "
                              "directories or lower tier.disk.budget",
                              bytes, GIB(bytes), dir, avail, GIB(avail));
    }
    if (e == EOPNOTSUPP) {
        if (ftruncate(d->fds[i], (off_t)bytes) != 0)
            return ebb_fail_errno(EBB_ERR_IO, errno, "cannot size the disk tier's file in '%s'",
                                  dir);
        ebb_pool_warn(pool, "'%s' cannot preallocate (fallocate unsupported): space is not "
                            "reserved and may run out mid-run",
                      dir);
        return EBB_OK;
    }
    return ebb_fail_errno(EBB_ERR_IO, e, "cannot preallocate %" PRIu64 " bytes in '%s'", bytes,
                          dir);
}

static ebb_status disk_check_options(const ebb_pool_options *o)
{
    if (!o->paths || o->path_count < 1)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "disk pool: no directory given (paths/path_count); set tier.disk.path");
    if (o->path_count > 1024)
        return ebb_fail(EBB_ERR_INVALID_ARG, "disk pool: %d directories is too many (at most 1024)",
                        (int)o->path_count);
    for (int i = 0; i < o->path_count; i++)
        if (!o->paths[i] || !o->paths[i][0])
            return ebb_fail(EBB_ERR_INVALID_ARG, "disk pool: directory %d is empty or NULL", i);
    if (o->queue_depth < 1 || o->queue_depth > 4096)
        return ebb_fail(EBB_ERR_INVALID_ARG, "disk pool: queue_depth %d is out of range 1 .. 4096",
                        (int)o->queue_depth);
    if (o->threads < 0 || o->threads > 1024)
        return ebb_fail(EBB_ERR_INVALID_ARG, "disk pool: threads %d is out of range 0 .. 1024",
                        (int)o->threads);
    if (o->block == 0 || o->block > EBB_DISK_REG_CHUNK)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "disk pool: block %zu bytes is out of range (1 byte .. 1 GiB; 8 MiB is "
                        "a good size)",
                        o->block);
    if (o->staging && o->staging->tier != EBB_TIER_HOST)
        return ebb_fail(EBB_ERR_INVALID_ARG, "disk pool: the staging pool is a %s pool; it must "
                                             "be a host pool",
                        ebb_tier_name(o->staging->tier));
    return EBB_OK;
}

ebb_status ebb_disk_create(struct ebb_pool *pool, const ebb_pool_options *o)
{
    ebb_status s = disk_check_options(o);
    if (s != EBB_OK)
        return s;
    for (int i = 0; i < o->path_count; i++)
        if ((s = check_dir(o->paths[i])) != EBB_OK)
            return s;

    ebb_disk *d = calloc(1, sizeof *d);
    if (!d)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the disk tier");
    pool->disk = d;
    d->node = -1;
    d->nfiles = o->path_count;
    d->depth = o->queue_depth;
    d->checksum = o->checksum ? 1 : 0;
    d->staging = o->staging;
    d->fds = malloc(sizeof(int) * (size_t)d->nfiles);
    for (int i = 0; d->fds && i < d->nfiles; i++)
        d->fds[i] = -1;
    d->names = calloc((size_t)d->nfiles, sizeof(char *));
    d->file_direct = calloc((size_t)d->nfiles, sizeof(int));
    d->file_bytes = calloc((size_t)d->nfiles, sizeof(uint64_t));
    pthread_mutex_init(&d->lock, NULL);
    pthread_cond_init(&d->done_cv, NULL);
    pthread_cond_init(&d->work_cv, NULL);
    if (!d->fds || !d->names || !d->file_direct || !d->file_bytes) {
        s = ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the disk tier");
        goto fail;
    }

    /* Open every file and find the alignment. */
    d->align = 512;
    for (int i = 0; i < d->nfiles; i++) {
        int direct = o->direct ? 1 : 0;
        d->fds[i] = open_private(pool, o->paths[i], &direct, &d->names[i]);
        if (d->fds[i] < 0) {
            s = EBB_ERR_IO;
            goto fail;
        }
        if (o->direct && !direct)
            ebb_pool_warn(pool, "O_DIRECT refused by the file system of '%s' at open; using "
                                "buffered I/O (page cache)",
                          o->paths[i]);
        d->file_direct[i] = direct;
        size_t a = direct ? dio_alignment(d->fds[i]) : 4096;
        if (a < 4096)
            a = 4096; /* page-sized units also suit every drive and the page cache */
        if (a > d->align)
            d->align = a;
    }
    if (d->align > 65536 || (d->align & (d->align - 1))) {
        s = ebb_fail(EBB_ERR_UNSUPPORTED, "disk pool: direct-I/O alignment %zu of '%s' is not "
                                          "supported (at most 65536, a power of two)",
                     d->align, o->paths[0]);
        goto fail;
    }
    if (o->block % d->align) {
        s = ebb_fail(EBB_ERR_INVALID_ARG,
                     "disk pool: block %zu bytes is not a multiple of the direct-I/O alignment "
                     "%zu of '%s'",
                     o->block, d->align, o->paths[0]);
        goto fail;
    }
    d->block = o->block;
    d->bps = (uint32_t)((pool->slot_size + d->block - 1) / d->block);
    d->dstride = round_up(pool->slot_size, d->align);
    pool->stride = d->dstride;

    /* Preallocate: every file system must hold its share before the run. */
    uint64_t total_blocks = (uint64_t)pool->slots * d->bps;
    for (int i = 0; i < d->nfiles; i++) {
        if (d->nfiles == 1)
            d->file_bytes[i] = (uint64_t)pool->slots * d->dstride;
        else
            d->file_bytes[i] =
                ((total_blocks - (uint64_t)i + (uint64_t)d->nfiles - 1) / (uint64_t)d->nfiles) *
                d->block;
        pool->bytes += d->file_bytes[i];
    }
    for (int i = 0; i < d->nfiles; i++) {
        /* Directories on one file system share its free space. */
        struct stat si, sj;
        uint64_t need = d->file_bytes[i];
        if (fstat(d->fds[i], &si) == 0)
            for (int j = 0; j < i; j++)
                if (fstat(d->fds[j], &sj) == 0 && sj.st_dev == si.st_dev)
                    need += d->file_bytes[j];
        if ((s = preallocate(pool, i, o->paths[i], need, d->file_bytes[i])) != EBB_OK)
            goto fail;
        if (d->file_direct[i]) {
            int err;
            if (!probe_direct(pool, d->fds[i], d->align, &err)) {
                if (err != EINVAL) {
                    s = ebb_fail_errno(EBB_ERR_IO, err, "disk pool: first write to '%s' failed",
                                       d->names[i] ? d->names[i] : o->paths[i]);
                    goto fail;
                }
                int fl = fcntl(d->fds[i], F_GETFL);
                if (fl < 0 || fcntl(d->fds[i], F_SETFL, fl & ~O_DIRECT) != 0) {
                    s = ebb_fail_errno(EBB_ERR_IO, errno, "cannot turn O_DIRECT off on '%s'",
                                       o->paths[i]);
                    goto fail;
                }
                d->file_direct[i] = 0;
                ebb_pool_warn(pool, "O_DIRECT refused by the file system of '%s' at write (%s); "
                                    "using buffered I/O (page cache)",
                              o->paths[i], strerror(err));
            }
        }
    }
    d->direct = 1;
    for (int i = 0; i < d->nfiles; i++)
        d->direct &= d->file_direct[i];

    d->sums = calloc((size_t)total_blocks, sizeof *d->sums);
    d->valid = calloc((size_t)pool->slots, sizeof *d->valid);
    d->queue = calloc((size_t)pool->slots, sizeof *d->queue);
    d->qcap = (uint32_t)pool->slots;
    pool->ops = calloc((size_t)pool->slots, sizeof *pool->ops);
    if (!d->sums || !d->valid || !d->queue || !pool->ops) {
        s = ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the disk tier's bookkeeping");
        goto fail;
    }
    d->node = ebb_topo_path_node(o->paths[0]);
    if (d->node < 0)
        d->node = -1;
    pool->numa_node = d->node;

    /* Engine. */
    char why[512] = "";
    int started = -1;
    if (o->backend != EBB_DISK_BACKEND_THREADS) {
        started = ebb_uring_start(pool, why, sizeof why);
        if (started != 0 && o->backend == EBB_DISK_BACKEND_URING) {
            s = ebb_fail(EBB_ERR_UNSUPPORTED,
                         "disk pool: io_uring cannot be used here (%s); choose the threads "
                         "backend",
                         why);
            goto fail;
        }
        if (started != 0)
            ebb_pool_warn(pool, "io_uring unavailable (%s); using the thread-pool backend", why);
    }
    if (started != 0) {
        d->nthreads = o->threads > 0 ? o->threads : o->queue_depth;
        if (ebb_threads_start(pool, why, sizeof why) != 0) {
            s = ebb_fail(EBB_ERR_NO_MEMORY, "disk pool: cannot start I/O threads: %s", why);
            goto fail;
        }
    }
    return EBB_OK;

fail:
    ebb_disk_destroy(pool);
    return s;
}

void ebb_disk_destroy(struct ebb_pool *pool)
{
    ebb_disk *d = pool->disk;
    if (!d)
        return;
    if (d->uring)
        ebb_uring_stop(pool);
    if (d->threads)
        ebb_threads_stop(pool);
    for (int i = 0; d->fds && i < d->nfiles; i++)
        if (d->fds[i] >= 0)
            close(d->fds[i]);
    for (int i = 0; d->names && i < d->nfiles; i++)
        free(d->names[i]);
    free(d->fds);
    free(d->names);
    free(d->file_direct);
    free(d->file_bytes);
    free(d->sums);
    free((void *)d->valid);
    free(d->queue);
    free(pool->ops);
    pool->ops = NULL;
    pthread_mutex_destroy(&d->lock);
    pthread_cond_destroy(&d->done_cv);
    pthread_cond_destroy(&d->work_cv);
    free(d);
    pool->disk = NULL;
}

void ebb_disk_info(const struct ebb_pool *pool, ebb_pool_info *info)
{
    const ebb_disk *d = pool->disk;
    info->backend = d->backend == EBB_DISK_BACKEND_URING ? "io_uring" : "threads";
    info->direct = d->direct;
    info->registered_buffers = d->fixed_buffers;
    info->registered_files = d->fixed_files;
    info->queue_depth = d->depth;
    info->threads = d->backend == EBB_DISK_BACKEND_URING ? 1 : d->nthreads;
    info->block = d->block;
    info->alignment = d->align;
    info->checksum = d->checksum;
    info->path_count = d->nfiles;
}

/* ---- operations -------------------------------------------------------------- */

ebb_status ebb_disk_move(struct ebb_pool *pool, int32_t slot, struct ebb_pool *host,
                         int32_t host_slot, int write, ebb_ticket *ticket)
{
    ebb_disk *d = pool->disk;
    ebb_op *op = &pool->ops[slot];
    ebb_status s;
    if (atomic_load_explicit(&op->state, memory_order_acquire) == EBB_OP_PENDING)
        return ebb_fail(EBB_ERR_STATE,
                        "disk slot %d is busy: an operation on it is still in flight; wait for "
                        "its ticket first",
                        (int)slot);
    if (op->state == EBB_OP_DONE && op->status != EBB_OK && !op->reported) {
        op->reported = 1;
        return ebb_fail(EBB_ERR_STATE,
                        "disk slot %d: its previous operation failed and its ticket was never "
                        "tested: %s",
                        (int)slot, op->msg);
    }
    if (host->stride % d->align)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "host slots are %zu bytes apart, not a multiple of the disk's direct-I/O "
                        "alignment %zu",
                        host->stride, d->align);
    if (!write && !atomic_load(&d->valid[slot]))
        return ebb_fail(EBB_ERR_STATE,
                        "disk slot %d holds no data: it was never written, or its last write "
                        "failed",
                        (int)slot);
    if ((s = ebb_host_slot_check(host, host_slot, !write)) != EBB_OK)
        return s;

    op->generation++;
    op->write = write;
    op->slot = slot;
    op->host = host;
    op->host_slot = host_slot;
    op->buf = host->base + (size_t)host_slot * host->stride;
    op->fixed = host == d->staging && d->fixed_buffers;
    op->blocks = d->bps;
    op->next_block = 0;
    atomic_store(&op->remaining, d->bps);
    atomic_store(&op->failed, 0);
    op->status = EBB_OK;
    op->reported = 0;
    op->msg[0] = '\0';
    if (write) {
        atomic_store(&d->valid[slot], 0);
        atomic_fetch_add(&host->readers[host_slot], 1);
    } else {
        atomic_fetch_add(&host->writers[host_slot], 1);
    }
    atomic_store_explicit(&op->state, EBB_OP_PENDING, memory_order_release);

    pthread_mutex_lock(&d->lock);
    d->queue[(d->qhead + d->qcount) % d->qcap] = slot;
    d->qcount++;
    pthread_mutex_unlock(&d->lock);
    if (d->backend == EBB_DISK_BACKEND_URING)
        ebb_uring_kick(pool);
    else
        ebb_threads_kick(pool);

    ticket->pool = pool;
    ticket->index = (uint32_t)slot;
    ticket->generation = op->generation;
    return EBB_OK;
}

ebb_status ebb_disk_wait(struct ebb_pool *pool, ebb_op *op)
{
    ebb_disk *d = pool->disk;
    pthread_mutex_lock(&d->lock);
    while (atomic_load_explicit(&op->state, memory_order_acquire) != EBB_OP_DONE)
        pthread_cond_wait(&d->done_cv, &d->lock);
    pthread_mutex_unlock(&d->lock);
    return EBB_OK;
}

/* Fault injection: holds a completion back by a pseudo-random delay. */
static void fault_delay(struct ebb_pool *pool)
{
    if (!pool->fault.delay_us_max)
        return;
    uint64_t x = pool->fault.delay_seed + 0x9e3779b97f4a7c15ULL * (atomic_fetch_add(&pool->fault_delays, 1) + 1);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
    uint64_t us = x % ((uint64_t)pool->fault.delay_us_max + 1);
    struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

void ebb_disk_complete(struct ebb_pool *pool, ebb_op *op)
{
    ebb_disk *d = pool->disk;
    struct ebb_pool *host = op->host;
    fault_delay(pool);
    if (op->status == EBB_OK) {
        if (op->write) {
            atomic_store(&d->valid[op->slot], 1);
            atomic_fetch_add(&pool->st_writes, 1);
            atomic_fetch_add(&pool->st_bytes_written, pool->slot_size);
        } else {
            atomic_fetch_add(&pool->st_reads, 1);
            atomic_fetch_add(&pool->st_bytes_read, pool->slot_size);
        }
    } else {
        atomic_fetch_add(&pool->st_errors, 1);
    }
    if (op->write)
        atomic_fetch_sub(&host->readers[op->host_slot], 1);
    else
        atomic_fetch_sub(&host->writers[op->host_slot], 1);
    pthread_mutex_lock(&d->lock);
    atomic_store_explicit(&op->state, EBB_OP_DONE, memory_order_release);
    pthread_cond_broadcast(&d->done_cv);
    pthread_mutex_unlock(&d->lock);
}

void ebb_disk_before_write(struct ebb_pool *pool, ebb_op *op, uint32_t block)
{
    ebb_disk *d = pool->disk;
    if (!d->checksum)
        return;
    ebb_disk_loc loc;
    ebb_disk_locate(d, pool->slot_size, op->slot, block, &loc);
    d->sums[(size_t)op->slot * d->bps + block] = XXH3_64bits(op->buf + loc.buf_offset, loc.data_len);
}

int ebb_disk_after_read(struct ebb_pool *pool, ebb_op *op, uint32_t block)
{
    ebb_disk *d = pool->disk;
    if (!d->checksum)
        return 0;
    ebb_disk_loc loc;
    ebb_disk_locate(d, pool->slot_size, op->slot, block, &loc);
    uint64_t want = d->sums[(size_t)op->slot * d->bps + block];
    uint64_t got = XXH3_64bits(op->buf + loc.buf_offset, loc.data_len);
    if (got == want)
        return 0;
    ebb_op_fail(op, EBB_ERR_CHECKSUM,
                "checksum mismatch reading disk slot %d (block %u: state bytes %zu .. %zu) from "
                "file '%s' at offset %" PRIu64 ": stored %016" PRIx64 ", read %016" PRIx64
                "; the file was changed or the drive returned bad data",
                (int)op->slot, block, loc.buf_offset, loc.buf_offset + loc.data_len,
                d->names[loc.file] ? d->names[loc.file] : "?", loc.offset, want, got);
    return -1;
}

void ebb_disk_fail_io(struct ebb_pool *pool, ebb_op *op, uint32_t block, int err, const char *what)
{
    ebb_disk *d = pool->disk;
    ebb_disk_loc loc;
    ebb_disk_locate(d, pool->slot_size, op->slot, block, &loc);
    ebb_op_fail(op, EBB_ERR_IO,
                "%s disk slot %d (block %u, %zu bytes at offset %" PRIu64 " of '%s') failed: %s",
                op->write ? "writing" : "reading", (int)op->slot, block, loc.io_len, loc.offset,
                d->names[loc.file] ? d->names[loc.file] : "?", what ? what : strerror(err));
}

long ebb_disk_fault(struct ebb_pool *pool, uint64_t seq, long res, size_t len)
{
    const ebb_storage_fault *f = &pool->fault;
    if (f->io_nth && seq == f->io_nth)
        return -(long)(f->io_errno ? f->io_errno : EIO);
    if (f->short_nth && seq == f->short_nth && res > 0) {
        size_t a = pool->disk->align;
        size_t half = ((size_t)res / 2) / a * a;
        if (half == 0)
            half = len > a ? a : (size_t)res;
        return (long)half;
    }
    return res;
}

ebb_status ebb_disk_debug_locate(ebb_pool *pool, int32_t slot, uint32_t block, int *fd,
                                 int64_t *offset, const char **name)
{
    if (!pool || pool->tier != EBB_TIER_DISK)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_disk_debug_locate: not a disk pool");
    ebb_disk *d = pool->disk;
    if (slot < 0 || slot >= pool->slots || block >= d->bps)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_disk_debug_locate: slot or block out of range");
    ebb_disk_loc loc;
    ebb_disk_locate(d, pool->slot_size, slot, block, &loc);
    if (fd)
        *fd = d->fds[loc.file];
    if (offset)
        *offset = (int64_t)loc.offset;
    if (name)
        *name = d->names[loc.file];
    return EBB_OK;
}
