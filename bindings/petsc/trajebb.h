/*
 * The "ebb" TSTrajectory's private data, shared by its files:
 * trajebb.c (PETSc's ops table: set, get, view, reset, destroy),
 * options.c (the options database onto ebb's configuration),
 * step.c (the state's layout and the TSStep that recomputes a step).
 */
#ifndef EBB_PETSC_TRAJEBB_H
#define EBB_PETSC_TRAJEBB_H

#include <petsc/private/tsimpl.h>

#include <ebb/ebb.h>

/* Each state ebb keeps is this header followed by the rank's part of the
 * solution Vec: the step, its time, the time before it and the time step
 * TS proposes from it (adaptive or not), so that a TSStep from a restored
 * state takes the same steps as the forward sweep did. */
typedef struct ebbpetsc_header {
    int64_t step;
    PetscReal time;
    PetscReal time_prev;
    PetscReal time_step;
} ebbpetsc_header;

/* What the options asked for; applied when a forward sweep starts. */
typedef struct ebbpetsc_options {
    char config[PETSC_MAX_PATH_LEN];  /* -ts_trajectory_ebb_config, "" = none */
    char disk_path[PETSC_MAX_PATH_LEN];
    char trace[PETSC_MAX_PATH_LEN];
    char host_budget[64];             /* "" = the configuration's */
    char disk_budget[64];             /* "" = the configuration's */
    int strategy;                     /* an ebb_strategy; EBB_STRATEGY_FROM_CONFIG (-1) = the
                                         configuration's */
    int audit;                        /* -1 = the configuration's */
    PetscInt steps;                   /* 0 = unknown */
    PetscInt slots, slow_slots;       /* 0 = from the budgets */
    PetscInt error_samples;           /* -1 = the configuration's, 0 = off */
    PetscInt measure_costs;           /* 1: online plans its reverse sweep from the steps'
                                         measured times */
} ebbpetsc_options;

typedef enum ebbpetsc_phase {
    EBBPETSC_IDLE = 0,  /* no sweep */
    EBBPETSC_FORWARD,   /* TSSolve is pushing states */
    EBBPETSC_PUSHED,    /* the forward sweep ended */
    EBBPETSC_REVERSE,   /* TSAdjointSolve is getting states */
    EBBPETSC_DONE       /* x_0 was handed back */
} ebbpetsc_phase;

/* What -ts_trajectory_view prints once the run is gone (it is freed, with
 * its memory and files, when the reverse sweep ends). */
typedef struct ebbpetsc_summary {
    int valid;
    char strategy[32];
    char reason[256];
    char warnings[1024];
    ebb_run_info info;
    ebb_run_stats stats;
} ebbpetsc_summary;

typedef struct TSTrajectory_Ebb {
    ebbpetsc_options opt;
    ebb_config config;           /* built from opt when a sweep starts */
    int config_ready;
    ebb_run *run;
    TS ts;                       /* the TS the forward callback steps */
    ebbpetsc_phase phase;
    size_t local_bytes;          /* this rank's part of the solution */
    size_t state_size;           /* header + local_bytes */
    unsigned char *buffer;       /* one state, assembled for ebb_run_begin / push */
    PetscReal *times;            /* t_k of the forward sweep, k = 0 .. pushed */
    PetscInt times_cap;
    PetscInt pushed;             /* states pushed: x_1 .. x_pushed */
    PetscInt taken;              /* the last step TSSolve set (past -ts_trajectory_ebb_steps:
                                    counted, not pushed) */
    PetscInt next_get;           /* the step TSAdjointSolve must ask for next */
    const unsigned char *held;   /* the state pulled last (ebb's buffer) */
    int64_t held_step;
    PetscInt stage_steps;        /* TSSteps run to rebuild the stages in Get */
    ebbpetsc_summary summary;
} TSTrajectory_Ebb;

/* options.c */
PETSC_INTERN PetscErrorCode EbbPetscSetFromOptions(TSTrajectory tj, PetscOptionItems *items);
PETSC_INTERN PetscErrorCode EbbPetscBuildConfig(TSTrajectory tj, TSTrajectory_Ebb *e);
PETSC_INTERN void EbbPetscOptionsInit(ebbpetsc_options *opt);

/* step.c */
PETSC_INTERN void EbbPetscPack(TSTrajectory_Ebb *e, const ebbpetsc_header *h, const PetscScalar *x,
                               unsigned char *state);
PETSC_INTERN PetscErrorCode EbbPetscLoad(TS ts, const unsigned char *state, size_t local_bytes);
PETSC_INTERN PetscErrorCode EbbPetscStepFrom(TSTrajectory_Ebb *e, const unsigned char *state,
                                             int64_t step, char *why, size_t why_size);
PETSC_INTERN int EbbPetscForward(void *user, int64_t step, const void *in, void *out);

#endif
