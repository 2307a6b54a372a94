/*
 * The ebb trajectory's failure paths end in PETSc's error mechanism with
 * ebb's message: each bad option names itself; a right-hand side that fails
 * while ebb recomputes a step in TSAdjointSolve makes TSAdjointSolve fail
 * saying so, and the disk tier's folder holds no file afterwards.
 *
 *   failures -scratch DIR
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <ebb/petsc.h>

#include "solve.h"

static int failures = 0;

/* Solves with `options` expecting an error whose message holds `expect`. */
static PetscErrorCode ExpectError(problem *pb, const solve_setup *setup, const char *const *options,
                                  const char *expect)
{
    solve_result r;
    const char *text = NULL;
    char *specific = NULL;

    PetscFunctionBegin;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    PetscErrorCode ierr = SolveWith(pb, setup, options, &r);
    PetscCall(PetscPopErrorHandler());
    if (!ierr) {
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL: %s %s: no error\n", options[2], options[3]));
        failures++;
        PetscCall(SolveResultDestroy(pb, &r));
        PetscFunctionReturn(0);
    }
    PetscErrorMessage(ierr, &text, &specific);
    if (!specific || !strstr(specific, expect)) {
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL: %s %s: message \"%s\" lacks \"%s\"\n",
                              options[2], options[3], specific ? specific : "(none)", expect));
        failures++;
    } else {
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok: %s %s: %s\n", options[2], options[3], specific));
    }
    /* the solve's own objects were left behind by the error; the options too */
    for (const char *const *o = options; o[0]; o += 2)
        PetscCall(PetscOptionsClearValue(NULL, o[0]));
    PetscFunctionReturn(0);
}

static int DirectoryEmpty(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *ent;
    int empty = 1;
    if (!d)
        return 1;
    while ((ent = readdir(d)))
        if (strcmp(ent->d_name, ".") && strcmp(ent->d_name, ".."))
            empty = 0;
    closedir(d);
    return empty;
}

int main(int argc, char **argv)
{
    char scratch[PETSC_MAX_PATH_LEN] = "/tmp/ebb_petsc_failures";
    problem pb;
    solve_setup setup = {.steps = 40, .dt = 0.01};

    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscCall(TSTrajectoryEbbRegister());
    PetscCall(PetscOptionsGetString(NULL, NULL, "-scratch", scratch, sizeof scratch, NULL));
    mkdir(scratch, 0755);
    PetscCall(ProblemCreate(PETSC_COMM_WORLD, PROBLEM_VDP, 0, 3, &pb));
    PetscCall(PetscOptionsSetValue(NULL, "-ts_type", "rk"));
    PetscCall(PetscOptionsSetValue(NULL, "-ts_adapt_type", "none"));

    const char *const strategy[] = {"-ts_trajectory_type", "ebb", "-ts_trajectory_ebb_strategy",
                                    "revolver", NULL};
    PetscCall(ExpectError(&pb, &setup, strategy, "-ts_trajectory_ebb_strategy revolver"));
    const char *const budget[] = {"-ts_trajectory_ebb_host_budget", "64M", "-ts_trajectory_type",
                                  "ebb", NULL};
    PetscCall(ExpectError(&pb, &setup, budget, "-ts_trajectory_ebb_host_budget 64M"));
    const char *const audit[] = {"-ts_trajectory_type", "ebb", "-ts_trajectory_ebb_audit", "all",
                                 NULL};
    PetscCall(ExpectError(&pb, &setup, audit, "-ts_trajectory_ebb_audit all"));
    const char *const steps[] = {"-ts_trajectory_type", "ebb", "-ts_trajectory_ebb_steps", "-3",
                                 NULL};
    PetscCall(ExpectError(&pb, &setup, steps, "-ts_trajectory_ebb_steps -3"));
    const char *const config[] = {"-ts_trajectory_type", "ebb", "-ts_trajectory_ebb_config",
                                  "/nonexistent/ebb.toml", NULL};
    PetscCall(ExpectError(&pb, &setup, config, "-ts_trajectory_ebb_config /nonexistent/ebb.toml"));
    /* an offline strategy without the number of steps */
    const char *const nsteps[] = {"-ts_trajectory_type", "ebb", "-ts_trajectory_ebb_strategy",
                                  "revolve", NULL};
    PetscCall(ExpectError(&pb, &setup, nsteps, "n unknown"));

    /* the right-hand side fails while ebb recomputes in TSAdjointSolve */
    pb.fail_at_call = 5;
    const char *const recompute[] = {"-ts_trajectory_type", "ebb", "-ts_trajectory_ebb_strategy",
                                     "revolve", "-ts_trajectory_ebb_steps", "40",
                                     "-ts_trajectory_ebb_slots", "3",
                                     "-ts_trajectory_ebb_disk_path", scratch, NULL};
    PetscCall(ExpectError(&pb, &setup, recompute, "right-hand side fails at call"));
    if (!DirectoryEmpty(scratch)) {
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL: files left in %s\n", scratch));
        failures++;
    }

    PetscCall(ProblemDestroy(&pb));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d failures\n", failures));
    PetscCall(PetscFinalize());
    return failures ? 1 : 0;
}
