/* The timeline file of `ebb run --trace FILE`, written so that FILE is
 * either what it was before or a complete timeline, never a part of one:
 *
 * - FILE must be absent or a regular file (a symbolic link is refused, so
 *   that nothing is written through one);
 * - the runtime writes into a pipe (it opens /proc/self/fd/N), and a thread
 *   copies that into a file beside FILE, created unnamed (O_TMPFILE) or,
 *   where the file system cannot, named FILE.tmp.XXXXXX with O_EXCL,
 *   close-on-exec both; every write is checked;
 * - when the run ends with nothing failed, the file gets a name and is
 *   renamed over FILE (which replaces a link planted meanwhile rather than
 *   following it); otherwise it is removed and the error names FILE and the
 *   errno text. SIGINT, SIGTERM or SIGHUP meanwhile leaves FILE as it was:
 *   an unnamed file vanishes with the process, a named one is removed by a
 *   handler that then dies of the same signal.
 *
 * Tests set EBB_TEST_TRACE_NAMED=1 to take the named file's way anywhere. */
#ifndef EBB_TOOLS_TRACE_FILE_H
#define EBB_TOOLS_TRACE_FILE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef struct trace_file {
    char path[4096];        /* FILE */
    char tmp[4096];         /* the named temporary file, "" while unnamed */
    char runtime_path[64];  /* what the runtime opens: /proc/self/fd/N */
    int fd;                 /* the file beside FILE, -1 when none */
    int pipe_r, pipe_w;
    pthread_t thread;
    int thread_started;
    uint64_t bytes;         /* copied into fd */
    int error;              /* errno of the first failed read or write, 0 */
} trace_file;

/* 0 when FILE may be written (absent, or a regular file); -1 with the reason
 * in err otherwise. */
int trace_file_check(const char *path, char *err, size_t errlen);

/* Creates the file beside `path` and the pipe into it: 0, t->runtime_path
 * to hand to the runtime; -1 with the reason in err. */
int trace_file_open(trace_file *t, const char *path, char *err, size_t errlen);

/* After the runtime closed its end (ebb_run_destroy): with keep and a
 * timeline written, renames the file over FILE; otherwise removes it. 0,
 * or -1 with the reason (FILE, the errno text) in err, FILE untouched. */
int trace_file_close(trace_file *t, int keep, char *err, size_t errlen);

#endif
