/*
 * Two PETSc adjoint problems for the ebb trajectory's example and tests:
 * van der Pol (2 unknowns, parameter mu; one rank) and a 1-D
 * reaction-diffusion equation on a periodic DMDA (u_t = D u_xx + k(t) u(1-u),
 * k(t) = p (1 + sin(2 pi t)/2), parameter p; any number of ranks). Each gives TS its right-hand side, its
 * Jacobian and the Jacobian with respect to the parameter, so that
 * TSAdjointSolve returns dJ/du0 (lambda) and dJ/dp (mu) of the final state.
 */
#ifndef EBB_EXAMPLES_PETSC_PROBLEMS_H
#define EBB_EXAMPLES_PETSC_PROBLEMS_H

#include <petscdmda.h>
#include <petscts.h>

typedef enum { PROBLEM_VDP = 0, PROBLEM_RD = 1 } problem_kind;

typedef struct problem {
    problem_kind kind;
    PetscReal p;          /* mu (van der Pol) or k (reaction-diffusion) */
    PetscReal diffusion;  /* reaction-diffusion: D */
    PetscInt cells;       /* reaction-diffusion: grid points */
    DM da;                /* reaction-diffusion: the grid */
    Vec x0;               /* the initial state */
    PetscInt ncost;       /* cost functions: 2 (vdp: y1, y2 at T), 1 (rd: w . u(T)) */
    /* a test's fault: the right-hand side fails from this call on during
       TSAdjointSolve (0: never) */
    PetscInt fail_at_call;
    PetscInt calls;
    PetscBool adjoint_running;
} problem;

/* Creates the problem (its x0 random from seed); `cells` for rd. */
PetscErrorCode ProblemCreate(MPI_Comm comm, problem_kind kind, PetscInt cells, unsigned seed,
                             problem *pb);
PetscErrorCode ProblemDestroy(problem *pb);

/* A TS over the problem with its functions and matrices, max steps and
 * time as given, the trajectory saved; the caller sets options and solves. */
PetscErrorCode ProblemCreateTS(problem *pb, TS *ts, Mat *A, Mat *Jp);

/* The cost gradients' seeds at T (lambda = dJ/du(T), mu = 0). */
PetscErrorCode ProblemCostGradients(problem *pb, Vec lambda[], Vec mu[]);

#endif
