/*
 * The timeline: a Chrome trace-event JSON file (opens in Perfetto and
 * chrome://tracing) with one track for the compute thread (forward steps,
 * recomputations, reverse steps, stalls) and one per channel (gpu -> host,
 * host -> gpu, host -> disk, disk -> host) with every transfer.
 *
 * Events are written as they end, through stdio's buffer: a few hundred
 * bytes per step. A transfer's end is when the runtime saw it complete (it
 * looks at each step boundary), so it is late by at most one step.
 */
#ifndef EBB_RUNTIME_TRACE_H
#define EBB_RUNTIME_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "runtime/io.h"

enum {
    RT_TRACK_COMPUTE = 1,
    RT_TRACK_GPU_HOST,  /* gpu -> host */
    RT_TRACK_HOST_GPU,  /* host -> gpu */
    RT_TRACK_HOST_DISK, /* host -> disk */
    RT_TRACK_DISK_HOST, /* disk -> host */
    RT_TRACK_COUNT
};

typedef struct rt_open_transfer {
    rt_ticket ticket;
    double t0;
    int64_t step;
    int track;
} rt_open_transfer;

typedef struct rt_trace {
    FILE *f;
    rt_io *io;          /* tests the transfers' tickets */
    double t0;          /* the run's creation: time 0 of the file */
    int events;
    rt_open_transfer open[64];
    int nopen;
} rt_trace;

/* Opens `path` for writing (truncating it); EBB_ERR_IO naming the path. */
ebb_status rt_trace_open(rt_trace *t, rt_io *io, const char *path, double now);
/* Ends the JSON and closes the file (open transfers end now). */
ebb_status rt_trace_close(rt_trace *t, double now);

/* A compute event: name is "forward", "recompute", "reverse" or "stall". */
void rt_trace_span(rt_trace *t, const char *name, int64_t step, const char *detail, double t0,
                   double t1);
/* A transfer just started on `track` for state `step`. */
void rt_trace_transfer(rt_trace *t, int track, rt_ticket ticket, int64_t step, double now);
/* Ends the transfers that completed (all of them with force). */
void rt_trace_poll(rt_trace *t, double now, int force);
/* The track for a transfer from tier `from` to tier `to`, 0 if none. */
int rt_trace_track(int from, int to);

#endif
