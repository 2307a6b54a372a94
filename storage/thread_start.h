/* Starting one of ebb's worker threads: named by itself and running before
 * the start returns, so that a pool's creation, not its first operation,
 * pays for the thread's start (the C library's and a sanitizer's per-thread
 * setup), and top, gdb and the tests can tell ebb's threads from the first
 * instruction of their own code. */
#ifndef EBB_STORAGE_THREAD_START_H
#define EBB_STORAGE_THREAD_START_H

#include <pthread.h>

/* Creates a thread that sets its name to `name` (at most 15 bytes), then
 * runs fn(arg); returns once it runs. 0, or pthread_create's error. */
int ebb_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg, const char *name);

#endif
