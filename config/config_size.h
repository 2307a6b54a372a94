/* Size helpers shared by the configuration sources. */
#ifndef EBB_CONFIG_CONFIG_SIZE_H
#define EBB_CONFIG_CONFIG_SIZE_H

#include <stddef.h>
#include <stdint.h>

#include "ebb/error.h"

/* As ebb_parse_size, but writes the reason into why instead of recording an
 * error (EBB_ERR_INVALID_ARG on failure). */
ebb_status ebb_size_parse_reason(const char *text, uint64_t *bytes, char *why, size_t why_len);

/* As ebb_parse_rate, with the reason in why (config_rate.c). */
ebb_status ebb_rate_parse_reason(const char *text, uint64_t *bytes_per_second, char *why,
                                 size_t why_len);

/* A size for messages: "64 GiB" when exact and short, else "1.2 GiB
 * (1288490188 bytes)". */
void ebb_size_human(uint64_t bytes, char *buf, size_t size);

#endif
