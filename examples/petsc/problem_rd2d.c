/*
 * The 2-D reaction-diffusion problem (problems.h): Gray-Scott on the
 * periodic unit square, cells x cells points, two components per point,
 *
 *   u_t = c_u h^2 lap u - u v^2 + F(t) (1 - u)
 *   v_t = c_v h^2 lap v + u v^2 - (F(t) + kappa) v,   F(t) = p (1 + sin(2 pi t)/2),
 *
 * with the diffusion given per cell (c_u, c_v), so that the explicit step
 * limit does not shrink with the grid (the benchmark's 1024 x 1024 takes
 * the tests' time steps). Any number of ranks (PETSc splits the square).
 */
#include "problems_internal.h"

typedef struct {
    PetscScalar u, v;
} field;

static PetscErrorCode Rd2dRHS(TS ts, PetscReal t, Vec U, Vec F, void *ctx)
{
    problem *pb = ctx;
    Vec L;
    const field **x;
    field **f;
    PetscInt xs, ys, xm, ym;
    PetscReal cu = pb->diffusion, cv = pb->diffusion_v, feed = pb->p * ProblemRateFactor(t);

    PetscFunctionBegin;
    (void)ts;
    PetscCall(ProblemCountCall(pb));
    PetscCall(DMGetLocalVector(pb->da, &L));
    PetscCall(DMGlobalToLocalBegin(pb->da, U, INSERT_VALUES, L));
    PetscCall(DMGlobalToLocalEnd(pb->da, U, INSERT_VALUES, L));
    PetscCall(DMDAGetCorners(pb->da, &xs, &ys, NULL, &xm, &ym, NULL));
    PetscCall(DMDAVecGetArrayRead(pb->da, L, &x));
    PetscCall(DMDAVecGetArray(pb->da, F, &f));
    for (PetscInt j = ys; j < ys + ym; j++)
        for (PetscInt i = xs; i < xs + xm; i++) {
            field c = x[j][i];
            PetscScalar lu = x[j][i - 1].u + x[j][i + 1].u + x[j - 1][i].u + x[j + 1][i].u - 4.0 * c.u;
            PetscScalar lv = x[j][i - 1].v + x[j][i + 1].v + x[j - 1][i].v + x[j + 1][i].v - 4.0 * c.v;
            PetscScalar uvv = c.u * c.v * c.v;
            f[j][i].u = cu * lu - uvv + feed * (1.0 - c.u);
            f[j][i].v = cv * lv + uvv - (feed + pb->kill) * c.v;
        }
    PetscCall(DMDAVecRestoreArrayRead(pb->da, L, &x));
    PetscCall(DMDAVecRestoreArray(pb->da, F, &f));
    PetscCall(DMRestoreLocalVector(pb->da, &L));
    PetscFunctionReturn(0);
}

static PetscErrorCode Rd2dJac(TS ts, PetscReal t, Vec U, Mat A, Mat B, void *ctx)
{
    problem *pb = ctx;
    const field **x;
    PetscInt xs, ys, xm, ym;
    PetscReal cu = pb->diffusion, cv = pb->diffusion_v, feed = pb->p * ProblemRateFactor(t);

    PetscFunctionBegin;
    (void)ts;
    PetscCall(DMDAGetCorners(pb->da, &xs, &ys, NULL, &xm, &ym, NULL));
    PetscCall(DMDAVecGetArrayRead(pb->da, U, &x));
    for (PetscInt j = ys; j < ys + ym; j++)
        for (PetscInt i = xs; i < xs + xm; i++) {
            field c = x[j][i];
            for (PetscInt k = 0; k < 2; k++) {
                /* row k: its own component's five points, then the other component here */
                MatStencil row = {.i = i, .j = j, .c = k};
                MatStencil cols[6] = {{.i = i - 1, .j = j, .c = k}, {.i = i + 1, .j = j, .c = k},
                                      {.i = i, .j = j - 1, .c = k}, {.i = i, .j = j + 1, .c = k},
                                      {.i = i, .j = j, .c = k},     {.i = i, .j = j, .c = 1 - k}};
                PetscScalar d = k ? cv : cu, v[6] = {d, d, d, d, 0, 0};
                if (k == 0) {
                    v[4] = -4.0 * cu - c.v * c.v - feed;
                    v[5] = -2.0 * c.u * c.v;
                } else {
                    v[4] = -4.0 * cv + 2.0 * c.u * c.v - (feed + pb->kill);
                    v[5] = c.v * c.v;
                }
                PetscCall(MatSetValuesStencil(B, 1, &row, 6, cols, v, INSERT_VALUES));
            }
        }
    PetscCall(DMDAVecRestoreArrayRead(pb->da, U, &x));
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    if (A != B) {
        PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    }
    PetscFunctionReturn(0);
}

/* d f / d p: (1 - u, -v) F(t)/p, written straight into the dense column */
static PetscErrorCode Rd2dJacP(TS ts, PetscReal t, Vec U, Mat A, void *ctx)
{
    const PetscScalar *x;
    PetscScalar *a;
    PetscInt n;
    PetscReal r = ProblemRateFactor(t);

    PetscFunctionBegin;
    (void)ts;
    (void)ctx;
    PetscCall(VecGetLocalSize(U, &n));
    PetscCall(VecGetArrayRead(U, &x));
    PetscCall(MatDenseGetArrayWrite(A, &a));
    for (PetscInt k = 0; k < n; k += 2) {
        a[k] = r * (1.0 - x[k]);
        a[k + 1] = -r * x[k + 1];
    }
    PetscCall(MatDenseRestoreArrayWrite(A, &a));
    PetscCall(VecRestoreArrayRead(U, &x));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
}

PetscErrorCode Rd2dCreate(MPI_Comm comm, problem *pb, unsigned *s)
{
    PetscInt xs, ys, xm, ym, n = pb->cells;
    field **x;
    PetscReal w1 = 1.0 + PetscFloorReal(3.0 * ProblemUniform(s));
    PetscReal w2 = 1.0 + PetscFloorReal(3.0 * ProblemUniform(s));
    PetscReal f1 = ProblemUniform(s), f2 = ProblemUniform(s);

    PetscFunctionBegin;
    PetscCheck(n >= 3, comm, PETSC_ERR_ARG_OUTOFRANGE,
               "-cells %" PetscInt_FMT ": rd2d needs at least 3 points per side", n);
    pb->p = 0.02 + 0.04 * ProblemUniform(s);
    pb->kill = 0.05 + 0.015 * ProblemUniform(s);
    pb->diffusion = 0.1 + 0.2 * ProblemUniform(s);
    pb->diffusion_v = 0.5 * pb->diffusion;
    pb->ncost = 1;
    PetscCall(DMDACreate2d(comm, DM_BOUNDARY_PERIODIC, DM_BOUNDARY_PERIODIC, DMDA_STENCIL_STAR, n,
                           n, PETSC_DECIDE, PETSC_DECIDE, 2, 1, NULL, NULL, &pb->da));
    PetscCall(DMSetUp(pb->da));
    PetscCall(DMDASetFieldName(pb->da, 0, "u"));
    PetscCall(DMDASetFieldName(pb->da, 1, "v"));
    PetscCall(DMCreateGlobalVector(pb->da, &pb->x0));
    PetscCall(DMDAGetCorners(pb->da, &xs, &ys, NULL, &xm, &ym, NULL));
    PetscCall(DMDAVecGetArray(pb->da, pb->x0, &x));
    for (PetscInt j = ys; j < ys + ym; j++)
        for (PetscInt i = xs; i < xs + xm; i++) {
            PetscReal px = (PetscReal)i / (PetscReal)n, py = (PetscReal)j / (PetscReal)n;
            PetscReal b = 0.5 + 0.5 * PetscSinReal(2.0 * PETSC_PI * (w1 * px + f1)) *
                                    PetscCosReal(2.0 * PETSC_PI * (w2 * py + f2));
            x[j][i].u = 1.0 - 0.5 * b;
            x[j][i].v = 0.05 + 0.25 * b;
        }
    PetscCall(DMDAVecRestoreArray(pb->da, pb->x0, &x));
    PetscFunctionReturn(0);
}

PetscErrorCode Rd2dSetTS(problem *pb, TS ts, Mat *A, Mat *Jp)
{
    return ProblemSetDMDATS(pb, ts, A, Jp, Rd2dRHS, Rd2dJac, Rd2dJacP);
}

/* w = 1 + (i + 2 j) / (3 cells) on u, half that more on v: a cost that sees
 * every point and both components, the same on any number of ranks */
PetscErrorCode Rd2dCost(problem *pb, Vec lambda)
{
    PetscInt xs, ys, xm, ym;
    field **w;

    PetscFunctionBegin;
    PetscCall(DMDAGetCorners(pb->da, &xs, &ys, NULL, &xm, &ym, NULL));
    PetscCall(DMDAVecGetArray(pb->da, lambda, &w));
    for (PetscInt j = ys; j < ys + ym; j++)
        for (PetscInt i = xs; i < xs + xm; i++) {
            w[j][i].u = 1.0 + (PetscReal)(i + 2 * j) / (3.0 * (PetscReal)pb->cells);
            w[j][i].v = 0.5 + w[j][i].u;
        }
    PetscCall(DMDAVecRestoreArray(pb->da, lambda, &w));
    PetscFunctionReturn(0);
}
