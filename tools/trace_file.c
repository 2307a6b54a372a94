/* The timeline file of `ebb run --trace FILE` (trace_file.h). */
#include "tools/trace_file.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The named temporary file the signal handler removes ("" when none). */
static char pending[4096];
static volatile sig_atomic_t pending_set;
static const int caught[] = {SIGINT, SIGTERM, SIGHUP};

static void remove_pending(int sig)
{
    if (pending_set)
        unlink(pending);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void watch(const char *tmp)
{
    snprintf(pending, sizeof pending, "%s", tmp);
    pending_set = 1;
    for (size_t i = 0; i < sizeof caught / sizeof *caught; i++) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = remove_pending;
        sigemptyset(&sa.sa_mask);
        /* a signal the caller ignores stays ignored */
        if (sigaction(caught[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(caught[i], &sa, NULL);
    }
}

static void unwatch(void)
{
    pending_set = 0;
    for (size_t i = 0; i < sizeof caught / sizeof *caught; i++) {
        struct sigaction old;
        if (sigaction(caught[i], NULL, &old) == 0 && old.sa_handler == remove_pending)
            signal(caught[i], SIG_DFL);
    }
}

int trace_file_check(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "trace file '%s': %s", path, strerror(errno));
        return -1;
    }
    if (S_ISLNK(st.st_mode)) {
        snprintf(err, errlen, "trace file '%s' is a symbolic link; give the path of a regular "
                 "file (the timeline replaces FILE when the run ends and is never written "
                 "through a link)", path);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "trace file '%s' exists and is not a regular file; give the path "
                 "of a new or a regular file", path);
        return -1;
    }
    return 0;
}

/* Copies the pipe into fd until the runtime's end and ours are closed; after a
 * failed write it goes on draining the pipe, so that the runtime never blocks. */
static void *pump(void *arg)
{
    trace_file *t = arg;
    char buf[1 << 16];
    for (;;) {
        ssize_t n = read(t->pipe_r, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && !t->error)
            t->error = errno;
        if (n <= 0)
            return NULL;
        for (ssize_t done = 0; done < n && !t->error;) {
            ssize_t w = write(t->fd, buf + done, (size_t)(n - done));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                t->error = w < 0 ? errno : EIO;
            else
                done += w;
        }
        t->bytes += (uint64_t)n;
    }
}

/* The directory part of path ("." without one). */
static void dir_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, len, ".");
    else if (slash == path)
        snprintf(dir, len, "/");
    else
        snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

static mode_t file_mode(void)
{
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask; /* as fopen("w") creates it */
}

static void release(trace_file *t)
{
    if (t->pipe_w >= 0)
        close(t->pipe_w);
    t->pipe_w = -1;
    if (t->thread_started)
        pthread_join(t->thread, NULL);
    t->thread_started = 0;
    if (t->pipe_r >= 0)
        close(t->pipe_r);
    t->pipe_r = -1;
    if (t->tmp[0])
        unlink(t->tmp);
    t->tmp[0] = '\0';
    unwatch();
    if (t->fd >= 0)
        close(t->fd);
    t->fd = -1;
}

int trace_file_open(trace_file *t, const char *path, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->fd = t->pipe_r = t->pipe_w = -1;
    if (trace_file_check(path, err, errlen) != 0)
        return -1;
    if ((size_t)snprintf(t->path, sizeof t->path, "%s", path) >= sizeof t->path - 32) {
        snprintf(err, errlen, "trace file '%.64s...': the path is too long", path);
        return -1;
    }
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    const char *named = getenv("EBB_TEST_TRACE_NAMED"); /* tests: as without O_TMPFILE */
    if (named && *named)
        errno = EOPNOTSUPP;
    else
        t->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (t->fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
        snprintf(t->tmp, sizeof t->tmp, "%s.tmp.XXXXXX", path);
        /* O_CREAT | O_EXCL: never an existing file, nor through a link */
        t->fd = mkostemp(t->tmp, O_CLOEXEC);
        if (t->fd >= 0) {
            watch(t->tmp);
            (void)fchmod(t->fd, file_mode());
        } else {
            t->tmp[0] = '\0';
        }
    }
    if (t->fd < 0) {
        snprintf(err, errlen, "trace file '%s': cannot create a file in '%s': %s", path, dir,
                 strerror(errno));
        return -1;
    }
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "trace file '%s': cannot make a pipe: %s", path, strerror(errno));
        release(t);
        return -1;
    }
    t->pipe_r = p[0];
    t->pipe_w = p[1];
    snprintf(t->runtime_path, sizeof t->runtime_path, "/proc/self/fd/%d", t->pipe_w);
    if (access(t->runtime_path, W_OK) != 0) {
        snprintf(err, errlen, "trace file '%s': %s: %s (--trace needs /proc mounted)", path,
                 t->runtime_path, strerror(errno));
        release(t);
        return -1;
    }
    int e = pthread_create(&t->thread, NULL, pump, t);
    if (e != 0) {
        snprintf(err, errlen, "trace file '%s': cannot start its writer: %s", path, strerror(e));
        release(t);
        return -1;
    }
    t->thread_started = 1;
    return 0;
}

/* Names the unnamed file (linkat through /proc) beside FILE: 0 or errno. */
static int name_it(trace_file *t)
{
    if (t->tmp[0])
        return 0;
    char proc[64], tmp[sizeof t->tmp];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", t->fd);
    for (int i = 0; i < 100; i++) {
        int n = snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%d", t->path, (long)getpid(), i);
        if (n < 0 || (size_t)n >= sizeof tmp)
            return ENAMETOOLONG;
        if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0) {
            memcpy(t->tmp, tmp, sizeof tmp);
            return 0;
        }
        if (errno != EEXIST)
            return errno;
    }
    return EEXIST;
}

int trace_file_close(trace_file *t, int keep, char *err, size_t errlen)
{
    /* the runtime's end is closed: ours closed, the thread reads to the end */
    close(t->pipe_w);
    t->pipe_w = -1;
    if (t->thread_started)
        pthread_join(t->thread, NULL);
    t->thread_started = 0;
    if (!keep || t->bytes == 0 || t->error) {
        if (t->error)
            snprintf(err, errlen, "trace file '%s': %s (the timeline is not written; FILE is "
                     "as it was)", t->path, strerror(t->error));
        release(t);
        return t->error ? -1 : 0;
    }
    /* Named and renamed with the signals held, so that none leaves the name behind. */
    sigset_t hold, old;
    sigemptyset(&hold);
    for (size_t i = 0; i < sizeof caught / sizeof *caught; i++)
        sigaddset(&hold, caught[i]);
    pthread_sigmask(SIG_BLOCK, &hold, &old);
    int e = name_it(t);
    if (e == 0) { /* the last write's error, on file systems that report it late */
        int closed = close(t->fd);
        t->fd = -1;
        if (closed != 0)
            e = errno;
    }
    if (e == 0 && rename(t->tmp, t->path) != 0)
        e = errno;
    if (e == 0)
        t->tmp[0] = '\0';
    release(t);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (e != 0) {
        snprintf(err, errlen, "trace file '%s': %s (the timeline is not written; FILE is as it "
                 "was)", t->path, strerror(e));
        return -1;
    }
    return 0;
}
