/* One forward and adjoint solve under given options (solve.h). */
#include <string.h>

#include "solve.h"

PetscErrorCode SolveWith(problem *pb, const solve_setup *setup, const char *const *options,
                         solve_result *out)
{
    TS ts;
    Mat A, Jp;
    Vec x;
    MPI_Comm comm = PetscObjectComm((PetscObject)pb->x0);

    PetscFunctionBegin;
    PetscCall(PetscMemzero(out, sizeof *out));
    for (const char *const *o = options; o && o[0]; o += 2)
        PetscCall(PetscOptionsSetValue(NULL, o[0], o[1]));
    PetscCall(ProblemCreateTS(pb, &ts, &A, &Jp));
    PetscCall(TSSetTimeStep(ts, setup->dt));
    if (setup->adaptive) {
        PetscCall(TSSetMaxTime(ts, setup->final_time));
        PetscCall(TSSetMaxSteps(ts, 100000));
        PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
    } else {
        PetscCall(TSSetMaxTime(ts, 1e30));
        PetscCall(TSSetMaxSteps(ts, setup->steps));
        PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_STEPOVER));
    }
    PetscCall(TSSetFromOptions(ts));
    if (setup->before_solve)
        PetscCall(setup->before_solve(ts, setup->ctx));
    PetscCall(VecDuplicate(pb->x0, &x));
    PetscCall(VecCopy(pb->x0, x));
    PetscCall(TSSolve(ts, x));
    PetscCall(TSGetStepNumber(ts, &out->steps));

    for (PetscInt j = 0; j < pb->ncost; j++) {
        PetscCall(VecDuplicate(pb->x0, &out->lambda[j]));
        PetscCall(MatCreateVecs(Jp, &out->mu[j], NULL));
    }
    PetscCall(ProblemCostGradients(pb, out->lambda, out->mu));
    PetscCall(TSSetCostGradients(ts, pb->ncost, out->lambda, out->mu));
    pb->adjoint_running = PETSC_TRUE;
    pb->calls = 0;
    PetscErrorCode ierr = TSAdjointSolve(ts);
    pb->adjoint_running = PETSC_FALSE;
    for (const char *const *o = options; o && o[0]; o += 2)
        PetscCall(PetscOptionsClearValue(NULL, o[0]));
    PetscCall(VecDestroy(&x));
    PetscCall(TSDestroy(&ts));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&Jp));
    (void)comm;
    PetscFunctionReturn(ierr);
}

PetscErrorCode SolveResultDestroy(problem *pb, solve_result *r)
{
    PetscFunctionBegin;
    for (PetscInt j = 0; j < pb->ncost; j++) {
        PetscCall(VecDestroy(&r->lambda[j]));
        PetscCall(VecDestroy(&r->mu[j]));
    }
    PetscFunctionReturn(0);
}

static PetscErrorCode SameBits(Vec a, Vec b, int *same)
{
    const PetscScalar *x, *y;
    PetscInt n, m;

    PetscFunctionBegin;
    PetscCall(VecGetLocalSize(a, &n));
    PetscCall(VecGetLocalSize(b, &m));
    if (n != m) {
        *same = 0;
        PetscFunctionReturn(0);
    }
    PetscCall(VecGetArrayRead(a, &x));
    PetscCall(VecGetArrayRead(b, &y));
    *same = *same && (n == 0 || memcmp(x, y, sizeof(PetscScalar) * (size_t)n) == 0);
    PetscCall(VecRestoreArrayRead(a, &x));
    PetscCall(VecRestoreArrayRead(b, &y));
    PetscFunctionReturn(0);
}

PetscErrorCode SolveResultsEqual(problem *pb, const solve_result *a, const solve_result *b,
                                 PetscBool *equal)
{
    int same = a->steps == b->steps, all;

    PetscFunctionBegin;
    for (PetscInt j = 0; j < pb->ncost && same; j++) {
        PetscCall(SameBits(a->lambda[j], b->lambda[j], &same));
        PetscCall(SameBits(a->mu[j], b->mu[j], &same));
    }
    PetscCallMPI(MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND,
                               PetscObjectComm((PetscObject)pb->x0)));
    *equal = all ? PETSC_TRUE : PETSC_FALSE;
    PetscFunctionReturn(0);
}
