/*
 * ebb inside PETSc: a TSTrajectory type "ebb" (libebb_petsc, built when
 * PETSc is found; link with `pkg-config --libs ebb-petsc`).
 *
 *     #include <ebb/petsc.h>
 *     PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
 *     PetscCall(TSTrajectoryEbbRegister());
 *     ...   // then -ts_trajectory_type ebb, or TSTrajectorySetType(tj, ts, "ebb")
 *
 * TSSolve hands each state to ebb (ebb_run_push) with its time and time
 * step; TSAdjointSolve gets x_n .. x_0 back (ebb_run_reverse_next), each
 * restored from ebb's tiers or recomputed with TSStep from a restored state,
 * and the stages of the step recomputed with one TSStep, as PETSc's
 * "memory" type does in its solution-only mode. The options
 * (-ts_trajectory_ebb_config, _strategy, _steps, _slots, _slow_slots,
 * _host_budget, _disk_path, _disk_budget, _audit, _trace) are in docs/petsc.md
 * and -help.
 */
#ifndef EBB_PETSC_H
#define EBB_PETSC_H

#include <petscts.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The type's name for TSTrajectorySetType. */
#define TSTRAJECTORYEBB "ebb"

/* Registers the type "ebb" with TSTrajectoryRegister; call it after
 * PetscInitialize. Calling it again does nothing. Returns PETSc's error
 * code, as PETSc's own functions do. */
PETSC_EXTERN PetscErrorCode TSTrajectoryEbbRegister(void);

#ifdef __cplusplus
}
#endif

#endif
