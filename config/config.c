/* The configuration struct's lifetime: the embedded default (the key
 * table's, and the computed ones), copying, disposing and the disk paths it
 * owns. */
#include "ebb/config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "config/config_internal.h"
#include "config/config_keys.h"
#include "config/config_system.h"

void ebb_config_free_paths(char **paths, size_t count)
{
    if (!paths)
        return;
    for (size_t i = 0; i < count; i++)
        free(paths[i]);
    free(paths);
}

static ebb_status copy_paths(const char *const *src, size_t count, char ***out)
{
    char **paths = calloc(count ? count : 1, sizeof *paths);
    if (!paths)
        return ebb_fail(EBB_ERR_NO_MEMORY, "out of memory copying %zu disk paths", count);
    for (size_t i = 0; i < count; i++) {
        paths[i] = strdup(src[i]);
        if (!paths[i]) {
            ebb_config_free_paths(paths, i);
            return ebb_fail(EBB_ERR_NO_MEMORY, "out of memory copying disk path '%s'", src[i]);
        }
    }
    *out = paths;
    return EBB_OK;
}

void ebb_key_set_default(ebb_config *cfg, const ebb_key_def *d)
{
    void *v = ebb_key_field(cfg, d);
    switch (d->type) {
    case EBB_KEY_TYPE_ENUM:
    case EBB_KEY_TYPE_BOOL: *(int *)v = (int)d->dflt; break;
    case EBB_KEY_TYPE_INT: *(int32_t *)v = (int32_t)d->dflt; break;
    case EBB_KEY_TYPE_SIZE:
    case EBB_KEY_TYPE_RATE: *(uint64_t *)v = (uint64_t)d->dflt; break;
    case EBB_KEY_TYPE_DOUBLE: *(double *)v = d->ddflt; break;
    case EBB_KEY_TYPE_PATHS: break; /* computed: init */
    }
}

ebb_status ebb_config_default_gpu_enabled(ebb_config *cfg)
{
    cfg->gpu.enabled = ebb_sys_gpu_count() > 0;
    return EBB_OK;
}

ebb_status ebb_config_default_disk_path(ebb_config *cfg)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || tmp[0] != '/')
        tmp = "/tmp";
    ebb_status s = copy_paths(&tmp, 1, &cfg->disk.paths);
    if (s != EBB_OK)
        return s;
    cfg->disk.path_count = 1;
    return EBB_OK;
}

/* The computed defaults (config_keys.h): these functions lie above the key table. */
ebb_status (*const ebb_config_key_init[EBB_CONFIG_KEY_COUNT])(ebb_config *cfg) = {
    [EBB_KEY_GPU_ENABLED] = ebb_config_default_gpu_enabled,
    [EBB_KEY_DISK_PATH] = ebb_config_default_disk_path,
};

ebb_status ebb_config_init_default(ebb_config *cfg)
{
    if (!cfg)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_config_init_default: cfg is NULL");
    memset(cfg, 0, sizeof *cfg);
    /* the codec's options no key sets (threads per call, the array's shape) */
    ebb_codec_options_init(&cfg->disk.compression);
    ebb_codec_options_init(&cfg->host.compression);
    for (int k = 0; k < EBB_CONFIG_KEY_COUNT; k++) {
        if (!ebb_config_key_init[k]) {
            ebb_key_set_default(cfg, &ebb_config_keys[k]);
            continue;
        }
        ebb_status s = ebb_config_key_init[k](cfg);
        if (s != EBB_OK) {
            ebb_config_dispose(cfg);
            return s;
        }
    }
    return EBB_OK;
}

void ebb_config_dispose(ebb_config *cfg)
{
    if (!cfg)
        return;
    ebb_config_free_paths(cfg->disk.paths, cfg->disk.path_count);
    free(cfg->source);
    memset(cfg, 0, sizeof *cfg);
}

ebb_status ebb_config_copy(const ebb_config *src, ebb_config *dst)
{
    if (!src || !dst)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_config_copy: NULL argument");
    ebb_config tmp = *src;
    tmp.disk.paths = NULL;
    tmp.source = NULL;
    if (src->disk.path_count > 0) {
        ebb_status s = copy_paths((const char *const *)src->disk.paths, src->disk.path_count,
                                  &tmp.disk.paths);
        if (s != EBB_OK)
            return s;
    }
    if (src->source && !(tmp.source = strdup(src->source))) {
        ebb_config_free_paths(tmp.disk.paths, tmp.disk.path_count);
        return ebb_fail(EBB_ERR_NO_MEMORY, "out of memory copying a configuration");
    }
    *dst = tmp;
    return EBB_OK;
}

ebb_status ebb_config_set_disk_paths(ebb_config *cfg, const char *const *paths, size_t count)
{
    if (!cfg || !paths || count == 0)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_config_set_disk_paths: expected a configuration and at least one path");
    for (size_t i = 0; i < count; i++)
        if (!paths[i] || paths[i][0] == '\0')
            return ebb_fail(EBB_ERR_INVALID_ARG,
                            "ebb_config_set_disk_paths: path %zu is %s; expected a directory", i,
                            paths[i] ? "empty" : "NULL");
    char **copy;
    ebb_status s = copy_paths(paths, count, &copy);
    if (s != EBB_OK)
        return s;
    ebb_config_free_paths(cfg->disk.paths, cfg->disk.path_count);
    cfg->disk.paths = copy;
    cfg->disk.path_count = count;
    cfg->line[EBB_KEY_DISK_PATH] = 0;
    return EBB_OK;
}
