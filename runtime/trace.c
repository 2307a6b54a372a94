/* The timeline file (see trace.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error_internal.h"
#include "runtime/trace.h"

static const char *const track_name[RT_TRACK_COUNT] = {
    [RT_TRACK_COMPUTE] = "compute",         [RT_TRACK_GPU_HOST] = "gpu -> host",
    [RT_TRACK_HOST_GPU] = "host -> gpu",    [RT_TRACK_HOST_DISK] = "host -> disk",
    [RT_TRACK_DISK_HOST] = "disk -> host"};

/* The directory part of path ("." without one) into a new string. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

/* The first failed write's errno, kept (errno alone is overwritten later). */
static void check(rt_trace *t)
{
    if (!t->error && ferror(t->f))
        t->error = errno ? errno : EIO;
}

static ebb_status refuse(rt_trace *t, const char *why, int e)
{
    ebb_status st = e ? ebb_fail(EBB_ERR_IO, "trace file '%s': %s: %s", t->path, why, strerror(e))
                      : ebb_fail(EBB_ERR_IO, "trace file '%s' %s", t->path, why);
    rt_trace_discard(t);
    return st;
}

/* The unnamed file in dir, or (named, or O_TMPFILE refused) a new named one
 * beside path: its descriptor, or -1 with errno. */
static int create_beside(rt_trace *t, const char *dir, int named, size_t tmp_len)
{
    if (!named) {
        int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
        if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
            return fd;
    }
    for (int i = 0; i < 100; i++) {
        snprintf(t->tmp, tmp_len, "%s.tmp.%ld.%d", t->path, (long)getpid(), i);
        /* O_EXCL | O_NOFOLLOW: never an existing file, nor through a link */
        int fd = open(t->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) {
            if (fd < 0)
                t->tmp[0] = '\0';
            return fd;
        }
    }
    t->tmp[0] = '\0';
    errno = EEXIST;
    return -1;
}

/* path, or (rank >= 0) path with ".rank" before its file name's extension
 * (a leading dot names the file: ".trace" has none); NULL without memory. */
static char *rank_path(const char *path, int rank)
{
    if (rank < 0)
        return strdup(path);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot != base ? (size_t)(dot - path) : strlen(path);
    size_t len = strlen(path) + 16;
    char *out = malloc(len);
    if (out)
        snprintf(out, len, "%.*s.%d%s", (int)stem, path, rank, path + stem);
    return out;
}

ebb_status rt_trace_open(rt_trace *t, rt_io *io, const char *given, int rank, int named,
                         double now)
{
    memset(t, 0, sizeof *t);
    t->io = io;
    t->path = rank_path(given, rank);
    const char *path = t->path ? t->path : given;
    size_t tmp_len = strlen(path) + 48;
    t->tmp = calloc(1, tmp_len);
    char *dir = dir_of(path);
    if (!t->path || !t->tmp || !dir) {
        free(dir);
        rt_trace_discard(t);
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the trace file's name");
    }
    struct stat st;
    int exists = lstat(path, &st) == 0;
    if ((exists && S_ISLNK(st.st_mode)) || (exists && !S_ISREG(st.st_mode))) {
        free(dir);
        return refuse(t, S_ISLNK(st.st_mode)
                             ? "is a symbolic link; give the path of a regular file (the "
                               "timeline replaces the file when the run ends and is never "
                               "written through a link)"
                             : "exists and is not a regular file; give the path of a new or a "
                               "regular file", 0);
    }
    int fd = create_beside(t, dir, named, tmp_len);
    if (fd < 0) {
        int e = errno;
        char why[4200];
        snprintf(why, sizeof why, "cannot create a file in '%s' (give a path in a writable "
                 "directory)", dir);
        free(dir);
        return refuse(t, why, e);
    }
    free(dir);
    if (!(t->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        return refuse(t, "cannot open a stream on it", e);
    }
    t->t0 = now;
    t->base_ns = llround(now * 1e9);
    t->next_tid = RT_TRACK_COUNT;
    fprintf(t->f, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n");
    fprintf(t->f, "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 1, "
                  "\"args\": {\"name\": \"ebb\"}}");
    for (int k = 1; k < RT_TRACK_COUNT; k++)
        fprintf(t->f, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %d, "
                      "\"args\": {\"name\": \"%s\"}}",
                k, track_name[k]);
    check(t);
    return EBB_OK;
}

static void event(rt_trace *t, int track, const char *name, int64_t step, const char *detail,
                  double t0, double t1)
{
    if (t->error) /* the timeline is lost already (a full disk): no more writes */
        return;
    double ts = (t0 - t->t0) * 1e6, dur = (t1 - t0) * 1e6;
    fprintf(t->f,
            ",\n{\"name\": \"%s\", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": 1, \"tid\": %d, "
            "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"step\": %lld%s%s%s}}",
            name, track == RT_TRACK_COMPUTE ? "compute" : "transfer", track, ts,
            dur > 0 ? dur : 0, (long long)step, detail ? ", \"detail\": \"" : "",
            detail ? detail : "", detail ? "\"" : "");
    check(t);
    t->events++;
}

void rt_trace_span(rt_trace *t, const char *name, int64_t step, const char *detail, double t0,
                   double t1)
{
    if (t->f)
        event(t, RT_TRACK_COMPUTE, name, step, detail, t0, t1);
}

ebb_status rt_trace_codec(rt_trace *t, rt_pool *pool, int tier, int32_t capacity)
{
    if (!t->f || !pool || !t->io->ops->codec_trace || t->ncodec == RT_TRACE_CODEC_POOLS)
        return EBB_OK;
    int32_t threads = 0;
    ebb_status st = t->io->ops->codec_trace(
        t->io, pool, capacity > 0 ? capacity : RT_TRACE_CODEC_SPANS, &threads);
    if (st != EBB_OK)
        return ebb_fail_context(st, "the timeline's codec spans");
    if (threads <= 0)
        return EBB_OK;
    rt_codec_track *c = &t->codec[t->ncodec++];
    *c = (rt_codec_track){pool, tier, threads, t->next_tid};
    t->next_tid += threads;
    for (int32_t i = 0; i < threads && !t->error; i++)
        fprintf(t->f, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %d, "
                      "\"args\": {\"name\": \"%s codec %d\"}}",
                c->tid + i, ebb_tier_name((ebb_tier)tier), (int)i);
    check(t);
    return EBB_OK;
}

/* The step of the transfer whose ticket a codec span served, -1 if it is
 * not remembered (more transfers started since than RT_TRACE_RECENT). */
static int64_t step_of(const rt_trace *t, rt_pool *pool, const ebb_codec_span *sp)
{
    uint64_t n = t->nrecent < RT_TRACE_RECENT ? t->nrecent : RT_TRACE_RECENT;
    for (uint64_t i = 1; i <= n; i++) { /* the newest first */
        const rt_recent_transfer *r = &t->recent[(t->nrecent - i) % RT_TRACE_RECENT];
        if (r->pool == pool && r->index == (uint32_t)sp->slot && r->generation == sp->generation)
            return r->step;
    }
    return -1;
}

static void codec_event(rt_trace *t, const rt_codec_track *c, int32_t thread,
                        const ebb_codec_span *sp)
{
    if (t->error)
        return;
    /* whole nanoseconds from time 0: one thread's spans, in order, do not
     * overlap in the file either */
    double ts = (double)((int64_t)sp->t0_ns - t->base_ns) / 1e3;
    double dur = (double)(sp->t1_ns - sp->t0_ns) / 1e3;
    fprintf(t->f,
            ",\n{\"name\": \"%s\", \"cat\": \"codec\", \"ph\": \"X\", \"pid\": 1, \"tid\": %d, "
            "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"step\": %lld, \"tier\": \"%s\", "
            "\"state_bytes\": %llu, \"compressed_bytes\": %llu%s%s}}",
            sp->compress ? "compress" : "decompress", c->tid + thread, ts, dur,
            (long long)step_of(t, c->pool, sp), ebb_tier_name((ebb_tier)c->tier),
            (unsigned long long)sp->state_bytes, (unsigned long long)sp->coded_bytes,
            sp->raw ? ", \"stored\": \"raw\"" : "", sp->failed ? ", \"failed\": true" : "");
    check(t);
    t->events++;
    t->codec_events++;
}

/* Writes the spans every codec thread recorded since the last poll. */
static void take_codec_spans(rt_trace *t)
{
    const int32_t max = (int32_t)(sizeof t->take / sizeof *t->take);
    for (int k = 0; k < t->ncodec; k++) {
        const rt_codec_track *c = &t->codec[k];
        for (int32_t i = 0; i < c->threads; i++) {
            int32_t n = max;
            while (n == max) {
                uint64_t dropped = 0;
                if (t->io->ops->codec_spans(t->io, c->pool, i, t->take, max, &n, &dropped) !=
                    EBB_OK)
                    break; /* not expected: the pool and the thread are the trace's own */
                t->dropped += dropped;
                for (int32_t j = 0; j < n; j++)
                    codec_event(t, c, i, &t->take[j]);
            }
        }
    }
}

void rt_trace_poll(rt_trace *t, double now, int force)
{
    take_codec_spans(t);
    int w = 0;
    for (int i = 0; i < t->nopen; i++) {
        rt_open_transfer *o = &t->open[i];
        int done = 1;
        if (!force)
            (void)t->io->ops->test(t->io, &o->ticket, &done); /* its failure is reported elsewhere */
        if (done)
            event(t, o->track, track_name[o->track], o->step, NULL, o->t0, now);
        else
            t->open[w++] = *o;
    }
    t->nopen = w;
}

void rt_trace_transfer(rt_trace *t, int track, rt_ticket ticket, int64_t step, double now)
{
    if (!t->f)
        return;
    if (ticket.pool && t->ncodec > 0) /* its codec spans' step */
        t->recent[t->nrecent++ % RT_TRACE_RECENT] =
            (rt_recent_transfer){ticket.pool, ticket.index, ticket.generation, step};
    if (track <= 0)
        return;
    if (!ticket.pool) { /* complete already (a memcpy) */
        event(t, track, track_name[track], step, NULL, now, now);
        return;
    }
    if (t->nopen == (int)(sizeof t->open / sizeof *t->open))
        rt_trace_poll(t, now, 0);
    if (t->nopen == (int)(sizeof t->open / sizeof *t->open))
        return; /* more in flight than tracked: this one is left out */
    t->open[t->nopen++] = (rt_open_transfer){ticket, now, step, track};
}

int rt_trace_track(int from, int to)
{
    if (from == EBB_TIER_GPU && to == EBB_TIER_HOST)
        return RT_TRACK_GPU_HOST;
    if (from == EBB_TIER_HOST && to == EBB_TIER_GPU)
        return RT_TRACK_HOST_GPU;
    if (from == EBB_TIER_HOST && to == EBB_TIER_DISK)
        return RT_TRACK_HOST_DISK;
    if (from == EBB_TIER_DISK && to == EBB_TIER_HOST)
        return RT_TRACK_DISK_HOST;
    return 0;
}

/* Gives the unnamed file a name beside the path (linkat through /proc):
 * 0 or errno. */
static int name_it(rt_trace *t, int fd, size_t tmp_len)
{
    if (t->tmp[0])
        return 0;
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    for (int i = 0; i < 100; i++) {
        snprintf(t->tmp, tmp_len, "%s.tmp.%ld.%d", t->path, (long)getpid(), i);
        if (linkat(AT_FDCWD, proc, AT_FDCWD, t->tmp, AT_SYMLINK_FOLLOW) == 0)
            return 0;
        if (errno != EEXIST)
            break;
    }
    int e = errno;
    t->tmp[0] = '\0';
    return e;
}

ebb_status rt_trace_finish(rt_trace *t, double now)
{
    if (!t->f)
        return EBB_OK;
    rt_trace_poll(t, now, 1);
    if (t->ncodec > 0 && !t->error) /* and those that found their ring full */
        fprintf(t->f, ",\n{\"name\": \"codec_spans_dropped\", \"ph\": \"M\", \"pid\": 1, "
                      "\"tid\": %d, \"args\": {\"dropped\": %llu, \"written\": %llu}}",
                RT_TRACK_COMPUTE, (unsigned long long)t->dropped,
                (unsigned long long)t->codec_events);
    fprintf(t->f, "\n]}\n");
    check(t);
    int e = t->error;
    if (!e && fflush(t->f) != 0)
        e = errno;
    int fd = fileno(t->f);
    if (!e && fsync(fd) != 0 && errno != EINVAL) /* EINVAL: a file that cannot sync */
        e = errno;
    if (!e)
        e = name_it(t, fd, strlen(t->path) + 48);
    if (!e && rename(t->tmp, t->path) != 0)
        e = errno;
    if (!e)
        t->tmp[0] = '\0'; /* it is the path now */
    char *path = t->path;
    t->path = NULL;
    rt_trace_discard(t);
    ebb_status st = e ? ebb_fail(EBB_ERR_IO, "trace file '%s': %s (the timeline is not written; "
                                             "the file is as it was)", path, strerror(e))
                      : EBB_OK;
    free(path);
    return st;
}

void rt_trace_discard(rt_trace *t)
{
    if (t->f)
        fclose(t->f); /* an unnamed file vanishes here */
    t->f = NULL;
    if (t->tmp && t->tmp[0])
        unlink(t->tmp);
    free(t->tmp);
    free(t->path);
    t->tmp = t->path = NULL;
}
