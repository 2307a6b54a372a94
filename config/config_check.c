/* Validating a configuration against this machine (values, tiers, NUMA
 * node, disk paths and space) and resolving its budgets. */
#include "ebb/config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/error_internal.h"
#include "config/config_internal.h"
#include "config/config_keys.h"
#include "config/config_size.h"
#include "config/config_system.h"

/* ---- messages --------------------------------------------------------------- */

/* "f.toml:7: key 'tier.disk.budget'" or "key 'tier.disk.budget' (default or
 * set by the program)": where a value of a loaded configuration came from. */
void ebb_config_where(const ebb_config *cfg, ebb_config_key key, const char *suffix, char *buf,
                      size_t size)
{
    if (cfg->line[key] > 0 && cfg->source)
        snprintf(buf, size, "%s:%d: key '%s%s'", cfg->source, (int)cfg->line[key],
                 ebb_config_keys[key].name, suffix);
    else
        snprintf(buf, size, "key '%s%s' (default or set by the program)", ebb_config_keys[key].name,
                 suffix);
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

ebb_status ebb_config_check_numa(const ebb_config *cfg)
{
    if (!cfg->host.enabled || cfg->host.numa == EBB_NUMA_AUTO)
        return EBB_OK;
    char at[512];
    ebb_config_where(cfg, EBB_KEY_HOST_NUMA, "", at, sizeof at);
    int nodes = 0;
    if (cfg->host.numa < 0 || !ebb_sys_numa_node_exists(cfg->host.numa, &nodes))
        return ebb_fail(EBB_ERR_CONFIG,
                        "%s: NUMA node %d does not exist; expected \"auto\" or a node from 0 to %d "
                        "(this machine has %d)", at, (int)cfg->host.numa, nodes > 0 ? nodes - 1 : 0,
                        nodes);
    return EBB_OK;
}

/* Disk path i exists, is a directory, is writable and is not one of the
 * paths before it; probes it into info[i]. */
static ebb_status check_dir(const ebb_config *cfg, size_t i, ebb_dir_info *info)
{
    const char *p = cfg->disk.paths[i];
    char at[640], sfx[32];
    path_suffix(cfg, i, sfx, sizeof sfx);
    ebb_config_where(cfg, EBB_KEY_DISK_PATH, sfx, at, sizeof at);
    ebb_sys_probe_dir(p, cfg->fault_write_errno, &info[i]);
    switch (info[i].error == 0 ? EBB_DIR_OK : info[i].step) {
    case EBB_DIR_OK: break;
    case EBB_DIR_STAT:
        if (info[i].error == ENOENT)
            return ebb_fail(EBB_ERR_CONFIG,
                            "%s: directory '%s' does not exist; expected an existing directory "
                            "(ebb does not create it)", at, p);
        return ebb_fail_errno(EBB_ERR_CONFIG, info[i].error,
                              "%s: cannot look at directory '%s'", at, p);
    case EBB_DIR_NOT_DIR:
        return ebb_fail(EBB_ERR_CONFIG, "%s: '%s' is not a directory; expected a directory "
                        "for the tier's file", at, p);
    case EBB_DIR_WRITE:
        return ebb_fail_errno(EBB_ERR_CONFIG, info[i].error,
                              "%s: directory '%s' is not writable; expected a directory where "
                              "ebb can create its file (creating a test file failed)", at, p);
    default:
        return ebb_fail_errno(EBB_ERR_CONFIG, info[i].error,
                              "%s: cannot read the free space of '%s'", at, p);
    }
    for (size_t j = 0; j < i; j++) {
        if (info[j].dev == info[i].dev && info[j].ino == info[i].ino)
            return ebb_fail(EBB_ERR_CONFIG,
                            "%s: '%s' is the same directory as tier.disk.path[%zu] ('%s'); "
                            "expected each directory once (one per drive)", at, p, j,
                            cfg->disk.paths[j]);
    }
    return EBB_OK;
}

/* Space: the budget is shared equally among the paths; paths on one file
 * system add up their shares, which its free space must hold. */
static ebb_status check_space(const ebb_config *cfg, const ebb_dir_info *info, uint64_t budget)
{
    size_t n = cfg->disk.path_count;
    uint64_t share = budget / n + (budget % n != 0);
    for (size_t i = 0; i < n; i++) {
        size_t same = 0, first = i;
        for (size_t j = 0; j < n; j++) {
            if (info[j].dev == info[i].dev) {
                if (same == 0)
                    first = j;
                same++;
            }
        }
        unsigned __int128 need = (unsigned __int128)share * same;
        if (first != i || need <= info[i].free_bytes)
            continue;
        char at[640], need_s[64], free_s[64], budget_s[64];
        ebb_size_human(need > UINT64_MAX ? UINT64_MAX : (uint64_t)need, need_s, sizeof need_s);
        ebb_size_human(info[i].free_bytes, free_s, sizeof free_s);
        ebb_size_human(budget, budget_s, sizeof budget_s);
        ebb_config_where(cfg, EBB_KEY_DISK_BUDGET, "", at, sizeof at);
        if (n == 1)
            return ebb_fail(EBB_ERR_NO_SPACE,
                            "%s: %s does not fit in '%s', whose file system has %s free; "
                            "expected a budget at most the free space", at, budget_s,
                            cfg->disk.paths[i], free_s);
        return ebb_fail(EBB_ERR_NO_SPACE,
                        "%s: %s over %zu paths needs %s on the file system of '%s', "
                        "which has %s free; expected a budget the free space can hold",
                        at, budget_s, n, need_s, cfg->disk.paths[i], free_s);
    }
    return EBB_OK;
}

/* Every disk path exists, is a directory, is writable, is listed once; with
 * `budget` != 0, each file system has the space for its paths' shares. */
ebb_status ebb_config_check_disk(const ebb_config *cfg, uint64_t budget)
{
    size_t n = cfg->disk.path_count;
    if (n == 0 || !cfg->disk.paths) {
        char at[640];
        ebb_config_where(cfg, EBB_KEY_DISK_PATH, "", at, sizeof at);
        return ebb_fail(EBB_ERR_CONFIG, "%s: no directory given; expected at least one", at);
    }
    ebb_dir_info *info = calloc(n, sizeof *info);
    if (!info)
        return ebb_fail(EBB_ERR_NO_MEMORY, "out of memory checking %zu disk paths", n);
    ebb_status s = EBB_OK;
    for (size_t i = 0; i < n && s == EBB_OK; i++)
        s = check_dir(cfg, i, info);
    if (s == EBB_OK && budget != 0)
        s = check_space(cfg, info, budget);
    free(info);
    return s;
}

ebb_status ebb_config_verify_disk(const ebb_config *cfg)
{
    return cfg->disk.enabled ? ebb_config_check_disk(cfg, cfg->disk.budget) : EBB_OK;
}

ebb_status ebb_config_check_numa_value(const ebb_config *cfg)
{
    if (cfg->host.numa >= EBB_NUMA_AUTO)
        return EBB_OK; /* whether the node exists: ebb_config_check_numa */
    char at[512];
    ebb_config_where(cfg, EBB_KEY_HOST_NUMA, "", at, sizeof at);
    return ebb_fail(EBB_ERR_CONFIG, "%s: expected \"auto\" (-1) or a node number, got %d", at,
                    (int)cfg->host.numa);
}

void ebb_key_range_text(const ebb_key_def *d, char *buf, size_t size)
{
    if (d->type == EBB_KEY_TYPE_DOUBLE) {
        if (d->dmin_open)
            snprintf(buf, size, "%s above %g", d->what, d->dmin);
        else
            snprintf(buf, size, "%s from %g to %g", d->what, d->dmin, d->dmax);
        return;
    }
    if (d->type == EBB_KEY_TYPE_INT) {
        snprintf(buf, size, "%s from %" PRId64 " to %" PRId64, d->what, d->min, d->max);
        return;
    }
    char lo[48], hi[48], step[48];
    if (d->min == 1)
        snprintf(lo, sizeof lo, "1 byte");
    else
        ebb_format_size((uint64_t)d->min, lo, sizeof lo);
    ebb_format_size((uint64_t)d->max, hi, sizeof hi);
    if (d->align > 1) {
        ebb_format_size(d->align, step, sizeof step);
        snprintf(buf, size, "a multiple of %s from %s to %s", step, lo, hi);
    } else {
        snprintf(buf, size, "a size from %s to %s", lo, hi);
    }
}

/* Key `key` of *cfg within its range as the table gives it, or the message. */
static ebb_status check_key(const ebb_config *cfg, ebb_config_key key)
{
    const ebb_key_def *d = &ebb_config_keys[key];
    const void *v = ebb_key_cfield(cfg, d);
    char at[512], range[160];
    switch (d->type) {
    case EBB_KEY_TYPE_ENUM: {
        int i = *(const int *)v;
        if ((unsigned)i < (unsigned)d->name_count)
            return EBB_OK;
        ebb_config_where(cfg, key, "", at, sizeof at);
        return ebb_fail(EBB_ERR_CONFIG, "%s: %d is not an %s", at, i, d->c_type);
    }
    case EBB_KEY_TYPE_INT: {
        int32_t i = *(const int32_t *)v;
        if ((d->has_auto && i == d->auto_value) || (i >= d->min && i <= d->max))
            return EBB_OK;
        ebb_config_where(cfg, key, "", at, sizeof at);
        ebb_key_range_text(d, range, sizeof range);
        return ebb_fail(EBB_ERR_CONFIG, "%s: expected %s%s, got %d", at, range,
                        d->note ? d->note : "", (int)i);
    }
    case EBB_KEY_TYPE_SIZE: {
        uint64_t b = *(const uint64_t *)v;
        if (d->max == 0 || (d->has_auto && b == EBB_BUDGET_AUTO) ||
            (b >= (uint64_t)d->min && b <= (uint64_t)d->max && (d->align <= 1 || b % d->align == 0)))
            return EBB_OK;
        ebb_config_where(cfg, key, "", at, sizeof at);
        ebb_key_range_text(d, range, sizeof range);
        return ebb_fail(EBB_ERR_CONFIG, "%s: expected %s, got %" PRIu64 " bytes", at, range, b);
    }
    case EBB_KEY_TYPE_RATE: {
        uint64_t r = *(const uint64_t *)v;
        if (r <= EBB_RATE_MAX)
            return EBB_OK;
        ebb_config_where(cfg, key, "", at, sizeof at);
        return ebb_fail(EBB_ERR_CONFIG,
                        "%s: expected a rate of at most 1 EB/s (10^18 bytes per second), or 0 "
                        "for no limit, got %" PRIu64 " bytes per second",
                        at, r);
    }
    case EBB_KEY_TYPE_DOUBLE: {
        double x = *(const double *)v;
        if (ebb_key_double_in_range(d, x))
            return EBB_OK;
        ebb_config_where(cfg, key, "", at, sizeof at);
        ebb_key_range_text(d, range, sizeof range);
        return ebb_fail(EBB_ERR_CONFIG, "%s: expected %s, got %g", at, range, x);
    }
    case EBB_KEY_TYPE_BOOL:  /* any int is true or false */
    case EBB_KEY_TYPE_PATHS: /* ebb_config_check_disk */
        break;
    }
    return EBB_OK;
}

/* One tier's compression keys together (host: fixed-rate only, the one
 * mode whose size is known before a slot is made for it). */
static ebb_status check_tier_compression(const ebb_config *cfg, ebb_tier tier)
{
    int host = tier == EBB_TIER_HOST;
    ebb_config_key mode_key = host ? EBB_KEY_HOST_COMPRESSION : EBB_KEY_DISK_COMPRESSION;
    ebb_status s = check_key(cfg, mode_key);
    if (s != EBB_OK)
        return s;
    const ebb_codec_options *o = host ? &cfg->host.compression : &cfg->disk.compression;
    char at[512];
    if (host && o->mode != EBB_COMPRESSION_OFF && o->mode != EBB_COMPRESSION_FIXED_RATE) {
        ebb_config_where(cfg, mode_key, "", at, sizeof at);
        return ebb_fail(EBB_ERR_CONFIG,
                        "%s: \"%s\" cannot be used on the host tier: the size of its compressed "
                        "states depends on the data (not known before), so no host slot can be "
                        "sized for them; use \"fixed-rate\" (every state the same size) or \"off\", "
                        "or compress on the way to the disk (tier.disk.compression)",
                        at, ebb_compression_name(o->mode));
    }
    if (o->element == EBB_ELEMENT_BYTES || (o->mode != EBB_COMPRESSION_FIXED_RATE &&
                                            o->mode != EBB_COMPRESSION_FIXED_PRECISION))
        return EBB_OK; /* no element yet: the run may give it (ebb_run_options.element) */
    int bits = 8 * (int)ebb_element_size(o->element);
    int rate = o->mode == EBB_COMPRESSION_FIXED_RATE;
    if (rate ? o->rate <= bits : o->precision <= bits)
        return EBB_OK;
    ebb_config_key key = rate ? (host ? EBB_KEY_HOST_RATE : EBB_KEY_DISK_RATE)
                              : EBB_KEY_DISK_PRECISION;
    ebb_config_where(cfg, key, "", at, sizeof at);
    char got[32];
    snprintf(got, sizeof got, rate ? "%g" : "%.0f", rate ? o->rate : (double)o->precision);
    return ebb_fail(EBB_ERR_CONFIG,
                    "%s: expected at most %d %s for %s values (tier.%s.element), got %s", at,
                    bits, rate ? "bits per value" : "bit planes", ebb_element_name(o->element),
                    host ? "host" : "disk", got);
}

static ebb_status check_disk_compression(const ebb_config *cfg)
{
    return check_tier_compression(cfg, EBB_TIER_DISK);
}

static ebb_status check_host_compression(const ebb_config *cfg)
{
    return check_tier_compression(cfg, EBB_TIER_HOST);
}

ebb_status ebb_config_check_compression(const ebb_config *cfg)
{
    ebb_status s = check_disk_compression(cfg);
    return s != EBB_OK ? s : check_host_compression(cfg);
}

const ebb_key_checks ebb_config_key_checks[EBB_CONFIG_KEY_COUNT] = {
    [EBB_KEY_HOST_NUMA] = {.check = ebb_config_check_numa_value, .verify = ebb_config_check_numa},
    [EBB_KEY_DISK_PATH] = {.verify = ebb_config_verify_disk},
    [EBB_KEY_DISK_BUDGET] = {.verify = ebb_config_verify_disk},
    [EBB_KEY_HOST_COMPRESSION] = {.check = check_host_compression},
    [EBB_KEY_DISK_COMPRESSION] = {.check = check_disk_compression},
};

/* Values a program may have set out of range (a file's are checked as read). */
ebb_status ebb_config_check_values(const ebb_config *cfg)
{
    for (int k = 0; k < EBB_CONFIG_KEY_COUNT; k++) {
        ebb_status (*check)(const ebb_config *) = ebb_config_key_checks[k].check;
        ebb_status s = check ? check(cfg) : check_key(cfg, (ebb_config_key)k);
        if (s != EBB_OK)
            return s;
    }
    return EBB_OK;
}

/* Strategies that keep states on disk need the disk tier. */
ebb_status ebb_config_check_strategy_tiers(const ebb_config *cfg)
{
    if ((cfg->strategy == EBB_CONFIG_STRATEGY_MULTISTAGE ||
         cfg->strategy == EBB_CONFIG_STRATEGY_DISK_REVOLVE ||
         cfg->strategy == EBB_CONFIG_STRATEGY_H_REVOLVE) && !cfg->disk.enabled) {
        char at[512];
        int from_strategy = cfg->line[EBB_KEY_RUN_STRATEGY] >= cfg->line[EBB_KEY_DISK_ENABLED];
        ebb_config_where(cfg, from_strategy ? EBB_KEY_RUN_STRATEGY : EBB_KEY_DISK_ENABLED, "", at,
                         sizeof at);
        return ebb_fail(EBB_ERR_CONFIG,
                        "%s: strategy \"%s\" keeps states on disk but the disk tier is disabled; "
                        "expected tier.disk.enabled = true or another strategy", at,
                        ebb_config_strategy_names[cfg->strategy]);
    }
    return EBB_OK;
}

/* ---- budgets ----------------------------------------------------------------- */

static uint64_t round_down(uint64_t v, uint64_t align) { return v - v % align; }

/* The auto disk budget: a quarter of the free space divided by the
 * processes on this node (ebb_sys_local_ranks), every path an equal share. */
static ebb_status disk_auto_budget(const ebb_config *cfg, uint64_t *bytes)
{
    size_t n = cfg->disk.path_count;
    if (n == 0)
        return ebb_config_check_disk(cfg, 0); /* reports the missing path */
    ebb_dir_info *info = calloc(n, sizeof *info);
    if (!info)
        return ebb_fail(EBB_ERR_NO_MEMORY, "out of memory checking %zu disk paths", n);
    for (size_t i = 0; i < n; i++) {
        ebb_sys_dir_space(cfg->disk.paths[i], &info[i]);
        if (info[i].error != 0) {
            free(info);
            return ebb_config_check_disk(cfg, 0); /* the detailed message */
        }
    }
    uint64_t per_path = UINT64_MAX, ranks = ebb_sys_local_ranks();
    for (size_t i = 0; i < n; i++) {
        size_t same = 0;
        for (size_t j = 0; j < n; j++)
            same += info[j].dev == info[i].dev;
        uint64_t share = info[i].free_bytes / 4 / ranks / same;
        if (share < per_path)
            per_path = share;
    }
    free(info);
    unsigned __int128 total = (unsigned __int128)per_path * n;
    *bytes = round_down(total > UINT64_MAX ? UINT64_MAX : (uint64_t)total, EBB_CONFIG_DIO_ALIGN);
    return EBB_OK;
}

/* EBB_ERR_UNSUPPORTED, naming the key at `key`, when the GPU tier is enabled
 * but its device does not exist here. */
static ebb_status check_gpu_device(const ebb_config *cfg, ebb_config_key key)
{
    int count = ebb_sys_gpu_count();
    if (!cfg->gpu.enabled || cfg->gpu.device < count)
        return EBB_OK;
    char at[512];
    ebb_config_where(cfg, key, "", at, sizeof at);
    return ebb_fail(EBB_ERR_UNSUPPORTED,
                    "%s: the GPU tier is enabled but CUDA device %d does not exist (%d found%s); "
                    "expected tier.gpu.enabled = false on this machine",
                    at, (int)cfg->gpu.device, count,
#if defined(EBB_HAVE_CUDA) && EBB_HAVE_CUDA
                    ""
#else
                    ": this build of ebb has no CUDA support"
#endif
    );
}

ebb_status ebb_config_lossy_tier(const ebb_config *cfg, int *tier)
{
    if (!cfg || !tier)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_config_lossy_tier: NULL argument");
    *tier = -1;
    if (cfg->host.enabled && ebb_compression_lossy(cfg->host.compression.mode))
        *tier = EBB_TIER_HOST;
    else if (cfg->disk.enabled && ebb_compression_lossy(cfg->disk.compression.mode))
        *tier = EBB_TIER_DISK;
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
        ebb_status gs = check_gpu_device(cfg, EBB_KEY_GPU_ENABLED);
        if (gs != EBB_OK)
            return gs;
        *bytes = round_down(ebb_sys_gpu_free(cfg->gpu.device) / 2, EBB_CONFIG_DIO_ALIGN);
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
        *bytes = round_down(avail / 2, EBB_CONFIG_DIO_ALIGN);
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
    "half of the GPU's free memory", "half of MemAvailable",
    "a quarter of the free disk space over the processes on this node",
};

ebb_status ebb_config_check(const ebb_config *cfg, size_t state_bytes)
{
    if (!cfg)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_config_check: cfg is NULL");
    ebb_status s = ebb_config_check_values(cfg);
    if (s == EBB_OK)
        s = ebb_config_check_strategy_tiers(cfg);
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
    if ((s = check_gpu_device(cfg, cfg->line[EBB_KEY_GPU_DEVICE] > 0 ? EBB_KEY_GPU_DEVICE
                                                                      : EBB_KEY_GPU_ENABLED)) != EBB_OK)
        return s;
    if ((s = ebb_config_check_numa(cfg)) != EBB_OK)
        return s;
    for (int t = 0; t < EBB_TIER_COUNT; t++) {
        if (!enabled[t])
            continue;
        uint64_t budget;
        if ((s = ebb_config_budget(cfg, (ebb_tier)t, &budget)) != EBB_OK)
            return s;
        /* a disk slot holds a whole stride; the other tiers are checked for the state */
        uint64_t need = t == EBB_TIER_DISK ? ebb_slot_stride(EBB_TIER_DISK, state_bytes, 0)
                                           : state_bytes;
        if (state_bytes > 0 && budget < need) {
            ebb_config_where(cfg, budget_key[t], "", at, sizeof at);
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
                ebb_config_where(cfg, budget_key[t], "", at, sizeof at);
                ebb_size_human(budget, a, sizeof a);
                ebb_size_human(total, b, sizeof b);
                return ebb_fail(EBB_ERR_NO_MEMORY,
                                "%s: %s is more than this machine's memory (%s); expected at most "
                                "that (pinned memory cannot be swapped out)", at, a, b);
            }
        }
        if (t == EBB_TIER_DISK && (s = ebb_config_check_disk(cfg, budget)) != EBB_OK)
            return s;
    }
    return EBB_OK;
}
