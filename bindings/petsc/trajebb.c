/*
 * TSTrajectory type "ebb": PETSc's ops table onto ebb's push and pull forms
 * (docs/runtime.md, "When your framework owns the loop"; docs/petsc.md).
 *
 * TSSolve calls Set(0) with x_0 (a new sweep: ebb_run_begin) and Set(k)
 * after each step (ebb_run_push of x_k with its time and time step); the
 * Set after which TS has a converged reason ends the forward sweep.
 * TSAdjointSolve calls Get(n), Get(n-1), .., Get(1), Get(0): Get(k) pulls
 * x_{k-1} (ebb_run_reverse_next, which restores or recomputes it with
 * EbbPetscForward) and repeats step k-1 with TSStep, so that TS holds the
 * stages TSAdjointStep reads, x_k, the time t_k and the step t_{k-1} - t_k,
 * as PETSc's "memory" type leaves them; Get(0) gives x_0 and ends the sweep.
 */
#include <string.h>

#include <ebb/mpi.h>
#include <ebb/petsc.h>

#include "bindings/petsc/trajebb.h"

static PetscErrorCode Fail(TSTrajectory tj, const char *what)
{
    SETERRQ(PetscObjectComm((PetscObject)tj), PETSC_ERR_LIB, "ebb trajectory: %s: %s", what,
            ebb_last_error());
}

/* PETSc's own counters, for the lines TSTrajectoryView prints itself. */
static void Count(TSTrajectory tj, TSTrajectory_Ebb *e, const ebb_run_stats *s)
{
    tj->recomps = (PetscInt)(s->recomputed_steps + e->stage_steps);
    tj->diskreads = (PetscInt)s->restores[EBB_TIER_DISK];
    tj->diskwrites = (PetscInt)s->stores[EBB_TIER_DISK];
}

static PetscErrorCode EndRun(TSTrajectory tj, TSTrajectory_Ebb *e)
{
    ebbpetsc_summary *sum = &((TSTrajectory_Ebb *)tj->data)->summary;

    PetscFunctionBegin;
    if (e->run) {
        ebb_run_info info;
        if (ebb_run_info_get(e->run, &info) == EBB_OK &&
            ebb_run_stats_get(e->run, &sum->stats) == EBB_OK) {
            sum->info = info;
            PetscCall(PetscStrncpy(sum->strategy, info.strategy_name, sizeof sum->strategy));
            PetscCall(PetscStrncpy(sum->reason, info.reason ? info.reason : "", sizeof sum->reason));
            sum->info.strategy_name = sum->strategy;
            sum->info.reason = sum->reason;
            PetscCall(PetscStrncpy(sum->warnings, info.warnings ? info.warnings : "",
                                   sizeof sum->warnings));
            sum->info.warnings = sum->warnings;
            sum->valid = 1;
            Count(tj, e, &sum->stats);
        }
        ebb_run_destroy(e->run);
        e->run = NULL;
    }
    PetscCall(PetscFree(e->buffer));
    PetscCall(PetscFree(e->times));
    e->times_cap = 0;
    e->held = NULL;
    e->held_step = -1;
    e->phase = EBBPETSC_IDLE;
    PetscFunctionReturn(0);
}

static PetscErrorCode RecordTime(TSTrajectory_Ebb *e, PetscInt step, PetscReal time)
{
    PetscFunctionBegin;
    if (step >= e->times_cap) {
        PetscInt cap = e->times_cap ? 2 * e->times_cap : 1024;
        while (cap <= step)
            cap *= 2;
        PetscCall(PetscRealloc(sizeof(PetscReal) * (size_t)cap, &e->times));
        e->times_cap = cap;
    }
    e->times[step] = time;
    PetscFunctionReturn(0);
}

/* Packs x with its header into e->buffer. */
static PetscErrorCode Assemble(TSTrajectory_Ebb *e, Vec X, const ebbpetsc_header *h)
{
    const PetscScalar *x;

    PetscFunctionBegin;
    PetscCall(VecGetArrayRead(X, &x));
    EbbPetscPack(e, h, x, e->buffer);
    PetscCall(VecRestoreArrayRead(X, &x));
    PetscFunctionReturn(0);
}

/* A strategy that needs n, with n unknown: the option to set, and the
 * strategies that take n unknown. */
static PetscErrorCode NeedsSteps(TSTrajectory_Ebb *e, MPI_Comm comm)
{
    ebb_strategy s = e->opt.strategy >= 0 ? (ebb_strategy)e->opt.strategy : e->config.strategy;
    char from[PETSC_MAX_PATH_LEN + 64] = "-ts_trajectory_ebb_strategy";

    PetscFunctionBegin;
    if (e->opt.steps > 0 || s == EBB_STRATEGY_AUTO || s == EBB_STRATEGY_ONLINE ||
        s == EBB_STRATEGY_ASYNC)
        PetscFunctionReturn(0);
    if (e->opt.strategy < 0 && e->config.source && e->config.line[EBB_KEY_RUN_STRATEGY] > 0)
        PetscCall(PetscSNPrintf(from, sizeof from, "run.strategy in %s:%d", e->config.source,
                                (int)e->config.line[EBB_KEY_RUN_STRATEGY]));
    else if (e->opt.strategy < 0)
        PetscCall(PetscStrncpy(from, "run.strategy of the configuration", sizeof from));
    SETERRQ(comm, PETSC_ERR_USER,
            "ebb trajectory: strategy %s (%s) needs the number of steps, but n is unknown "
            "(-ts_trajectory_ebb_steps 0, the default): set -ts_trajectory_ebb_steps to the "
            "number of steps TSSolve takes, or choose a strategy that takes n unknown "
            "(-ts_trajectory_ebb_strategy online, async or auto)",
            ebb_strategy_name(s), from);
}

static PetscErrorCode StartSweep(TSTrajectory tj, TSTrajectory_Ebb *e, TS ts, PetscReal time, Vec X)
{
    MPI_Comm comm = PetscObjectComm((PetscObject)ts);
    PetscInt nlocal;

    PetscFunctionBegin;
    PetscCall(EndRun(tj, e));
    e->summary.valid = 0;
    e->stage_steps = 0;
    if (!e->config_ready)
        PetscCall(EbbPetscBuildConfig(tj, e));
    PetscCall(NeedsSteps(e, comm));
    PetscCall(VecGetLocalSize(X, &nlocal));
    e->local_bytes = (size_t)nlocal * sizeof(PetscScalar);
    e->state_size = sizeof(ebbpetsc_header) + e->local_bytes;
    PetscCheck(ebb_config_check(&e->config, e->state_size) == EBB_OK, comm, PETSC_ERR_USER,
               "ebb trajectory: the configuration (-ts_trajectory_ebb_config, _host_budget, "
               "_disk_path) cannot hold states of %zu bytes: %s",
               e->state_size, ebb_last_error());
    PetscCall(PetscMalloc(e->state_size, &e->buffer));

    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = e->state_size;
    o.forward = EbbPetscForward;
    o.user = e;
    o.steps = (int64_t)e->opt.steps;
    o.config = &e->config;
    o.strategy = (ebb_strategy)e->opt.strategy;
    o.slots = (int32_t)e->opt.slots;
    o.slow_slots = (int32_t)e->opt.slow_slots;
    o.audit = e->opt.audit;
    o.error_samples = (int32_t)e->opt.error_samples;
    o.measure_costs = (int)e->opt.measure_costs;
    /* on several ranks ebb writes one timeline per rank (docs/petsc.md) */
    o.trace = e->opt.trace[0] ? e->opt.trace : NULL;
    e->ts = ts;
    if (ebb_mpi_run_create(&o, comm, &e->run) != EBB_OK)
        PetscCall(Fail(tj, "cannot start the forward sweep (-ts_trajectory_ebb_* options)"));

    ebbpetsc_header h = {0, time, time, ts->time_step};
    PetscCall(Assemble(e, X, &h));
    PetscCall(RecordTime(e, 0, time));
    e->pushed = 0;
    e->taken = 0;
    e->next_get = -1;
    if (ebb_run_begin(e->run, e->buffer) != EBB_OK)
        PetscCall(Fail(tj, "x_0"));
    e->phase = EBBPETSC_FORWARD;
    PetscFunctionReturn(0);
}

static PetscErrorCode FinishForward(TSTrajectory tj, TSTrajectory_Ebb *e)
{
    PetscFunctionBegin;
    PetscCheck(e->opt.steps == 0 || e->taken == e->opt.steps, PetscObjectComm((PetscObject)tj),
               PETSC_ERR_USER,
               "ebb trajectory: -ts_trajectory_ebb_steps is %" PetscInt_FMT
               ", but TSSolve took %" PetscInt_FMT " steps: set -ts_trajectory_ebb_steps %"
               PetscInt_FMT " (the number of steps TSSolve takes), or 0 when it is not known "
               "before (strategies online, async and auto)",
               e->opt.steps, e->taken, e->taken);
    if (ebb_run_finish_forward(e->run, NULL) != EBB_OK)
        PetscCall(Fail(tj, "the end of the forward sweep"));
    e->phase = EBBPETSC_PUSHED;
    e->next_get = e->pushed;
    PetscFunctionReturn(0);
}

/* An RK method whose first stage reuses the last stage's derivative of the
 * step before (FSAL: 3bs, PETSc's default, 5dp, 5bs) cannot repeat a step
 * from a restored state bit for bit (x_k and the last stage differ in
 * rounding): every step of the forward sweep evaluates its first stage
 * afresh, as the recomputations do (one more right-hand side per step). */
static PetscErrorCode RestartFSAL(TS ts)
{
    PetscBool rk, fsal = PETSC_FALSE;

    PetscFunctionBegin;
    PetscCall(PetscObjectTypeCompare((PetscObject)ts, TSRK, &rk));
    if (rk)
        PetscCall(TSRKGetTableau(ts, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &fsal));
    if (fsal)
        ts->steprestart = PETSC_TRUE;
    PetscFunctionReturn(0);
}

static PetscErrorCode TSTrajectorySet_Ebb(TSTrajectory tj, TS ts, PetscInt stepnum, PetscReal time, Vec X)
{
    TSTrajectory_Ebb *e = tj->data;
    MPI_Comm comm = PetscObjectComm((PetscObject)tj);

    PetscFunctionBegin;
    PetscCheck(ts, comm, PETSC_ERR_ARG_NULL,
               "the ebb trajectory needs the TS in TSTrajectorySet (it recomputes with TSStep)");
    if (stepnum == 0) {
        PetscCall(StartSweep(tj, e, ts, time, X));
    } else {
        PetscCheck(e->phase == EBBPETSC_FORWARD, comm, PETSC_ERR_ORDER,
                   "TSTrajectorySet of step %" PetscInt_FMT
                   " outside a forward sweep: the ebb trajectory starts one at step 0 (TSSolve "
                   "from step 0) and takes its steps in order",
                   stepnum);
        PetscCheck(stepnum == e->taken + 1, comm, PETSC_ERR_ORDER,
                   "TSTrajectorySet of step %" PetscInt_FMT " after step %" PetscInt_FMT
                   ": the ebb trajectory takes the steps of one TSSolve in order",
                   stepnum, e->taken);
        e->taken = stepnum;
        /* past -ts_trajectory_ebb_steps: counted to the end of TSSolve, for
           FinishForward's message */
        if (e->opt.steps == 0 || stepnum <= e->opt.steps) {
            ebbpetsc_header h = {stepnum, time, ts->ptime_prev, ts->time_step};
            PetscCall(Assemble(e, X, &h));
            PetscCall(RecordTime(e, stepnum, time));
            if (ebb_run_push(e->run, e->buffer) != EBB_OK)
                PetscCall(Fail(tj, "storing a state of the forward sweep"));
            e->pushed = stepnum;
        }
    }
    PetscCall(RestartFSAL(ts));
    if (ts->reason && e->taken > 0)
        PetscCall(FinishForward(tj, e));
    PetscFunctionReturn(0);
}

static PetscErrorCode TSTrajectoryGet_Ebb(TSTrajectory tj, TS ts, PetscInt stepnum, PetscReal *t)
{
    TSTrajectory_Ebb *e = tj->data;
    MPI_Comm comm = PetscObjectComm((PetscObject)tj);
    int64_t i;
    const void *xi;
    char why[768];

    PetscFunctionBegin;
    PetscCheck(tj->adjoint_solve_mode, comm, PETSC_ERR_SUP,
               "the ebb trajectory serves TSAdjointSolve (the states from the last to the first, "
               "once); for other reads (TSTrajectoryGetVecs, forward sensitivities) use "
               "-ts_trajectory_type memory");
    PetscCheck(ts == e->ts, comm, PETSC_ERR_ARG_WRONG,
               "TSTrajectoryGet with another TS than the one that ran the forward sweep");
    /* TSSolve may stop without a converged reason at its last Set (a
       TSPostStep that sets one) */
    if (e->phase == EBBPETSC_FORWARD && e->taken > 0)
        PetscCall(FinishForward(tj, e));
    PetscCheck(e->phase == EBBPETSC_PUSHED || e->phase == EBBPETSC_REVERSE, comm, PETSC_ERR_ORDER,
               "TSTrajectoryGet of step %" PetscInt_FMT
               " with no forward sweep to read: each TSAdjointSolve reads the TSSolve before "
               "it, once (run TSSolve again)",
               stepnum);

    if (stepnum == 0) {
        PetscCheck(e->held && e->held_step == 0, comm, PETSC_ERR_ORDER,
                   "TSTrajectoryGet of step 0 before step 1: the ebb trajectory hands the states "
                   "back from the last to the first");
        ebbpetsc_header h;
        memcpy(&h, e->held, sizeof h);
        PetscCall(EbbPetscLoad(ts, e->held, e->local_bytes));
        PetscCall(TSSetStepNumber(ts, 0));
        ts->ptime = h.time;
        *t = h.time;
        e->held = NULL;
        if (ebb_run_reverse_next(e->run, &i, &xi) != EBB_OK)
            PetscCall(Fail(tj, "the end of the reverse sweep"));
        PetscCheck(i == -1, comm, PETSC_ERR_PLIB, "ebb trajectory: step %lld after step 0",
                   (long long)i);
        PetscCall(EndRun(tj, e));
        e->phase = EBBPETSC_DONE;
        PetscFunctionReturn(0);
    }

    PetscCheck(stepnum == e->next_get, comm, PETSC_ERR_ORDER,
               "TSTrajectoryGet of step %" PetscInt_FMT ", but the next state is step %" PetscInt_FMT
               ": the ebb trajectory hands the states back from the last to the first, once "
               "(TSAdjointSetSteps and a second TSAdjointSolve need a new TSSolve)",
               stepnum, e->next_get);
    e->phase = EBBPETSC_REVERSE;
    e->held = NULL;
    if (ebb_run_reverse_next(e->run, &i, &xi) != EBB_OK)
        PetscCall(Fail(tj, "restoring a state for TSAdjointSolve"));
    PetscCheck(i == stepnum - 1, comm, PETSC_ERR_PLIB,
               "ebb trajectory: ebb handed back step %lld for step %" PetscInt_FMT, (long long)i,
               stepnum - 1);
    e->held = xi;
    e->held_step = i;

    /* the stages of step k-1 -> k, as TSAdjointStep reads them */
    PetscCall(EbbPetscStepFrom(e, xi, i, why, sizeof why));
    PetscCheck(!why[0], comm, PETSC_ERR_LIB, "ebb trajectory: %s", why);
    e->stage_steps++;
    PetscCall(TSSetStepNumber(ts, stepnum));
    ts->ptime = e->times[stepnum];
    ts->ptime_prev = e->times[stepnum - 1];
    PetscCall(TSSetTimeStep(ts, e->times[stepnum - 1] - e->times[stepnum]));
    *t = e->times[stepnum];
    e->next_get = stepnum - 1;

    ebb_run_stats s;
    if (ebb_run_stats_get(e->run, &s) == EBB_OK)
        Count(tj, e, &s);
    PetscFunctionReturn(0);
}

static PetscErrorCode TSTrajectoryView_Ebb(TSTrajectory tj, PetscViewer viewer)
{
    TSTrajectory_Ebb *e = tj->data;
    ebbpetsc_summary *sum = &((TSTrajectory_Ebb *)tj->data)->summary;
    PetscBool ascii;
    ebb_run_info info;
    ebb_run_stats s;

    PetscFunctionBegin;
    PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
    if (!ascii)
        PetscFunctionReturn(0);
    if (e->run && ebb_run_info_get(e->run, &info) == EBB_OK && ebb_run_stats_get(e->run, &s) == EBB_OK) {
        /* the run is live: its own strings */
    } else if (sum->valid) {
        info = sum->info;
        s = sum->stats;
    } else {
        PetscCall(PetscViewerASCIIPrintf(viewer, "ebb: no sweep yet\n"));
        PetscFunctionReturn(0);
    }
    PetscCall(PetscViewerASCIIPrintf(viewer, "ebb strategy %s (%s)\n", info.strategy_name,
                                     info.reason ? info.reason : ""));
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "ebb slots: host %d, disk %d; steps %lld; audit %s\n",
                                     (int)info.slots[EBB_TIER_HOST], (int)info.slots[EBB_TIER_DISK],
                                     (long long)info.steps, ebb_audit_name(info.audit)));
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "ebb forward steps %lld (recomputed %lld), stage steps %" PetscInt_FMT
                                     ", reverse steps %lld\n",
                                     (long long)s.forward_steps, (long long)s.recomputed_steps,
                                     e->stage_steps, (long long)s.reverse_steps));
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "ebb stores: host %lld, disk %lld; restores: host %lld, disk %lld; "
                                     "prefetches %lld\n",
                                     (long long)s.stores[EBB_TIER_HOST], (long long)s.stores[EBB_TIER_DISK],
                                     (long long)s.restores[EBB_TIER_HOST],
                                     (long long)s.restores[EBB_TIER_DISK], (long long)s.prefetches));
    PetscCall(PetscViewerASCIIPrintf(viewer, "ebb stall %.6f s (disk %.6f s), wall %.6f s\n",
                                     s.stall_total_s, s.stall_s[EBB_TIER_DISK], s.wall_s));
    if (info.error_samples > 0) /* _error_samples, run.error_samples, EBB_ERROR_SAMPLES */
        PetscCall(PetscViewerASCIIPrintf(viewer,
                                         "ebb error estimate: gradient relative error %.3e; state "
                                         "relative error max %.3e, rms %.3e over %lld sampled "
                                         "states\n",
                                         s.gradient_rel_error_estimate, s.state_rel_error_max,
                                         s.state_rel_error_rms, (long long)s.error_samples));
    if (info.warnings && info.warnings[0])
        PetscCall(PetscViewerASCIIPrintf(viewer, "ebb warnings: %s\n", info.warnings));
    PetscFunctionReturn(0);
}

static PetscErrorCode TSTrajectoryReset_Ebb(TSTrajectory tj)
{
    PetscFunctionBegin;
    PetscCall(EndRun(tj, tj->data));
    PetscFunctionReturn(0);
}

static PetscErrorCode TSTrajectoryDestroy_Ebb(TSTrajectory tj)
{
    TSTrajectory_Ebb *e = tj->data;

    PetscFunctionBegin;
    PetscCall(EndRun(tj, e));
    if (e->config_ready)
        ebb_config_dispose(&e->config);
    PetscCall(PetscFree(tj->data));
    PetscFunctionReturn(0);
}

static PetscErrorCode TSTrajectorySetUp_Ebb(TSTrajectory tj, TS ts)
{
    PetscFunctionBegin;
    (void)tj;
    (void)ts;
    PetscFunctionReturn(0);
}

static PetscErrorCode TSTrajectoryCreate_Ebb(TSTrajectory tj, TS ts)
{
    TSTrajectory_Ebb *e;

    PetscFunctionBegin;
    (void)ts;
    PetscCall(PetscNew(&e));
    EbbPetscOptionsInit(&e->opt);
    e->held_step = -1;
    tj->data = e;
    tj->ops->set = TSTrajectorySet_Ebb;
    tj->ops->get = TSTrajectoryGet_Ebb;
    tj->ops->view = TSTrajectoryView_Ebb;
    tj->ops->reset = TSTrajectoryReset_Ebb;
    tj->ops->destroy = TSTrajectoryDestroy_Ebb;
    tj->ops->setup = TSTrajectorySetUp_Ebb;
    tj->ops->setfromoptions = EbbPetscSetFromOptions;
    PetscFunctionReturn(0);
}

PetscErrorCode TSTrajectoryEbbRegister(void)
{
    PetscFunctionBegin;
    /* PETSc's list replaces an entry of the same name: a second call is harmless */
    PetscCall(TSInitializePackage());
    PetscCall(TSTrajectoryRegister(TSTRAJECTORYEBB, TSTrajectoryCreate_Ebb));
    PetscFunctionReturn(0);
}

/* Loaded as a PETSc dynamic library (-dll_append libebb_petsc.so), PETSc
 * calls this by the library's name. */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_ebb_petsc(void);
PetscErrorCode PetscDLLibraryRegister_ebb_petsc(void)
{
    return TSTrajectoryEbbRegister();
}
