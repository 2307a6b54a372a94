/* The configuration: defaults, loading a TOML file (parsed by
 * config_toml.cpp), validation, and writing it back as TOML. */
#include "ebb/config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error_internal.h"
#include "runtime/config_internal.h"
#include "runtime/config_size.h"
#include "runtime/config_system.h"

enum {
    MAX_FILE_BYTES = 16 << 20,
    MAX_QUEUE_DEPTH = 4096,
    MAX_GPU_DEVICE = 1023,
    DIO_ALIGN = 4096,
    DEFAULT_QUEUE_DEPTH = 16
};
#define DEFAULT_BLOCK_SIZE (UINT64_C(8) << 20)
#define MAX_BLOCK_SIZE (UINT64_C(1) << 30)

/* ---- names ----------------------------------------------------------------- */

static const char *const key_names[EBB_CONFIG_KEY_COUNT] = {
    [EBB_KEY_RUN_STRATEGY] = "run.strategy",
    [EBB_KEY_GPU_ENABLED] = "tier.gpu.enabled",
    [EBB_KEY_GPU_BUDGET] = "tier.gpu.budget",
    [EBB_KEY_GPU_DEVICE] = "tier.gpu.device",
    [EBB_KEY_HOST_ENABLED] = "tier.host.enabled",
    [EBB_KEY_HOST_BUDGET] = "tier.host.budget",
    [EBB_KEY_HOST_NUMA] = "tier.host.numa",
    [EBB_KEY_DISK_ENABLED] = "tier.disk.enabled",
    [EBB_KEY_DISK_PATH] = "tier.disk.path",
    [EBB_KEY_DISK_BUDGET] = "tier.disk.budget",
    [EBB_KEY_DISK_BLOCK_SIZE] = "tier.disk.block_size",
    [EBB_KEY_DISK_QUEUE_DEPTH] = "tier.disk.queue_depth",
    [EBB_KEY_DISK_BACKEND] = "tier.disk.backend",
    [EBB_KEY_DISK_CHECKSUM] = "tier.disk.checksum",
    [EBB_KEY_DISK_DIRECT] = "tier.disk.direct",
};

/* Tables, each with the key that turns it on (-1: none). */
static const struct {
    const char *name;
    int enabled_key;
} tables[] = {
    {"run", -1},
    {"tier", -1},
    {"tier.gpu", EBB_KEY_GPU_ENABLED},
    {"tier.host", EBB_KEY_HOST_ENABLED},
    {"tier.disk", EBB_KEY_DISK_ENABLED},
};
enum { TABLE_COUNT = sizeof tables / sizeof tables[0] };

static const char *const strategy_names[EBB_CONFIG_STRATEGY_COUNT] = {
    "auto", "store-all", "periodic", "revolve", "online", "multistage", "disk-revolve", "async",
};

static const char *const backend_names[] = {"auto", "uring", "threads"};
enum { BACKEND_COUNT = 3 };

const char *ebb_config_key_name(ebb_config_key key)
{
    return (unsigned)key < EBB_CONFIG_KEY_COUNT ? key_names[key] : "?";
}

const char *ebb_config_strategy_name(ebb_config_strategy strategy)
{
    return (unsigned)strategy < EBB_CONFIG_STRATEGY_COUNT ? strategy_names[strategy] : "?";
}

static const char *backend_name(ebb_disk_backend backend)
{
    return (unsigned)backend < BACKEND_COUNT ? backend_names[backend] : "?";
}

/* ---- suggestions --------------------------------------------------------- */

/* Optimal string alignment distance (a swap of neighbours counts 1). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return SIZE_MAX;
    size_t d[65][65];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < best)
                best = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

static size_t close_enough(const char *word)
{
    size_t len = strlen(word);
    return len / 3 > 2 ? len / 3 : 2;
}

/* The closest of `names`, or NULL when none is close. */
static const char *closest(const char *word, const char *const *names, size_t count)
{
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    for (size_t i = 0; i < count; i++) {
        size_t d = edit_distance(word, names[i]);
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    return best_d <= close_enough(word) ? best : NULL;
}

static const char *leaf_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot ? dot + 1 : path;
}

/* The closest known key or table to an unknown dotted path. */
static const char *suggest_key(const char *path)
{
    const char *names[EBB_CONFIG_KEY_COUNT + TABLE_COUNT];
    size_t n = 0;
    for (int i = 0; i < EBB_CONFIG_KEY_COUNT; i++)
        names[n++] = key_names[i];
    for (int i = 0; i < TABLE_COUNT; i++)
        names[n++] = tables[i].name;
    const char *best = closest(path, names, n);
    if (best)
        return best;
    /* The right name in the wrong table ("strategy" at the top). */
    const char *leaf = leaf_of(path);
    for (size_t i = 0; i < n; i++)
        if (strcmp(leaf_of(names[i]), leaf) == 0)
            return names[i];
    return NULL;
}

/* "enabled, budget, numa": the names directly under table `parent` ("" = root). */
static void list_children(const char *parent, char *buf, size_t size)
{
    size_t plen = strlen(parent), used = 0;
    buf[0] = '\0';
    const char *names[EBB_CONFIG_KEY_COUNT + TABLE_COUNT];
    size_t n = 0;
    for (int i = 0; i < TABLE_COUNT; i++)
        names[n++] = tables[i].name;
    for (int i = 0; i < EBB_CONFIG_KEY_COUNT; i++)
        names[n++] = key_names[i];
    for (size_t i = 0; i < n; i++) {
        const char *rest = names[i];
        if (plen > 0) {
            if (strncmp(rest, parent, plen) != 0 || rest[plen] != '.')
                continue;
            rest += plen + 1;
        }
        if (strchr(rest, '.'))
            continue;
        int w = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", rest);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
    }
}

/* ---- strategy --------------------------------------------------------------- */

static void list_quoted(const char *const *names, size_t count, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        int w = snprintf(buf + used, size - used, "%s\"%s\"", i == 0 ? "" : (i + 1 == count ? " or " : ", "),
                         names[i]);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
    }
}

static int find_name(const char *name, const char *const *names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(name, names[i]) == 0)
            return (int)i;
    return -1;
}

ebb_status ebb_config_strategy_from_name(const char *name, ebb_config_strategy *out)
{
    if (!name || !out)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_config_strategy_from_name: NULL argument");
    int i = find_name(name, strategy_names, EBB_CONFIG_STRATEGY_COUNT);
    if (i < 0) {
        char list[256];
        list_quoted(strategy_names, EBB_CONFIG_STRATEGY_COUNT, list, sizeof list);
        const char *near = closest(name, strategy_names, EBB_CONFIG_STRATEGY_COUNT);
        return ebb_fail(EBB_ERR_INVALID_ARG, "unknown strategy \"%s\"%s%s%s; expected %s", name,
                        near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "", list);
    }
    *out = (ebb_config_strategy)i;
    return EBB_OK;
}

ebb_status ebb_config_strategy_schedule(ebb_config_strategy strategy, ebb_strategy *out)
{
    if (!out)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_config_strategy_schedule: out is NULL");
    switch (strategy) {
    case EBB_CONFIG_STRATEGY_STORE_ALL: *out = EBB_STRATEGY_STORE_ALL; return EBB_OK;
    case EBB_CONFIG_STRATEGY_PERIODIC: *out = EBB_STRATEGY_PERIODIC; return EBB_OK;
    case EBB_CONFIG_STRATEGY_REVOLVE: *out = EBB_STRATEGY_REVOLVE; return EBB_OK;
    case EBB_CONFIG_STRATEGY_ONLINE: *out = EBB_STRATEGY_ONLINE; return EBB_OK;
    case EBB_CONFIG_STRATEGY_MULTISTAGE: *out = EBB_STRATEGY_MULTISTAGE; return EBB_OK;
    case EBB_CONFIG_STRATEGY_DISK_REVOLVE: *out = EBB_STRATEGY_DISK_REVOLVE; return EBB_OK;
    case EBB_CONFIG_STRATEGY_AUTO:
    case EBB_CONFIG_STRATEGY_ASYNC:
        return ebb_fail(EBB_ERR_UNSUPPORTED,
                        "strategy \"%s\" is not a single schedule: the planner or the runtime "
                        "chooses one", strategy_names[strategy]);
    }
    return ebb_fail(EBB_ERR_INVALID_ARG, "strategy %d is not an ebb_config_strategy", (int)strategy);
}

/* ---- lifetime ---------------------------------------------------------------- */

static void free_paths(char **paths, size_t count)
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
            free_paths(paths, i);
            return ebb_fail(EBB_ERR_NO_MEMORY, "out of memory copying disk path '%s'", src[i]);
        }
    }
    *out = paths;
    return EBB_OK;
}

ebb_status ebb_config_init_default(ebb_config *cfg)
{
    if (!cfg)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_config_init_default: cfg is NULL");
    memset(cfg, 0, sizeof *cfg);
    cfg->strategy = EBB_CONFIG_STRATEGY_AUTO;
    cfg->gpu.enabled = ebb_sys_gpu_count() > 0;
    cfg->gpu.budget = EBB_BUDGET_AUTO;
    cfg->gpu.device = 0;
    cfg->host.enabled = 1;
    cfg->host.budget = EBB_BUDGET_AUTO;
    cfg->host.numa = EBB_NUMA_AUTO;
    cfg->disk.enabled = 1;
    cfg->disk.budget = EBB_BUDGET_AUTO;
    cfg->disk.block_size = DEFAULT_BLOCK_SIZE;
    cfg->disk.queue_depth = DEFAULT_QUEUE_DEPTH;
    cfg->disk.backend = EBB_DISK_BACKEND_AUTO;
    cfg->disk.checksum = 0;
    cfg->disk.direct = 1;
    const char *tmp = getenv("TMPDIR");
    if (!tmp || tmp[0] != '/')
        tmp = "/tmp";
    ebb_status s = copy_paths(&tmp, 1, &cfg->disk.paths);
    if (s != EBB_OK)
        return s;
    cfg->disk.path_count = 1;
    return EBB_OK;
}

void ebb_config_dispose(ebb_config *cfg)
{
    if (!cfg)
        return;
    free_paths(cfg->disk.paths, cfg->disk.path_count);
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
        free_paths(tmp.disk.paths, tmp.disk.path_count);
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
    free_paths(cfg->disk.paths, cfg->disk.path_count);
    cfg->disk.paths = copy;
    cfg->disk.path_count = count;
    cfg->line[EBB_KEY_DISK_PATH] = 0;
    return EBB_OK;
}

/* ---- messages --------------------------------------------------------------- */

/* "f.toml:7: key 'tier.disk.budget'" or "key 'tier.disk.budget' (default or
 * set by the program)": where a value of a loaded configuration came from. */
static void where(const ebb_config *cfg, ebb_config_key key, const char *suffix, char *buf,
                  size_t size)
{
    if (cfg->line[key] > 0 && cfg->source)
        snprintf(buf, size, "%s:%d: key '%s%s'", cfg->source, (int)cfg->line[key], key_names[key],
                 suffix);
    else
        snprintf(buf, size, "key '%s%s' (default or set by the program)", key_names[key], suffix);
}

/* The key of path i: "tier.disk.path" or "[i]" suffix when there are several. */
static void path_suffix(const ebb_config *cfg, size_t i, char *buf, size_t size)
{
    if (cfg->disk.path_count > 1)
        snprintf(buf, size, "[%zu]", i);
    else
        buf[0] = '\0';
}

/* ---- machine checks (shared by load and check) ------------------------------ */

static ebb_status check_numa(const ebb_config *cfg)
{
    if (!cfg->host.enabled || cfg->host.numa == EBB_NUMA_AUTO)
        return EBB_OK;
    char at[512];
    where(cfg, EBB_KEY_HOST_NUMA, "", at, sizeof at);
    int nodes = 0;
    if (cfg->host.numa < 0 || !ebb_sys_numa_node_exists(cfg->host.numa, &nodes))
        return ebb_fail(EBB_ERR_CONFIG,
                        "%s: NUMA node %d does not exist; expected \"auto\" or a node from 0 to %d "
                        "(this machine has %d)", at, (int)cfg->host.numa, nodes > 0 ? nodes - 1 : 0,
                        nodes);
    return EBB_OK;
}

/* Every disk path exists, is a directory, is writable, is listed once; with
 * `budget` != 0, each file system has the space for its paths' shares. */
static ebb_status check_disk(const ebb_config *cfg, uint64_t budget)
{
    size_t n = cfg->disk.path_count;
    char at[640], sfx[32];
    if (n == 0 || !cfg->disk.paths) {
        where(cfg, EBB_KEY_DISK_PATH, "", at, sizeof at);
        return ebb_fail(EBB_ERR_CONFIG, "%s: no directory given; expected at least one", at);
    }
    ebb_dir_info *info = calloc(n, sizeof *info);
    if (!info)
        return ebb_fail(EBB_ERR_NO_MEMORY, "out of memory checking %zu disk paths", n);
    ebb_status s = EBB_OK;
    for (size_t i = 0; i < n && s == EBB_OK; i++) {
        const char *p = cfg->disk.paths[i];
        path_suffix(cfg, i, sfx, sizeof sfx);
        where(cfg, EBB_KEY_DISK_PATH, sfx, at, sizeof at);
        ebb_sys_probe_dir(p, cfg->fault_write_errno, &info[i]);
        switch (info[i].error == 0 ? EBB_DIR_OK : info[i].step) {
        case EBB_DIR_OK: break;
        case EBB_DIR_STAT:
            if (info[i].error == ENOENT)
                s = ebb_fail(EBB_ERR_CONFIG,
                             "%s: directory '%s' does not exist; expected an existing directory "
                             "(ebb does not create it)", at, p);
            else
                s = ebb_fail_errno(EBB_ERR_CONFIG, info[i].error,
                                   "%s: cannot look at directory '%s'", at, p);
            break;
        case EBB_DIR_NOT_DIR:
            s = ebb_fail(EBB_ERR_CONFIG, "%s: '%s' is not a directory; expected a directory "
                         "for the tier's file", at, p);
            break;
        case EBB_DIR_WRITE:
            s = ebb_fail_errno(EBB_ERR_CONFIG, info[i].error,
                               "%s: directory '%s' is not writable; expected a directory where "
                               "ebb can create its file (creating a test file failed)", at, p);
            break;
        default:
            s = ebb_fail_errno(EBB_ERR_CONFIG, info[i].error,
                               "%s: cannot read the free space of '%s'", at, p);
            break;
        }
        for (size_t j = 0; j < i && s == EBB_OK; j++) {
            if (info[j].dev == info[i].dev && info[j].ino == info[i].ino)
                s = ebb_fail(EBB_ERR_CONFIG,
                             "%s: '%s' is the same directory as tier.disk.path[%zu] ('%s'); "
                             "expected each directory once (one per drive)", at, p, j,
                             cfg->disk.paths[j]);
        }
    }
    /* Space: the budget is shared equally among the paths; paths on one
     * file system add up their shares. */
    if (s == EBB_OK && budget != 0) {
        uint64_t share = budget / n + (budget % n != 0);
        for (size_t i = 0; i < n && s == EBB_OK; i++) {
            size_t same = 0, first = i;
            for (size_t j = 0; j < n; j++) {
                if (info[j].dev == info[i].dev) {
                    if (same == 0)
                        first = j;
                    same++;
                }
            }
            if (first != i)
                continue;
            unsigned __int128 need = (unsigned __int128)share * same;
            if (need > info[i].free_bytes) {
                char need_s[64], free_s[64], budget_s[64];
                ebb_size_human(need > UINT64_MAX ? UINT64_MAX : (uint64_t)need, need_s, sizeof need_s);
                ebb_size_human(info[i].free_bytes, free_s, sizeof free_s);
                ebb_size_human(budget, budget_s, sizeof budget_s);
                where(cfg, EBB_KEY_DISK_BUDGET, "", at, sizeof at);
                if (n == 1)
                    s = ebb_fail(EBB_ERR_NO_SPACE,
                                 "%s: %s does not fit in '%s', whose file system has %s free; "
                                 "expected a budget at most the free space", at, budget_s,
                                 cfg->disk.paths[i], free_s);
                else
                    s = ebb_fail(EBB_ERR_NO_SPACE,
                                 "%s: %s over %zu paths needs %s on the file system of '%s', "
                                 "which has %s free; expected a budget the free space can hold",
                                 at, budget_s, n, need_s, cfg->disk.paths[i], free_s);
            }
        }
    }
    free(info);
    return s;
}

/* Values a program may have set out of range (a file's are checked as read). */
static ebb_status check_values(const ebb_config *cfg)
{
    char at[512];
    if ((unsigned)cfg->strategy >= EBB_CONFIG_STRATEGY_COUNT) {
        where(cfg, EBB_KEY_RUN_STRATEGY, "", at, sizeof at);
        return ebb_fail(EBB_ERR_CONFIG, "%s: %d is not an ebb_config_strategy", at, (int)cfg->strategy);
    }
    if (cfg->gpu.device < 0 || cfg->gpu.device > MAX_GPU_DEVICE) {
        where(cfg, EBB_KEY_GPU_DEVICE, "", at, sizeof at);
        return ebb_fail(EBB_ERR_CONFIG, "%s: expected a device number from 0 to %d, got %d", at,
                        MAX_GPU_DEVICE, (int)cfg->gpu.device);
    }
    if (cfg->host.numa < EBB_NUMA_AUTO) {
        where(cfg, EBB_KEY_HOST_NUMA, "", at, sizeof at);
        return ebb_fail(EBB_ERR_CONFIG, "%s: expected \"auto\" (-1) or a node number, got %d", at,
                        (int)cfg->host.numa);
    }
    if (cfg->disk.queue_depth < 1 || cfg->disk.queue_depth > MAX_QUEUE_DEPTH) {
        where(cfg, EBB_KEY_DISK_QUEUE_DEPTH, "", at, sizeof at);
        return ebb_fail(EBB_ERR_CONFIG, "%s: expected an integer from 1 to %d, got %d", at,
                        MAX_QUEUE_DEPTH, (int)cfg->disk.queue_depth);
    }
    if (cfg->disk.block_size < DIO_ALIGN || cfg->disk.block_size > MAX_BLOCK_SIZE ||
        cfg->disk.block_size % DIO_ALIGN != 0) {
        where(cfg, EBB_KEY_DISK_BLOCK_SIZE, "", at, sizeof at);
        return ebb_fail(EBB_ERR_CONFIG,
                        "%s: expected a multiple of 4 KiB from 4 KiB to 1 GiB, got %" PRIu64
                        " bytes", at, cfg->disk.block_size);
    }
    if ((unsigned)cfg->disk.backend >= BACKEND_COUNT) {
        where(cfg, EBB_KEY_DISK_BACKEND, "", at, sizeof at);
        return ebb_fail(EBB_ERR_CONFIG, "%s: %d is not an ebb_disk_backend", at, (int)cfg->disk.backend);
    }
    return EBB_OK;
}

/* Strategies that keep states on disk need the disk tier. */
static ebb_status check_strategy_tiers(const ebb_config *cfg)
{
    if ((cfg->strategy == EBB_CONFIG_STRATEGY_MULTISTAGE ||
         cfg->strategy == EBB_CONFIG_STRATEGY_DISK_REVOLVE) && !cfg->disk.enabled) {
        char at[512];
        int from_strategy = cfg->line[EBB_KEY_RUN_STRATEGY] >= cfg->line[EBB_KEY_DISK_ENABLED];
        where(cfg, from_strategy ? EBB_KEY_RUN_STRATEGY : EBB_KEY_DISK_ENABLED, "", at, sizeof at);
        return ebb_fail(EBB_ERR_CONFIG,
                        "%s: strategy \"%s\" keeps states on disk but the disk tier is disabled; "
                        "expected tier.disk.enabled = true or another strategy", at,
                        strategy_names[cfg->strategy]);
    }
    return EBB_OK;
}

/* ---- budgets ----------------------------------------------------------------- */

static uint64_t round_down(uint64_t v, uint64_t align) { return v - v % align; }

/* The auto disk budget: half the free space, every path an equal share. */
static ebb_status disk_auto_budget(const ebb_config *cfg, uint64_t *bytes)
{
    size_t n = cfg->disk.path_count;
    if (n == 0)
        return check_disk(cfg, 0); /* reports the missing path */
    ebb_dir_info *info = calloc(n, sizeof *info);
    if (!info)
        return ebb_fail(EBB_ERR_NO_MEMORY, "out of memory checking %zu disk paths", n);
    for (size_t i = 0; i < n; i++) {
        ebb_sys_dir_space(cfg->disk.paths[i], &info[i]);
        if (info[i].error != 0) {
            free(info);
            return check_disk(cfg, 0); /* the detailed message */
        }
    }
    uint64_t per_path = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
        size_t same = 0;
        for (size_t j = 0; j < n; j++)
            same += info[j].dev == info[i].dev;
        uint64_t share = info[i].free_bytes / 2 / same;
        if (share < per_path)
            per_path = share;
    }
    free(info);
    unsigned __int128 total = (unsigned __int128)per_path * n;
    *bytes = round_down(total > UINT64_MAX ? UINT64_MAX : (uint64_t)total, DIO_ALIGN);
    return EBB_OK;
}

ebb_status ebb_config_budget(const ebb_config *cfg, ebb_tier tier, uint64_t *bytes)
{
    if (!cfg || !bytes)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_config_budget: NULL argument");
    *bytes = 0;
    switch (tier) {
    case EBB_TIER_GPU: {
        if (!cfg->gpu.enabled)
            return EBB_OK;
        if (cfg->gpu.budget != EBB_BUDGET_AUTO) {
            *bytes = cfg->gpu.budget;
            return EBB_OK;
        }
        int count = ebb_sys_gpu_count();
        if (cfg->gpu.device >= count) {
            char at[512];
            where(cfg, EBB_KEY_GPU_ENABLED, "", at, sizeof at);
            return ebb_fail(EBB_ERR_UNSUPPORTED,
                            "%s: the GPU tier is enabled but CUDA device %d does not exist (%d "
                            "found%s); expected tier.gpu.enabled = false on this machine", at,
                            (int)cfg->gpu.device, count,
#if defined(EBB_HAVE_CUDA) && EBB_HAVE_CUDA
                            ""
#else
                            ": this build of ebb has no CUDA support"
#endif
            );
        }
        *bytes = round_down(ebb_sys_gpu_free(cfg->gpu.device) / 2, DIO_ALIGN);
        return EBB_OK;
    }
    case EBB_TIER_HOST: {
        if (!cfg->host.enabled)
            return EBB_OK;
        if (cfg->host.budget != EBB_BUDGET_AUTO) {
            *bytes = cfg->host.budget;
            return EBB_OK;
        }
        uint64_t avail, total;
        ebb_sys_memory(&avail, &total);
        *bytes = round_down(avail / 2, DIO_ALIGN);
        return EBB_OK;
    }
    case EBB_TIER_DISK:
        if (!cfg->disk.enabled)
            return EBB_OK;
        if (cfg->disk.budget != EBB_BUDGET_AUTO) {
            *bytes = cfg->disk.budget;
            return EBB_OK;
        }
        return disk_auto_budget(cfg, bytes);
    case EBB_TIER_COUNT: break;
    }
    return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_config_budget: %d is not a tier", (int)tier);
}

static const char *const auto_rule[EBB_TIER_COUNT] = {
    "half of the GPU's free memory", "half of MemAvailable", "half of the free disk space",
};

ebb_status ebb_config_check(const ebb_config *cfg, size_t state_bytes)
{
    if (!cfg)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_config_check: cfg is NULL");
    ebb_status s = check_values(cfg);
    if (s == EBB_OK)
        s = check_strategy_tiers(cfg);
    if (s != EBB_OK)
        return s;
    if (!cfg->gpu.enabled && !cfg->host.enabled && !cfg->disk.enabled)
        return ebb_fail(EBB_ERR_CONFIG, "%s%sno tier is enabled; expected at least one of "
                        "tier.gpu, tier.host, tier.disk with enabled = true",
                        cfg->source ? cfg->source : "", cfg->source ? ": " : "");
    static const ebb_config_key budget_key[EBB_TIER_COUNT] = {
        EBB_KEY_GPU_BUDGET, EBB_KEY_HOST_BUDGET, EBB_KEY_DISK_BUDGET};
    const uint64_t set_budget[EBB_TIER_COUNT] = {cfg->gpu.budget, cfg->host.budget, cfg->disk.budget};
    const int enabled[EBB_TIER_COUNT] = {cfg->gpu.enabled, cfg->host.enabled, cfg->disk.enabled};
    char at[512], a[64], b[64];
    if (cfg->gpu.enabled) {
        int count = ebb_sys_gpu_count();
        if (cfg->gpu.device >= count) {
            where(cfg, cfg->line[EBB_KEY_GPU_DEVICE] > 0 ? EBB_KEY_GPU_DEVICE : EBB_KEY_GPU_ENABLED, "",
                  at, sizeof at);
            return ebb_fail(EBB_ERR_UNSUPPORTED,
                            "%s: the GPU tier is enabled but CUDA device %d does not exist (%d "
                            "found%s); expected tier.gpu.enabled = false on this machine", at,
                            (int)cfg->gpu.device, count,
#if defined(EBB_HAVE_CUDA) && EBB_HAVE_CUDA
                            ""
#else
                            ": this build of ebb has no CUDA support"
#endif
            );
        }
    }
    if ((s = check_numa(cfg)) != EBB_OK)
        return s;
    for (int t = 0; t < EBB_TIER_COUNT; t++) {
        if (!enabled[t])
            continue;
        uint64_t budget;
        if ((s = ebb_config_budget(cfg, (ebb_tier)t, &budget)) != EBB_OK)
            return s;
        uint64_t need = state_bytes;
        if (t == EBB_TIER_DISK)
            need = (uint64_t)state_bytes + (DIO_ALIGN - 1) - ((uint64_t)state_bytes + DIO_ALIGN - 1) % DIO_ALIGN;
        if (state_bytes > 0 && budget < need) {
            where(cfg, budget_key[t], "", at, sizeof at);
            ebb_size_human(budget, a, sizeof a);
            ebb_size_human(need, b, sizeof b);
            if (set_budget[t] == EBB_BUDGET_AUTO)
                return ebb_fail(EBB_ERR_NO_MEMORY,
                                "%s: \"auto\" (%s, now %s) is smaller than one state of %s; "
                                "expected a budget of at least one state (set it, or disable "
                                "the tier)", at, auto_rule[t], a, b);
            return ebb_fail(EBB_ERR_NO_MEMORY,
                            "%s: %s is smaller than one state of %s; expected a budget of at "
                            "least %s", at, a, b, b);
        }
        if (t == EBB_TIER_HOST) {
            uint64_t avail, total;
            ebb_sys_memory(&avail, &total);
            if (total > 0 && budget > total) {
                where(cfg, budget_key[t], "", at, sizeof at);
                ebb_size_human(budget, a, sizeof a);
                ebb_size_human(total, b, sizeof b);
                return ebb_fail(EBB_ERR_NO_MEMORY,
                                "%s: %s is more than this machine's memory (%s); expected at most "
                                "that (pinned memory cannot be swapped out)", at, a, b);
            }
        }
        if (t == EBB_TIER_DISK && (s = check_disk(cfg, budget)) != EBB_OK)
            return s;
    }
    return EBB_OK;
}

/* ---- loading ------------------------------------------------------------------ */

typedef struct load_ctx {
    const char *name;     /* the file name for messages */
    const char *base_dir; /* relative disk paths start here (NULL: as given) */
    ebb_config *cfg;      /* the copy being filled */
    int table_line[TABLE_COUNT];
} load_ctx;

void ebb_toml_doc_free(ebb_toml_doc *doc)
{
    for (size_t i = 0; i < doc->count; i++) {
        ebb_toml_entry *e = &doc->entries[i];
        free(e->key);
        free(e->string);
        if (e->elements)
            for (size_t j = 0; j < e->count; j++)
                free(e->elements[j].string);
        free(e->elements);
    }
    free(doc->entries);
    memset(doc, 0, sizeof *doc);
}

/* "the string \"abc\"", "the integer -3", "a table", ...: for "got ...". */
static void describe(const ebb_toml_entry *e, char *buf, size_t size)
{
    switch (e->kind) {
    case EBB_TOML_TABLE: snprintf(buf, size, "a table"); return;
    case EBB_TOML_ARRAY: snprintf(buf, size, "an array"); return;
    case EBB_TOML_INTEGER: snprintf(buf, size, "the integer %" PRId64, e->integer); return;
    case EBB_TOML_FLOAT: snprintf(buf, size, "the float %g", e->number); return;
    case EBB_TOML_BOOLEAN: snprintf(buf, size, "the boolean %s", e->boolean ? "true" : "false"); return;
    case EBB_TOML_DATE: snprintf(buf, size, "a date"); return;
    case EBB_TOML_TIME: snprintf(buf, size, "a time"); return;
    case EBB_TOML_DATETIME: snprintf(buf, size, "a date-time"); return;
    case EBB_TOML_STRING: break;
    }
    size_t used = (size_t)snprintf(buf, size, "the string \"");
    for (size_t i = 0; i < e->length && used + 8 < size; i++) {
        unsigned char c = (unsigned char)e->string[i];
        if (i >= 60) {
            used += (size_t)snprintf(buf + used, size - used, "...");
            break;
        }
        if (c < 0x20 || c == 0x7f || c == '"' || c == '\\')
            used += (size_t)snprintf(buf + used, size - used, c == '"' ? "\\\"" : c == '\\' ? "\\\\" : "\\u%04X", c);
        else
            buf[used++] = (char)c;
    }
    snprintf(buf + used, size - used, "\"");
}

/* Records "<file>:<line>: key '<key>': <message>" and returns status. */
static ebb_status key_fail(const load_ctx *c, const ebb_toml_entry *e, const char *key,
                           ebb_status status, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static ebb_status key_fail(const load_ctx *c, const ebb_toml_entry *e, const char *key,
                           ebb_status status, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ebb_fail(status, "%s:%d: key '%s': %s", c->name, (int)e->line, key, msg);
}

static ebb_status expect(const load_ctx *c, const ebb_toml_entry *e, const char *key,
                         const char *expected)
{
    char got[160];
    describe(e, got, sizeof got);
    return key_fail(c, e, key, EBB_ERR_CONFIG, "expected %s, got %s", expected, got);
}

static ebb_status get_bool(const load_ctx *c, const ebb_toml_entry *e, int *out)
{
    if (e->kind != EBB_TOML_BOOLEAN)
        return expect(c, e, e->key, "true or false");
    *out = e->boolean;
    return EBB_OK;
}

static ebb_status get_int(const load_ctx *c, const ebb_toml_entry *e, int64_t lo, int64_t hi,
                          const char *what, int32_t *out)
{
    char expected[128];
    snprintf(expected, sizeof expected, "%s from %" PRId64 " to %" PRId64, what, lo, hi);
    if (e->kind != EBB_TOML_INTEGER || e->integer < lo || e->integer > hi)
        return expect(c, e, e->key, expected);
    *out = (int32_t)e->integer;
    return EBB_OK;
}

/* A size: a positive integer (bytes) or a string with a unit; "auto" where
 * allow_auto. */
static ebb_status get_size(const load_ctx *c, const ebb_toml_entry *e, int allow_auto,
                           uint64_t *out)
{
    const char *expected = allow_auto
        ? "a size: an integer number of bytes or a string such as \"64 GiB\", or \"auto\""
        : "a size: an integer number of bytes or a string such as \"8 MiB\"";
    char got[160];
    if (e->kind == EBB_TOML_INTEGER) {
        if (e->integer <= 0) {
            describe(e, got, sizeof got);
            return key_fail(c, e, e->key, EBB_ERR_CONFIG, "expected a positive size, got %s%s",
                            e->integer == 0 ? "0" : got,
                            e->integer == 0 && allow_auto
                                ? " (to turn the tier off, write enabled = false)" : "");
        }
        *out = (uint64_t)e->integer;
        return EBB_OK;
    }
    if (e->kind != EBB_TOML_STRING)
        return expect(c, e, e->key, expected);
    if (allow_auto && strcmp(e->string, "auto") == 0) {
        *out = EBB_BUDGET_AUTO;
        return EBB_OK;
    }
    describe(e, got, sizeof got);
    if (strlen(e->string) != e->length)
        return key_fail(c, e, e->key, EBB_ERR_CONFIG, "expected %s, got a string with a NUL character",
                        expected);
    char why[256];
    uint64_t v;
    if (ebb_size_parse_reason(e->string, &v, why, sizeof why) != EBB_OK)
        return key_fail(c, e, e->key, EBB_ERR_CONFIG, "expected %s, got %s: %s", expected, got, why);
    if (v == 0)
        return key_fail(c, e, e->key, EBB_ERR_CONFIG, "expected a positive size, got %s%s", got,
                        allow_auto ? " (to turn the tier off, write enabled = false)" : "");
    *out = v;
    return EBB_OK;
}

/* A name from a list, with a suggestion. */
static ebb_status get_name(const load_ctx *c, const ebb_toml_entry *e, const char *const *names,
                           size_t count, int *out)
{
    char list[256], expected[320];
    list_quoted(names, count, list, sizeof list);
    snprintf(expected, sizeof expected, "one of %s", list);
    if (e->kind != EBB_TOML_STRING)
        return expect(c, e, e->key, expected);
    int i = find_name(e->string, names, count);
    if (i < 0) {
        char got[160];
        describe(e, got, sizeof got);
        const char *near = closest(e->string, names, count);
        return key_fail(c, e, e->key, EBB_ERR_CONFIG, "expected %s, got %s%s%s%s", expected, got,
                        near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "");
    }
    *out = i;
    return EBB_OK;
}

/* Joins a relative path to the file's directory. */
static char *resolve_path(const load_ctx *c, const char *p)
{
    if (p[0] == '/' || !c->base_dir)
        return strdup(p);
    size_t len = strlen(c->base_dir) + strlen(p) + 2;
    char *out = malloc(len);
    if (out)
        snprintf(out, len, "%s/%s", c->base_dir, p);
    return out;
}

static ebb_status get_paths(const load_ctx *c, const ebb_toml_entry *e, ebb_config *cfg)
{
    const char *expected = "a directory (a string) or a list of directories, one per drive";
    const ebb_toml_entry *items = e;
    size_t n = 1;
    if (e->kind == EBB_TOML_ARRAY) {
        items = e->elements;
        n = e->count;
        if (n == 0)
            return key_fail(c, e, e->key, EBB_ERR_CONFIG, "expected %s, got an empty list", expected);
    } else if (e->kind != EBB_TOML_STRING) {
        return expect(c, e, e->key, expected);
    }
    char **paths = calloc(n, sizeof *paths);
    if (!paths)
        return ebb_fail(EBB_ERR_NO_MEMORY, "out of memory reading %s", e->key);
    ebb_status s = EBB_OK;
    for (size_t i = 0; i < n && s == EBB_OK; i++) {
        const ebb_toml_entry *it = &items[i];
        char key[96];
        if (e->kind == EBB_TOML_ARRAY)
            snprintf(key, sizeof key, "%s[%zu]", e->key, i);
        else
            snprintf(key, sizeof key, "%s", e->key);
        if (it->kind != EBB_TOML_STRING)
            s = expect(c, it, key, "a directory (a string)");
        else if (it->length == 0)
            s = key_fail(c, it, key, EBB_ERR_CONFIG, "expected a directory, got an empty string");
        else if (strlen(it->string) != it->length)
            s = key_fail(c, it, key, EBB_ERR_CONFIG, "expected a directory, got a string with a "
                         "NUL character");
        else if (!(paths[i] = resolve_path(c, it->string)))
            s = ebb_fail(EBB_ERR_NO_MEMORY, "out of memory reading %s", key);
    }
    if (s != EBB_OK) {
        free_paths(paths, n);
        return s;
    }
    free_paths(cfg->disk.paths, cfg->disk.path_count);
    cfg->disk.paths = paths;
    cfg->disk.path_count = n;
    return EBB_OK;
}

static ebb_status apply_key(load_ctx *c, const ebb_toml_entry *e, ebb_config_key key)
{
    ebb_config *cfg = c->cfg;
    ebb_status s = EBB_OK;
    int v;
    switch (key) {
    case EBB_KEY_RUN_STRATEGY:
        if ((s = get_name(c, e, strategy_names, EBB_CONFIG_STRATEGY_COUNT, &v)) == EBB_OK)
            cfg->strategy = (ebb_config_strategy)v;
        break;
    case EBB_KEY_GPU_ENABLED: s = get_bool(c, e, &cfg->gpu.enabled); break;
    case EBB_KEY_GPU_BUDGET: s = get_size(c, e, 1, &cfg->gpu.budget); break;
    case EBB_KEY_GPU_DEVICE:
        s = get_int(c, e, 0, MAX_GPU_DEVICE, "a CUDA device number", &cfg->gpu.device);
        break;
    case EBB_KEY_HOST_ENABLED: s = get_bool(c, e, &cfg->host.enabled); break;
    case EBB_KEY_HOST_BUDGET: s = get_size(c, e, 1, &cfg->host.budget); break;
    case EBB_KEY_HOST_NUMA:
        if (e->kind == EBB_TOML_STRING && strcmp(e->string, "auto") == 0)
            cfg->host.numa = EBB_NUMA_AUTO;
        else if (e->kind == EBB_TOML_INTEGER && e->integer >= 0 && e->integer <= 4095)
            cfg->host.numa = (int32_t)e->integer;
        else
            s = expect(c, e, e->key, "\"auto\" or a NUMA node number (0, 1, ...)");
        break;
    case EBB_KEY_DISK_ENABLED: s = get_bool(c, e, &cfg->disk.enabled); break;
    case EBB_KEY_DISK_PATH: s = get_paths(c, e, cfg); break;
    case EBB_KEY_DISK_BUDGET: s = get_size(c, e, 1, &cfg->disk.budget); break;
    case EBB_KEY_DISK_BLOCK_SIZE: {
        uint64_t b;
        if ((s = get_size(c, e, 0, &b)) != EBB_OK)
            break;
        if (b < DIO_ALIGN || b > MAX_BLOCK_SIZE || b % DIO_ALIGN != 0) {
            char got[64];
            ebb_size_human(b, got, sizeof got);
            s = key_fail(c, e, e->key, EBB_ERR_CONFIG,
                         "expected a multiple of 4 KiB from 4 KiB to 1 GiB (O_DIRECT alignment), "
                         "got %s", got);
            break;
        }
        cfg->disk.block_size = b;
        break;
    }
    case EBB_KEY_DISK_QUEUE_DEPTH:
        s = get_int(c, e, 1, MAX_QUEUE_DEPTH, "an integer", &cfg->disk.queue_depth);
        break;
    case EBB_KEY_DISK_BACKEND:
        if (e->kind == EBB_TOML_STRING && strcmp(e->string, "io_uring") == 0)
            cfg->disk.backend = EBB_DISK_BACKEND_URING; /* the name storage prints */
        else if ((s = get_name(c, e, backend_names, BACKEND_COUNT, &v)) == EBB_OK)
            cfg->disk.backend = (ebb_disk_backend)v;
        break;
    case EBB_KEY_DISK_CHECKSUM: s = get_bool(c, e, &cfg->disk.checksum); break;
    case EBB_KEY_DISK_DIRECT: s = get_bool(c, e, &cfg->disk.direct); break;
    case EBB_CONFIG_KEY_COUNT: s = ebb_fail(EBB_ERR_INTERNAL, "bad configuration key"); break;
    }
    if (s == EBB_OK)
        cfg->line[key] = e->line > 0 ? e->line : 1;
    return s;
}

static ebb_status unknown_key(const load_ctx *c, const ebb_toml_entry *e)
{
    /* The table it sits in: the longest known table that prefixes it. */
    const char *parent = "";
    for (int i = 0; i < TABLE_COUNT; i++) {
        size_t l = strlen(tables[i].name);
        if (strncmp(e->key, tables[i].name, l) == 0 && e->key[l] == '.' && !strchr(e->key + l + 1, '.') &&
            l > strlen(parent))
            parent = tables[i].name;
    }
    char known[256];
    list_children(parent, known, sizeof known);
    const char *near = suggest_key(e->key);
    char where_known[300];
    if (parent[0])
        snprintf(where_known, sizeof where_known, "the keys of [%s] are %s", parent, known);
    else
        snprintf(where_known, sizeof where_known, "the top-level tables are %s", known);
    if (near)
        return ebb_fail(EBB_ERR_CONFIG, "%s:%d: unknown key '%s'; did you mean '%s'? (%s)", c->name,
                        (int)e->line, e->key, near, where_known);
    return ebb_fail(EBB_ERR_CONFIG, "%s:%d: unknown key '%s'; expected a known key (%s)", c->name,
                    (int)e->line, e->key, where_known);
}

static ebb_status apply_entry(load_ctx *c, const ebb_toml_entry *e)
{
    for (int i = 0; i < TABLE_COUNT; i++) {
        if (strcmp(e->key, tables[i].name) != 0)
            continue;
        if (e->kind != EBB_TOML_TABLE)
            return expect(c, e, e->key, "a table");
        if (c->table_line[i] == 0)
            c->table_line[i] = e->line > 0 ? e->line : 1;
        return EBB_OK;
    }
    for (int k = 0; k < EBB_CONFIG_KEY_COUNT; k++)
        if (strcmp(e->key, key_names[k]) == 0)
            return apply_key(c, e, (ebb_config_key)k);
    /* Anything under an unknown table was reported with that table, so only
     * the first unknown name on a path gets here (entries are in file order). */
    return unknown_key(c, e);
}

static int by_position(const void *pa, const void *pb)
{
    const ebb_toml_entry *a = pa, *b = pb;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->column != b->column)
        return a->column < b->column ? -1 : 1;
    size_t la = strlen(a->key), lb = strlen(b->key);
    return la < lb ? -1 : la > lb;
}

static ebb_status load_text(const char *text, size_t len, const char *name, const char *base_dir,
                            ebb_config *cfg)
{
    ebb_toml_doc doc;
    int rc = ebb_toml_parse(text, len, &doc);
    if (rc == EBB_TOML_SYNTAX) {
        return ebb_fail(EBB_ERR_CONFIG, "%s:%d:%d: TOML syntax error: %s", name, (int)doc.error_line,
                        (int)doc.error_column, doc.error);
    }
    if (rc == EBB_TOML_NO_MEMORY)
        return ebb_fail(EBB_ERR_NO_MEMORY, "%s: out of memory parsing the configuration", name);
    if (rc != EBB_TOML_OK)
        return ebb_fail(EBB_ERR_INTERNAL, "%s: the TOML parser failed: %s", name, doc.error);

    ebb_config next;
    ebb_status s = ebb_config_copy(cfg, &next);
    if (s != EBB_OK) {
        ebb_toml_doc_free(&doc);
        return s;
    }
    free(next.source);
    next.source = strdup(name);
    memset(next.line, 0, sizeof next.line);
    if (!next.source) {
        ebb_toml_doc_free(&doc);
        ebb_config_dispose(&next);
        return ebb_fail(EBB_ERR_NO_MEMORY, "out of memory loading %s", name);
    }
    load_ctx c = {.name = name, .base_dir = base_dir, .cfg = &next};
    /* A table whose position toml++ does not know (an implicit one) takes
     * that of its first key; then everything goes in file order, so the first
     * error in the file is the one reported. */
    for (size_t i = 0; i < doc.count; i++) {
        ebb_toml_entry *t = &doc.entries[i];
        if (t->line > 0)
            continue;
        size_t tl = strlen(t->key);
        for (size_t j = 0; j < doc.count; j++) {
            const ebb_toml_entry *u = &doc.entries[j];
            if (u->line > 0 && strncmp(u->key, t->key, tl) == 0 && u->key[tl] == '.' &&
                (t->line == 0 || u->line < t->line || (u->line == t->line && u->column < t->column))) {
                t->line = u->line;
                t->column = u->column;
            }
        }
    }
    if (doc.count > 0)
        qsort(doc.entries, doc.count, sizeof *doc.entries, by_position);
    for (size_t i = 0; i < doc.count && s == EBB_OK; i++)
        s = apply_entry(&c, &doc.entries[i]);
    /* A [tier.X] table turns its tier on unless it says enabled = false. */
    for (int i = 0; i < TABLE_COUNT && s == EBB_OK; i++) {
        int k = tables[i].enabled_key;
        if (k < 0 || c.table_line[i] == 0 || next.line[k] != 0)
            continue;
        int *enabled = k == EBB_KEY_GPU_ENABLED ? &next.gpu.enabled
                     : k == EBB_KEY_HOST_ENABLED ? &next.host.enabled : &next.disk.enabled;
        *enabled = 1;
        next.line[k] = c.table_line[i];
    }
    ebb_toml_doc_free(&doc);
    if (s == EBB_OK)
        s = check_strategy_tiers(&next);
    if (s == EBB_OK && next.line[EBB_KEY_HOST_NUMA] > 0)
        s = check_numa(&next);
    if (s == EBB_OK && next.disk.enabled &&
        (next.line[EBB_KEY_DISK_PATH] > 0 || next.line[EBB_KEY_DISK_BUDGET] > 0))
        s = check_disk(&next, next.disk.budget);
    if (s != EBB_OK) {
        ebb_config_dispose(&next);
        return s;
    }
    ebb_config_dispose(cfg);
    *cfg = next;
    return EBB_OK;
}

ebb_status ebb_config_load_string(const char *toml, const char *name, ebb_config *cfg)
{
    if (!toml || !cfg)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_config_load_string: %s is NULL",
                        toml ? "cfg" : "toml");
    return load_text(toml, strlen(toml), name ? name : "<string>", NULL, cfg);
}

ebb_status ebb_config_load_file(const char *path, ebb_config *cfg)
{
    if (!path || !cfg)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_config_load_file: %s is NULL", path ? "cfg" : "path");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ebb_fail_errno(EBB_ERR_IO, errno, "cannot open configuration file '%s'", path);
    struct stat st;
    if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        int err = S_ISDIR(st.st_mode) ? EISDIR : errno;
        close(fd);
        return ebb_fail_errno(EBB_ERR_IO, err, "cannot read configuration file '%s'", path);
    }
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    ebb_status s = EBB_OK;
    for (;;) {
        if (!text) {
            s = ebb_fail(EBB_ERR_NO_MEMORY, "out of memory reading '%s'", path);
            break;
        }
        if (len + 1 >= cap) {
            if (cap >= MAX_FILE_BYTES) {
                s = ebb_fail(EBB_ERR_CONFIG, "%s: larger than %d MiB; expected a configuration "
                             "file", path, MAX_FILE_BYTES >> 20);
                break;
            }
            char *bigger = realloc(text, cap * 2);
            if (!bigger) {
                free(text);
                text = NULL;
                continue;
            }
            text = bigger;
            cap *= 2;
        }
        ssize_t got = read(fd, text + len, cap - 1 - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            s = ebb_fail_errno(EBB_ERR_IO, errno, "cannot read configuration file '%s'", path);
            break;
        }
        if (got == 0)
            break;
        len += (size_t)got;
    }
    close(fd);
    if (s != EBB_OK) {
        free(text);
        return s;
    }
    text[len] = '\0';
    /* Relative disk paths start from the file's directory, made absolute. */
    char *dir = strdup(path);
    char *base = NULL;
    if (dir) {
        char *slash = strrchr(dir, '/');
        if (!slash)
            strcpy(dir, ".");
        else if (slash == dir)
            dir[1] = '\0';
        else
            *slash = '\0';
        base = realpath(dir, NULL);
    }
    s = load_text(text, len, path, base ? base : dir, cfg);
    free(base);
    free(dir);
    free(text);
    return s;
}

/* ---- writing ------------------------------------------------------------------ */

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
    out(&o, "\n[tier.host]\nenabled = %s\n", cfg->host.enabled ? "true" : "false");
    out_size(&o, "budget", cfg->host.budget);
    if (cfg->host.numa == EBB_NUMA_AUTO)
        out(&o, "numa = \"auto\"\n");
    else
        out(&o, "numa = %d\n", (int)cfg->host.numa);
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
    out(&o, "backend = \"%s\"\n", backend_name(cfg->disk.backend));
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
