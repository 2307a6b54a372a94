/* The 1-D reaction-diffusion problem (problems.h): u_t = D u_xx + k(t) u (1 - u),
 * periodic, h = 1/cells, k(t) = p (1 + sin(2 pi t)/2), on any number of ranks. */
#include "problems_internal.h"

static PetscErrorCode RdRHS(TS ts, PetscReal t, Vec U, Vec F, void *ctx)
{
    problem *pb = ctx;
    Vec L;
    const PetscScalar *u;
    PetscScalar *f;
    PetscInt xs, xm;
    PetscReal h = 1.0 / (PetscReal)pb->cells, c = pb->diffusion / (h * h);
    PetscReal k = pb->p * ProblemRateFactor(t);

    PetscFunctionBegin;
    (void)ts;
    PetscCall(ProblemCountCall(pb));
    PetscCall(DMGetLocalVector(pb->da, &L));
    PetscCall(DMGlobalToLocalBegin(pb->da, U, INSERT_VALUES, L));
    PetscCall(DMGlobalToLocalEnd(pb->da, U, INSERT_VALUES, L));
    PetscCall(DMDAGetCorners(pb->da, &xs, NULL, NULL, &xm, NULL, NULL));
    PetscCall(DMDAVecGetArrayRead(pb->da, L, &u));
    PetscCall(DMDAVecGetArray(pb->da, F, &f));
    for (PetscInt i = xs; i < xs + xm; i++)
        f[i] = c * (u[i - 1] - 2.0 * u[i] + u[i + 1]) + k * u[i] * (1.0 - u[i]);
    PetscCall(DMDAVecRestoreArrayRead(pb->da, L, &u));
    PetscCall(DMDAVecRestoreArray(pb->da, F, &f));
    PetscCall(DMRestoreLocalVector(pb->da, &L));
    PetscFunctionReturn(0);
}

static PetscErrorCode RdJac(TS ts, PetscReal t, Vec U, Mat A, Mat B, void *ctx)
{
    problem *pb = ctx;
    const PetscScalar *u;
    PetscInt xs, xm;
    PetscReal h = 1.0 / (PetscReal)pb->cells, c = pb->diffusion / (h * h);
    PetscReal k = pb->p * ProblemRateFactor(t);

    PetscFunctionBegin;
    (void)ts;
    PetscCall(DMDAGetCorners(pb->da, &xs, NULL, NULL, &xm, NULL, NULL));
    PetscCall(DMDAVecGetArrayRead(pb->da, U, &u));
    for (PetscInt i = xs; i < xs + xm; i++) {
        MatStencil row = {.i = i}, cols[3] = {{.i = i - 1}, {.i = i}, {.i = i + 1}};
        PetscScalar v[3] = {c, -2.0 * c + k * (1.0 - 2.0 * u[i]), c};
        PetscCall(MatSetValuesStencil(B, 1, &row, 3, cols, v, INSERT_VALUES));
    }
    PetscCall(DMDAVecRestoreArrayRead(pb->da, U, &u));
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    if (A != B) {
        PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    }
    PetscFunctionReturn(0);
}

static PetscErrorCode RdJacP(TS ts, PetscReal t, Vec U, Mat A, void *ctx)
{
    const PetscScalar *u;
    PetscInt lo, hi, col = 0;

    PetscFunctionBegin;
    (void)ts;
    (void)ctx;
    PetscCall(VecGetOwnershipRange(U, &lo, &hi));
    PetscCall(VecGetArrayRead(U, &u));
    for (PetscInt i = lo; i < hi; i++) {
        PetscScalar v = ProblemRateFactor(t) * u[i - lo] * (1.0 - u[i - lo]);
        PetscCall(MatSetValues(A, 1, &i, 1, &col, &v, INSERT_VALUES));
    }
    PetscCall(VecRestoreArrayRead(U, &u));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
}

PetscErrorCode RdCreate(MPI_Comm comm, problem *pb, unsigned *s)
{
    PetscInt xs, xm, cells = pb->cells;
    PetscScalar *x;
    PetscReal a = 0.2 + 0.6 * ProblemUniform(s), w = 1.0 + 3.0 * ProblemUniform(s);

    PetscFunctionBegin;
    pb->p = 1.0 + 4.0 * ProblemUniform(s);
    pb->diffusion = 1e-3 * (0.5 + ProblemUniform(s));
    pb->ncost = 1;
    PetscCall(DMDACreate1d(comm, DM_BOUNDARY_PERIODIC, cells, 1, 1, NULL, &pb->da));
    PetscCall(DMSetUp(pb->da));
    PetscCall(DMCreateGlobalVector(pb->da, &pb->x0));
    PetscCall(DMDAGetCorners(pb->da, &xs, NULL, NULL, &xm, NULL, NULL));
    PetscCall(DMDAVecGetArray(pb->da, pb->x0, &x));
    for (PetscInt i = xs; i < xs + xm; i++) {
        PetscReal xi = (PetscReal)i / (PetscReal)cells;
        x[i] = 0.5 + a * PetscSinReal(2.0 * PETSC_PI * w * xi) * PetscExpReal(-xi);
    }
    PetscCall(DMDAVecRestoreArray(pb->da, pb->x0, &x));
    PetscFunctionReturn(0);
}

PetscErrorCode RdSetTS(problem *pb, TS ts, Mat *A, Mat *Jp)
{
    return ProblemSetDMDATS(pb, ts, A, Jp, RdRHS, RdJac, RdJacP);
}

/* w_i = 1 + i / cells: a cost that sees every point */
PetscErrorCode RdCost(problem *pb, Vec lambda)
{
    PetscInt lo, hi;

    PetscFunctionBegin;
    PetscCall(VecGetOwnershipRange(lambda, &lo, &hi));
    for (PetscInt i = lo; i < hi; i++)
        PetscCall(VecSetValue(lambda, i, 1.0 + (PetscReal)i / (PetscReal)pb->cells, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(lambda));
    PetscCall(VecAssemblyEnd(lambda));
    PetscFunctionReturn(0);
}
