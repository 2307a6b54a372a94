/* Fuzz target: the command line's option parser (tools/options.c: getopt_long
 * over a table, the readers of integers, numbers, sizes, rates, names and
 * strategies), on a table with every kind of option. The input is argv, its
 * words separated by NUL bytes. A parse that succeeds must have stored values
 * inside each option's bounds. */
#include "tools/options.c"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

typedef struct fuzz_args {
    int64_t steps;
    int32_t slots;
    double ratio, scale;
    uint64_t bytes, small, pace;
    const char *path;
    int backend, json, loud;
    cli_strategy strategy;
} fuzz_args;

static const cli_name backends[] = {{"auto", 1}, {"uring", 2}, {"threads", 3}, {NULL, 0}};

#define OPT(n, k, f) CLI_OPT(fuzz_args, n, k, f)
static const cli_option options[] = {
    {OPT("steps", CLI_INT64, steps), .min = 1, .max = INT64_MAX},
    {OPT("slots", CLI_INT32, slots), .min = 0, .max = INT32_MAX},
    {OPT("io-ratio", CLI_DOUBLE, ratio), .least = 0},
    {OPT("scale", CLI_DOUBLE, scale), .least = 0.5, .most = 1e6},
    {OPT("state-size", CLI_SIZE, bytes), .min = 1},
    {OPT("total", CLI_SIZE, small), .min = 4096, .max = INT64_C(1) << 40},
    {OPT("max-bandwidth", CLI_RATE, pace)},
    {OPT("trace", CLI_STRING, path)},
    {OPT("backend", CLI_ENUM, backend), .names = backends},
    {OPT("json", CLI_FLAG, json)},
    {OPT("loud", CLI_FLAG, loud), .value = 7},
    {OPT("strategy", CLI_STRATEGY, strategy), .hint = " (or all)"},
};
#undef OPT
static const cli_command command = {"fuzz", "usage: ebb fuzz [options] [FILE]\n", options,
                                    sizeof options / sizeof *options, 1, ": give one FILE"};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* the parser's messages and --help go nowhere; the sanitizers and
     * libFuzzer write to the descriptor, not through these streams */
    FILE *null = fopen("/dev/null", "w");
    if (null) {
        stderr = null;
        stdout = null;
    }
    return 0;
}

enum { MAX_WORDS = 24 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[MAX_WORDS + 2];
    int argc = 0;
    argv[argc++] = "fuzz";
    for (size_t at = 0; at <= size && argc <= MAX_WORDS; at += strlen(text + at) + 1)
        argv[argc++] = text + at;
    argv[argc] = NULL;
    fuzz_args a;
    memset(&a, 0, sizeof a);
    cli_parsed parsed;
    int rc = cli_parse(&command, argc, argv, &a, &parsed);
    if (rc != CLI_OK && rc != CLI_HELP && rc != CLI_USAGE)
        abort();
    if (rc == CLI_OK) {
        if (parsed.first_operand < 1 || parsed.first_operand > argc ||
            argc - parsed.first_operand > 1)
            abort();
        if ((cli_given(&command, &parsed, "steps") && a.steps < 1) || a.slots < 0 ||
            !(a.ratio >= 0) || isinf(a.ratio) ||
            (cli_given(&command, &parsed, "scale") && !(a.scale >= 0.5 && a.scale <= 1e6)) ||
            (cli_given(&command, &parsed, "state-size") && a.bytes < 1) ||
            (cli_given(&command, &parsed, "total") &&
             (a.small < 4096 || a.small > (UINT64_C(1) << 40))) ||
            a.pace > EBB_RATE_MAX || (a.loud != 0 && a.loud != 7) ||
            (a.backend != 0 && (a.backend < 1 || a.backend > 3)))
            abort();
    }
    free(text);
    return 0;
}
