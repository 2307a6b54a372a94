/* What example_reaction_diffusion prints (report.h). */
#include "report.h"

#include <stdio.h>
#include <string.h>

const char *report_size(uint64_t bytes, char *buf, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 5) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, len, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
    return buf;
}

static int tier_valid(int t) { return t >= 0 && t < EBB_TIER_COUNT; }

void report_problem(const rd_params *p, const ebb_config *cfg, const char *config_path)
{
    char size[32];
    report_size((uint64_t)p->points * sizeof(double), size, sizeof size);
    printf("Reaction-diffusion adjoint, driven by ebb %s\n", ebb_version());
    printf("  solves    u_t = k u_xx - r u^3 on a periodic grid of %lld points\n"
           "            (one state: %s), %lld explicit Euler steps; k = %g, r = %g, h = %g, dt = %g\n",
           (long long)p->points, size, (long long)p->steps, p->k, p->r, p->h, p->dt);
    printf("  objective J = sum_{i<n} w mean(u_i^2)/2 + mean((u_n - target)^2)/2, w = %g\n",
           p->weight);
    printf("  gradient  dJ/du0 (%lld values) and dJ/dr, by the hand-written discrete adjoint,\n"
           "            which needs every u_i again in reverse order: ebb keeps or recomputes them\n",
           (long long)p->points);
    printf("  config    %s%s, strategy %s\n", config_path ? config_path : "ebb's default",
           config_path ? " (the example's defaults for keys it does not set)"
                       : " with the example's budgets",
           ebb_config_strategy_name(cfg->strategy));
}

void report_run(const rd_result *res, const ebb_config *cfg)
{
    const ebb_run_info *in = &res->info;
    char size[32];
    printf("\nrun: strategy %s, fast tier %s", in->strategy_name, ebb_tier_name(in->fast_tier));
    if (tier_valid(in->slow_tier) && in->slots[in->slow_tier] > 0)
        printf(", slow tier %s", ebb_tier_name(in->slow_tier));
    printf("\n");
    for (int t = 0; t < EBB_TIER_COUNT; t++) {
        if (in->buffers[t] == 0 && in->slots[t] == 0)
            continue;
        printf("  %-5s  schedule slots %4d, buffers %4d (%s)", ebb_tier_name((ebb_tier)t),
               in->slots[t], in->buffers[t], report_size(in->bytes[t], size, sizeof size));
        if (t == EBB_TIER_DISK && cfg->disk.path_count)
            printf(" in %s%s", cfg->disk.paths[0], cfg->disk.path_count > 1 ? ", ..." : "");
        printf("\n");
    }
    if (in->warnings && in->warnings[0])
        printf("  warnings: %s\n", in->warnings);
}

void report_stats(const rd_result *res)
{
    const ebb_run_stats *s = &res->stats;
    char w[32], r[32];
    printf("\nstatistics\n");
    printf("  forward steps  %lld = %lld + %lld recomputed (%.2f per step); reverse steps %lld\n",
           (long long)s->forward_steps, (long long)s->steps, (long long)s->recomputed_steps,
           s->steps ? (double)s->recomputed_steps / (double)s->steps : 0.0,
           (long long)s->reverse_steps);
    for (int t = 0; t < EBB_TIER_COUNT; t++) {
        if (!s->stores[t] && !s->restores[t] && !s->bytes_written[t] && !s->bytes_read[t] &&
            !res->info.slots[t])
            continue;
        printf("  %-5s  stores %5lld, restores %5lld; wrote %10s, read %10s; peak %d slots; "
               "stalled %.3f s\n",
               ebb_tier_name((ebb_tier)t), (long long)s->stores[t], (long long)s->restores[t],
               report_size(s->bytes_written[t], w, sizeof w), report_size(s->bytes_read[t], r, sizeof r),
               s->peak_slots[t], s->stall_s[t]);
    }
    printf("  time   wall %.3f s = forward sweep %.3f s + reverse sweep %.3f s\n"
           "         inside forward steps %.3f s, reverse steps %.3f s; copies %lld (%.3f s);"
           " stalled %.3f s\n",
           s->wall_s, s->forward_sweep_s, s->reverse_sweep_s, s->forward_callback_s,
           s->reverse_callback_s, (long long)s->copies, s->copy_s, s->stall_total_s);
    for (int t = EBB_TIER_HOST; t <= EBB_TIER_DISK; t++) { /* tier.*.compression */
        uint64_t before = s->bytes_before_compression_tier[t];
        uint64_t after = s->bytes_after_compression_tier[t];
        if (before == 0)
            continue;
        printf("  %-5s  compressed %s to %s (ratio %.3f), %lld states stored raw, codec "
               "threads %.3f s\n",
               ebb_tier_name((ebb_tier)t), report_size(before, w, sizeof w), report_size(after, r, sizeof r),
               (double)before / (double)after,
               (long long)(t == EBB_TIER_DISK ? s->stored_raw : 0), s->codec_s_tier[t]);
    }
    if (s->host_compress_bps > 0) /* tier.host.compression: what its codec threads measured */
        printf("  host   a codec thread compresses %.3g GB/s, decompresses %.3g GB/s\n",
               s->host_compress_bps / 1e9, s->host_decompress_bps / 1e9);
    if (res->info.error_samples > 0) /* run.error_samples: ebb's lossy error estimate */
        printf("  error  estimate: gradient relative error %.3e; state relative error max "
               "%.3e, rms %.3e over %lld sampled states (%lld not bitwise exact; %s of exact "
               "copies)\n",
               s->gradient_rel_error_estimate, s->state_rel_error_max, s->state_rel_error_rms,
               (long long)s->error_samples,
               (long long)s->error_samples_differ,
               report_size(res->info.error_sample_bytes, w, sizeof w));
}

/* The slots the other strategies are planned with: this run's fast slots C
 * and its slow slots D, or, when this run used none, what the disk budget
 * holds. */
static void plan_slots(const ebb_config *cfg, const rd_params *p, const ebb_run_info *in,
                       int32_t *fast, int32_t *slow, ebb_tier *slow_tier)
{
    *fast = in->slots[in->fast_tier];
    *slow = 0;
    *slow_tier = tier_valid(in->slow_tier) ? in->slow_tier : EBB_TIER_DISK;
    if (tier_valid(in->slow_tier) && in->slots[in->slow_tier] > 0) {
        *slow = in->slots[in->slow_tier];
        return;
    }
    ebb_pool_options po;
    if (*slow_tier != in->fast_tier &&
        ebb_config_pool_options(cfg, *slow_tier, (size_t)p->points * sizeof(double), &po) == EBB_OK)
        *slow = po.slots;
}

/* Disk-revolve writes x_0, x_m, ... to disk, ceil(n/m) - 1 slots: its own
 * period (for a disk as fast as a step, R = 1), or the smallest period
 * whose states fit the D slots there are. */
static int64_t disk_revolve_period(int64_t n, int32_t fast, int32_t slow)
{
    int64_t m = 1;
    if (ebb_disk_revolve_period(fast, 1.0, &m) != EBB_OK)
        m = 1;
    int64_t fit = (n + slow) / (slow + 1); /* ceil(n / (D + 1)) */
    return m > fit ? m : fit;
}

/* One measured run of another strategy; compares its gradient with done's. */
static int run_other(const rd_params *p, const ebb_config *cfg, ebb_config_strategy c,
                     int64_t period, const rd_adjoint *done, rd_adjoint *other, const double *u0)
{
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.config = cfg;
    o.strategy = (int)c;
    o.period = period;
    rd_result r;
    if (rd_gradient(other, u0, &o, &r) != EBB_OK) {
        printf("  %s: %s\n", r.created ? "FAILED" : "not run", ebb_last_error());
        return r.created ? -1 : 0;
    }
    int same = memcmp(other->lambda, done->lambda, (size_t)p->points * sizeof(double)) == 0 &&
               memcmp(&other->grad_r, &done->grad_r, sizeof other->grad_r) == 0 &&
               memcmp(&other->objective, &done->objective, sizeof other->objective) == 0;
    printf("  %9.3f %9.3f  %s\n", r.stats.wall_s, r.stats.stall_total_s,
           same ? "bitwise equal" : "DIFFERENT");
    return same ? 0 : -1;
}

int report_strategies(const rd_params *p, const ebb_config *cfg, const rd_result *res,
                      const rd_adjoint *done, const double *u0)
{
    const ebb_run_info *in = &res->info;
    const ebb_run_stats *st = &res->stats;
    int32_t fast, slow;
    ebb_tier slow_tier;
    plan_slots(cfg, p, in, &fast, &slow, &slow_tier);
    /* Step times measured in this run, to turn step counts into seconds. */
    double f = st->forward_steps ? st->forward_callback_s / (double)st->forward_steps : 0.0;
    double b = st->reverse_steps ? st->reverse_callback_s / (double)st->reverse_steps : 0.0;

    rd_adjoint other = {0};
    if (done && rd_adjoint_init(&other, p, done->target) != 0) {
        fprintf(stderr, "ebb: out of memory for --all\n");
        return -1;
    }
    printf("\nstrategies for n = %lld with %d %s slots + %d %s slots (planned by\n"
           "ebb_schedule_validate; seconds of compute from this run's step times%s)\n",
           (long long)p->steps, fast, ebb_tier_name(in->fast_tier), slow, ebb_tier_name(slow_tier),
           done ? "; --all: measured" : "; --all runs them");
    printf("  %-13s %13s %11s %9s", "strategy", "forward steps", "recomp/step", "compute s");
    if (done)
        printf("  %9s %9s  %s", "wall s", "stalled s", "gradient vs this run");
    printf("\n");
    int rc = 0;
    for (int c = EBB_CONFIG_STRATEGY_STORE_ALL; c <= EBB_CONFIG_STRATEGY_DISK_REVOLVE; c++) {
        ebb_strategy s;
        if (ebb_config_strategy_schedule((ebb_config_strategy)c, &s) != EBB_OK)
            continue;
        ebb_schedule_options o;
        ebb_schedule_options_init(&o);
        o.strategy = s;
        o.steps = p->steps;
        o.slots = fast;
        o.fast_tier = in->fast_tier;
        int two_tier = s == EBB_STRATEGY_MULTISTAGE || s == EBB_STRATEGY_DISK_REVOLVE;
        if (two_tier) {
            o.slow_tier = slow_tier;
            o.disk_slots = slow;
            if (s == EBB_STRATEGY_DISK_REVOLVE && slow > 0)
                o.period = disk_revolve_period(p->steps, fast, slow);
        }
        const int this_run = s == in->strategy;
        ebb_schedule_stats ss;
        printf("  %-13s", ebb_strategy_name(s));
        if (two_tier && slow < 1) {
            printf(" does not fit: no slow tier to keep states in\n");
            continue;
        }
        if (ebb_schedule_validate(&o, &ss) != EBB_OK) {
            printf(" does not fit: %s\n", ebb_last_error());
            continue;
        }
        printf(" %13lld %11.2f %9.3f", (long long)ss.forward_steps,
               (double)(ss.forward_steps - p->steps) / (double)p->steps,
               (double)ss.forward_steps * f + (double)p->steps * b);
        if (this_run)
            printf("%s\n", done ? "  (this run)" : "  <- this run");
        else if (!done)
            printf("\n");
        else if (run_other(p, cfg, (ebb_config_strategy)c, o.period, done, &other, u0) != 0)
            rc = -1;
    }
    rd_adjoint_free(&other);
    return rc;
}
