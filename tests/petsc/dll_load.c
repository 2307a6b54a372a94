/*
 * The trajectory type loaded as a PETSc dynamic library: this program links
 * PETSc and not libebb_petsc, never calls TSTrajectoryEbbRegister, and is
 * run with `-dll_append <libebb_petsc.so>`; PETSc then calls the library's
 * PetscDLLibraryRegister_ebb_petsc, so that -ts_trajectory_type ebb is known.
 * The van der Pol gradients under revolve with 2 slots (recomputation
 * happens) are bitwise those of -ts_trajectory_type memory.
 */
#include "solve.h"

int main(int argc, char **argv)
{
    problem pb;
    solve_setup setup = {.adaptive = PETSC_FALSE, .steps = 40, .dt = 0.01};
    solve_result ref, got;
    PetscBool equal = PETSC_FALSE;

    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscCall(ProblemCreate(PETSC_COMM_WORLD, PROBLEM_VDP, 0, 5, &pb));
    const char *const memory[] = {"-ts_trajectory_type", "memory", NULL};
    const char *const ebb[] = {"-ts_trajectory_type", "ebb", "-ts_trajectory_ebb_strategy",
                               "revolve", "-ts_trajectory_ebb_steps", "40",
                               "-ts_trajectory_ebb_slots", "2", NULL};
    PetscCall(SolveWith(&pb, &setup, memory, &ref));
    PetscCall(SolveWith(&pb, &setup, ebb, &got));
    PetscCall(SolveResultsEqual(&pb, &ref, &got, &equal));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "loaded as a dynamic library: gradients %s\n",
                          equal ? "equal" : "DIFFER"));
    PetscCall(SolveResultDestroy(&pb, &got));
    PetscCall(SolveResultDestroy(&pb, &ref));
    PetscCall(ProblemDestroy(&pb));
    PetscCall(PetscFinalize());
    return equal ? 0 : 1;
}
