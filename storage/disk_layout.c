/* The striped layout of disk slots over the pool's files (disk_layout.h):
 * arithmetic only, so every other disk file may call it. */
#include "storage/disk_layout.h"

static size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

/* Last round, of m < n slots (j = 0 .. m-1): its blocks p = j * bps + k are
 * dealt round-robin, p to file p mod n, and packed. Bytes that the blocks
 * before p (in p's file) free by being short. */
static uint64_t shrink_before(const ebb_disk_layout *l, uint64_t m, uint64_t p)
{
    uint64_t n = (uint64_t)l->nfiles, last = l->bps - 1, c = 0;
    for (uint64_t j = 0; j < m; j++) {
        uint64_t q = j * l->bps + last;
        if (q < p && q % n == p % n)
            c++;
    }
    return c * (l->block - (l->dstride - last * l->block));
}

void ebb_disk_locate(const ebb_disk_layout *l, int32_t slot, uint32_t block, ebb_disk_loc *loc)
{
    uint64_t n = (uint64_t)l->nfiles;
    size_t start = (size_t)block * l->block;
    loc->buf_offset = start;
    loc->data_len = l->slot_size - start < l->block ? l->slot_size - start : l->block;
    loc->io_len = l->buffered ? loc->data_len : round_up(loc->data_len, l->align);
    uint64_t round = (uint64_t)slot / n, full = (uint64_t)l->slots / n;
    if (round < full) {
        loc->file = (int)(((uint64_t)slot + block) % n);
        loc->offset = round * l->dstride + (uint64_t)block * l->block;
        return;
    }
    uint64_t p = ((uint64_t)slot - full * n) * l->bps + block;
    loc->file = (int)(p % n);
    loc->offset = full * l->dstride + p / n * l->block -
                  shrink_before(l, (uint64_t)l->slots % n, p);
}

void ebb_disk_locate_bytes(const ebb_disk_layout *l, int32_t slot, uint32_t block, size_t bytes,
                           ebb_disk_loc *loc)
{
    ebb_disk_locate(l, slot, block, loc);
    size_t left = bytes > loc->buf_offset ? bytes - loc->buf_offset : 0;
    if (left < loc->data_len) {
        loc->data_len = left;
        loc->io_len = l->buffered ? left : round_up(left, l->align);
    }
}

uint64_t ebb_disk_file_bytes(const ebb_disk_layout *l, int file)
{
    uint64_t n = (uint64_t)l->nfiles, f = (uint64_t)file;
    uint64_t full = (uint64_t)l->slots / n, m = (uint64_t)l->slots % n;
    uint64_t blocks = m * l->bps; /* of the last round */
    uint64_t mine = blocks > f ? (blocks - f + n - 1) / n : 0;
    /* The end of its last block: where block p = f + (mine - 1) n would start
     * next, less what short blocks saved. */
    uint64_t end = mine ? f + mine * n : 0;
    return full * l->dstride + mine * l->block - (mine ? shrink_before(l, m, end) : 0);
}

uint64_t ebb_disk_file_bytes_upto(const ebb_disk_layout *l, int file, int32_t ready)
{
    uint64_t n = (uint64_t)l->nfiles, full = (uint64_t)l->slots / n;
    uint64_t rounds = ((uint64_t)(ready > 0 ? ready : 0) + n - 1) / n;
    if (ready >= l->slots || rounds > full)
        return ebb_disk_file_bytes(l, file);
    return rounds * l->dstride; /* a full round puts one dstride in each file */
}
