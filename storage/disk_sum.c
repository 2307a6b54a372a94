/* Block checksums (disk_sum.h): computed by whichever thread moves the
 * block (a threads engine worker, or the checksum thread of an io_uring
 * pool), so the ring thread never hashes. */
#include <inttypes.h>
#include <xxhash.h>

#include "storage/disk.h"

void ebb_disk_before_write(struct ebb_pool *pool, ebb_op *op, uint32_t block)
{
    ebb_disk *d = pool->disk;
    if (!d->sums.on)
        return;
    ebb_disk_loc loc;
    ebb_disk_locate_bytes(&d->layout, op->slot, block, op->bytes, &loc);
    d->sums.sums[(size_t)op->slot * d->layout.bps + block] =
        XXH3_64bits(op->buf + loc.buf_offset, loc.data_len);
}

int ebb_disk_after_read(struct ebb_pool *pool, ebb_op *op, uint32_t block)
{
    ebb_disk *d = pool->disk;
    if (!d->sums.on)
        return 0;
    ebb_disk_loc loc;
    ebb_disk_locate_bytes(&d->layout, op->slot, block, op->bytes, &loc);
    uint64_t want = d->sums.sums[(size_t)op->slot * d->layout.bps + block];
    uint64_t got = XXH3_64bits(op->buf + loc.buf_offset, loc.data_len);
    if (got == want)
        return 0;
    ebb_op_fail(op, EBB_ERR_CHECKSUM,
                "checksum mismatch reading disk slot %d (block %u: %s bytes %zu .. %zu) from "
                "file '%s' at offset %" PRIu64 ": stored %016" PRIx64 ", read %016" PRIx64
                "; the file was changed or the drive returned bad data",
                (int)op->slot, block, op->packed ? "compressed" : "state", loc.buf_offset,
                loc.buf_offset + loc.data_len,
                d->files.names[loc.file] ? d->files.names[loc.file] : "?", loc.offset, want, got);
    return -1;
}

void ebb_disk_hash_write(struct ebb_pool *pool, ebb_op *op)
{
    for (uint32_t b = 0; b < op->blocks; b++)
        ebb_disk_before_write(pool, op, b);
}

void ebb_disk_verify_read(struct ebb_pool *pool, ebb_op *op)
{
    for (uint32_t b = 0; b < op->blocks && !atomic_load(&op->failed); b++)
        ebb_disk_after_read(pool, op, b);
}
