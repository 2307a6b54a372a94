/*
 * The ebb trajectory's options (PETSc's options database, shown by -help)
 * and the ebb configuration they make. Every bad value is a PETSc error
 * that names the option and says what was expected.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "bindings/petsc/trajebb.h"

void EbbPetscOptionsInit(ebbpetsc_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->strategy = EBB_STRATEGY_FROM_CONFIG;
    opt->audit = -1;
    opt->error_samples = -1;
}

#define REGISTER "TSTrajectoryEbbRegister"
#define FIELD(f) offsetof(ebbpetsc_options, f), sizeof(((ebbpetsc_options *)0)->f)

/* The options given as text: a file, a folder or a size (checked when the
 * configuration is built, EbbPetscBuildConfig). */
typedef struct text_option {
    const char *name, *help;
    size_t offset, size;
} text_option;

static const text_option text_options[] = {
    {"-ts_trajectory_ebb_config", "ebb's configuration file (TOML, docs/configuration.md)",
     FIELD(config)},
    {"-ts_trajectory_ebb_host_budget",
     "host memory for states, e.g. 64MiB (default: the configuration's tier.host.budget)",
     FIELD(host_budget)},
    {"-ts_trajectory_ebb_disk_path", "directory of the disk tier's files (enables the disk tier)",
     FIELD(disk_path)},
    {"-ts_trajectory_ebb_disk_budget",
     "disk space for states, e.g. 64MiB (enables the disk tier; default: the configuration's "
     "tier.disk.budget)",
     FIELD(disk_budget)},
    {"-ts_trajectory_ebb_trace",
     "write ebb's timeline to this file (Chrome trace-event JSON; on several ranks one file per "
     "rank, the rank before the extension: trace.json -> trace.0.json, trace.1.json, ...)",
     FIELD(trace)},
};

#define STR_(x) #x
#define STR(x) STR_(x)

/* The options that count states or steps, from `min` to `max`; the default
 * (0, or -1 for error_samples, whose 0 means off) takes it from elsewhere. */
typedef struct count_option {
    const char *name, *help, *expected;
    size_t offset, size;
    PetscInt min, max;
} count_option;

static const count_option count_options[] = {
    {"-ts_trajectory_ebb_steps",
     "time steps TSSolve takes, if known (0: not known; the offline strategies need it)",
     "the number of time steps TSSolve takes, or 0 when it is not known", FIELD(steps),
     0, PETSC_MAX_INT},
    {"-ts_trajectory_ebb_slots", "states kept in the fast tier (0: as many as its budget holds)",
     "a number of states >= 0 (0: from the budget)", FIELD(slots), 0, INT32_MAX},
    {"-ts_trajectory_ebb_slow_slots",
     "states kept in the slow tier (0: as many as its budget holds)",
     "a number of states >= 0 (0: from the budget)", FIELD(slow_slots), 0, INT32_MAX},
    {"-ts_trajectory_ebb_error_samples",
     "exact states kept for the lossy error estimate, which -ts_trajectory_view prints (0: off; "
     "-1, the default: the configuration's run.error_samples)",
     "0 (off) to " STR(EBB_ERROR_SAMPLES_MAX) " states, or -1 for run.error_samples",
     FIELD(error_samples), -1, EBB_ERROR_SAMPLES_MAX},
    {"-ts_trajectory_ebb_measure_costs",
     "1: strategy online times each time step of TSSolve and reverses by those times (each "
     "step's largest over the ranks); 0 (default): not",
     "0 or 1", FIELD(measure_costs), 0, 1},
};

/* The options naming one of ebb's choices; "config" (the field's -1) leaves
 * it to the configuration. */
static const char *strategy_name(int v) { return ebb_strategy_name((ebb_strategy)v); }
static ebb_status strategy_from(const char *text, int *v)
{
    ebb_strategy s;
    ebb_status st = ebb_strategy_from_name(text, &s);
    *v = (int)s;
    return st;
}
static const char *audit_name(int v) { return ebb_audit_name((ebb_audit)v); }
static ebb_status audit_from(const char *text, int *v)
{
    ebb_audit a;
    ebb_status st = ebb_audit_from_name(text, &a);
    *v = (int)a;
    return st;
}

typedef struct choice_option {
    const char *name, *help;
    size_t offset, size;
    const char *(*to_name)(int v);
    ebb_status (*from_name)(const char *text, int *v);
} choice_option;

static const choice_option choice_options[] = {
    {"-ts_trajectory_ebb_strategy",
     "store-all, periodic, revolve, online, multistage, disk-revolve, h-revolve, async or auto "
     "(default: the configuration's [run] strategy)",
     FIELD(strategy), strategy_name, strategy_from},
    {"-ts_trajectory_ebb_audit",
     "off, replay or hash: check every action, and with hash every restored or recomputed state",
     FIELD(audit), audit_name, audit_from},
};

#define COUNT(a) (sizeof(a) / sizeof(a)[0])

PetscErrorCode EbbPetscSetFromOptions(TSTrajectory tj, PetscOptionItems *PetscOptionsObject)
{
    TSTrajectory_Ebb *e = tj->data;
    char *opt = (char *)&e->opt;
    MPI_Comm comm = PetscObjectComm((PetscObject)tj);
    char text[PETSC_MAX_PATH_LEN];
    PetscBool set;

    PetscFunctionBegin;
    PetscOptionsHeadBegin(PetscOptionsObject, "TS trajectory options for the ebb type");
    for (size_t i = 0; i < COUNT(text_options); i++) {
        const text_option *t = &text_options[i];
        char *field = opt + t->offset;
        PetscCall(PetscOptionsString(t->name, t->help, REGISTER, field, field, t->size, NULL));
    }
    for (size_t i = 0; i < COUNT(choice_options); i++) {
        const choice_option *c = &choice_options[i];
        int *field = (int *)(opt + c->offset);
        PetscCall(PetscStrncpy(text, *field < 0 ? "config" : c->to_name(*field), sizeof text));
        PetscCall(PetscOptionsString(c->name, c->help, REGISTER, text, text, sizeof text, &set));
        PetscCheck(!set || c->from_name(text, field) == EBB_OK, comm, PETSC_ERR_ARG_OUTOFRANGE,
                   "%s %s: %s", c->name, text, ebb_last_error());
    }
    for (size_t i = 0; i < COUNT(count_options); i++) {
        const count_option *c = &count_options[i];
        PetscInt *field = (PetscInt *)(opt + c->offset);
        PetscCall(PetscOptionsInt(c->name, c->help, REGISTER, *field, field, NULL));
        PetscCheck(*field >= c->min && *field <= c->max, comm, PETSC_ERR_ARG_OUTOFRANGE,
                   "%s %" PetscInt_FMT ": expected %s", c->name, *field, c->expected);
    }
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
    if (opt->disk_budget[0]) {
        uint64_t bytes;
        PetscCheck(ebb_parse_size(opt->disk_budget, &bytes) == EBB_OK, comm,
                   PETSC_ERR_ARG_OUTOFRANGE, "-ts_trajectory_ebb_disk_budget %s: %s",
                   opt->disk_budget, ebb_last_error());
        e->config.disk.enabled = 1;
        e->config.disk.budget = bytes;
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
