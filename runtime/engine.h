/*
 * The engine's narrow interface for what sits above it: the planner (which
 * runs the engine over simulated transfers), auto's choice, and the MPI
 * part. A run is created from rt_create_args: everything the configuration
 * decides is resolved into them first (run_config.c for a real run, the
 * planner from its problem), so that one setup (run_setup.c) serves both.
 */
#ifndef EBB_RUNTIME_ENGINE_H
#define EBB_RUNTIME_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "ebb/planner.h"
#include "ebb/runtime.h"
#include "runtime/agree.h"
#include "runtime/io.h"
#include "storage/fault.h"

/* What each tier offers a run: enabled, and the states its budget holds.
 * A budget that cannot be read limits no one: its error (status, message)
 * is raised where a strategy needs the tier. */
typedef struct rt_tiers {
    int enabled[EBB_TIER_COUNT];
    int32_t slots[EBB_TIER_COUNT];
    ebb_status status[EBB_TIER_COUNT];
    char why[EBB_TIER_COUNT][384];
} rt_tiers;

/* strategy "auto": what it is asked and what it answers */
typedef struct rt_auto_ask {
    const ebb_run_options *options;
    int fast, slow;            /* tiers (slow -1: none) */
    int32_t fast_slots, slow_slots;
    rt_agree *agree;           /* NULL: one process */
    int host_packed;           /* the fast tier is the host's, its slots compressed
                                  (tier.host.compression), fast_slots from the budget */
} rt_auto_ask;

typedef struct rt_auto_answer {
    ebb_config_strategy strategy;
    int32_t host_plain_slots;  /* > 0 (host_packed only): run the host slots uncompressed,
                                  this many, which the planner predicts faster */
    char reason[256];
    int measured; /* 1: channel[] holds the disk measured on the spot (h-revolve's costs) */
    ebb_plan_channel channel[EBB_PLAN_CHANNEL_COUNT];
} rt_auto_answer;

typedef ebb_status (*rt_auto_fn)(void *ctx, const rt_auto_ask *ask, rt_auto_answer *out);

typedef struct rt_create_args {
    ebb_run_options options;   /* strategy (an ebb_config_strategy) and audit resolved */
    const ebb_config *config;  /* the pools' options; NULL: ebb_pool_options_init's */
    rt_io *io;                 /* time and transfers */
    rt_tiers tiers;
    ebb_plan_problem costs;    /* h-revolve's costs: step times, channels, disk pace */
    int costs_known;           /* 1: costs.channel holds figures; 0: only a disk pace,
                                  a measured disk or auto's measurement gives the disk's */
    int disk_measured;         /* 1: costs.channel's disk channels were measured on the
                                  spot (h-revolve's costs when the slow tier is the disk) */
    rt_auto_fn choose;         /* "auto"; NULL: refused */
    void *choose_ctx;
    int planning;              /* the planner: h-revolve programmes beyond
                                  RT_H_BUDGET_ENTRIES do not fit */
    const ebb_storage_fault *fault; /* tests: the disk and host pools' injected faults, or NULL */
    rt_agree *agree;           /* other processes run the same schedule; NULL: none */
    const char *trace;         /* the timeline file, or NULL */
    int trace_named;           /* tests: its temporary file named, as where the file
                                  system refuses O_TMPFILE */
    int32_t trace_codec_spans; /* tests: codec spans kept per codec thread between the
                                  timeline's polls (0: RT_TRACE_CODEC_SPANS) */
} rt_create_args;

/* Creates a run (the agreement, if any, is the run's from then on). */
ebb_status rt_run_create(const rt_create_args *args, ebb_run **out);
/* Ends a run made by rt_run_create (ebb_run_destroy's work); NULL is a no-op. */
void rt_run_destroy(ebb_run *run);

/* The arguments of a real run: options and configuration resolved (the
 * strategy, audit and trace with their environment variables, the tiers'
 * budgets, h-revolve's disk pace); choose, fault and agree left NULL. */
ebb_status rt_args_from_config(const ebb_run_options *options, const ebb_config *config,
                               rt_create_args *out);

/* Each step's costs, n each (both NULL: none), named f_name and r_name in
 * the message: given together, every one finite and >= 0. The run's
 * options and the planner's problem check theirs with it. */
ebb_status rt_check_step_costs(const double *f, const double *r, int64_t n, const char *f_name,
                               const char *r_name);
/* Each state's size, x_0 .. x_n (NULL: none), named `name`: n known and at
 * most EBB_CHAIN_MAX_STEPS, each 1 .. state_size. The run's options and the
 * planner's problem check theirs with it. */
ebb_status rt_check_state_sizes(const size_t *sizes, int64_t n, size_t state_size,
                                const char *name);

/* The options' element type (when given), dims and shape laid over a
 * codec's options: the one overlay for the pools and for the sizing below. */
void rt_codec_for_state(ebb_codec_options *c, const ebb_run_options *options);
/* *out = a shallow copy of *config (read only: it owns nothing, valid while
 * *config is) whose tiers' compression has the element type and the shape
 * the options give, as the run sizes its slots and makes its pools. */
void rt_config_for_state(const ebb_config *config, const ebb_run_options *options,
                         ebb_config *out);

/* mpi/: the run's agreement and its hash of the actions (0 without one). */
rt_agree *ebb_run_agreement(const ebb_run *run);
uint64_t ebb_run_actions_hash(const ebb_run *run);

/* The period the schedule runs with (periodic, disk-revolve), else 0. */
int64_t rt_run_period(const ebb_run *run);

#endif
