/* Fuzz target: the TOML configuration, through ebb_config_load_string (what
 * ebb_config_load_file, the `--config FILE` of `ebb run`, `plan`, `bench` and
 * `demo`, and the Python binding's
 * Config.load_string call). A text that loads must format (ebb_config_format)
 * to TOML that loads back and formats to the same text (loaded under the
 * same name: the text names its file in its first comment). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebb/ebb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The configuration as TOML, malloc'd; aborts when the formatter fails. */
static char *format(const ebb_config *cfg)
{
    size_t len = 0;
    if (ebb_config_format(cfg, NULL, 0, &len) != EBB_OK)
        abort();
    char *text = malloc(len + 1);
    if (!text || ebb_config_format(cfg, text, len + 1, &len) != EBB_OK)
        abort();
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0'; /* a NUL inside: the loader reads up to it, as from C */
    ebb_config cfg;
    if (ebb_config_init_default(&cfg) != EBB_OK)
        abort();
    if (ebb_config_load_string(text, "fuzz.toml", &cfg) == EBB_OK) {
        char *once = format(&cfg);
        ebb_config again;
        if (ebb_config_init_default(&again) != EBB_OK)
            abort();
        if (ebb_config_load_string(once, "fuzz.toml", &again) != EBB_OK) {
            fprintf(stderr, "the formatted configuration does not load back: %s\n%s\n",
                    ebb_last_error(), once);
            abort();
        }
        char *twice = format(&again);
        if (strcmp(once, twice) != 0) {
            fprintf(stderr, "formatted twice, differently:\n%s\n---\n%s\n", once, twice);
            abort();
        }
        free(twice);
        free(once);
        ebb_config_dispose(&again);
    }
    ebb_config_dispose(&cfg);
    free(text);
    return 0;
}
