/* Fuzz target: sizes as ebb_parse_size reads them ("64 GiB", "1.5 GB",
 * "4096"), from the configuration's budgets and the command line's
 * --state-size, --total, .... A size that parses must format
 * (ebb_format_size) to text that parses back to the same bytes. */
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
    uint64_t bytes = 0, again = 0;
    if (ebb_parse_size(text, &bytes) == EBB_OK) {
        char shown[64];
        int n = ebb_format_size(bytes, shown, sizeof shown);
        if (n <= 0 || (size_t)n >= sizeof shown || ebb_parse_size(shown, &again) != EBB_OK ||
            again != bytes) {
            fprintf(stderr, "'%s' = %llu bytes, formatted '%s', read back as %llu\n", text,
                    (unsigned long long)bytes, shown, (unsigned long long)again);
            abort();
        }
    }
    free(text);
    return 0;
}
