/*
 * h-revolve's costs (ebb_schedule_options.write_cost, read_cost,
 * reverse_cost, in forward steps) from the step times and the bandwidths,
 * one rule for every run (run_setup.c), real or the planner's, so a run of
 * h-revolve that auto picked is the schedule the planner predicted.
 */
#ifndef EBB_RUNTIME_H_COSTS_H
#define EBB_RUNTIME_H_COSTS_H

#include <stdint.h>

#include "ebb/planner.h"

/* Where the costs came from. */
typedef enum rt_h_source {
    RT_H_NO_TIMES,   /* no forward step time: W = R = B = 1 */
    RT_H_NO_BANDWIDTH, /* step times, no bandwidth: W = R = 1, B from the times */
    RT_H_MEASURED    /* W, R from the channels, B from the times */
} rt_h_source;

typedef struct rt_h_costs {
    double write, read, reverse;
    rt_h_source source;
} rt_h_costs;

/* For a state moved between tiers fast and slow (fast < slow): each hop
 * (gpu <-> host, host <-> disk) takes state_size / bandwidth (0 = no time)
 * plus its latency, a disk hop no less than state_size / disk_pace; W and R
 * are the write and read times over forward_s, B = reverse_s / forward_s.
 * known = 0: the channels hold no figures (W = R = 1). forward_s <= 0: all 1. */
void rt_h_costs_of(const ebb_plan_problem *p, int fast, int slow, int known, rt_h_costs *out);

/* The disk channel of a problem, one rule for h-revolve's costs and the
 * planner's simulated disk: the rate of one direction (write = 1), the
 * lesser of its bandwidth and the pace (0: no limit), and whether states go
 * compressed (problem.codec: ebb_codec_pays on those rates, or codec_fixed). */
double rt_disk_bps(const ebb_plan_problem *p, int write);
int rt_disk_compressed(const ebb_plan_problem *p);

/* Disk slots taken from a budget are capped so that h-revolve's programme
 * ((C + D) x n entries) stays within RT_H_BUDGET_ENTRIES (a few seconds at
 * most, docs/runtime.md): D = min(d, n, RT_H_BUDGET_ENTRIES / n - C), >= 0.
 * Slots given explicitly are not capped (the programme's own limit holds). */
#define RT_H_BUDGET_ENTRIES ((int64_t)1 << 21)
int32_t rt_h_budget_disk_slots(int64_t n, int32_t c, int32_t d);

/* "from the step times and the disk's bandwidth" and the like, for reasons. */
const char *rt_h_source_text(rt_h_source source);

#endif
