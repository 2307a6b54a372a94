/* Faulting in, at creation, tables that a run with n known fills whole, so
 * that its sweeps pay no page fault per first use of a slot. */
#ifndef EBB_COMMON_POPULATE_H
#define EBB_COMMON_POPULATE_H

#include <stddef.h>

/* Faults in the whole pages inside [p, p + bytes) with one system call
 * (MADV_POPULATE_WRITE). Best effort: where the kernel lacks the advice or
 * refuses it, the pages are faulted in as they are first written, as
 * without it. Returns nothing: it cannot fail. */
void ebb_populate(void *p, size_t bytes);

#endif
