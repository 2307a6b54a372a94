/* A scratch directory for a test's files (the trace file tests): made
 * fresh, emptied and removed (a file system mounted on it detached first),
 * and a file written into it. Code in scratch_dir.c (ebb_test_support). */
#ifndef EBB_TESTS_SUPPORT_SCRATCH_DIR_H
#define EBB_TESTS_SUPPORT_SCRATCH_DIR_H

#include <stddef.h>

/* Makes /tmp/NAME-XXXXXX into dir (len bytes); fails the test if it cannot. */
void scratch_dir_make(char *dir, size_t len, const char *name);
/* Removes dir's files, detaches a mount on it, removes it. */
void scratch_dir_remove(const char *dir);
/* Writes `text` as the whole file `path`; fails the test if it cannot. */
void scratch_put(const char *path, const char *text);

#endif
