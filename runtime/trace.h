/*
 * The timeline: a Chrome trace-event JSON file (opens in Perfetto and
 * chrome://tracing) with one track for the compute thread (forward steps,
 * recomputations, reverse steps, stalls) and one per channel (gpu -> host,
 * host -> gpu, host -> disk, disk -> host) with every transfer.
 *
 * Events are written as they end, through stdio's buffer: a few hundred
 * bytes per step. A transfer's end is when the runtime saw it complete (it
 * looks at each step boundary), so it is late by at most one step.
 *
 * Below them, a track per codec thread ("disk codec 0", "host codec 1", ...)
 * with each compression and decompression it ran. The codec threads never
 * write the file: they record their spans into rings made when the
 * timeline starts (storage/codec_trace.h), and poll takes them out, each
 * labelled with the step of the transfer whose ticket it served (the last
 * RT_TRACE_RECENT transfers are remembered). A span that found its ring
 * full is dropped and counted: the file ends with a metadata event
 * "codec_spans_dropped" saying how many (0 when none).
 *
 * The file at the path is either what it was or a complete timeline, never
 * a part of one: a symbolic link or anything but a regular file there is
 * refused (nothing is written through a link); the events go into a file
 * beside it, created unnamed (O_TMPFILE, which vanishes with the process if
 * it is killed) or, where the file system cannot, named PATH.tmp.PID.N with
 * O_CREAT | O_EXCL | O_NOFOLLOW, close-on-exec both, mode 0666 less the
 * umask as fopen("w") gives. When the reverse sweep ends the file is
 * completed, flushed, fsynced and renamed over the path; on a failed write,
 * or when the run is destroyed before its end, it is removed.
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

/* Codec spans kept per codec thread until a poll takes them (the default;
 * rt_create_args.trace_codec_spans), the transfers remembered to label
 * them with their step, and the codec pools traced (disk, host). */
enum { RT_TRACE_CODEC_SPANS = 1024, RT_TRACE_RECENT = 1024, RT_TRACE_CODEC_POOLS = 2 };

typedef struct rt_recent_transfer {
    rt_pool *pool;
    uint32_t index, generation; /* its ticket's */
    int64_t step;
} rt_recent_transfer;

typedef struct rt_codec_track {
    rt_pool *pool;
    int tier;          /* EBB_TIER_DISK or EBB_TIER_HOST */
    int32_t threads;   /* its codec threads: tracks tid .. tid + threads - 1 */
    int tid;
} rt_codec_track;

typedef struct rt_trace {
    FILE *f;            /* the file beside path; NULL: no timeline (or done) */
    char *path;         /* where the timeline goes */
    char *tmp;          /* the temporary file's name; "" while unnamed */
    int error;          /* errno of the first failed write, 0 */
    rt_io *io;          /* tests the transfers' tickets */
    double t0;          /* the run's creation: time 0 of the file */
    int events;
    rt_open_transfer open[64];
    int nopen;
    int64_t base_ns;    /* t0 in nanoseconds: the codec spans' time 0 */
    rt_codec_track codec[RT_TRACE_CODEC_POOLS];
    int ncodec;
    int next_tid;       /* the next codec track's id */
    uint64_t dropped;   /* codec spans dropped so far */
    uint64_t codec_events;
    rt_recent_transfer recent[RT_TRACE_RECENT]; /* a ring: the last transfers started */
    uint64_t nrecent;
    ebb_codec_span take[64]; /* spans taken at a time */
} rt_trace;

/* Creates the file beside `path` (named: the named way, as where O_TMPFILE
 * is refused; tests); EBB_ERR_IO naming the path and the errno text. rank
 * >= 0 (one of several processes): its own timeline, the rank inserted
 * before the file name's extension (trace.json -> trace.1.json; trace ->
 * trace.1), so that no process renames its file over another's. */
ebb_status rt_trace_open(rt_trace *t, rt_io *io, const char *path, int rank, int named,
                         double now);
/* Ends the JSON (open transfers end now) and renames the file over the
 * path; EBB_ERR_IO naming the path and the errno text (the file removed, the
 * path as it was). The trace is closed either way. */
ebb_status rt_trace_finish(rt_trace *t, double now);
/* Removes the file unfinished (the path as it was) and frees the trace. */
void rt_trace_discard(rt_trace *t);

/* A compute event: name is "forward", "recompute", "reverse" or "stall". */
void rt_trace_span(rt_trace *t, const char *name, int64_t step, const char *detail, double t0,
                   double t1);
/* A transfer just started on `track` for state `step` (track 0: none of
 * the tracks, as a compressed host slot's; remembered for its codec span). */
void rt_trace_transfer(rt_trace *t, int track, rt_ticket ticket, int64_t step, double now);
/* The codec threads of `pool` (a pool of tier `tier` with compression) get
 * their tracks, `capacity` spans each kept between polls (0: the default);
 * nothing for a pool without codec threads or an io without them.
 * EBB_ERR_NO_MEMORY (the trace is left as it was). */
ebb_status rt_trace_codec(rt_trace *t, rt_pool *pool, int tier, int32_t capacity);
/* Ends the transfers that completed (all of them with force), and writes
 * the codec spans recorded since the last poll. */
void rt_trace_poll(rt_trace *t, double now, int force);
/* The track for a transfer from tier `from` to tier `to`, 0 if none. */
int rt_trace_track(int from, int to);

#endif
