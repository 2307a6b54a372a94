/*
 * A PETSc consumer of an installed ebb: registers the "ebb" trajectory type
 * (<ebb/petsc.h>, libebb_petsc), solves u' = -p u (p = 2) forward and adjoint with
 * it (revolve, 3 slots over 20 steps: ebb recomputes) and checks dJ/du0 and
 * dJ/dp against -ts_trajectory_type memory's, bit for bit.
 */
#include <string.h>

#include <ebb/petsc.h>

static PetscErrorCode RHS(TS ts, PetscReal t, Vec U, Vec F, void *ctx)
{
    PetscFunctionBegin;
    (void)ts;
    (void)t;
    (void)ctx;
    PetscCall(VecCopy(U, F));
    PetscCall(VecScale(F, -2.0));
    PetscFunctionReturn(0);
}

static PetscErrorCode Jac(TS ts, PetscReal t, Vec U, Mat A, Mat B, void *ctx)
{
    PetscFunctionBegin;
    (void)ts;
    (void)t;
    (void)U;
    (void)ctx;
    PetscCall(MatSetValue(B, 0, 0, -2.0, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    (void)A;
    PetscFunctionReturn(0);
}

static PetscErrorCode JacP(TS ts, PetscReal t, Vec U, Mat A, void *ctx)
{
    const PetscScalar *u;

    PetscFunctionBegin;
    (void)ts;
    (void)t;
    (void)ctx;
    PetscCall(VecGetArrayRead(U, &u));
    PetscCall(MatSetValue(A, 0, 0, -u[0], INSERT_VALUES));
    PetscCall(VecRestoreArrayRead(U, &u));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
}

/* dJ/du0 and dJ/dp of J = u(T) under the trajectory type `type` */
static PetscErrorCode Gradient(const char *type, PetscScalar out[2])
{
    TS ts;
    Mat A, P;
    Vec u, lambda, mu;

    PetscFunctionBegin;
    PetscCall(PetscOptionsSetValue(NULL, "-ts_trajectory_type", type));
    PetscCall(MatCreateDense(PETSC_COMM_SELF, 1, 1, 1, 1, NULL, &A));
    PetscCall(MatCreateDense(PETSC_COMM_SELF, 1, 1, 1, 1, NULL, &P));
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, 1, &u));
    PetscCall(VecDuplicate(u, &lambda));
    PetscCall(VecDuplicate(u, &mu));
    PetscCall(VecSet(u, 1.0));
    PetscCall(TSCreate(PETSC_COMM_SELF, &ts));
    PetscCall(TSSetType(ts, TSRK));
    PetscCall(TSRKSetType(ts, TSRK4));
    PetscCall(TSSetRHSFunction(ts, NULL, RHS, NULL));
    PetscCall(TSSetRHSJacobian(ts, A, A, Jac, NULL));
    PetscCall(TSSetRHSJacobianP(ts, P, JacP, NULL));
    PetscCall(TSSetTimeStep(ts, 0.05));
    PetscCall(TSSetMaxSteps(ts, 20));
    PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_STEPOVER));
    PetscCall(TSSetSaveTrajectory(ts));
    PetscCall(TSSetFromOptions(ts));
    PetscCall(TSSolve(ts, u));
    PetscCall(VecSet(lambda, 1.0));
    PetscCall(VecSet(mu, 0.0));
    PetscCall(TSSetCostGradients(ts, 1, &lambda, &mu));
    PetscCall(TSAdjointSolve(ts));
    PetscCall(VecGetValues(lambda, 1, (PetscInt[]){0}, &out[0]));
    PetscCall(VecGetValues(mu, 1, (PetscInt[]){0}, &out[1]));
    PetscCall(TSDestroy(&ts));
    PetscCall(VecDestroy(&u));
    PetscCall(VecDestroy(&lambda));
    PetscCall(VecDestroy(&mu));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&P));
    PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
    PetscScalar ebb[2], memory[2];

    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscCall(TSTrajectoryEbbRegister());
    PetscCall(PetscOptionsSetValue(NULL, "-ts_trajectory_ebb_strategy", "revolve"));
    PetscCall(PetscOptionsSetValue(NULL, "-ts_trajectory_ebb_steps", "20"));
    PetscCall(PetscOptionsSetValue(NULL, "-ts_trajectory_ebb_slots", "3"));
    PetscCall(Gradient("memory", memory));
    PetscCall(Gradient(TSTRAJECTORYEBB, ebb));
    int same = memcmp(ebb, memory, sizeof ebb) == 0;
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "petsc consumer %s: dJ/du0 %.17g dJ/dp %.17g (memory: %.17g %.17g)\n",
                          same ? "ok" : "FAILED", (double)ebb[0], (double)ebb[1],
                          (double)memory[0], (double)memory[1]));
    PetscCall(PetscFinalize());
    return same ? 0 : 1;
}
