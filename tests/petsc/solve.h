/*
 * One forward and adjoint solve of a problem (examples/petsc/problems.h)
 * under the trajectory type and options given, for the petsc tests.
 */
#ifndef EBB_TESTS_PETSC_SOLVE_H
#define EBB_TESTS_PETSC_SOLVE_H

#include "examples/petsc/problems.h"

typedef struct solve_setup {
    PetscBool adaptive;  /* TS_EXACTFINALTIME_MATCHSTEP up to final_time, else steps fixed steps */
    PetscInt steps;
    PetscReal dt, final_time;
    /* called after TSSetFromOptions, before TSSolve (NULL: none): a test's
       fault injection into the trajectory it made */
    PetscErrorCode (*before_solve)(TS ts, void *ctx);
    void *ctx;
} solve_setup;

typedef struct solve_result {
    PetscInt steps;               /* the steps TSSolve took */
    Vec lambda[2], mu[2];         /* dJ/du0 and dJ/dp per cost */
} solve_result;

/* Sets the options (NULL-terminated name, value pairs) in PETSc's database
 * for the time of the solve, and removes them after. */
PetscErrorCode SolveWith(problem *pb, const solve_setup *setup, const char *const *options,
                         solve_result *out);
PetscErrorCode SolveResultDestroy(problem *pb, solve_result *r);

/* 1 when every rank's arrays are bitwise equal (collective). */
PetscErrorCode SolveResultsEqual(problem *pb, const solve_result *a, const solve_result *b,
                                 PetscBool *equal);

#endif
