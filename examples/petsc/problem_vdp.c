/* van der Pol (problems.h): y1' = y2, y2' = mu ((1 - y1^2) y2 - y1), one rank. */
#include "problems_internal.h"

static PetscErrorCode VdpRHS(TS ts, PetscReal t, Vec U, Vec F, void *ctx)
{
    problem *pb = ctx;
    const PetscScalar *u;
    PetscScalar *f;

    PetscFunctionBegin;
    (void)ts;
    (void)t;
    PetscCall(ProblemCountCall(pb));
    PetscCall(VecGetArrayRead(U, &u));
    PetscCall(VecGetArray(F, &f));
    f[0] = u[1];
    f[1] = pb->p * ((1.0 - u[0] * u[0]) * u[1] - u[0]);
    PetscCall(VecRestoreArrayRead(U, &u));
    PetscCall(VecRestoreArray(F, &f));
    PetscFunctionReturn(0);
}

static PetscErrorCode VdpJac(TS ts, PetscReal t, Vec U, Mat A, Mat B, void *ctx)
{
    problem *pb = ctx;
    const PetscScalar *u;
    PetscInt rows[2] = {0, 1};
    PetscScalar J[4];

    PetscFunctionBegin;
    (void)ts;
    (void)t;
    PetscCall(VecGetArrayRead(U, &u));
    J[0] = 0.0;
    J[1] = 1.0;
    J[2] = -2.0 * pb->p * u[0] * u[1] - pb->p;
    J[3] = pb->p * (1.0 - u[0] * u[0]);
    PetscCall(VecRestoreArrayRead(U, &u));
    PetscCall(MatSetValues(B, 2, rows, 2, rows, J, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    if (A != B) {
        PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    }
    PetscFunctionReturn(0);
}

static PetscErrorCode VdpJacP(TS ts, PetscReal t, Vec U, Mat A, void *ctx)
{
    const PetscScalar *u;
    PetscInt rows[2] = {0, 1}, col = 0;
    PetscScalar J[2];

    PetscFunctionBegin;
    (void)ts;
    (void)t;
    (void)ctx;
    PetscCall(VecGetArrayRead(U, &u));
    J[0] = 0.0;
    J[1] = (1.0 - u[0] * u[0]) * u[1] - u[0];
    PetscCall(VecRestoreArrayRead(U, &u));
    PetscCall(MatSetValues(A, 2, rows, 1, &col, J, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
}

PetscErrorCode VdpCreate(problem *pb, unsigned *s)
{
    PetscFunctionBegin;
    pb->p = 0.5 + 4.5 * ProblemUniform(s);
    pb->ncost = 2;
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, 2, &pb->x0));
    PetscCall(VecSetValue(pb->x0, 0, 2.0 * ProblemUniform(s) - 1.0 + 1.5, INSERT_VALUES));
    PetscCall(VecSetValue(pb->x0, 1, 2.0 * ProblemUniform(s) - 1.0, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(pb->x0));
    PetscCall(VecAssemblyEnd(pb->x0));
    PetscFunctionReturn(0);
}

PetscErrorCode VdpSetTS(problem *pb, TS ts, Mat *A, Mat *Jp)
{
    MPI_Comm comm = PetscObjectComm((PetscObject)pb->x0);

    PetscFunctionBegin;
    PetscCall(MatCreateDense(comm, PETSC_DECIDE, PETSC_DECIDE, 2, 2, NULL, A));
    PetscCall(MatCreateDense(comm, PETSC_DECIDE, PETSC_DECIDE, 2, 1, NULL, Jp));
    PetscCall(TSSetRHSFunction(ts, NULL, VdpRHS, pb));
    PetscCall(TSSetRHSJacobian(ts, *A, *A, VdpJac, pb));
    PetscCall(TSSetRHSJacobianP(ts, *Jp, VdpJacP, pb));
    PetscFunctionReturn(0);
}
