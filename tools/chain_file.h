/*
 * The chain file of `ebb plan`: one step a line, FORWARD REVERSE SIZE (the
 * costs on one scale, the size of the step's input state) or FORWARD
 * REVERSE SIZE BACKWARD TAPE on every line (the step may keep its tape);
 * 'COUNT x ...' stands for COUNT such steps; '#' starts a comment; '-'
 * reads standard input. Read by `ebb plan --chain` (the chain program) and
 * `ebb plan --step-file` (the planner, the costs in milliseconds).
 */
#ifndef EBB_TOOLS_CHAIN_FILE_H
#define EBB_TOOLS_CHAIN_FILE_H

#include <stdint.h>

#include "ebb/chain.h"

typedef struct chain_data {
    int64_t n;
    int tapes; /* -1 before the first line, then whether every line has tapes */
    double f[EBB_CHAIN_MAX_STEPS], r[EBB_CHAIN_MAX_STEPS], bw[EBB_CHAIN_MAX_STEPS];
    uint64_t b[EBB_CHAIN_MAX_STEPS], tb[EBB_CHAIN_MAX_STEPS];
} chain_data;

/* Reads `path` into *d (up to EBB_CHAIN_MAX_STEPS steps); 0, or -1 after
 * printing why (the file, the line, the field) on stderr. */
int chain_file_read(const char *path, chain_data *d);

#endif
