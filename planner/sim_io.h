/*
 * The planner's simulated io (sim_io.c) and the prediction of one strategy
 * by running the engine over it (predict.c).
 */
#ifndef EBB_PLANNER_SIM_IO_H
#define EBB_PLANNER_SIM_IO_H

#include "ebb/planner.h"
#include "runtime/io.h"

/* The disk's coming busy spans, kept for the steps they slow. */
enum { SIM_SPANS = 1024 };

/* A codec channel (problem.codec on the way to the disk, problem.host_codec
 * into the host tier's compressed slots): `threads` servers, each taking a
 * whole state first come first served. */
typedef struct sim_codec {
    const ebb_codec_rates *rates;
    int on;           /* states go through it */
    int threads;
    double free[256]; /* when each thread is free */
} sim_codec;

typedef struct sim_io {
    rt_io io; /* first: the engine sees an rt_io */
    const ebb_plan_problem *p;
    double now;                             /* the virtual clock */
    double free_at[EBB_PLAN_CHANNEL_COUNT]; /* the disk's two share free_at[HOST_TO_DISK] */
    double pace_next;                       /* the disk pacer's next allowed start */
    double span_start[SIM_SPANS], span_end[SIM_SPANS]; /* a ring, in time order */
    int span_head, span_count;
    sim_codec disk_codec; /* on: where rt_disk_compressed says so */
    sim_codec host_codec; /* on: problem.host_codec.ratio > 0 */
} sim_io;

void sim_io_init(sim_io *s, const ebb_plan_problem *p);

/* A step of `seconds` of compute from now: the clock advances by it, and
 * by step_slowdown times the part of it the disk is busy beside it. */
void sim_io_step(sim_io *s, double seconds);

/* Predicts strategy cs (not auto) for a checked problem: *out filled, fits 0
 * with why_not when it does not fit (EBB_OK all the same). */
ebb_status sim_predict(const ebb_plan_problem *p, ebb_config_strategy cs,
                       ebb_plan_prediction *out);

#endif
