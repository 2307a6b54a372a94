/*
 * The state's layout (a header, then the rank's part of the solution) and
 * the one thing the ebb trajectory computes itself: a TSStep from a state
 * ebb restored, for ebb's recomputations (EbbPetscForward, the run's
 * forward callback) and for the stages TSAdjointStep reads (Get).
 */
#include <stdio.h>
#include <string.h>

#include "bindings/petsc/trajebb.h"

void EbbPetscPack(TSTrajectory_Ebb *e, const ebbpetsc_header *h, const PetscScalar *x,
                  unsigned char *state)
{
    memcpy(state, h, sizeof *h);
    if (e->local_bytes)
        memcpy(state + sizeof *h, x, e->local_bytes);
}

/* Puts the state's solution into ts->vec_sol. */
PetscErrorCode EbbPetscLoad(TS ts, const unsigned char *state, size_t local_bytes)
{
    PetscScalar *x;

    PetscFunctionBegin;
    PetscCall(VecGetArrayWrite(ts->vec_sol, &x));
    if (local_bytes)
        memcpy(x, state + sizeof(ebbpetsc_header), local_bytes);
    PetscCall(VecRestoreArrayWrite(ts->vec_sol, &x));
    PetscFunctionReturn(0);
}

/* One TSStep from `state` (x_step), as the forward sweep took it: the same
 * time, time step proposal and step number, the step restarted (no stage
 * carried over from whatever TS computed last: an FSAL method evaluates its
 * first stage afresh). A state that is not x_step, or a step that does not
 * end at the forward sweep's t_{step+1}, is described in `why` (PETSc's own
 * errors are returned as such). */
PetscErrorCode EbbPetscStepFrom(TSTrajectory_Ebb *e, const unsigned char *state, int64_t step,
                                char *why, size_t why_size)
{
    TS ts = e->ts;
    ebbpetsc_header h;

    PetscFunctionBegin;
    why[0] = '\0';
    memcpy(&h, state, sizeof h);
    if (h.step != step || step < 0 || step > e->pushed || h.time != e->times[step]) {
        snprintf(why, why_size,
                 "ebb handed back a state of step %lld at t = %.17g for step %lld (t = %.17g in "
                 "the forward sweep): the trajectory is corrupt",
                 (long long)h.step, (double)h.time, (long long)step,
                 step >= 0 && step <= e->pushed ? (double)e->times[step] : -1.0);
        PetscFunctionReturn(0);
    }
    PetscCall(EbbPetscLoad(ts, state, e->local_bytes));
    PetscCall(TSSetStepNumber(ts, (PetscInt)step));
    ts->ptime = h.time;
    ts->ptime_prev = h.time_prev;
    ts->time_step = h.time_step;
    ts->steprestart = PETSC_TRUE;
    ts->steprollback = PETSC_FALSE;
    ts->reason = TS_CONVERGED_ITERATING;
    PetscCall(TSStep(ts));
    if (ts->reason < 0) {
        snprintf(why, why_size, "TSStep from step %lld (t = %.17g, dt = %.17g) failed again: %s",
                 (long long)step, (double)h.time, (double)h.time_step,
                 TSConvergedReasons[ts->reason]);
        PetscFunctionReturn(0);
    }
    ts->reason = TS_CONVERGED_ITERATING;
    if (step + 1 <= e->pushed && ts->ptime != e->times[step + 1])
        snprintf(why, why_size,
                 "TSStep from step %lld (t = %.17g, dt = %.17g) reached t = %.17g, but the "
                 "forward sweep reached t = %.17g: the step is not reproducible from the "
                 "stored state (a TSAdapt with history, or a TSPreStep or TSPostStep that "
                 "changes the time step or the solution; ebb needs TSStep to repeat itself)",
                 (long long)step, (double)h.time, (double)h.time_step, (double)ts->ptime,
                 (double)e->times[step + 1]);
    PetscFunctionReturn(0);
}

/* ebb's forward callback (out of place): x_{step+1} from x_step by TSStep. */
int EbbPetscForward(void *user, int64_t step, const void *in, void *out)
{
    TSTrajectory_Ebb *e = user;
    char why[768];
    PetscErrorCode ierr = EbbPetscStepFrom(e, in, step, why, sizeof why);
    if (ierr) {
        const char *text = NULL;
        char *specific = NULL;
        PetscErrorMessage(ierr, &text, &specific);
        return ebb_callback_fail("TSStep from step %lld failed with PETSc error %d: %s",
                                 (long long)step, (int)ierr,
                                 specific && specific[0] ? specific : text ? text : "?");
    }
    if (why[0])
        return ebb_callback_fail("%s", why);

    ebbpetsc_header h = {step + 1, e->ts->ptime, e->ts->ptime_prev, e->ts->time_step};
    const PetscScalar *x;
    if (VecGetArrayRead(e->ts->vec_sol, &x))
        return ebb_callback_fail("VecGetArrayRead of the solution failed after step %lld",
                                 (long long)step);
    EbbPetscPack(e, &h, x, out);
    if (VecRestoreArrayRead(e->ts->vec_sol, &x))
        return ebb_callback_fail("VecRestoreArrayRead of the solution failed after step %lld",
                                 (long long)step);
    return EBB_STEP_OK;
}
