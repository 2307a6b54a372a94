/*
 * The ebb trajectory in a PETSc program: one forward TSSolve and one
 * TSAdjointSolve of the 1-D reaction-diffusion problem (problems.h), the
 * 2-D Gray-Scott one (-problem rd2d, -cells N: N x N x 2) or van der Pol, printing the gradient's norm, the time and the peak memory.
 * Any trajectory type: -ts_trajectory_type ebb (registered below), memory,
 * basic; the ebb options as docs/petsc.md lists them.
 *
 *   example_petsc_adjoint -problem rd -cells 100000 -steps 500 -dt 1e-3 \
 *       -ts_type rk -ts_rk_type 4 -ts_trajectory_type ebb \
 *       -ts_trajectory_ebb_strategy revolve -ts_trajectory_ebb_steps 500 \
 *       -ts_trajectory_ebb_slots 20 -ts_trajectory_view
 */
#include <sys/resource.h>
#include <time.h>

#include <ebb/petsc.h>

#include "problems.h"

int main(int argc, char **argv)
{
    char kind[16] = "rd";
    PetscInt cells = 1000, steps = 100;
    PetscReal dt = 1e-3, norm, normp;
    problem pb;
    TS ts;
    Mat A, Jp;
    Vec x, lambda[2], mu[2];
    struct timespec t0, t1, t2;
    struct rusage ru;

    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscCall(TSTrajectoryEbbRegister());
    PetscCall(PetscOptionsGetString(NULL, NULL, "-problem", kind, sizeof kind, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-cells", &cells, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &steps, NULL));
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-dt", &dt, NULL));
    problem_kind pkind;
    PetscCall(ProblemKindFromName(kind, &pkind));
    PetscCall(ProblemCreate(PETSC_COMM_WORLD, pkind, cells, 1, &pb));
    PetscCall(ProblemCreateTS(&pb, &ts, &A, &Jp));
    PetscCall(TSSetTimeStep(ts, dt));
    PetscCall(TSSetMaxTime(ts, 1e30));
    PetscCall(TSSetMaxSteps(ts, steps));
    PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_STEPOVER));
    PetscCall(TSSetFromOptions(ts));
    PetscCall(VecDuplicate(pb.x0, &x));
    PetscCall(VecCopy(pb.x0, x));

    clock_gettime(CLOCK_MONOTONIC, &t0);
    PetscCall(TSSolve(ts, x));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    for (PetscInt j = 0; j < pb.ncost; j++) {
        PetscCall(VecDuplicate(pb.x0, &lambda[j]));
        PetscCall(MatCreateVecs(Jp, &mu[j], NULL));
    }
    PetscCall(ProblemCostGradients(&pb, lambda, mu));
    PetscCall(TSSetCostGradients(ts, pb.ncost, lambda, mu));
    PetscCall(TSAdjointSolve(ts));
    clock_gettime(CLOCK_MONOTONIC, &t2);

    getrusage(RUSAGE_SELF, &ru);
    PetscCall(VecNorm(lambda[0], NORM_2, &norm));
    PetscCall(VecNorm(mu[0], NORM_2, &normp));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "|dJ/du0| %.17g |dJ/dp| %.17g forward %.3f s adjoint %.3f s "
                          "peak RSS (rank 0) %.1f MiB\n",
                          (double)norm, (double)normp,
                          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
                          (double)(t2.tv_sec - t1.tv_sec) + 1e-9 * (double)(t2.tv_nsec - t1.tv_nsec),
                          (double)ru.ru_maxrss / 1024.0));
    for (PetscInt j = 0; j < pb.ncost; j++) {
        PetscCall(VecDestroy(&lambda[j]));
        PetscCall(VecDestroy(&mu[j]));
    }
    PetscCall(VecDestroy(&x));
    PetscCall(TSDestroy(&ts));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&Jp));
    PetscCall(ProblemDestroy(&pb));
    PetscCall(PetscFinalize());
    return 0;
}
