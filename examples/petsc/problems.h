/*
 * Three PETSc adjoint problems for the ebb trajectory's example, tests and
 * benchmark: van der Pol (2 unknowns, parameter mu; one rank;
 * problem_vdp.c), a 1-D reaction-diffusion equation on a periodic DMDA
 * (u_t = D u_xx + k(t) u(1-u), k(t) = p (1 + sin(2 pi t)/2), parameter p;
 * any number of ranks; problem_rd.c) and a 2-D Gray-Scott system on a
 * periodic cells x cells DMDA with 2 components (feed rate F(t) = p (1 +
 * sin(2 pi t)/2), parameter p; any number of ranks; problem_rd2d.c). Each
 * gives TS its right-hand side, its Jacobian and the Jacobian with respect
 * to the parameter, so that TSAdjointSolve returns dJ/du0 (lambda) and
 * dJ/dp (mu) of the final state; explicit (RK) and implicit (Theta) alike.
 */
#ifndef EBB_EXAMPLES_PETSC_PROBLEMS_H
#define EBB_EXAMPLES_PETSC_PROBLEMS_H

#include <petscdmda.h>
#include <petscts.h>

typedef enum { PROBLEM_VDP = 0, PROBLEM_RD = 1, PROBLEM_RD2D = 2 } problem_kind;

typedef struct problem {
    problem_kind kind;
    PetscReal p;          /* mu (van der Pol), k (rd) or F (rd2d) */
    PetscReal diffusion;  /* rd: D; rd2d: D_u / h^2 (per cell, so any grid is as stiff) */
    PetscReal diffusion_v; /* rd2d: D_v / h^2 */
    PetscReal kill;       /* rd2d: kappa */
    PetscInt cells;       /* rd: grid points; rd2d: points per side */
    DM da;                /* reaction-diffusion: the grid */
    Vec x0;               /* the initial state */
    PetscInt ncost;       /* cost functions: 2 (vdp: y1, y2 at T), 1 (rd, rd2d: w . u(T)) */
    /* a test's fault: the right-hand side fails from this call on during
       TSAdjointSolve (0: never) */
    PetscInt fail_at_call;
    PetscInt calls;
    PetscBool adjoint_running;
} problem;

/* vdp, rd or rd2d (-problem NAME); a PETSc error naming the choices if not. */
PetscErrorCode ProblemKindFromName(const char *name, problem_kind *kind);

/* Creates the problem (its x0 random from seed); `cells` for rd and rd2d. */
PetscErrorCode ProblemCreate(MPI_Comm comm, problem_kind kind, PetscInt cells, unsigned seed,
                             problem *pb);
PetscErrorCode ProblemDestroy(problem *pb);

/* A TS over the problem with its functions and matrices, max steps and
 * time as given, the trajectory saved; the caller sets options and solves. */
PetscErrorCode ProblemCreateTS(problem *pb, TS *ts, Mat *A, Mat *Jp);

/* The cost gradients' seeds at T (lambda = dJ/du(T), mu = 0). */
PetscErrorCode ProblemCostGradients(problem *pb, Vec lambda[], Vec mu[]);

#endif
