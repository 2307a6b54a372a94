/*
 * Channel figures for the planner from a file `ebb bench --json` wrote
 * (`ebb plan --bench FILE`): reading it is the program's job; the library
 * takes the figures as numbers (ebb_plan_problem.channel).
 */
#ifndef EBB_TOOLS_BENCH_FILE_H
#define EBB_TOOLS_BENCH_FILE_H

#include "ebb/planner.h"

#include <stddef.h>

/* tiers.disk's write_GBps and read_GBps, tiers.gpu's d2h_GBps and h2d_GBps
 * into p's channels (those the file lacks keep their values). 0, or -1 with
 * `why` naming the file and saying what is wrong: it cannot be read, it is
 * not JSON (line and column), or it holds none of them. */
int bench_file_channels(ebb_plan_problem *p, const char *path, char *why, size_t len);

#endif
