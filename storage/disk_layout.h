/* Where a disk slot lives: the files of a disk pool and the striped layout
 * of slots over them. disk_layout.c computes, calls nothing; disk_create.c
 * fills both structs at creation. */
#ifndef EBB_STORAGE_DISK_LAYOUT_H
#define EBB_STORAGE_DISK_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

/* The pool's files, one per directory (drive). */
typedef struct ebb_disk_files {
    int *fds;
    char **names;           /* for messages: "<dir>/<unnamed O_TMPFILE>" or the unlinked name */
    int *file_direct;       /* per file: O_DIRECT on */
    uint64_t *file_bytes;   /* per file: preallocated size */
    int direct;             /* all files O_DIRECT */
    int node;               /* NUMA node near the first drive, -1 unknown */
    /* Files grouped by device (st_dev): each engine runs one ring, or one
     * set of workers, per group, placed near that device's NUMA node. */
    int ngroups;
    int *file_group;        /* per file: its group, 0 .. ngroups - 1 */
    int *group_node;        /* per group: NUMA node of its device, -1 unknown */
} ebb_disk_files;

/* The geometry of the layout. */
typedef struct ebb_disk_layout {
    int nfiles;
    size_t slot_size;       /* bytes of a state */
    int32_t slots;
    size_t align;           /* offsets and lengths are multiples of this */
    size_t block;           /* bytes per request */
    uint32_t bps;           /* blocks per slot */
    size_t dstride;         /* bytes a slot occupies on disk (its size rounded up to align) */
    int buffered;           /* no file takes direct I/O because the host slots are
                               not aligned for it (states below a page): a request's
                               length is its data's, not rounded up to align */
} ebb_disk_layout;

/* Where block `block` of `slot` lives and how long it is. */
typedef struct ebb_disk_loc {
    int file;
    uint64_t offset;
    size_t data_len;   /* bytes of the state in this block */
    size_t io_len;     /* data_len rounded up to the alignment (buffered: data_len) */
    size_t buf_offset; /* offset of the block within the slot */
} ebb_disk_loc;

/* The layout over n files (one per directory). Slots are taken n at a time
 * (a round); in a full round, block k of slot s goes to file (s + k) mod n,
 * so consecutive blocks of a slot land on different drives, and each file
 * receives one block of each index k: exactly one slot's bytes (dstride),
 * laid out by k. In the last round, of m < n slots, its blocks (slot by
 * slot, block by block) are dealt round-robin over the files and packed.
 * Nothing is padded beyond the alignment: the pool takes slots * dstride
 * bytes; a file holds full rounds * dstride plus at most
 * ceil(m * blocks per slot / n) blocks, never more than with whole blocks
 * dealt round-robin. One file is the same with n = 1. */
void ebb_disk_locate(const ebb_disk_layout *l, int32_t slot, uint32_t block, ebb_disk_loc *loc);
/* The same for an operation that moves only the first `bytes` bytes of the
 * slot (a compressed state; op.h `bytes`): its last block is cut there,
 * data_len what remains of `bytes` and io_len that rounded up to the
 * alignment. bytes = the slot's size gives ebb_disk_locate's answer. */
void ebb_disk_locate_bytes(const ebb_disk_layout *l, int32_t slot, uint32_t block, size_t bytes,
                           ebb_disk_loc *loc);
/* The bytes file `file` holds in that layout. */
uint64_t ebb_disk_file_bytes(const ebb_disk_layout *l, int file);
/* The bytes of file `file` that slots [0, ready) use (whole rounds; the
 * file's every byte once they reach into the last round). */
uint64_t ebb_disk_file_bytes_upto(const ebb_disk_layout *l, int file, int32_t ready);

#endif
