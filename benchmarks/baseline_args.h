/* Argument parsing shared by the standalone baselines (which use no ebb code). */
#ifndef EBB_BENCHMARKS_BASELINE_ARGS_H
#define EBB_BENCHMARKS_BASELINE_ARGS_H

#include <stdint.h>

/* Parses a positive size with an optional K, M or G suffix (KiB, MiB, GiB;
 * "8M", "8MiB", "8MB" are the same). On failure prints
 * "PROGRAM: OPTION must be a positive size (e.g. 8M), got 'TEXT'" and
 * returns -1. */
int baseline_parse_size(const char *program, const char *option, const char *text, uint64_t *out);

#endif
