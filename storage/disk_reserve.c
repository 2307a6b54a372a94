/* Disk tier: reserving file space. A pool's files are preallocated at
 * creation for every slot, so that a full disk shows before the first step;
 * one created with ready_slots (a run with n unknown, whose slots may be far
 * more than it fills) reserves space for its first slots, then in doubling
 * extents as slots above them are first written, as the host and gpu tiers
 * grow their memory. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/error_internal.h"
#include "storage/disk.h"

#define GIB(x) ((double)(x) / (double)(1ull << 30))

ebb_status ebb_disk_reserve_file(struct ebb_pool *pool, int file, const char *dir, uint64_t from,
                                 uint64_t to)
{
    ebb_disk *d = pool->disk;
    int fd = d->files.fds[file];
    if (to <= from)
        return EBB_OK;
    int r, e;
    d->fallocates++;
    if (pool->fault.fallocate_errno && d->fallocates >= pool->fault.fallocate_nth) {
        r = -1;
        e = pool->fault.fallocate_errno;
    } else {
        r = fallocate(fd, 0, (off_t)from, (off_t)(to - from));
        e = errno;
    }
    if (r == 0)
        return EBB_OK;
    if (e == ENOSPC || e == EDQUOT) {
        struct statvfs vfs;
        uint64_t avail = 0;
        if (fstatvfs(fd, &vfs) == 0)
            avail = (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize;
        return ebb_fail_errno(EBB_ERR_NO_SPACE, e,
                              "cannot preallocate %" PRIu64 " bytes (%.2f GiB) for the disk tier in "
                              "'%s' (%" PRIu64 " bytes, %.2f GiB, free); free space, add "
                              "directories or lower tier.disk.budget",
                              to - from, GIB(to - from), dir, avail, GIB(avail));
    }
    if (e == EOPNOTSUPP) {
        struct stat st;
        if (fstat(fd, &st) == 0 && (uint64_t)st.st_size >= to)
            return EBB_OK;
        if (ftruncate(fd, (off_t)to) != 0)
            return ebb_fail_errno(EBB_ERR_IO, errno, "cannot size the disk tier's file in '%s'",
                                  dir);
        if (from == 0)
            ebb_pool_warn(pool, "'%s' cannot preallocate (fallocate unsupported): space is not "
                                "reserved and may run out mid-run",
                          dir);
        return EBB_OK;
    }
    return ebb_fail_errno(EBB_ERR_IO, e, "cannot preallocate %" PRIu64 " bytes in '%s'", to - from,
                          dir);
}

ebb_status ebb_disk_reserve(struct ebb_pool *pool, int32_t slot)
{
    if (slot < atomic_load_explicit(&pool->ready, memory_order_acquire))
        return EBB_OK;
    ebb_disk *d = pool->disk;
    ebb_status s = EBB_OK;
    pthread_mutex_lock(&pool->grow_mu);
    int32_t from = atomic_load_explicit(&pool->ready, memory_order_relaxed);
    if (slot >= from) {
        int32_t to = ebb_pool_next_extent_end(pool, from, slot);
        for (int i = 0; i < d->layout.nfiles && s == EBB_OK; i++)
            s = ebb_disk_reserve_file(pool, i, d->files.names[i] ? d->files.names[i] : "?",
                                      ebb_disk_file_bytes_upto(&d->layout, i, from),
                                      ebb_disk_file_bytes_upto(&d->layout, i, to));
        if (s != EBB_OK)
            s = ebb_fail_context(s, "disk slot %d: reserving space for slots %d .. %d (beyond "
                                    "the %d with space so far; a run given its steps reserves "
                                    "all of it before the first step)",
                                 (int)slot, (int)from, (int)to - 1, (int)from);
        else
            atomic_store_explicit(&pool->ready, to, memory_order_release);
    }
    pthread_mutex_unlock(&pool->grow_mu);
    return s;
}
