/* The two problems of problems.h: right-hand sides and their Jacobians. */
#include "problems.h"

static PetscReal Uniform(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (PetscReal)((*s >> 8) & 0xffffff) / (PetscReal)0x1000000;
}

static PetscErrorCode CountCall(problem *pb)
{
    PetscFunctionBegin;
    pb->calls++;
    PetscCheck(!(pb->adjoint_running && pb->fail_at_call && pb->calls >= pb->fail_at_call),
               PETSC_COMM_SELF, PETSC_ERR_USER,
               "the test's right-hand side fails at call %" PetscInt_FMT, pb->calls);
    PetscFunctionReturn(0);
}

/* van der Pol: y1' = y2, y2' = mu ((1 - y1^2) y2 - y1) */
static PetscErrorCode VdpRHS(TS ts, PetscReal t, Vec U, Vec F, void *ctx)
{
    problem *pb = ctx;
    const PetscScalar *u;
    PetscScalar *f;

    PetscFunctionBegin;
    (void)ts;
    (void)t;
    PetscCall(CountCall(pb));
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

/* reaction-diffusion: u_t = D u_xx + k(t) u (1 - u), periodic, h = 1/cells,
   k(t) = p (1 + sin(2 pi t) / 2): time-dependent, so that a trajectory that
   hands back a wrong time changes the gradient */
static PetscReal Rate(const problem *pb, PetscReal t)
{
    return pb->p * (1.0 + 0.5 * PetscSinReal(2.0 * PETSC_PI * t));
}

static PetscReal RateP(PetscReal t)
{
    return 1.0 + 0.5 * PetscSinReal(2.0 * PETSC_PI * t);
}

static PetscErrorCode RdRHS(TS ts, PetscReal t, Vec U, Vec F, void *ctx)
{
    problem *pb = ctx;
    Vec L;
    const PetscScalar *u;
    PetscScalar *f;
    PetscInt xs, xm;
    PetscReal h = 1.0 / (PetscReal)pb->cells, c = pb->diffusion / (h * h);

    PetscReal k = Rate(pb, t);

    PetscFunctionBegin;
    (void)ts;
    PetscCall(CountCall(pb));
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
    PetscReal h = 1.0 / (PetscReal)pb->cells, c = pb->diffusion / (h * h), k = Rate(pb, t);

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
        PetscScalar v = RateP(t) * u[i - lo] * (1.0 - u[i - lo]);
        PetscCall(MatSetValues(A, 1, &i, 1, &col, &v, INSERT_VALUES));
    }
    PetscCall(VecRestoreArrayRead(U, &u));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
}

PetscErrorCode ProblemCreate(MPI_Comm comm, problem_kind kind, PetscInt cells, unsigned seed,
                             problem *pb)
{
    unsigned s = seed * 2654435761u + 1u;

    PetscFunctionBegin;
    PetscCall(PetscMemzero(pb, sizeof *pb));
    pb->kind = kind;
    if (kind == PROBLEM_VDP) {
        pb->p = 0.5 + 4.5 * Uniform(&s);
        pb->ncost = 2;
        PetscCall(VecCreateSeq(PETSC_COMM_SELF, 2, &pb->x0));
        PetscCall(VecSetValue(pb->x0, 0, 2.0 * Uniform(&s) - 1.0 + 1.5, INSERT_VALUES));
        PetscCall(VecSetValue(pb->x0, 1, 2.0 * Uniform(&s) - 1.0, INSERT_VALUES));
        PetscCall(VecAssemblyBegin(pb->x0));
        PetscCall(VecAssemblyEnd(pb->x0));
    } else {
        PetscInt xs, xm;
        PetscScalar *x;
        PetscReal a = 0.2 + 0.6 * Uniform(&s), w = 1.0 + 3.0 * Uniform(&s);
        pb->p = 1.0 + 4.0 * Uniform(&s);
        pb->diffusion = 1e-3 * (0.5 + Uniform(&s));
        pb->cells = cells;
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
    }
    PetscFunctionReturn(0);
}

PetscErrorCode ProblemDestroy(problem *pb)
{
    PetscFunctionBegin;
    PetscCall(VecDestroy(&pb->x0));
    PetscCall(DMDestroy(&pb->da));
    PetscFunctionReturn(0);
}

PetscErrorCode ProblemCreateTS(problem *pb, TS *ts, Mat *A, Mat *Jp)
{
    MPI_Comm comm = PetscObjectComm((PetscObject)pb->x0);
    PetscInt nlocal, n;

    PetscFunctionBegin;
    PetscCall(VecGetLocalSize(pb->x0, &nlocal));
    PetscCall(VecGetSize(pb->x0, &n));
    PetscCall(TSCreate(comm, ts));
    PetscCall(TSSetProblemType(*ts, TS_NONLINEAR));
    PetscCall(TSSetType(*ts, TSRK));
    if (pb->kind == PROBLEM_VDP) {
        PetscCall(MatCreateDense(comm, PETSC_DECIDE, PETSC_DECIDE, 2, 2, NULL, A));
        PetscCall(MatCreateDense(comm, PETSC_DECIDE, PETSC_DECIDE, 2, 1, NULL, Jp));
        PetscCall(TSSetRHSFunction(*ts, NULL, VdpRHS, pb));
        PetscCall(TSSetRHSJacobian(*ts, *A, *A, VdpJac, pb));
        PetscCall(TSSetRHSJacobianP(*ts, *Jp, VdpJacP, pb));
    } else {
        PetscCall(DMCreateMatrix(pb->da, A));
        PetscCall(MatCreateDense(comm, nlocal, PETSC_DECIDE, n, 1, NULL, Jp));
        PetscCall(TSSetDM(*ts, pb->da));
        PetscCall(TSSetRHSFunction(*ts, NULL, RdRHS, pb));
        PetscCall(TSSetRHSJacobian(*ts, *A, *A, RdJac, pb));
        PetscCall(TSSetRHSJacobianP(*ts, *Jp, RdJacP, pb));
    }
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
        } else {
            /* w_i = 1 + i / cells: a cost that sees every point */
            PetscInt lo, hi;
            PetscCall(VecGetOwnershipRange(lambda[j], &lo, &hi));
            for (PetscInt i = lo; i < hi; i++)
                PetscCall(VecSetValue(lambda[j], i, 1.0 + (PetscReal)i / (PetscReal)pb->cells,
                                      INSERT_VALUES));
            PetscCall(VecAssemblyBegin(lambda[j]));
            PetscCall(VecAssemblyEnd(lambda[j]));
        }
    }
    PetscFunctionReturn(0);
}
