/* Fuzz target: rates as ebb_parse_rate reads them ("500 MB/s", "none"),
 * from tier.disk.max_bandwidth and the command line's --max-bandwidth. A
 * rate that parses must be at most EBB_RATE_MAX and format (ebb_format_rate)
 * to text that parses back to the same rate. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebb/ebb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    uint64_t rate = 0, again = 0;
    if (ebb_parse_rate(text, &rate) == EBB_OK) {
        char shown[64];
        int n = ebb_format_rate(rate, shown, sizeof shown);
        if (rate > EBB_RATE_MAX || n <= 0 || (size_t)n >= sizeof shown ||
            ebb_parse_rate(shown, &again) != EBB_OK || again != rate) {
            fprintf(stderr, "'%s' = %llu B/s, formatted '%s', read back as %llu\n", text,
                    (unsigned long long)rate, shown, (unsigned long long)again);
            abort();
        }
    }
    free(text);
    return 0;
}
