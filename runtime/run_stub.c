/* Placeholder so the program links until the engine lands. */
#include <stdarg.h>
#include "common/error_internal.h"
#include "ebb/runtime.h"

void ebb_run_options_init(ebb_run_options *o) { (void)o; }
ebb_status ebb_run_create(const ebb_run_options *o, ebb_run **out) { (void)o; (void)out; return ebb_fail(EBB_ERR_UNSUPPORTED, "engine not built yet"); }
void ebb_run_destroy(ebb_run *run) { (void)run; }
ebb_status ebb_run_forward(ebb_run *run, const void *x0, void **xn) { (void)run; (void)x0; (void)xn; return EBB_ERR_UNSUPPORTED; }
ebb_status ebb_run_begin(ebb_run *run, const void *x0) { (void)run; (void)x0; return EBB_ERR_UNSUPPORTED; }
ebb_status ebb_run_advance(ebb_run *run, int64_t m, int64_t *d) { (void)run; (void)m; (void)d; return EBB_ERR_UNSUPPORTED; }
ebb_status ebb_run_finish_forward(ebb_run *run, void **xn) { (void)run; (void)xn; return EBB_ERR_UNSUPPORTED; }
ebb_status ebb_run_reverse(ebb_run *run) { (void)run; return EBB_ERR_UNSUPPORTED; }
ebb_status ebb_run_info_get(const ebb_run *run, ebb_run_info *i) { (void)run; (void)i; return EBB_ERR_UNSUPPORTED; }
ebb_status ebb_run_stats_get(const ebb_run *run, ebb_run_stats *s) { (void)run; (void)s; return EBB_ERR_UNSUPPORTED; }
int ebb_callback_fail(const char *fmt, ...) { (void)fmt; return EBB_ERR_CALLBACK; }
const char *ebb_audit_name(ebb_audit a) { (void)a; return "?"; }
ebb_status ebb_audit_from_name(const char *name, ebb_audit *out) { (void)name; (void)out; return EBB_ERR_UNSUPPORTED; }
