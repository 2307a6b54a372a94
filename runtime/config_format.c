/* Writing a configuration back as a TOML file that loads to the same
 * values. */
#include "ebb/config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/error_internal.h"
#include "runtime/config_internal.h"

typedef struct out_buf {
    char *buf;
    size_t size;
    size_t len;
} out_buf;

static void out(out_buf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(out_buf *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *dst = o->len < o->size ? o->buf + o->len : NULL;
    size_t room = o->len < o->size ? o->size - o->len : 0;
    char dummy;
    int n = vsnprintf(dst ? dst : &dummy, dst ? room : 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len += (size_t)n;
}

/* A TOML basic string. */
static void out_string(out_buf *o, const char *s)
{
    out(o, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            out(o, "\\%c", *p);
        else if (*p == '\n')
            out(o, "\\n");
        else if (*p == '\t')
            out(o, "\\t");
        else if (*p < 0x20 || *p == 0x7f)
            out(o, "\\u%04X", *p);
        else
            out(o, "%c", *p);
    }
    out(o, "\"");
}

static void out_size(out_buf *o, const char *key, uint64_t bytes)
{
    char s[48];
    if (bytes == EBB_BUDGET_AUTO)
        snprintf(s, sizeof s, "auto");
    else
        ebb_format_size(bytes, s, sizeof s);
    out(o, "%s = \"%s\"\n", key, s);
}

/* A size that is never "auto" (0 is written as 0, which a load refuses). */
static void out_bytes(out_buf *o, const char *key, uint64_t bytes)
{
    char s[48];
    ebb_format_size(bytes, s, sizeof s);
    out(o, "%s = \"%s\"\n", key, s);
}

ebb_status ebb_config_format(const ebb_config *cfg, char *buf, size_t size, size_t *length)
{
    if (!cfg || (!buf && size > 0))
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_config_format: %s is NULL", cfg ? "buf" : "cfg");
    out_buf o = {buf, size, 0};
    if (cfg->source)
        out(&o, "# ebb configuration (loaded from %s)\n", cfg->source);
    else
        out(&o, "# ebb configuration\n");
    out(&o, "[run]\nstrategy = \"%s\"\n", ebb_config_strategy_name(cfg->strategy));
    out(&o, "\n[tier.gpu]\nenabled = %s\n", cfg->gpu.enabled ? "true" : "false");
    out_size(&o, "budget", cfg->gpu.budget);
    out(&o, "device = %d\n", (int)cfg->gpu.device);
    out_bytes(&o, "chunk_size", cfg->gpu.chunk_size);
    out(&o, "\n[tier.host]\nenabled = %s\n", cfg->host.enabled ? "true" : "false");
    out_size(&o, "budget", cfg->host.budget);
    if (cfg->host.numa == EBB_NUMA_AUTO)
        out(&o, "numa = \"auto\"\n");
    else
        out(&o, "numa = %d\n", (int)cfg->host.numa);
    out(&o, "pin = %s\n", cfg->host.pin ? "true" : "false");
    out(&o, "prefault = %s\n", cfg->host.prefault ? "true" : "false");
    out(&o, "\n[tier.disk]\nenabled = %s\npath = ", cfg->disk.enabled ? "true" : "false");
    if (cfg->disk.path_count == 1) {
        out_string(&o, cfg->disk.paths[0]);
    } else {
        out(&o, "[");
        for (size_t i = 0; i < cfg->disk.path_count; i++) {
            out(&o, i ? ", " : "");
            out_string(&o, cfg->disk.paths[i]);
        }
        out(&o, "]");
    }
    out(&o, "\n");
    out_size(&o, "budget", cfg->disk.budget);
    out_size(&o, "block_size", cfg->disk.block_size);
    out(&o, "queue_depth = %d\n", (int)cfg->disk.queue_depth);
    out(&o, "threads = %d\n", (int)cfg->disk.threads);
    out(&o, "backend = \"%s\"\n", ebb_config_backend_name(cfg->disk.backend));
    out(&o, "checksum = %s\n", cfg->disk.checksum ? "true" : "false");
    out(&o, "direct = %s\n", cfg->disk.direct ? "true" : "false");
    if (length)
        *length = o.len;
    return EBB_OK;
}

ebb_status ebb_config_write(const ebb_config *cfg, FILE *stream)
{
    if (!cfg || !stream)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_config_write: %s is NULL", cfg ? "stream" : "cfg");
    size_t len = 0;
    ebb_status s = ebb_config_format(cfg, NULL, 0, &len);
    if (s != EBB_OK)
        return s;
    char *text = malloc(len + 1);
    if (!text)
        return ebb_fail(EBB_ERR_NO_MEMORY, "out of memory formatting a configuration");
    ebb_config_format(cfg, text, len + 1, NULL);
    int bad = fwrite(text, 1, len, stream) != len || fflush(stream) != 0;
    int err = errno;
    free(text);
    if (bad)
        return ebb_fail_errno(EBB_ERR_IO, err, "cannot write the configuration");
    return EBB_OK;
}
