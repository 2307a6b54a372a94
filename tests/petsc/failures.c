/*
 * The ebb trajectory's failure paths end in PETSc's error mechanism with
 * ebb's message: each bad option names itself; a strategy that needs n
 * with n unknown (from the option or the configuration file) names
 * -ts_trajectory_ebb_steps and the strategies that take n unknown; a
 * -ts_trajectory_ebb_steps other than the steps TSSolve took names the
 * option and the count; a right-hand side that fails
 * while ebb recomputes a step in TSAdjointSolve makes TSAdjointSolve fail
 * saying so; a full disk (a disk tier larger than the file system's free
 * space, and the disk path's file system refusing a file with ENOSPC,
 * injected through ebb_config.fault_write_errno as the configuration tests
 * do) fails the forward sweep naming the directory. The disk tier's folder
 * holds no file after any of them.
 *
 *   failures -scratch DIR
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <ebb/petsc.h>

#include "bindings/petsc/trajebb.h"
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

/* Leaves a failure when `path` holds a file. */
static PetscErrorCode ExpectNoFile(const char *path, const char *after)
{
    PetscFunctionBegin;
    if (!DirectoryEmpty(path)) {
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL: files left in %s after %s\n", path, after));
        failures++;
    }
    PetscFunctionReturn(0);
}

/* before_solve: the disk path's file system refuses a new file with ENOSPC
 * (the probe ebb makes when the run is created), as a full disk does. */
static PetscErrorCode InjectFullDisk(TS ts, void *ctx)
{
    TSTrajectory tj;
    PetscBool ebb;

    PetscFunctionBegin;
    (void)ctx;
    PetscCall(TSGetTrajectory(ts, &tj));
    PetscCall(PetscObjectTypeCompare((PetscObject)tj, TSTRAJECTORYEBB, &ebb));
    PetscCheck(ebb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the test expected an ebb trajectory");
    ((TSTrajectory_Ebb *)tj->data)->config.fault_write_errno = ENOSPC;
    PetscFunctionReturn(0);
}

/* A full disk: first a disk tier that needs more than the scratch folder's
 * file system has free (1 MiB states of the 1-D problem, enough slow slots
 * to pass its free space), then ENOSPC injected when ebb tries a file
 * there. Both end the forward sweep with ebb's message naming the folder. */
static PetscErrorCode FullDisk(const char *scratch)
{
    problem big;
    solve_setup setup = {.steps = 10, .dt = 1e-9};
    struct statvfs vfs;
    char slow[32], expect[PETSC_MAX_PATH_LEN + 160];

    PetscFunctionBegin;
    PetscCheck(statvfs(scratch, &vfs) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN,
               "statvfs(%s) failed: %s", scratch, strerror(errno));
    PetscCall(ProblemCreate(PETSC_COMM_WORLD, PROBLEM_RD, 131072, 5, &big));
    double state = 131072.0 * sizeof(PetscScalar) + sizeof(ebbpetsc_header);
    double need = (double)vfs.f_bavail * (double)vfs.f_frsize / state * 1.5 + 16;
    PetscCall(PetscSNPrintf(slow, sizeof slow, "%.0f", need < 2e9 ? need : 2e9));
    const char *const space[] = {"-ts_trajectory_type", "ebb", "-ts_trajectory_ebb_strategy",
                                 "disk-revolve", "-ts_trajectory_ebb_steps", "10",
                                 "-ts_trajectory_ebb_slots", "2",
                                 "-ts_trajectory_ebb_slow_slots", slow,
                                 "-ts_trajectory_ebb_disk_path", scratch, NULL};
    PetscCall(PetscSNPrintf(expect, sizeof expect, "disk directory '%s' has", scratch));
    PetscCall(ExpectError(&big, &setup, space, expect));
    PetscCall(ExpectNoFile(scratch, "a disk tier beyond the free space"));

    setup.before_solve = InjectFullDisk;
    const char *const full[] = {"-ts_trajectory_type", "ebb", "-ts_trajectory_ebb_strategy",
                                "disk-revolve", "-ts_trajectory_ebb_steps", "10",
                                "-ts_trajectory_ebb_slots", "2",
                                "-ts_trajectory_ebb_slow_slots", "8",
                                "-ts_trajectory_ebb_disk_path", scratch, NULL};
    PetscCall(PetscSNPrintf(expect, sizeof expect,
                            "'%s' is not writable; expected a directory where ebb can create its "
                            "file (creating a test file failed): No space left on device",
                            scratch));
    PetscCall(ExpectError(&big, &setup, full, expect));
    PetscCall(ExpectNoFile(scratch, "ENOSPC in the disk path"));
    PetscCall(ProblemDestroy(&big));
    PetscFunctionReturn(0);
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
    const char *const disk_budget[] = {"-ts_trajectory_ebb_disk_budget", "64M",
                                       "-ts_trajectory_type", "ebb", NULL};
    PetscCall(ExpectError(&pb, &setup, disk_budget,
                          "-ts_trajectory_ebb_disk_budget 64M: '64M' is not a size"));
    const char *const audit[] = {"-ts_trajectory_type", "ebb", "-ts_trajectory_ebb_audit", "all",
                                 NULL};
    PetscCall(ExpectError(&pb, &setup, audit, "-ts_trajectory_ebb_audit all"));
    const char *const steps[] = {"-ts_trajectory_type", "ebb", "-ts_trajectory_ebb_steps", "-3",
                                 NULL};
    PetscCall(ExpectError(&pb, &setup, steps, "-ts_trajectory_ebb_steps -3"));
    const char *const slow[] = {"-ts_trajectory_type", "ebb", "-ts_trajectory_ebb_slow_slots", "-1",
                                NULL};
    PetscCall(ExpectError(&pb, &setup, slow,
                          "-ts_trajectory_ebb_slow_slots -1: expected a number of states"));
    const char *const samples[] = {"-ts_trajectory_type", "ebb", "-ts_trajectory_ebb_error_samples",
                                   "70000", NULL};
    PetscCall(ExpectError(&pb, &setup, samples,
                          "-ts_trajectory_ebb_error_samples 70000: expected 0 (off) to 65536 "
                          "states, or -1 for run.error_samples"));
    const char *const measure[] = {"-ts_trajectory_type", "ebb",
                                   "-ts_trajectory_ebb_measure_costs", "2", NULL};
    PetscCall(ExpectError(&pb, &setup, measure,
                          "-ts_trajectory_ebb_measure_costs 2: expected 0 or 1"));
    /* measured costs plan online's reverse sweep: revolve refuses them */
    const char *const measured_revolve[] = {"-ts_trajectory_type", "ebb",
                                            "-ts_trajectory_ebb_strategy", "revolve",
                                            "-ts_trajectory_ebb_steps", "5",
                                            "-ts_trajectory_ebb_measure_costs", "1", NULL};
    PetscCall(ExpectError(&pb, &setup, measured_revolve,
                          "strategy \"revolve\" does not plan its reverse sweep from measured "
                          "times"));
    const char *const config[] = {"-ts_trajectory_type", "ebb", "-ts_trajectory_ebb_config",
                                  "/nonexistent/ebb.toml", NULL};
    PetscCall(ExpectError(&pb, &setup, config, "-ts_trajectory_ebb_config /nonexistent/ebb.toml"));
    /* an offline strategy without the number of steps: the option to set and
       the strategies that take n unknown, whether the strategy comes from
       an option or from the configuration file */
    const char *const nsteps[] = {"-ts_trajectory_type", "ebb", "-ts_trajectory_ebb_strategy",
                                  "revolve", NULL};
    const char *unknown = "needs the number of steps, but n is unknown (-ts_trajectory_ebb_steps "
                          "0, the default): set -ts_trajectory_ebb_steps to the number of steps "
                          "TSSolve takes, or choose a strategy that takes n unknown "
                          "(-ts_trajectory_ebb_strategy online, async or auto)";
    PetscCall(ExpectError(&pb, &setup, nsteps, unknown));
    PetscCall(ExpectError(&pb, &setup, nsteps,
                          "strategy revolve (-ts_trajectory_ebb_strategy) needs"));
    char toml[PETSC_MAX_PATH_LEN], from[PETSC_MAX_PATH_LEN + 64];
    PetscCall(PetscSNPrintf(toml, sizeof toml, "%s/revolve.toml", scratch));
    FILE *f = fopen(toml, "w");
    PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", toml);
    fprintf(f, "[run]\nstrategy = \"revolve\"\n");
    fclose(f);
    const char *const in_file[] = {"-ts_trajectory_type", "ebb", "-ts_trajectory_ebb_config",
                                   toml, NULL};
    PetscCall(ExpectError(&pb, &setup, in_file, unknown));
    PetscCall(PetscSNPrintf(from, sizeof from, "strategy revolve (run.strategy in %s:2) needs",
                            toml));
    PetscCall(ExpectError(&pb, &setup, in_file, from));
    remove(toml);

    /* -ts_trajectory_ebb_steps other than the steps TSSolve takes (40): the
       option and the count */
    const char *const fewer[] = {"-ts_trajectory_type", "ebb", "-ts_trajectory_ebb_strategy",
                                 "revolve", "-ts_trajectory_ebb_steps", "30", NULL};
    PetscCall(ExpectError(&pb, &setup, fewer,
                          "-ts_trajectory_ebb_steps is 30, but TSSolve took 40 steps: set "
                          "-ts_trajectory_ebb_steps 40 (the number of steps TSSolve takes), or 0 "
                          "when it is not known before (strategies online, async and auto)"));
    const char *const more[] = {"-ts_trajectory_type", "ebb", "-ts_trajectory_ebb_strategy",
                                "async", "-ts_trajectory_ebb_steps", "50", NULL};
    PetscCall(ExpectError(&pb, &setup, more,
                          "-ts_trajectory_ebb_steps is 50, but TSSolve took 40 steps: set "
                          "-ts_trajectory_ebb_steps 40"));

    /* the right-hand side fails while ebb recomputes in TSAdjointSolve */
    pb.fail_at_call = 5;
    const char *const recompute[] = {"-ts_trajectory_type", "ebb", "-ts_trajectory_ebb_strategy",
                                     "revolve", "-ts_trajectory_ebb_steps", "40",
                                     "-ts_trajectory_ebb_slots", "3",
                                     "-ts_trajectory_ebb_disk_path", scratch, NULL};
    PetscCall(ExpectError(&pb, &setup, recompute, "right-hand side fails at call"));
    PetscCall(ExpectNoFile(scratch, "a failing TSStep in a recomputation"));
    pb.fail_at_call = 0;

    PetscCall(FullDisk(scratch));

    PetscCall(ProblemDestroy(&pb));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d failures\n", failures));
    PetscCall(PetscFinalize());
    return failures ? 1 : 0;
}
