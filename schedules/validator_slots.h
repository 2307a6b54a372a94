/* What the validator's slots of one tier hold (validator.c), in memory that
 * grows with the slots a stream names, not with how many it may name: a
 * dense array for the low slot numbers, grown on first use, and a hash map
 * above it, so that `--disk-slots 2147483647` costs nothing until used and a
 * stream naming slot 2000000000 costs one entry. */
#ifndef EBB_SCHEDULES_VALIDATOR_SLOTS_H
#define EBB_SCHEDULES_VALIDATOR_SLOTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct vslot_cell {
    int32_t slot;
    int64_t held;
} vslot_cell;

typedef struct vslots {
    int64_t *dense;      /* slots 0 .. dense_n - 1 (what each holds, or -1) */
    int32_t dense_n;
    int32_t capacity;    /* slots 0 .. capacity - 1 exist */
    vslot_cell **blocks; /* the sparse cells, in blocks that never move */
    size_t count;        /* sparse cells in use */
    size_t nblocks;
    uint32_t *table;     /* open addressing: cell index + 1, 0 empty */
    size_t table_size;   /* a power of two, or 0 */
} vslots;

/* Slots 0 .. capacity - 1, every one empty (-1). Allocates nothing. */
void vslots_init(vslots *s, int32_t capacity);

void vslots_free(vslots *s);

/* What slot `slot` (0 <= slot < capacity) holds, to read and write; the
 * pointer stays valid until vslots_free (dense: until the next call). NULL
 * when out of memory. */
int64_t *vslots_ref(vslots *s, int32_t slot);

#endif
