/* Channel figures from an `ebb bench --json` file (bench_file.h), parsed with jansson. */
#include <errno.h>
#include <stdarg.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "tools/bench_file.h"

/* Where each figure lives in the file and which channel it sets. */
static const struct {
    const char *tier, *key;
    ebb_plan_channel_id channel;
} figures[] = {
    {"disk", "write_GBps", EBB_PLAN_HOST_TO_DISK},
    {"disk", "read_GBps", EBB_PLAN_DISK_TO_HOST},
    {"gpu", "d2h_GBps", EBB_PLAN_GPU_TO_HOST},
    {"gpu", "h2d_GBps", EBB_PLAN_HOST_TO_GPU},
};

static int fail(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return -1;
}

int bench_file_channels(ebb_plan_problem *p, const char *path, char *why, size_t len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(why, len, "cannot open the bench file '%s': %s", path, strerror(errno));
    json_error_t err;
    json_t *root = json_loadf(f, 0, &err);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        json_decref(root);
        return fail(why, len, "cannot read the bench file '%s'", path);
    }
    if (!root)
        return fail(why, len,
                        "the bench file '%s' is not JSON (line %d, column %d: %s): write it with "
                        "'ebb bench --json > FILE'",
                        path, err.line, err.column, err.text);
    json_t *tiers = json_object_get(root, "tiers");
    int found = 0;
    for (size_t i = 0; i < sizeof figures / sizeof *figures; i++) {
        json_t *v = json_object_get(json_object_get(tiers, figures[i].tier), figures[i].key);
        double x = json_is_number(v) ? json_number_value(v) : 0.0;
        if (x > 0) {
            p->channel[figures[i].channel].bandwidth = x * 1e9;
            found++;
        }
    }
    json_decref(root);
    if (!found)
        return fail(why, len,
                        "the bench file '%s' has no tiers.disk write_GBps/read_GBps nor tiers.gpu "
                        "d2h_GBps/h2d_GBps: write it with 'ebb bench --json > FILE'",
                        path);
    return 0;
}
