/* What the problems of problems.h share, and the choice among them
 * (problem_vdp.c, problem_rd.c, problem_rd2d.c). */
#include <string.h>

#include "problems_internal.h"

PetscReal ProblemUniform(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (PetscReal)((*s >> 8) & 0xffffff) / (PetscReal)0x1000000;
}

PetscErrorCode ProblemCountCall(problem *pb)
{
    PetscFunctionBegin;
    pb->calls++;
    PetscCheck(!(pb->adjoint_running && pb->fail_at_call && pb->calls >= pb->fail_at_call),
               PETSC_COMM_SELF, PETSC_ERR_USER,
               "the test's right-hand side fails at call %" PetscInt_FMT, pb->calls);
    PetscFunctionReturn(0);
}

PetscReal ProblemRateFactor(PetscReal t)
{
    return 1.0 + 0.5 * PetscSinReal(2.0 * PETSC_PI * t);
}

PetscErrorCode ProblemKindFromName(const char *name, problem_kind *kind)
{
    PetscFunctionBegin;
    if (!strcmp(name, "vdp"))
        *kind = PROBLEM_VDP;
    else if (!strcmp(name, "rd"))
        *kind = PROBLEM_RD;
    else if (!strcmp(name, "rd2d"))
        *kind = PROBLEM_RD2D;
    else
        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
                "-problem %s: expected vdp (van der Pol), rd (1-D reaction-diffusion) or rd2d "
                "(2-D Gray-Scott)",
                name);
    PetscFunctionReturn(0);
}

PetscErrorCode ProblemCreate(MPI_Comm comm, problem_kind kind, PetscInt cells, unsigned seed,
                             problem *pb)
{
    unsigned s = seed * 2654435761u + 1u;

    PetscFunctionBegin;
    PetscCall(PetscMemzero(pb, sizeof *pb));
    pb->kind = kind;
    pb->cells = cells;
    if (kind == PROBLEM_VDP)
        PetscCall(VdpCreate(pb, &s));
    else if (kind == PROBLEM_RD)
        PetscCall(RdCreate(comm, pb, &s));
    else
        PetscCall(Rd2dCreate(comm, pb, &s));
    PetscFunctionReturn(0);
}

PetscErrorCode ProblemDestroy(problem *pb)
{
    PetscFunctionBegin;
    PetscCall(VecDestroy(&pb->x0));
    PetscCall(DMDestroy(&pb->da));
    PetscFunctionReturn(0);
}

PetscErrorCode ProblemSetDMDATS(problem *pb, TS ts, Mat *A, Mat *Jp, TSRHSFunction rhs,
                                TSRHSJacobian jac, TSRHSJacobianP jacp)
{
    MPI_Comm comm = PetscObjectComm((PetscObject)pb->x0);
    PetscInt nlocal, n;

    PetscFunctionBegin;
    PetscCall(VecGetLocalSize(pb->x0, &nlocal));
    PetscCall(VecGetSize(pb->x0, &n));
    PetscCall(DMCreateMatrix(pb->da, A));
    PetscCall(MatCreateDense(comm, nlocal, PETSC_DECIDE, n, 1, NULL, Jp));
    PetscCall(TSSetDM(ts, pb->da));
    PetscCall(TSSetRHSFunction(ts, NULL, rhs, pb));
    PetscCall(TSSetRHSJacobian(ts, *A, *A, jac, pb));
    PetscCall(TSSetRHSJacobianP(ts, *Jp, jacp, pb));
    PetscFunctionReturn(0);
}

PetscErrorCode ProblemCreateTS(problem *pb, TS *ts, Mat *A, Mat *Jp)
{
    MPI_Comm comm = PetscObjectComm((PetscObject)pb->x0);

    PetscFunctionBegin;
    PetscCall(TSCreate(comm, ts));
    PetscCall(TSSetProblemType(*ts, TS_NONLINEAR));
    PetscCall(TSSetType(*ts, TSRK));
    if (pb->kind == PROBLEM_VDP)
        PetscCall(VdpSetTS(pb, *ts, A, Jp));
    else if (pb->kind == PROBLEM_RD)
        PetscCall(RdSetTS(pb, *ts, A, Jp));
    else
        PetscCall(Rd2dSetTS(pb, *ts, A, Jp));
    PetscCall(TSSetSaveTrajectory(*ts));
    PetscFunctionReturn(0);
}

PetscErrorCode ProblemCostGradients(problem *pb, Vec lambda[], Vec mu[])
{
    PetscFunctionBegin;
    for (PetscInt j = 0; j < pb->ncost; j++) {
        PetscCall(VecSet(mu[j], 0.0));
        if (pb->kind == PROBLEM_VDP) {
            PetscCall(VecSet(lambda[j], 0.0));
            PetscCall(VecSetValue(lambda[j], j, 1.0, INSERT_VALUES));
            PetscCall(VecAssemblyBegin(lambda[j]));
            PetscCall(VecAssemblyEnd(lambda[j]));
        } else if (pb->kind == PROBLEM_RD) {
            PetscCall(RdCost(pb, lambda[j]));
        } else {
            PetscCall(Rd2dCost(pb, lambda[j]));
        }
    }
    PetscFunctionReturn(0);
}
