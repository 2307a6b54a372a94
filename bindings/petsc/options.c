/*
 * The ebb trajectory's options (PETSc's options database, shown by -help)
 * and the ebb configuration they make. Every bad value is a PETSc error
 * that names the option and says what was expected.
 */
#include <string.h>

#include "bindings/petsc/trajebb.h"

void EbbPetscOptionsInit(ebbpetsc_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->strategy = EBB_STRATEGY_FROM_CONFIG;
    opt->audit = -1;
}

PetscErrorCode EbbPetscSetFromOptions(TSTrajectory tj, PetscOptionItems *PetscOptionsObject)
{
    TSTrajectory_Ebb *e = tj->data;
    ebbpetsc_options *opt = &e->opt;
    MPI_Comm comm = PetscObjectComm((PetscObject)tj);
    char text[PETSC_MAX_PATH_LEN];
    PetscBool set;

    PetscFunctionBegin;
    PetscOptionsHeadBegin(PetscOptionsObject, "TS trajectory options for the ebb type");
    PetscCall(PetscOptionsString("-ts_trajectory_ebb_config",
                                 "ebb's configuration file (TOML, docs/configuration.md)",
                                 "TSTrajectoryEbbRegister", opt->config, opt->config,
                                 sizeof opt->config, NULL));

    PetscCall(PetscStrncpy(text, opt->strategy == EBB_STRATEGY_FROM_CONFIG ? "config"
                                                                           : ebb_strategy_name(opt->strategy),
                           sizeof text));
    PetscCall(PetscOptionsString("-ts_trajectory_ebb_strategy",
                                 "store-all, periodic, revolve, online, multistage, disk-revolve, "
                                 "h-revolve, async or auto (default: the configuration's [run] strategy)",
                                 "TSTrajectoryEbbRegister", text, text, sizeof text, &set));
    if (set) {
        ebb_strategy s;
        PetscCheck(ebb_strategy_from_name(text, &s) == EBB_OK, comm, PETSC_ERR_ARG_OUTOFRANGE,
                   "-ts_trajectory_ebb_strategy %s: %s", text, ebb_last_error());
        opt->strategy = s;
    }

    PetscCall(PetscOptionsInt("-ts_trajectory_ebb_steps",
                              "time steps TSSolve takes, if known (0: not known; the offline "
                              "strategies need it)",
                              "TSTrajectoryEbbRegister", opt->steps, &opt->steps, NULL));
    PetscCheck(opt->steps >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE,
               "-ts_trajectory_ebb_steps %" PetscInt_FMT
               ": expected the number of time steps TSSolve takes, or 0 when it is not known",
               opt->steps);
    PetscCall(PetscOptionsInt("-ts_trajectory_ebb_slots",
                              "states kept in the fast tier (0: as many as its budget holds)",
                              "TSTrajectoryEbbRegister", opt->slots, &opt->slots, NULL));
    PetscCheck(opt->slots >= 0 && opt->slots <= INT32_MAX, comm, PETSC_ERR_ARG_OUTOFRANGE,
               "-ts_trajectory_ebb_slots %" PetscInt_FMT
               ": expected a number of states >= 0 (0: from the budget)", opt->slots);
    PetscCall(PetscOptionsInt("-ts_trajectory_ebb_slow_slots",
                              "states kept in the slow tier (0: as many as its budget holds)",
                              "TSTrajectoryEbbRegister", opt->slow_slots, &opt->slow_slots, NULL));
    PetscCheck(opt->slow_slots >= 0 && opt->slow_slots <= INT32_MAX, comm,
               PETSC_ERR_ARG_OUTOFRANGE,
               "-ts_trajectory_ebb_slow_slots %" PetscInt_FMT
               ": expected a number of states >= 0 (0: from the budget)", opt->slow_slots);

    PetscCall(PetscOptionsString("-ts_trajectory_ebb_host_budget",
                                 "host memory for states, e.g. 64MiB (default: the configuration's "
                                 "tier.host.budget)",
                                 "TSTrajectoryEbbRegister", opt->host_budget, opt->host_budget,
                                 sizeof opt->host_budget, &set));
    if (set && opt->host_budget[0]) {
        uint64_t bytes;
        PetscCheck(ebb_parse_size(opt->host_budget, &bytes) == EBB_OK, comm,
                   PETSC_ERR_ARG_OUTOFRANGE, "-ts_trajectory_ebb_host_budget %s: %s",
                   opt->host_budget, ebb_last_error());
    }
    PetscCall(PetscOptionsString("-ts_trajectory_ebb_disk_path",
                                 "directory of the disk tier's files (enables the disk tier)",
                                 "TSTrajectoryEbbRegister", opt->disk_path, opt->disk_path,
                                 sizeof opt->disk_path, NULL));

    PetscCall(PetscStrncpy(text, opt->audit < 0 ? "config" : ebb_audit_name((ebb_audit)opt->audit),
                           sizeof text));
    PetscCall(PetscOptionsString("-ts_trajectory_ebb_audit",
                                 "off, replay or hash: check every action, and with hash every "
                                 "restored or recomputed state",
                                 "TSTrajectoryEbbRegister", text, text, sizeof text, &set));
    if (set) {
        ebb_audit a;
        PetscCheck(ebb_audit_from_name(text, &a) == EBB_OK, comm, PETSC_ERR_ARG_OUTOFRANGE,
                   "-ts_trajectory_ebb_audit %s: %s", text, ebb_last_error());
        opt->audit = (int)a;
    }
    PetscCall(PetscOptionsString("-ts_trajectory_ebb_trace",
                                 "write ebb's timeline to this file (Chrome trace-event JSON)",
                                 "TSTrajectoryEbbRegister", opt->trace, opt->trace,
                                 sizeof opt->trace, NULL));
    PetscOptionsHeadEnd();

    /* a bad file or path fails here, at the option, not at the first step */
    PetscCall(EbbPetscBuildConfig(tj, e));
    PetscFunctionReturn(0);
}

PetscErrorCode EbbPetscBuildConfig(TSTrajectory tj, TSTrajectory_Ebb *e)
{
    const ebbpetsc_options *opt = &e->opt;
    MPI_Comm comm = PetscObjectComm((PetscObject)tj);

    PetscFunctionBegin;
    if (e->config_ready)
        ebb_config_dispose(&e->config);
    e->config_ready = 0;
    PetscCheck(ebb_config_init_default(&e->config) == EBB_OK, comm, PETSC_ERR_MEM, "ebb: %s",
               ebb_last_error());
    e->config_ready = 1;
    if (opt->config[0])
        PetscCheck(ebb_config_load_file(opt->config, &e->config) == EBB_OK, comm, PETSC_ERR_USER,
                   "-ts_trajectory_ebb_config %s: %s", opt->config, ebb_last_error());
    if (opt->host_budget[0]) {
        uint64_t bytes;
        PetscCheck(ebb_parse_size(opt->host_budget, &bytes) == EBB_OK, comm,
                   PETSC_ERR_ARG_OUTOFRANGE, "-ts_trajectory_ebb_host_budget %s: %s",
                   opt->host_budget, ebb_last_error());
        e->config.host.enabled = 1;
        e->config.host.budget = bytes;
    }
    if (opt->disk_path[0]) {
        const char *paths[1] = {opt->disk_path};
        PetscCheck(ebb_config_set_disk_paths(&e->config, paths, 1) == EBB_OK, comm,
                   PETSC_ERR_ARG_OUTOFRANGE, "-ts_trajectory_ebb_disk_path %s: %s",
                   opt->disk_path, ebb_last_error());
        e->config.disk.enabled = 1;
    }
    PetscFunctionReturn(0);
}
