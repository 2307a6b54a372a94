/*
 * ebb — the layout of the public structures, for language bindings that
 * mirror them (Python's ctypes, Fortran's bind(c) types): a binding asks the
 * library it loaded for each struct's size and its fields' names, offsets
 * and sizes, and refuses a library whose structs differ from its copies
 * (grown, shrunk, reordered, a field retyped) before any call writes one.
 */
#ifndef EBB_LAYOUT_H
#define EBB_LAYOUT_H

#include <stddef.h>

#include "ebb/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The layout of the public struct `struct_name`: "ebb_run_options",
 * "ebb_run_info", "ebb_run_stats", "ebb_schedule_options",
 * "ebb_schedule_stats", "ebb_action", "ebb_chain", "ebb_chain_options",
 * "ebb_chain_info", or "ebb_config" (its size only: a
 * binding keeps it opaque, so *count is 0). *size receives sizeof the
 * struct and *count its number of fields, in declaration order (an array
 * field is one field); the first min(max, *count) entries of `offsets`,
 * `sizes` and `names` (each may be NULL) receive each field's offsetof,
 * sizeof and name as spelt in the header ("state_size"). Errors:
 * EBB_ERR_INVALID_ARG for an unknown name (the message lists the known
 * ones) or a NULL struct_name, size or count. */
EBB_API ebb_status ebb_layout_get(const char *struct_name, size_t *size, size_t *count,
                                  size_t max, size_t *offsets, size_t *sizes,
                                  const char **names);

#ifdef __cplusplus
}
#endif

#endif
