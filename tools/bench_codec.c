/*
 * `ebb bench --compression MODE`: what a codec (ebb/codec.h) does to states
 * of a given element type and content, so that a user can size the channel
 * to a slower tier: the ratio, compress and decompress throughput on one
 * thread of calls, and for the lossy modes the error.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebb/ebb.h"
#include "tools/bench_cmd.h"
#include "tools/cli.h"
#include "tools/json.h"
#include "tools/options.h"
#include "tools/state_data.h"

static const char codec_help[] =
    "usage: ebb bench --compression MODE [options]\n"
    "\n"
    "Measures a codec on synthetic states: the compression ratio (state bytes /\n"
    "compressed bytes), compress and decompress throughput (state bytes per second,\n"
    "one call at a time), and for lossy modes the largest absolute error and the\n"
    "relative error (L2 norm of the difference / of the state). Lossless output is\n"
    "checked bitwise.\n"
    "\n"
    "  --compression M    lossless | fixed-rate | fixed-precision | fixed-accuracy\n"
    "  --codec C          lossless: lz4 | lz4hc | zstd | zlib | blosclz (default lz4)\n"
    "  --level L          lossless: 1 (fastest) .. 9 (smallest) (default 5)\n"
    "  --shuffle S        lossless: none | byte | bit (default byte)\n"
    "  --threads N        lossless: c-blosc's threads per call (default 1)\n"
    "  --rate R           fixed-rate: bits per value (e.g. 16)\n"
    "  --precision P      fixed-precision: bit planes per value\n"
    "  --accuracy A       fixed-accuracy: the largest absolute error (e.g. 1e-6)\n"
    "  --element E        bytes | float32 | float64 (default float64)\n"
    "  --data D           random | smooth | sparse | rough | all (default all)\n"
    "  --size BYTES       state size (default 64 MiB)\n"
    "  --total BYTES      state bytes compressed (and decompressed) per data kind, at\n"
    "                     least 3 states (default 1 GiB)\n"
    "  --json             one JSON object on stdout instead of the table\n"
    "\n"
    "GB/s are 10^9 bytes per second of uncompressed state.\n";

typedef struct codec_args {
    int mode, codec, shuffle, element, data;
    int32_t level, threads, precision;
    double rate, accuracy;
    uint64_t size, total;
    int json;
} codec_args;

enum { DATA_ALL = STATE_DATA_COUNT };

static const cli_name mode_names[] = {{"lossless", EBB_COMPRESSION_LOSSLESS},
                                      {"fixed-rate", EBB_COMPRESSION_FIXED_RATE},
                                      {"fixed-precision", EBB_COMPRESSION_FIXED_PRECISION},
                                      {"fixed-accuracy", EBB_COMPRESSION_FIXED_ACCURACY},
                                      {NULL, 0}};
static const cli_name codec_names[] = {{"lz4", EBB_CODEC_LZ4},   {"lz4hc", EBB_CODEC_LZ4HC},
                                       {"zstd", EBB_CODEC_ZSTD}, {"zlib", EBB_CODEC_ZLIB},
                                       {"blosclz", EBB_CODEC_BLOSCLZ}, {NULL, 0}};
static const cli_name shuffle_names[] = {{"none", EBB_SHUFFLE_NONE}, {"byte", EBB_SHUFFLE_BYTE},
                                         {"bit", EBB_SHUFFLE_BIT}, {NULL, 0}};
static const cli_name element_names[] = {{"bytes", EBB_ELEMENT_BYTES},
                                         {"float32", EBB_ELEMENT_FLOAT32},
                                         {"float64", EBB_ELEMENT_FLOAT64}, {NULL, 0}};
static const cli_name data_names[] = {{"random", STATE_DATA_RANDOM}, {"smooth", STATE_DATA_SMOOTH},
                                      {"sparse", STATE_DATA_SPARSE}, {"rough", STATE_DATA_ROUGH},
                                      {"all", DATA_ALL},
                                      {NULL, 0}};

#define OPT(n, k, f) CLI_OPT(codec_args, n, k, f)
static const cli_option codec_options[] = {
    {OPT("compression", CLI_ENUM, mode), .names = mode_names},
    {OPT("codec", CLI_ENUM, codec), .names = codec_names},
    {OPT("level", CLI_INT32, level), .min = 1, .max = 9},
    {OPT("shuffle", CLI_ENUM, shuffle), .names = shuffle_names},
    {OPT("threads", CLI_INT32, threads), .min = 1, .max = EBB_CODEC_THREADS_MAX},
    {OPT("rate", CLI_DOUBLE, rate), .least = 1},
    {OPT("precision", CLI_INT32, precision), .min = 1, .max = 64},
    {OPT("accuracy", CLI_DOUBLE, accuracy), .least = 0},
    {OPT("element", CLI_ENUM, element), .names = element_names},
    {OPT("data", CLI_ENUM, data), .names = data_names},
    {OPT("size", CLI_SIZE, size), .min = 1},
    {OPT("total", CLI_SIZE, total), .min = 1},
    {OPT("json", CLI_FLAG, json)},
};
#undef OPT
static const cli_command codec_command = {"bench", codec_help, codec_options,
                                          sizeof codec_options / sizeof *codec_options, 0, NULL};

typedef struct codec_row {
    state_data data;
    int states;
    double ratio, compress_GBps, decompress_GBps;
    int exact;              /* lossless: every state decoded bitwise */
    double max_abs, rel_l2; /* lossy */
} codec_row;

static double value_at(const void *p, ebb_element e, size_t i)
{
    return e == EBB_ELEMENT_FLOAT32 ? ((const float *)p)[i] : ((const double *)p)[i];
}

/* One data kind: compresses and decompresses `states` states (the same one,
 * so the data's generation is not timed). 0, or 1 after printing why. */
static int measure(const codec_args *a, const ebb_codec *c, state_data d, codec_row *r)
{
    size_t n = (size_t)a->size, cap = ebb_codec_bound(c);
    unsigned char *x = malloc(n), *y = malloc(n), *z = malloc(cap);
    int rc = 1;
    if (!x || !y || !z) {
        fprintf(stderr, "ebb bench: cannot allocate 2 states of %zu bytes and %zu more\n", n, cap);
        goto out;
    }
    memset(r, 0, sizeof *r);
    r->data = d;
    r->states = a->total / n > 3 ? (int)(a->total / n) : 3;
    state_data_fill(x, n, (ebb_element)a->element, d, 12345);
    memset(y, 0, n); /* fault the pages in before timing */
    memset(z, 0, cap);
    size_t len = 0;
    double t0 = cli_now();
    for (int i = 0; i < r->states; i++)
        if (ebb_codec_compress(c, x, z, cap, &len) != EBB_OK)
            goto fail;
    double t1 = cli_now();
    for (int i = 0; i < r->states; i++)
        if (ebb_codec_decompress(c, z, len, y) != EBB_OK)
            goto fail;
    double t2 = cli_now();
    double bytes = (double)n * r->states;
    r->ratio = (double)n / (double)len;
    r->compress_GBps = bytes / (t1 - t0) / 1e9;
    r->decompress_GBps = bytes / (t2 - t1) / 1e9;
    if (a->mode == EBB_COMPRESSION_LOSSLESS) {
        r->exact = memcmp(x, y, n) == 0;
    } else {
        size_t count = n / ebb_element_size((ebb_element)a->element);
        double diff = 0, norm = 0;
        for (size_t i = 0; i < count; i++) {
            double u = value_at(x, (ebb_element)a->element, i);
            double v = value_at(y, (ebb_element)a->element, i);
            r->max_abs = fmax(r->max_abs, fabs(u - v));
            diff += (u - v) * (u - v);
            norm += u * u;
        }
        r->rel_l2 = norm > 0 ? sqrt(diff / norm) : sqrt(diff);
    }
    rc = 0;
    goto out;
fail:
    fprintf(stderr, "ebb bench: %s\n", ebb_last_error());
out:
    free(x);
    free(y);
    free(z);
    return rc;
}

static void print_table(const codec_args *a, const ebb_codec *c, const codec_row *rows, int count)
{
    printf("codec: %s", ebb_compression_name((ebb_compression)a->mode));
    if (a->mode == EBB_COMPRESSION_LOSSLESS)
        printf(" (c-blosc %s, level %d, %s shuffle, %d thread%s)",
               ebb_codec_name_str((ebb_codec_name)a->codec), a->level,
               ebb_shuffle_name((ebb_shuffle)a->shuffle), a->threads, a->threads == 1 ? "" : "s");
    else if (a->mode == EBB_COMPRESSION_FIXED_RATE)
        printf(" (zfp, %g bits per value: %zu bytes a state)", a->rate, ebb_codec_fixed_size(c));
    else if (a->mode == EBB_COMPRESSION_FIXED_PRECISION)
        printf(" (zfp, %d bit planes)", a->precision);
    else
        printf(" (zfp, error at most %g)", a->accuracy);
    printf("; %s values, states of %llu bytes\n\n", ebb_element_name((ebb_element)a->element),
           (unsigned long long)a->size);
    printf("  %-7s %6s %8s %14s %16s  %s\n", "data", "states", "ratio", "compress GB/s",
           "decompress GB/s", a->mode == EBB_COMPRESSION_LOSSLESS ? "exact" : "max |error|  rel L2");
    for (int i = 0; i < count; i++) {
        const codec_row *r = &rows[i];
        printf("  %-7s %6d %8.3f %14.3f %16.3f  ", state_data_name(r->data), r->states, r->ratio,
               r->compress_GBps, r->decompress_GBps);
        if (a->mode == EBB_COMPRESSION_LOSSLESS)
            printf("%s\n", r->exact ? "yes" : "NO");
        else
            printf("%.3g  %.3g\n", r->max_abs, r->rel_l2);
    }
}

static void print_json(const codec_args *a, const ebb_codec *c, const codec_row *rows, int count)
{
    json_writer w;
    json_begin(&w, stdout);
    json_string(&w, "compression", ebb_compression_name((ebb_compression)a->mode));
    if (a->mode == EBB_COMPRESSION_LOSSLESS) {
        json_string(&w, "codec", ebb_codec_name_str((ebb_codec_name)a->codec));
        json_int(&w, "level", a->level);
        json_string(&w, "shuffle", ebb_shuffle_name((ebb_shuffle)a->shuffle));
        json_int(&w, "threads", a->threads);
    }
    json_string(&w, "element", ebb_element_name((ebb_element)a->element));
    json_int(&w, "state_size", (int64_t)a->size);
    json_int(&w, "bound", (int64_t)ebb_codec_bound(c));
    json_int(&w, "fixed_size", (int64_t)ebb_codec_fixed_size(c));
    json_object(&w, "data");
    for (int i = 0; i < count; i++) {
        const codec_row *r = &rows[i];
        json_object(&w, state_data_name(r->data));
        json_int(&w, "states", r->states);
        json_double(&w, "ratio", r->ratio);
        json_double(&w, "compress_GBps", r->compress_GBps);
        json_double(&w, "decompress_GBps", r->decompress_GBps);
        if (a->mode == EBB_COMPRESSION_LOSSLESS)
            json_bool(&w, "exact", r->exact);
        else {
            json_double(&w, "max_abs_error", r->max_abs);
            json_double(&w, "relative_l2_error", r->rel_l2);
        }
        json_close(&w);
    }
    json_close(&w);
    json_end(&w);
}

int bench_codec_main(int argc, char **argv)
{
    codec_args a = {.mode = EBB_COMPRESSION_LOSSLESS, .codec = EBB_CODEC_LZ4,
                    .shuffle = EBB_SHUFFLE_BYTE, .element = EBB_ELEMENT_FLOAT64,
                    .data = DATA_ALL, .level = 5, .threads = 1,
                    .size = UINT64_C(64) << 20, .total = UINT64_C(1) << 30};
    cli_parsed parsed;
    int rc = cli_parse(&codec_command, argc, argv, &a, &parsed);
    if (rc != CLI_OK)
        return rc == CLI_HELP ? 0 : rc;
    ebb_codec_options o;
    ebb_codec_options_init(&o);
    o.mode = (ebb_compression)a.mode;
    o.codec = (ebb_codec_name)a.codec;
    o.level = a.level;
    o.shuffle = (ebb_shuffle)a.shuffle;
    o.threads = a.threads;
    o.rate = a.rate;
    o.precision = a.precision;
    o.accuracy = a.accuracy;
    o.element = (ebb_element)a.element;
    ebb_codec *c;
    if (ebb_codec_create(&o, (size_t)a.size, &c) != EBB_OK) {
        /* the options' own names, not the C fields' */
        fprintf(stderr, "ebb bench: %s (--compression %s: set --rate, --precision, --accuracy, "
                        "--element or --size)\n",
                ebb_last_error(), ebb_compression_name(o.mode));
        return 2;
    }
    codec_row rows[STATE_DATA_COUNT];
    int count = 0;
    for (int d = 0; d < STATE_DATA_COUNT && rc == 0; d++)
        if (a.data == DATA_ALL || a.data == d)
            rc = measure(&a, c, (state_data)d, &rows[count++]);
    if (rc == 0) {
        if (a.json)
            print_json(&a, c, rows, count);
        else
            print_table(&a, c, rows, count);
        for (int i = 0; i < count; i++)
            if (a.mode == EBB_COMPRESSION_LOSSLESS && !rows[i].exact)
                rc = 1;
    }
    ebb_codec_destroy(c);
    return rc;
}
