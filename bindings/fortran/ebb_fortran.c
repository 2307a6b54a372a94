/*
 * The few C helpers the Fortran module (ebb.f90) needs where Fortran cannot
 * call ebb's C API directly: ebb_callback_fail is variadic (Fortran cannot
 * call a variadic function portably), and ebb_config is handled as an opaque
 * pointer so that the module does not mirror a struct whose fields grow. They
 * live in libebb_fortran, beside the module, not in libebb.
 */
#include <stdint.h>
#include <stdlib.h>

#include "ebb/ebb.h"

/* Prototypes here, not in a public header: only ebb.f90 calls these. */
int ebb_fortran_callback_fail(const char *message);
ebb_status ebb_fortran_config_create(ebb_config **out);
void ebb_fortran_config_destroy(ebb_config *cfg);
int32_t ebb_fortran_config_line(const ebb_config *cfg, int key);
int ebb_fortran_config_strategy(const ebb_config *cfg);
const char *ebb_fortran_run_strategy_name(const ebb_run *run);

int ebb_fortran_callback_fail(const char *message)
{
    return ebb_callback_fail("%s", message ? message : "(no message)");
}

/* A configuration on the heap, set to the embedded default. EBB_ERR_NO_MEMORY
 * with no message of ebb's when the struct itself cannot be allocated (the
 * module says so). */
ebb_status ebb_fortran_config_create(ebb_config **out)
{
    *out = NULL;
    ebb_config *cfg = calloc(1, sizeof *cfg);
    if (!cfg)
        return EBB_ERR_NO_MEMORY;
    ebb_status s = ebb_config_init_default(cfg);
    if (s != EBB_OK) {
        free(cfg);
        return s;
    }
    *out = cfg;
    return EBB_OK;
}

void ebb_fortran_config_destroy(ebb_config *cfg)
{
    ebb_config_dispose(cfg);
    free(cfg);
}

/* The line of the file that set `key`, 0 when no file did (or no such key). */
int32_t ebb_fortran_config_line(const ebb_config *cfg, int key)
{
    if (!cfg || key < 0 || key >= EBB_CONFIG_KEY_COUNT)
        return 0;
    return cfg->line[key];
}

/* run.strategy (an EBB_CONFIG_STRATEGY_*), -1 for a NULL configuration. */
int ebb_fortran_config_strategy(const ebb_config *cfg) { return cfg ? (int)cfg->strategy : -1; }

/* The strategy a run resolved, NULL when it cannot say (ebb_last_error: why). */
const char *ebb_fortran_run_strategy_name(const ebb_run *run)
{
    ebb_run_info info;
    return ebb_run_info_get(run, &info) == EBB_OK ? info.strategy_name : NULL;
}
