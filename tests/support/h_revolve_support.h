/* Helpers shared by the H-Revolve tests; code in h_revolve_support.c
 * (ebb_test_support). */
#ifndef EBB_TESTS_H_REVOLVE_SUPPORT_H
#define EBB_TESTS_H_REVOLVE_SUPPORT_H

/* The headers the H-Revolve tests have always had from here. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "ebb/ebb.h"
#include "schedules/h_revolve.h"
#include "schedules/stream_cost.h"

/* Deterministic generator, so a failure names a reproducible case. */
uint64_t hr_rand(uint64_t *state);

ebb_schedule_options hr_options(int64_t n, int32_t c, int32_t d);

/* H-Revolve as the registered strategy: disk writes and reads cost w and r,
 * a reverse step b. */
ebb_schedule_options hr_strategy(int64_t n, int32_t c, int32_t d, double w, double r, double b);

/* Disk writes and reads cost w and r, memory is free, a reverse step b. */
ebb_stream_costs hr_stream_costs(const ebb_schedule_options *o, double w, double r, double b);

/* Builds through the dispatcher (ebb_schedule_create), replays through the
 * validator (failing the test on any broken rule) and returns the stream's
 * cost; *predicted gets the programme's. */
double hr_cost(int64_t n, int32_t c, int32_t d, double w, double r, double b, double *predicted);

#endif
