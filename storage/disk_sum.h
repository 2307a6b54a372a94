/* Block checksums of a disk pool (disk_sum.c): each block's XXH3 is taken
 * before it is written and compared after it is read. */
#ifndef EBB_STORAGE_DISK_SUM_H
#define EBB_STORAGE_DISK_SUM_H

#include <stdint.h>

struct ebb_pool;
struct ebb_op;

typedef struct ebb_disk_sums {
    int on;                 /* ebb_pool_options.checksum */
    int on_stage;           /* the stage's threads hash and verify (io_uring); else
                               the engine's workers do, block by block (threads) */
    uint64_t *sums;         /* slots * bps block checksums */
} ebb_disk_sums;

/* One block each (the threads engine hashes block by block); after_read
 * fails the op on a mismatch and returns -1. Nothing when checksums are off. */
void ebb_disk_before_write(struct ebb_pool *pool, struct ebb_op *op, uint32_t block);
int ebb_disk_after_read(struct ebb_pool *pool, struct ebb_op *op, uint32_t block);
/* Every block of a write (into sums), or of a read (stops at a failure). */
void ebb_disk_hash_write(struct ebb_pool *pool, struct ebb_op *op);
void ebb_disk_verify_read(struct ebb_pool *pool, struct ebb_op *op);

#endif
