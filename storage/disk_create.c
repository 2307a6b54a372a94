/* Disk tier creation: private preallocated O_DIRECT files, one per directory
 * (drive), the striped layout's geometry (disk_layout.c places the slots),
 * the space check, the codec, the engine and the codec stage's threads;
 * and destruction. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/error_internal.h"
#include "storage/disk.h"
#include "storage/topology.h"

#define GIB(x) ((double)(x) / (double)(1ull << 30))

static size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

/* ---- files ------------------------------------------------------------------- */

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

/* One attempt at a private file in dir: O_TMPFILE with O_EXCL (it can never
 * be linked into the directory), or (where the file system lacks O_TMPFILE)
 * a named file unlinked at once. Returns fd, or -1 with errno. */
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
        int fd = open(dir, flags | O_TMPFILE | O_EXCL, 0600);
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

/* ---- space ------------------------------------------------------------------- */

/* Before anything is allocated: every file system holds what all of the
 * pool's files on it need for the slots ready at creation (directories on
 * one file system share its free space; each file is counted once). */
static ebb_status check_space(struct ebb_pool *pool, const ebb_pool_options *o)
{
    ebb_disk *d = pool->disk;
    dev_t *dev = calloc((size_t)d->layout.nfiles, sizeof *dev);
    if (!dev)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the disk tier's bookkeeping");
    for (int i = 0; i < d->layout.nfiles; i++) {
        struct stat st;
        dev[i] = fstat(d->files.fds[i], &st) == 0 ? st.st_dev : (dev_t)-1 - (dev_t)i;
    }
    ebb_status s = EBB_OK;
    for (int i = 0; i < d->layout.nfiles && s == EBB_OK; i++) {
        int first = 1, others = 0;
        uint64_t need = 0;
        for (int j = 0; j < d->layout.nfiles; j++) {
            if (dev[j] != dev[i])
                continue;
            if (j < i)
                first = 0; /* checked with directory j */
            need += ebb_disk_file_bytes_upto(&d->layout, j, pool->ready);
            others += j != i;
        }
        struct statvfs vfs;
        if (!first || fstatvfs(d->files.fds[i], &vfs) != 0)
            continue;
        uint64_t avail = (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize;
        if (need <= avail)
            continue;
        char dirs[768];
        int len = snprintf(dirs, sizeof dirs, "'%s'", o->paths[i]);
        for (int j = i + 1, named = 1; j < d->layout.nfiles && len < (int)sizeof dirs; j++) {
            if (dev[j] != dev[i])
                continue;
            if (named++ < 4)
                len += snprintf(dirs + len, sizeof dirs - (size_t)len, ", '%s'", o->paths[j]);
            else if (named == 5)
                len += snprintf(dirs + len, sizeof dirs - (size_t)len, " and more");
        }
        s = ebb_fail(EBB_ERR_NO_SPACE,
                     "disk director%s %s%s %s %" PRIu64 " bytes (%.2f GiB) free but the disk "
                     "tier needs %" PRIu64 " bytes (%.2f GiB) there for %d slots of %zu bytes; "
                     "free space, add directories on other drives or lower tier.disk.budget",
                     others ? "ies" : "y", dirs, others ? " (one file system)" : "",
                     others ? "have" : "has", avail, GIB(avail), need, GIB(need),
                     (int)pool->ready, d->layout.slot_size);
    }
    free(dev);
    return s;
}

/* ---- device groups ----------------------------------------------------------- */

/* Groups the files by the device they are on (st_dev; a file that cannot
 * be stat()ed is a group of its own), in the order of first appearance, and
 * finds each group's NUMA node from its first directory. */
static ebb_status group_files(struct ebb_pool *pool, const ebb_pool_options *o)
{
    ebb_disk *d = pool->disk;
    dev_t *dev = calloc((size_t)d->layout.nfiles, sizeof *dev);
    d->files.file_group = calloc((size_t)d->layout.nfiles, sizeof *d->files.file_group);
    d->files.group_node = calloc((size_t)d->layout.nfiles, sizeof *d->files.group_node);
    if (!dev || !d->files.file_group || !d->files.group_node) {
        free(dev);
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the disk tier's bookkeeping");
    }
    d->files.ngroups = 0;
    for (int i = 0; i < d->layout.nfiles; i++) {
        struct stat st;
        dev[i] = fstat(d->files.fds[i], &st) == 0 ? st.st_dev : (dev_t)-1 - (dev_t)i;
        int g = 0;
        while (g < i && dev[g] != dev[i])
            g++;
        if (g < i) {
            d->files.file_group[i] = d->files.file_group[g];
            continue;
        }
        d->files.file_group[i] = d->files.ngroups;
        int node = ebb_topo_path_node(o->paths[i]);
        d->files.group_node[d->files.ngroups++] = node >= 0 ? node : -1;
    }
    free(dev);
    return EBB_OK;
}

/* ---- creation ---------------------------------------------------------------- */

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
    if (!(o->max_bandwidth == 0 || (o->max_bandwidth >= 1 && o->max_bandwidth <= 1e18)))
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "disk pool: max_bandwidth %g bytes/s is out of range; expected 0 (no "
                        "limit) or 1 .. 1e18 bytes per second",
                        o->max_bandwidth);
    if (o->codec_threads < 0 || o->codec_threads > EBB_CODEC_THREADS_MAX)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "disk pool: codec_threads %d is out of range; expected 0 (%d threads) or "
                        "1 .. %d",
                        (int)o->codec_threads, EBB_CODEC_THREADS_DEFAULT, EBB_CODEC_THREADS_MAX);
    if (o->staging && o->staging->tier != EBB_TIER_HOST)
        return ebb_fail(EBB_ERR_INVALID_ARG, "disk pool: the staging pool is a %s pool; it must "
                                             "be a host pool",
                        ebb_tier_name(o->staging->tier));
    if (o->staging && o->staging->hc)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "disk pool: the staging pool holds compressed states "
                        "(ebb_pool_options.compression); stage through an uncompressed host pool");
    return EBB_OK;
}

/* Opens every file and finds the alignment, the block and the layout. */
static ebb_status open_files(struct ebb_pool *pool, const ebb_pool_options *o)
{
    ebb_disk *d = pool->disk;
    d->layout.align = 512;
    for (int i = 0; i < d->layout.nfiles; i++) {
        int direct = o->direct ? 1 : 0;
        d->files.fds[i] = open_private(pool, o->paths[i], &direct, &d->files.names[i]);
        if (d->files.fds[i] < 0)
            return EBB_ERR_IO;
        if (o->direct && !direct)
            ebb_pool_warn(pool, "O_DIRECT refused by the file system of '%s' at open; using "
                                "buffered I/O (page cache)",
                          o->paths[i]);
        d->files.file_direct[i] = direct;
        size_t a = direct ? dio_alignment(d->files.fds[i]) : 4096;
        if (a < 4096)
            a = 4096; /* page-sized units also suit every drive and the page cache */
        if (a > d->layout.align)
            d->layout.align = a;
    }
    if (d->layout.align > 65536 || (d->layout.align & (d->layout.align - 1)))
        return ebb_fail(EBB_ERR_UNSUPPORTED, "disk pool: direct-I/O alignment %zu of '%s' is not "
                                             "supported (at most 65536, a power of two)",
                        d->layout.align, o->paths[0]);
    /* Host slots that are not a multiple of the alignment (states below a
     * page: ebb_slot_stride) cannot take direct I/O in place: the files go
     * through the page cache, and a request moves the state's bytes only. */
    if (ebb_slot_stride(EBB_TIER_HOST, pool->slot_size, 0) % d->layout.align) {
        for (int i = 0; i < d->layout.nfiles; i++) {
            int fl = d->files.file_direct[i] ? fcntl(d->files.fds[i], F_GETFL) : 0;
            if (d->files.file_direct[i] &&
                (fl < 0 || fcntl(d->files.fds[i], F_SETFL, fl & ~O_DIRECT) != 0))
                return ebb_fail_errno(EBB_ERR_IO, errno, "cannot turn O_DIRECT off on '%s'",
                                      o->paths[i]);
            d->files.file_direct[i] = 0;
        }
        d->layout.buffered = 1;
    }
    if (o->block % d->layout.align)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "disk pool: block %zu bytes is not a multiple of the direct-I/O alignment "
                        "%zu of '%s'",
                        o->block, d->layout.align, o->paths[0]);
    d->layout.block = o->block;
    /* what a slot keeps on disk: the state, or its fixed-rate compression */
    d->layout.bps = (uint32_t)((d->layout.slot_size + d->layout.block - 1) / d->layout.block);
    d->layout.dstride = round_up(d->layout.slot_size, d->layout.align);
    pool->stride = d->layout.dstride;
    for (int i = 0; i < d->layout.nfiles; i++) {
        d->files.file_bytes[i] = ebb_disk_file_bytes(&d->layout, i);
        pool->bytes += d->files.file_bytes[i];
    }
    return EBB_OK;
}

/* Preallocates every file for the slots ready at creation (the space was
 * checked) and probes O_DIRECT. */
static ebb_status prepare_files(struct ebb_pool *pool, const ebb_pool_options *o)
{
    ebb_disk *d = pool->disk;
    ebb_status s;
    for (int i = 0; i < d->layout.nfiles; i++) {
        if ((s = ebb_disk_reserve_file(pool, i, o->paths[i], 0,
                                       ebb_disk_file_bytes_upto(&d->layout, i, pool->ready))) !=
            EBB_OK)
            return s;
        int err;
        if (!d->files.file_direct[i] || probe_direct(pool, d->files.fds[i], d->layout.align, &err))
            continue;
        if (err != EINVAL)
            return ebb_fail_errno(EBB_ERR_IO, err, "disk pool: first write to '%s' failed",
                                  d->files.names[i] ? d->files.names[i] : o->paths[i]);
        int fl = fcntl(d->files.fds[i], F_GETFL);
        if (fl < 0 || fcntl(d->files.fds[i], F_SETFL, fl & ~O_DIRECT) != 0)
            return ebb_fail_errno(EBB_ERR_IO, errno, "cannot turn O_DIRECT off on '%s'",
                                  o->paths[i]);
        d->files.file_direct[i] = 0;
        ebb_pool_warn(pool, "O_DIRECT refused by the file system of '%s' at write (%s); "
                            "using buffered I/O (page cache)",
                      o->paths[i], strerror(err));
    }
    d->files.direct = 1;
    for (int i = 0; i < d->layout.nfiles; i++)
        d->files.direct &= d->files.file_direct[i];
    return EBB_OK;
}

/* The engine, and the codec stage: the codec threads with compression,
 * else the checksum thread where the engine is io_uring (the ring thread
 * never hashes; the threads engine's workers hash their blocks). */
static ebb_status start_engine(struct ebb_pool *pool, const ebb_pool_options *o)
{
    ebb_disk *d = pool->disk;
    ebb_status s = ebb_disk_engine_start(pool, o);
    if (s != EBB_OK)
        return s;
    d->sums.on_stage = d->sums.on && d->engine.ops->backend == EBB_DISK_BACKEND_URING;
    if (d->codec.codec) {
        int r = ebb_hasher_start(pool, d->codec.nthreads, "ebb-codec");
        if (r != 0)
            return ebb_fail(EBB_ERR_NO_MEMORY, "disk pool: cannot start %d codec threads: %s",
                            (int)d->codec.nthreads, strerror(r));
    } else if (d->sums.on_stage && ebb_hasher_start(pool, 1, "ebb-hash") != 0) {
        return ebb_fail(EBB_ERR_NO_MEMORY, "disk pool: cannot start the checksum thread");
    }
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
    d->files.node = -1;
    d->layout.nfiles = o->path_count;
    d->layout.slots = pool->slots;
    /* space for every slot now, or (ready_slots) for the first ones, then
     * in extents as slots above them are first written (disk_reserve.c) */
    atomic_store(&pool->ready, o->ready_slots > 0 && o->ready_slots < pool->slots
                                   ? o->ready_slots : pool->slots);
    pthread_mutex_init(&pool->grow_mu, NULL);
    d->grow_init = 1;
    d->layout.slot_size = pool->slot_size;
    d->engine.depth = o->queue_depth;
    d->sums.on = o->checksum ? 1 : 0;
    if (o->staging) {
        d->staging = o->staging;
        ebb_pool_retain(o->staging);
    }
    d->files.fds = malloc(sizeof(int) * (size_t)d->layout.nfiles);
    for (int i = 0; d->files.fds && i < d->layout.nfiles; i++)
        d->files.fds[i] = -1;
    d->files.names = calloc((size_t)d->layout.nfiles, sizeof(char *));
    d->files.file_direct = calloc((size_t)d->layout.nfiles, sizeof(int));
    d->files.file_bytes = calloc((size_t)d->layout.nfiles, sizeof(uint64_t));
    ebb_disk_core_init(pool);
    ebb_disk_pace_init(&d->pace, o->max_bandwidth);
    if (!d->files.fds || !d->files.names || !d->files.file_direct || !d->files.file_bytes) {
        s = ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the disk tier");
        goto fail;
    }
    if ((s = ebb_disk_codec_init(pool, o)) != EBB_OK) /* bad options: before any file */
        goto fail;
    if ((s = open_files(pool, o)) != EBB_OK || (s = check_space(pool, o)) != EBB_OK ||
        (s = prepare_files(pool, o)) != EBB_OK)
        goto fail;

    uint64_t total_blocks = (uint64_t)pool->slots * d->layout.bps;
    d->sums.sums = calloc((size_t)total_blocks, sizeof *d->sums.sums);
    d->core.valid = calloc((size_t)pool->slots, sizeof *d->core.valid);
    d->hashq.queue = calloc((size_t)pool->slots, sizeof *d->hashq.queue);
    pool->ops = calloc((size_t)pool->slots, sizeof *pool->ops);
    if (!d->sums.sums || !d->core.valid || !d->hashq.queue || !pool->ops) {
        s = ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the disk tier's bookkeeping");
        goto fail;
    }
    if ((s = group_files(pool, o)) != EBB_OK)
        goto fail;
    d->files.node = d->files.group_node[0];
    pool->numa_node = d->files.node;
    if ((s = ebb_disk_codec_buffers(pool)) != EBB_OK || (s = start_engine(pool, o)) != EBB_OK)
        goto fail;
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
    /* Order: the engine drains (it waits for the writes the codec stage
     * still hashes or compresses), then the stage finishes the reads it
     * verifies or decompresses; then the engine's state (a codec thread may
     * kick it up to its join) and the codec's buffers can go. */
    ebb_disk_engine_stop(pool);
    ebb_hasher_stop(pool);
    ebb_disk_engine_release(pool);
    ebb_disk_codec_fini(pool);
    for (int i = 0; d->files.fds && i < d->layout.nfiles; i++)
        if (d->files.fds[i] >= 0)
            close(d->files.fds[i]);
    for (int i = 0; d->files.names && i < d->layout.nfiles; i++)
        free(d->files.names[i]);
    free(d->files.fds);
    free(d->files.names);
    free(d->files.file_direct);
    free(d->files.file_bytes);
    free(d->files.file_group);
    free(d->files.group_node);
    free(d->sums.sums);
    free((void *)d->core.valid);
    free(d->hashq.queue);
    ebb_disk_gate_free(pool);
    free(pool->ops);
    pool->ops = NULL;
    ebb_disk_core_fini(pool);
    ebb_disk_pace_destroy(&d->pace);
    if (d->staging)
        ebb_pool_release(d->staging); /* frees it if its owner destroyed it already */
    if (d->grow_init)
        pthread_mutex_destroy(&pool->grow_mu);
    free(d);
    pool->disk = NULL;
}
