/* The timeline's codec tracks: with the disk tier compressed (lossless),
 * the host tier (fixed rate) or both, every compression and decompression
 * the codec threads ran is a "compress" or "decompress" span on a track of
 * its thread ("disk codec 0", "host codec 1"), as many as the statistics
 * count per tier, each labelled with a step of the run and its tier, inside
 * the run's time, never overlapping another on its track; the file is JSON
 * that balances and says how many spans were dropped (none with the default
 * room; with one span a thread, the written and the dropped add up to the
 * runs counted). */
#include <time.h>

#include "smooth.h"
#include "storage/fault.h"
#include "trace_json.h"

enum { MAX_TRACKS = 64, MAX_SPANS = 20000 };

typedef struct span {
    int tid;
    long long ts_ns, end_ns, step;
    int compress;
    char tier[8];
} span;

typedef struct timeline {
    char *text;
    char track[MAX_TRACKS][32]; /* names by tid */
    span *spans;
    int nspans;
    long long dropped, written;
} timeline;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long long field_ll(const char *ev, const char *key)
{
    const char *p = strstr(ev, key);
    cr_assert_not_null(p, "no %s in %.200s", key, ev);
    return strtoll(p + strlen(key), NULL, 10);
}

/* A time in microseconds with 3 decimals, in whole nanoseconds. */
static long long field_ns(const char *ev, const char *key)
{
    const char *p = strstr(ev, key);
    cr_assert_not_null(p, "no %s in %.200s", key, ev);
    return llround(strtod(p + strlen(key), NULL) * 1e3);
}

/* The events, one a line: the track names, the codec spans, the dropped. */
static void parse(timeline *t, const char *path)
{
    memset(t, 0, sizeof *t);
    t->text = trace_slurp(path);
    trace_assert_json_shape(t->text);
    t->spans = calloc(MAX_SPANS, sizeof *t->spans);
    t->dropped = t->written = -1;
    for (char *line = strtok(t->text, "\n"); line; line = strtok(NULL, "\n")) {
        if (strstr(line, "\"name\": \"thread_name\"")) {
            int tid = (int)field_ll(line, "\"tid\": ");
            cr_assert(tid >= 0 && tid < MAX_TRACKS);
            const char *name = strstr(line, "\"args\": {\"name\": \"") + 18;
            snprintf(t->track[tid], sizeof t->track[tid], "%.*s", (int)strcspn(name, "\""), name);
        } else if (strstr(line, "\"name\": \"codec_spans_dropped\"")) {
            t->dropped = field_ll(line, "\"dropped\": ");
            t->written = field_ll(line, "\"written\": ");
        } else if (strstr(line, "\"cat\": \"codec\"")) {
            cr_assert_lt(t->nspans, MAX_SPANS);
            span *s = &t->spans[t->nspans++];
            s->tid = (int)field_ll(line, "\"tid\": ");
            s->ts_ns = field_ns(line, "\"ts\": ");
            s->end_ns = s->ts_ns + field_ns(line, "\"dur\": ");
            s->step = field_ll(line, "\"step\": ");
            s->compress = strstr(line, "{\"name\": \"compress\"") != NULL;
            cr_assert(s->compress || strstr(line, "{\"name\": \"decompress\""), "%s", line);
            const char *tier = strstr(line, "\"tier\": \"") + 9;
            snprintf(s->tier, sizeof s->tier, "%.*s", (int)strcspn(tier, "\""), tier);
        }
    }
}

/* What a run's timeline must show of its codecs: `range_ns` the run's time
 * from its creation. */
static void check(const timeline *t, const ebb_run_stats *st, int64_t n, long long range_ns,
                  int complete)
{
    int64_t count[EBB_TIER_COUNT][2] = {{0}};
    for (int i = 0; i < t->nspans; i++) {
        const span *s = &t->spans[i];
        cr_assert(s->tid > 0 && s->tid < MAX_TRACKS);
        char want[32];
        snprintf(want, sizeof want, "%s codec ", s->tier);
        cr_assert(strncmp(t->track[s->tid], want, strlen(want)) == 0,
                  "a %s span on track %d named '%s'", s->tier, s->tid, t->track[s->tid]);
        cr_assert(s->step >= 0 && s->step <= n, "a span of step %lld (n %lld)", s->step,
                  (long long)n);
        cr_assert(s->ts_ns >= 0 && s->ts_ns <= s->end_ns && s->end_ns <= range_ns,
                  "a span at %lld .. %lld ns, the run took %lld ns", s->ts_ns, s->end_ns,
                  range_ns);
        int tier = strcmp(s->tier, "disk") == 0 ? EBB_TIER_DISK : EBB_TIER_HOST;
        count[tier][s->compress]++;
        /* the track's spans are written in order: none overlaps the one before */
        for (int j = i - 1; j >= 0; j--)
            if (t->spans[j].tid == s->tid) {
                cr_assert_leq(t->spans[j].end_ns, s->ts_ns,
                              "track '%s': a span ends at %lld ns, the next starts at %lld",
                              t->track[s->tid], t->spans[j].end_ns, s->ts_ns);
                break;
            }
    }
    cr_assert_eq(t->written, t->nspans, "the file says %lld spans written, it holds %d",
                 t->written, t->nspans);
    int64_t runs = 0, spans = 0;
    for (int tier = EBB_TIER_HOST; tier <= EBB_TIER_DISK; tier++) {
        runs += st->compressions[tier] + st->decompressions[tier];
        spans += count[tier][1] + count[tier][0];
        if (!complete)
            continue;
        cr_assert_eq(count[tier][1], st->compressions[tier], "%s: %lld compress spans, %lld "
                     "compressions", ebb_tier_name((ebb_tier)tier), (long long)count[tier][1],
                     (long long)st->compressions[tier]);
        cr_assert_eq(count[tier][0], st->decompressions[tier], "%s: %lld decompress spans, "
                     "%lld decompressions", ebb_tier_name((ebb_tier)tier),
                     (long long)count[tier][0], (long long)st->decompressions[tier]);
    }
    cr_assert_eq(spans + t->dropped, runs, "%lld spans + %lld dropped, %lld codec runs",
                 (long long)spans, t->dropped, (long long)runs);
    if (complete)
        cr_assert_eq(t->dropped, 0);
}

/* A traced run of n steps under cfg (capacity: codec spans kept a thread,
 * 0: the default); the timeline parsed, its statistics checked against it. */
static ebb_run_stats traced(ebb_config *cfg, ebb_config_strategy strategy, int64_t n,
                            int32_t capacity, timeline *t)
{
    /* a paced disk and states mostly zeros (ratio over 5): compressing pays
     * whenever the codec beats 25 MB/s, which it does under ASan and load too;
     * smooth states alone (ratio 1.3) need 87 MB/s and were stored raw there */
    cfg->disk.max_bandwidth = 20000000;
    char path[] = "/tmp/ebb-trace-codec-XXXXXX";
    close(mkstemp(path));
    sm s = {.values = 8192, .reverse_us = capacity > 0 ? 2000 : 0, .zero_from = 1024};
    ebb_run_options o = sm_options(&s, cfg, strategy, n);
    o.trace = path;
    rt_create_args args;
    cr_assert_eq(rt_args_from_config(&o, cfg, &args), EBB_OK, "%s", ebb_last_error());
    args.trace_codec_spans = capacity;
    /* every state that shrinks is stored compressed, whatever the codec's
       speed under load (the rule's verdict is not what this test checks) */
    static const ebb_storage_fault always = {.codec_always_pays = 1};
    args.fault = &always;
    double t0 = now_s();
    ebb_run_stats st = sm_run(&s, &args);
    long long range_ns = llround((now_s() - t0) * 1e9);
    parse(t, path);
    unlink(path);
    check(t, &st, n, range_ns, capacity == 0);
    return st;
}

/* The tracks whose name starts with `prefix`. */
static int tracks_named(const timeline *t, const char *prefix)
{
    int n = 0;
    for (int k = 0; k < MAX_TRACKS; k++)
        n += strncmp(t->track[k], prefix, strlen(prefix)) == 0;
    return n;
}

static void done(timeline *t, char *dir, ebb_config *cfg)
{
    free(t->text);
    free(t->spans);
    rmdir(dir);
    ebb_config_dispose(cfg);
}

Test(trace_codec, disk_lossless_spans_are_the_codec_runs)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.host.budget = 3 * 8192 * sizeof(double);
    cfg.disk.compression.mode = EBB_COMPRESSION_LOSSLESS;
    timeline t;
    ebb_run_stats st = traced(&cfg, EBB_CONFIG_STRATEGY_MULTISTAGE, 60, 0, &t);
    cr_assert_gt(st.compressions[EBB_TIER_DISK], 0);
    cr_assert_gt(st.decompressions[EBB_TIER_DISK], 0);
    cr_assert_eq(st.compressions[EBB_TIER_HOST], 0);
    cr_assert_eq(st.stored_raw, 0, "states mostly zeros shrink");
    cr_assert_eq(tracks_named(&t, "disk codec "), 2, "a track per codec thread (2 by default)");
    done(&t, dir, &cfg);
}

Test(trace_codec, host_fixed_rate_spans_are_the_codec_runs)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.host.budget = 3 * 8192 * sizeof(double);
    cfg.host.compression.mode = EBB_COMPRESSION_FIXED_RATE;
    cfg.host.compression.rate = 16;
    cfg.host.codec_threads = 3;
    timeline t;
    ebb_run_stats st = traced(&cfg, EBB_CONFIG_STRATEGY_REVOLVE, 60, 0, &t);
    cr_assert_gt(st.compressions[EBB_TIER_HOST], 0);
    cr_assert_gt(st.decompressions[EBB_TIER_HOST], 0);
    cr_assert_eq(st.compressions[EBB_TIER_DISK], 0);
    cr_assert_eq(tracks_named(&t, "host codec "), 3);
    done(&t, dir, &cfg);
}

Test(trace_codec, both_tiers)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.host.budget = 2 * 8192 * sizeof(double);
    cfg.disk.budget = 8 * 8192 * sizeof(double);
    cfg.host.compression.mode = EBB_COMPRESSION_FIXED_RATE;
    cfg.host.compression.rate = 16;
    cfg.disk.compression.mode = EBB_COMPRESSION_LOSSLESS;
    timeline t;
    ebb_run_stats st = traced(&cfg, EBB_CONFIG_STRATEGY_MULTISTAGE, 80, 0, &t);
    cr_assert_gt(st.compressions[EBB_TIER_HOST], 0);
    cr_assert_gt(st.compressions[EBB_TIER_DISK], 0);
    done(&t, dir, &cfg);
}

/* One span a codec thread between polls: some are dropped (the reads ahead
 * of a slow reverse step are decompressed back to back), and the file says
 * how many (the written and the dropped are every codec run). */
Test(trace_codec, dropped_spans_are_counted)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.host.budget = 3 * 8192 * sizeof(double);
    cfg.disk.compression.mode = EBB_COMPRESSION_LOSSLESS;
    cfg.disk.codec_threads = 1;
    long long dropped = 0;
    for (int round = 0; round < 5 && dropped == 0; round++) {
        timeline t;
        traced(&cfg, EBB_CONFIG_STRATEGY_MULTISTAGE, 80, 1, &t);
        dropped = t.dropped;
        free(t.text);
        free(t.spans);
    }
    cr_assert_gt(dropped, 0, "no span dropped with room for one a thread");
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

/* async: its writes behind the forward sweep and its reads ahead too */
Test(trace_codec, async_disk_lossless)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.host.budget = 3 * 8192 * sizeof(double);
    cfg.disk.compression.mode = EBB_COMPRESSION_LOSSLESS;
    timeline t;
    ebb_run_stats st = traced(&cfg, EBB_CONFIG_STRATEGY_ASYNC, 150, 0, &t);
    cr_assert_gt(st.compressions[EBB_TIER_DISK], 0);
    done(&t, dir, &cfg);
}
