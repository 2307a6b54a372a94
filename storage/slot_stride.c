/* Slot sizing (ebb_slot_stride): what one slot of a tier takes for a state,
 * the rule that the pools, the configuration's slot counts and the Python
 * binding's budgets all ask. */
#include <stdint.h>
#include <unistd.h>

#include "storage/storage_internal.h"

/* The gpu tier's slots start on 256 bytes (cudaMalloc's alignment); the
 * disk's on the direct-I/O alignment. A host slot is a state rounded up to
 * EBB_HOST_SMALL_ALIGN (a cache line) while that stays below a page, so that
 * small states share pages (a 48-byte state takes 64 bytes, not 4 KiB, and
 * a sweep over many slots touches few pages); from a page on it is whole
 * pages, so that direct I/O reads and writes the slot in place. */
enum { GPU_SLOT_ALIGN = 256, DISK_SLOT_ALIGN = 4096 };

size_t ebb_host_page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p >= 4096 ? (size_t)p : 4096;
}

size_t ebb_slot_stride(ebb_tier tier, size_t state_bytes, int packed)
{
    size_t page = ebb_host_page_size();
    int small = state_bytes < page - (EBB_HOST_SMALL_ALIGN - 1);
    size_t align = tier == EBB_TIER_GPU                ? GPU_SLOT_ALIGN
                 : tier == EBB_TIER_HOST && packed     ? EBB_HOST_PACKED_ALIGN
                 : tier == EBB_TIER_HOST && small      ? EBB_HOST_SMALL_ALIGN
                 : tier == EBB_TIER_HOST               ? page
                 : tier == EBB_TIER_DISK               ? DISK_SLOT_ALIGN
                                                       : 0;
    if (align == 0)
        return 0;
    if (state_bytes > SIZE_MAX - (align - 1))
        return SIZE_MAX;
    return (state_bytes + align - 1) / align * align;
}
