/* See populate.h. */
#include "common/populate.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

void ebb_populate(void *p, size_t bytes)
{
    long page = sysconf(_SC_PAGESIZE);
    if (!p || page <= 0)
        return;
    /* whole pages only: a page shared with another allocation is not ours
     * to advise (populating is harmless there, but the range must be aligned) */
    uintptr_t lo = ((uintptr_t)p + (uintptr_t)page - 1) / (uintptr_t)page * (uintptr_t)page;
    uintptr_t hi = ((uintptr_t)p + bytes) / (uintptr_t)page * (uintptr_t)page;
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
}
