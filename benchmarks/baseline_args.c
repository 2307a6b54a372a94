/* Argument parsing shared by the standalone baselines; see baseline_args.h. */
#include "baseline_args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int baseline_parse_size(const char *program, const char *option, const char *text, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    uint64_t mul = 1;
    if (end && *end) {
        switch (*end) {
        case 'K': case 'k': mul = UINT64_C(1) << 10; break;
        case 'M': case 'm': mul = UINT64_C(1) << 20; break;
        case 'G': case 'g': mul = UINT64_C(1) << 30; break;
        default: mul = 0;
        }
        end++;
        if (*end == 'i' && end[1] == 'B')
            end += 2;
        else if (*end == 'B')
            end++;
    }
    if (errno || end == text || *end || mul == 0 || v == 0) {
        fprintf(stderr, "%s: %s must be a positive size (e.g. 8M), got '%s'\n", program, option,
                text);
        return -1;
    }
    *out = (uint64_t)v * mul;
    return 0;
}
