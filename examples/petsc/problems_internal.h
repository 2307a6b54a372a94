/*
 * What the problems of problems.h share (problems.c) and what each one
 * gives (problem_vdp.c, problem_rd.c, problem_rd2d.c): its parameters and
 * initial state from the seed, its functions and matrices on a TS, its
 * cost's seed.
 */
#ifndef EBB_EXAMPLES_PETSC_PROBLEMS_INTERNAL_H
#define EBB_EXAMPLES_PETSC_PROBLEMS_INTERNAL_H

#include "problems.h"

/* A uniform number in [0, 1) from *s (a small LCG: the same on every rank). */
PetscReal ProblemUniform(unsigned *s);

/* Counts a right-hand side call; fails it when the test asked (fail_at_call). */
PetscErrorCode ProblemCountCall(problem *pb);

/* k(t) / p = 1 + sin(2 pi t) / 2: the reaction-diffusion problems' rate
 * depends on t, so that a trajectory that hands back a wrong time changes
 * the gradient. */
PetscReal ProblemRateFactor(PetscReal t);

/* A problem on pb->da: the TS given its DM, right-hand side, Jacobian (a
 * matrix of the DM in *A) and its Jacobian in p (a dense n x 1 in *Jp), as
 * both reaction-diffusion problems set them. */
PetscErrorCode ProblemSetDMDATS(problem *pb, TS ts, Mat *A, Mat *Jp, TSRHSFunction rhs,
                                TSRHSJacobian jac, TSRHSJacobianP jacp);

PetscErrorCode VdpCreate(problem *pb, unsigned *s);
PetscErrorCode VdpSetTS(problem *pb, TS ts, Mat *A, Mat *Jp);

PetscErrorCode RdCreate(MPI_Comm comm, problem *pb, unsigned *s);
PetscErrorCode RdSetTS(problem *pb, TS ts, Mat *A, Mat *Jp);
PetscErrorCode RdCost(problem *pb, Vec lambda);

PetscErrorCode Rd2dCreate(MPI_Comm comm, problem *pb, unsigned *s);
PetscErrorCode Rd2dSetTS(problem *pb, TS ts, Mat *A, Mat *Jp);
PetscErrorCode Rd2dCost(problem *pb, Vec lambda);

#endif
