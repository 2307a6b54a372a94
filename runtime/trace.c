/* The timeline file (see trace.h). */
#include <errno.h>
#include <string.h>

#include "common/error_internal.h"
#include "runtime/trace.h"

static const char *const track_name[RT_TRACK_COUNT] = {
    [RT_TRACK_COMPUTE] = "compute",         [RT_TRACK_GPU_HOST] = "gpu -> host",
    [RT_TRACK_HOST_GPU] = "host -> gpu",    [RT_TRACK_HOST_DISK] = "host -> disk",
    [RT_TRACK_DISK_HOST] = "disk -> host"};

ebb_status rt_trace_open(rt_trace *t, rt_io *io, const char *path, double now)
{
    memset(t, 0, sizeof *t);
    t->io = io;
    t->f = fopen(path, "w");
    if (!t->f)
        return ebb_fail(EBB_ERR_IO, "trace file '%s': %s (set run.trace, EBB_TRACE or "
                                    "ebb_run_options.trace to a writable path)",
                        path, strerror(errno));
    t->t0 = now;
    fprintf(t->f, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n");
    fprintf(t->f, "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 1, "
                  "\"args\": {\"name\": \"ebb\"}}");
    for (int k = 1; k < RT_TRACK_COUNT; k++)
        fprintf(t->f, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %d, "
                      "\"args\": {\"name\": \"%s\"}}",
                k, track_name[k]);
    return EBB_OK;
}

static void event(rt_trace *t, int track, const char *name, int64_t step, const char *detail,
                  double t0, double t1)
{
    double ts = (t0 - t->t0) * 1e6, dur = (t1 - t0) * 1e6;
    fprintf(t->f,
            ",\n{\"name\": \"%s\", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": 1, \"tid\": %d, "
            "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"step\": %lld%s%s%s}}",
            name, track == RT_TRACK_COMPUTE ? "compute" : "transfer", track, ts,
            dur > 0 ? dur : 0, (long long)step, detail ? ", \"detail\": \"" : "",
            detail ? detail : "", detail ? "\"" : "");
    t->events++;
}

void rt_trace_span(rt_trace *t, const char *name, int64_t step, const char *detail, double t0,
                   double t1)
{
    if (t->f)
        event(t, RT_TRACK_COMPUTE, name, step, detail, t0, t1);
}

void rt_trace_poll(rt_trace *t, double now, int force)
{
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
    if (!t->f || track <= 0)
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

ebb_status rt_trace_close(rt_trace *t, double now)
{
    if (!t->f)
        return EBB_OK;
    rt_trace_poll(t, now, 1);
    fprintf(t->f, "\n]}\n");
    int bad = ferror(t->f);
    int e = errno;
    if (fclose(t->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    t->f = NULL;
    if (bad)
        return ebb_fail(EBB_ERR_IO, "writing the trace file: %s", strerror(e));
    return EBB_OK;
}
