/*
 * Property: for random problems (van der Pol, a 1-D reaction-diffusion
 * DMDA or a 2-D Gray-Scott DMDA with two components), random step counts and step sizes, fixed or adaptive, the
 * gradients TSAdjointSolve gives with -ts_trajectory_type ebb under every
 * strategy (random small slot counts, so that ebb recomputes, and the disk
 * tier on) are bitwise those of -ts_trajectory_type memory.
 *
 *   gradients -problem vdp|rd|rd2d [-cells N] -cases K -seed S -scratch DIR
 *             [-adaptive] [-strategies a,b,..] [-reference_ebb] [PETSc's -ts_type ...]
 *
 * Strategy "online-measured" is online with -ts_trajectory_ebb_measure_costs 1
 * (the reverse sweep planned from the steps' measured times).
 *
 * -reference_ebb: the reference is ebb's store-all run, not memory's (FSAL
 * RK methods, whose forward sweep ebb changes: docs/petsc.md).
 *
 * Exits 0 when every case matched, 1 when one did not (printing it).
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <ebb/petsc.h>

#include "solve.h"

static unsigned Next(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

int main(int argc, char **argv)
{
    char kind[16] = "vdp", scratch[PETSC_MAX_PATH_LEN] = "/tmp",
         list[256] = "store-all,periodic,revolve,online,online-measured,multistage,disk-revolve,"
                     "h-revolve,async";
    PetscInt cases = 4, seed = 1, cells = 64;
    PetscBool adaptive = PETSC_FALSE, reference_ebb = PETSC_FALSE;
    int failures = 0;

    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscCall(TSTrajectoryEbbRegister());
    PetscCall(PetscOptionsGetString(NULL, NULL, "-problem", kind, sizeof kind, NULL));
    PetscCall(PetscOptionsGetString(NULL, NULL, "-scratch", scratch, sizeof scratch, NULL));
    PetscCall(PetscOptionsGetString(NULL, NULL, "-strategies", list, sizeof list, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-cases", &cases, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-cells", &cells, NULL));
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-adaptive", &adaptive, NULL));
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-reference_ebb", &reference_ebb, NULL));
    mkdir(scratch, 0755);
    problem_kind pkind;
    PetscCall(ProblemKindFromName(kind, &pkind));

    unsigned s = (unsigned)seed;
    for (PetscInt c = 0; c < cases; c++) {
        problem pb;
        solve_setup setup = {.adaptive = adaptive};
        solve_result ref;
        char nstr[32];
        unsigned pseed = Next(&s);

        PetscCall(ProblemCreate(PETSC_COMM_WORLD, pkind, cells, pseed, &pb));
        setup.steps = 2 + (PetscInt)(Next(&s) % 60);
        setup.dt = (pb.kind == PROBLEM_VDP ? 0.005 : 0.01) * (1.0 + (Next(&s) % 100) / 25.0);
        setup.final_time = 0.3 + (Next(&s) % 100) / 50.0;
        const char *const memory[] = {"-ts_trajectory_type", "memory", NULL};
        PetscCall(SolveWith(&pb, &setup, memory, &ref));
        PetscCall(PetscSNPrintf(nstr, sizeof nstr, "%" PetscInt_FMT, ref.steps));
        if (reference_ebb) {
            /* an FSAL method: ebb's forward sweep evaluates each first stage
               afresh, so its own run keeping every state is the reference
               (online: the number of steps may differ from memory's) */
            const char *const all[] = {"-ts_trajectory_type", "ebb", "-ts_trajectory_ebb_strategy",
                                       "online", "-ts_trajectory_ebb_slots", "100000", NULL};
            PetscCall(SolveResultDestroy(&pb, &ref));
            PetscCall(SolveWith(&pb, &setup, all, &ref));
            PetscCall(PetscSNPrintf(nstr, sizeof nstr, "%" PetscInt_FMT, ref.steps));
        }

        char copy[256];
        PetscCall(PetscStrncpy(copy, list, sizeof copy));
        for (char *save = NULL, *name = strtok_r(copy, ",", &save); name;
             name = strtok_r(NULL, ",", &save)) {
            char slots[16], slow[16];
            PetscBool measured = !strcmp(name, "online-measured");
            PetscBool online = !strcmp(name, "online") || !strcmp(name, "async") || measured;
            PetscBool all = !strcmp(name, "store-all");
            int c_slots = 2 + (int)(Next(&s) % 3);
            if (all)
                c_slots = (int)ref.steps; /* every state */
            else if (!strcmp(name, "periodic")) /* k + n/k slots, k ~ sqrt(n) */
                while ((PetscInt)c_slots * c_slots < 3 * ref.steps + 4)
                    c_slots++;
            /* C small enough that ebb recomputes */
            PetscCall(PetscSNPrintf(slots, sizeof slots, "%d", c_slots));
            PetscCall(PetscSNPrintf(slow, sizeof slow, "%d",
                                    !strcmp(name, "disk-revolve") ? (int)ref.steps
                                                                  : 1 + (int)(Next(&s) % 4)));
            const char *audit = Next(&s) % 2 ? "hash" : "off";
            const char *const opts[] = {"-ts_trajectory_type", "ebb",
                                        "-ts_trajectory_ebb_strategy",
                                        measured ? "online" : name,
                                        "-ts_trajectory_ebb_measure_costs", measured ? "1" : "0",
                                        "-ts_trajectory_ebb_steps", online ? "0" : nstr,
                                        "-ts_trajectory_ebb_slots", slots,
                                        "-ts_trajectory_ebb_slow_slots", slow,
                                        "-ts_trajectory_ebb_disk_path", scratch,
                                        "-ts_trajectory_ebb_audit", audit,
                                        NULL};
            solve_result got;
            PetscBool equal;
            PetscCall(SolveWith(&pb, &setup, opts, &got));
            PetscCall(SolveResultsEqual(&pb, &ref, &got, &equal));
            if (!equal) {
                failures++;
                PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                                      "FAIL case %" PetscInt_FMT " (seed %u): %s, %s steps, slots %s, "
                                      "slow slots %s, audit %s: gradient differs from memory's\n",
                                      c, pseed, name, nstr, slots, slow, audit));
            }
            PetscCall(SolveResultDestroy(&pb, &got));
        }
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "case %" PetscInt_FMT ": %s, %s steps: done\n", c,
                              kind, nstr));
        PetscCall(SolveResultDestroy(&pb, &ref));
        PetscCall(ProblemDestroy(&pb));
    }
    PetscMPIInt ranks;
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &ranks));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d mismatches on %d ranks\n", failures, (int)ranks));
    PetscCall(PetscFinalize());
    return failures ? 1 : 0;
}
