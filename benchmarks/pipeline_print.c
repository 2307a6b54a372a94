/* benchmarks/pipeline: the tables and the JSON object (pipeline.h). */
#include <stdio.h>

#include "pipeline.h"

static double gbps(uint64_t bytes, double s) { return s > 0 ? (double)bytes / s / 1e9 : 0; }
static double ratio(double a, double b) { return b > 0 ? a / b : 0; }
static const char *yes(int b) { return b ? "true" : "false"; }

/* `text` as the inside of a JSON string (quotes, backslashes and control
 * characters escaped; cut to fit). */
const char *pl_json_text(const char *text, char *buf, size_t len)
{
    size_t k = 0;
    for (const char *p = text; *p && k + 7 < len; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch == '"' || ch == '\\') {
            buf[k++] = '\\';
            buf[k++] = (char)ch;
        } else if (ch < 0x20) {
            k += (size_t)snprintf(buf + k, len - k, "\\u%04x", ch);
        } else {
            buf[k++] = (char)ch;
        }
    }
    buf[k] = 0;
    return buf;
}

static void size_name(size_t bytes, char *buf, size_t len)
{
    if (bytes % (1u << 20) == 0)
        snprintf(buf, len, "%zu MiB", bytes >> 20);
    else if (bytes % 1024 == 0)
        snprintf(buf, len, "%zu KiB", bytes >> 10);
    else
        snprintf(buf, len, "%zu B", bytes);
}

void pl_print_disk(const pl_args *a, const pl_disk_row *rows, int json)
{
    if (json) {
        printf(", \"disk\": {\"host_budget\": %llu, \"total\": %llu, \"target\": 0.90, "
               "\"sizes\": [",
               (unsigned long long)a->host_budget, (unsigned long long)a->total);
        for (int i = 0; i < a->disk_count; i++) {
            const pl_disk_row *r = &rows[i];
            const ebb_run_stats *s = &r->st;
            char warn[600];
            double ew = gbps(s->bytes_written[EBB_TIER_DISK], r->forward_s);
            double er = gbps(s->bytes_read[EBB_TIER_DISK], r->reverse_s);
            double lw = gbps(r->loop.bytes, r->loop.write_s);
            double lr = gbps(r->loop.bytes, r->loop.read_s);
            printf("%s{\"state\": %zu, \"n\": %lld, \"strategy\": \"%s\", \"fast_tier\": \"%s\", "
                   "\"depth\": %d, \"forward_s\": %.4f, \"reverse_s\": %.4f, "
                   "\"bytes_written\": %llu, \"bytes_read\": %llu, \"ebb_write_GBps\": %.4f, "
                   "\"loop_write_GBps\": %.4f, \"write_ratio\": %.4f, \"ebb_read_GBps\": %.4f, "
                   "\"loop_read_GBps\": %.4f, \"read_ratio\": %.4f, \"loop_block\": %zu, "
                   "\"loop_direct\": %s, \"stall_forward_s\": %.4f, \"stall_reverse_s\": %.4f, "
                   "\"prefetches\": %lld, \"cache_hits\": %lld, \"host_slots\": %d, "
                   "\"host_buffers\": %d, \"disk_slots\": %d, \"disk_buffers\": %d, "
                   "\"warnings\": \"%s\", \"exact\": %s}",
                   i ? ", " : "", r->state, (long long)r->n, r->info.strategy,
                   ebb_tier_name(r->info.fast_tier), r->depth, r->forward_s, r->reverse_s,
                   (unsigned long long)s->bytes_written[EBB_TIER_DISK],
                   (unsigned long long)s->bytes_read[EBB_TIER_DISK], ew, lw, ratio(ew, lw), er, lr,
                   ratio(er, lr), r->loop.block, yes(r->loop.direct), r->st_fwd.stall_total_s,
                   s->stall_total_s - r->st_fwd.stall_total_s, (long long)s->prefetches,
                   (long long)s->cache_hits,
                   r->info.slots[EBB_TIER_HOST], r->info.buffers[EBB_TIER_HOST],
                   r->info.slots[EBB_TIER_DISK], r->info.buffers[EBB_TIER_DISK],
                   pl_json_text(r->info.warnings, warn, sizeof warn), yes(r->exact));
        }
        printf("]}");
        return;
    }
    char tot[32];
    size_name((size_t)a->total, tot, sizeof tot);
    printf("\n1. disk-bound store-all: %s per size, host budget %llu MiB, slots on the disk tier, "
           "depth %d (target: ratio >= 0.90)\n",
           tot, (unsigned long long)(a->host_budget >> 20), rows[0].depth);
    printf("  %-7s %7s | %8s %8s %6s | %8s %8s %6s | %7s %7s %6s %6s %5s %5s %5s\n", "state",
           "n", "ebb wr", "loop wr", "ratio", "ebb rd", "loop rd", "ratio", "stall", "stall",
           "prefet", "cache", "host", "host", "exact");
    printf("  %-7s %7s | %8s %8s %6s | %8s %8s %6s | %7s %7s %6s %6s %5s %5s %5s\n", "", "",
           "GB/s", "GB/s", "", "GB/s", "GB/s", "", "fwd s", "rev s", "ches", "hits", "slots",
           "bufs", "");
    for (int i = 0; i < a->disk_count; i++) {
        const pl_disk_row *r = &rows[i];
        const ebb_run_stats *s = &r->st;
        double ew = gbps(s->bytes_written[EBB_TIER_DISK], r->forward_s);
        double er = gbps(s->bytes_read[EBB_TIER_DISK], r->reverse_s);
        double lw = gbps(r->loop.bytes, r->loop.write_s), lr = gbps(r->loop.bytes, r->loop.read_s);
        char sz[32];
        size_name(r->state, sz, sizeof sz);
        printf("  %-7s %7lld | %8.3f %8.3f %6.3f | %8.3f %8.3f %6.3f | %7.3f %7.3f %6lld %6lld %5d "
               "%5d %5s\n",
               sz, (long long)r->n, ew, lw, ratio(ew, lw), er, lr, ratio(er, lr),
               r->st_fwd.stall_total_s, s->stall_total_s - r->st_fwd.stall_total_s,
               (long long)s->prefetches, (long long)s->cache_hits, r->info.slots[EBB_TIER_HOST],
               r->info.buffers[EBB_TIER_HOST], r->exact ? "yes" : "NO");
    }
    for (int i = 0; i < a->disk_count; i++) {
        const pl_disk_row *r = &rows[i];
        char sz[32];
        size_name(r->state, sz, sizeof sz);
        printf("  %s: %s on %s, %d disk slots, buffers host %d (staging %d) disk %d; forward %.3f "
               "s, reverse %.3f s; loop %s%s\n",
               sz, r->info.strategy, ebb_tier_name(r->info.fast_tier), r->info.slots[EBB_TIER_DISK],
               r->info.buffers[EBB_TIER_HOST], r->info.staging, r->info.buffers[EBB_TIER_DISK],
               r->forward_s,
               r->reverse_s, r->loop.direct ? "O_DIRECT" : "buffered",
               r->loop.registered ? ", registered buffers" : "");
        if (r->info.warnings[0])
            printf("    warnings: %s\n", r->info.warnings);
    }
}

void pl_print_reverse(const pl_args *a, const pl_rev *v, int json)
{
    double lw = gbps(v->loop.bytes, v->loop.write_s), lr = gbps(v->loop.bytes, v->loop.read_s);
    double need = (double)v->state / a->step_s * 1.1 / 1e9;
    int stall_target = lr > need;
    if (json) {
        printf(", \"reverse\": {\"state\": %zu, \"n\": %lld, \"step_s\": %.6f, "
               "\"host_states\": %d, "
               "\"depth\": %d, \"loop_write_GBps\": %.4f, \"loop_read_GBps\": %.4f, "
               "\"steps_GBps_x1.1\": %.4f, \"target\": \"%s\", \"strategies\": [",
               v->state, (long long)v->n, a->step_s, a->rev_host_states, v->depth, lw, lr, need,
               stall_target ? "stall/reverse <= 0.05" : "read ratio >= 0.90");
        for (int i = 0; i < 2; i++) {
            const pl_rev_row *r = &v->rows[i];
            const ebb_run_stats *s = &r->st;
            double rd = gbps(s->bytes_read[EBB_TIER_DISK], r->reverse_s);
            double stall = s->stall_total_s - r->st_fwd.stall_total_s;
            printf("%s{\"strategy\": \"%s\", \"fast_tier\": \"%s\", \"io_ratio\": %.4f, "
                   "\"forward_s\": %.4f, \"reverse_s\": %.4f, \"stall_forward_s\": %.4f, "
                   "\"stall_reverse_s\": %.4f, \"stall_ratio\": %.4f, \"bytes_read\": %llu, "
                   "\"read_GBps\": %.4f, \"read_ratio\": %.4f, \"recomputed_steps\": %lld, "
                   "\"prefetches\": %lld, \"cache_hits\": %lld, \"host_slots\": %d, "
                   "\"disk_slots\": %d, \"exact\": %s}",
                   i ? ", " : "", r->info.strategy, ebb_tier_name(r->info.fast_tier), r->io_ratio,
                   r->forward_s, r->reverse_s, r->st_fwd.stall_total_s, stall,
                   ratio(stall, r->reverse_s),
                   (unsigned long long)s->bytes_read[EBB_TIER_DISK], rd, ratio(rd, lr),
                   (long long)s->recomputed_steps, (long long)s->prefetches,
                   (long long)s->cache_hits, r->info.slots[EBB_TIER_HOST],
                   r->info.slots[EBB_TIER_DISK], yes(r->exact));
        }
        printf("]}");
        return;
    }
    char sz[32];
    size_name(v->state, sz, sizeof sz);
    printf("\n2. reverse sweep with cheap steps: %s states, n %lld, steps %.3g ms, host budget %d "
           "states, depth %d\n",
           sz, (long long)v->n, 1e3 * a->step_s, a->rev_host_states, v->depth);
    printf("  plain loop, block %s: write %.3f GB/s, read %.3f GB/s; the steps consume %.3f GB/s x "
           "1.1 = %.3f GB/s\n",
           sz, lw, lr, need / 1.1, need);
    printf("  the disk is %s than the steps: target %s\n", stall_target ? "faster" : "slower",
           stall_target ? "stall / reverse sweep <= 0.05" : "read GB/s / loop's >= 0.90");
    printf("  %-12s %5s | %8s %8s %8s %7s | %8s %6s | %6s %6s %6s %8s %5s\n", "strategy", "tier",
           "forward", "reverse", "reverse", "stall/", "read", "/loop", "recomp", "prefet", "cache",
           "forward", "exact");
    printf("  %-12s %5s | %8s %8s %8s %7s | %8s %6s | %6s %6s %6s %8s %5s\n", "", "", "s", "s",
           "stall s", "reverse", "GB/s", "", "uted", "ches", "hits", "stall s", "");
    for (int i = 0; i < 2; i++) {
        const pl_rev_row *r = &v->rows[i];
        const ebb_run_stats *s = &r->st;
        double rd = gbps(s->bytes_read[EBB_TIER_DISK], r->reverse_s);
        double stall = s->stall_total_s - r->st_fwd.stall_total_s;
        printf("  %-12s %5s | %8.3f %8.3f %8.3f %7.4f | %8.3f %6.3f | %6lld %6lld %6lld %8.3f "
               "%5s\n",
               r->info.strategy, ebb_tier_name(r->info.fast_tier), r->forward_s, r->reverse_s,
               stall, ratio(stall, r->reverse_s), rd, ratio(rd, lr),
               (long long)s->recomputed_steps, (long long)s->prefetches, (long long)s->cache_hits,
               r->st_fwd.stall_total_s, r->exact ? "yes" : "NO");
    }
    for (int i = 0; i < 2; i++) {
        const pl_rev_row *r = &v->rows[i];
        printf("  %s: slots host %d disk %d, buffers host %d (staging %d) disk %d, bytes read "
               "%llu, reverse stall on disk %.3f s",
               r->info.strategy, r->info.slots[EBB_TIER_HOST], r->info.slots[EBB_TIER_DISK],
               r->info.buffers[EBB_TIER_HOST], r->info.staging, r->info.buffers[EBB_TIER_DISK],
               (unsigned long long)r->st.bytes_read[EBB_TIER_DISK],
               r->st.stall_s[EBB_TIER_DISK] - r->st_fwd.stall_s[EBB_TIER_DISK]);
        if (r->io_ratio > 0)
            printf(", io ratio R %.3f (%s)", r->io_ratio,
                   a->io_ratio > 0 ? "--io-ratio" : "from the loop's bandwidths");
        printf("\n");
    }
}

void pl_print_actions(const pl_act_row *rows, int count, int json)
{
    double lo = 0, hi = 0, olo = 0, ohi = 0;
    for (int i = 0; i < count; i++) {
        const pl_act_row *r = &rows[i];
        double ns = 1e9 * r->median_s / (double)r->actions;
        double nso = 1e9 * r->median_s / (double)r->ops;
        lo = i == 0 || ns < lo ? ns : lo;
        hi = i == 0 || ns > hi ? ns : hi;
        olo = i == 0 || nso < olo ? nso : olo;
        ohi = i == 0 || nso > ohi ? nso : ohi;
    }
    if (json) {
        printf(", \"actions\": {\"state\": 8, \"max_min_ratio\": %.4f, "
               "\"max_min_ratio_ops\": %.4f, "
               "\"target_ops\": 1.3, \"runs\": [",
               ratio(hi, lo), ratio(ohi, olo));
        for (int i = 0; i < count; i++) {
            const pl_act_row *r = &rows[i];
            printf("%s{\"strategy\": \"%s\", \"n\": %lld, \"slots\": %d, \"repeats\": %d, "
                   "\"sweeps_s\": %.4f, \"median_s\": %.6f, \"actions\": %lld, \"ops\": %lld, \"forward_steps\": %lld, "
                   "\"ns_per_action\": %.2f, \"ns_per_op\": %.2f, \"counts_match\": %s, "
                   "\"exact\": %s}",
                   i ? ", " : "", ebb_strategy_name(r->strategy), (long long)r->n, r->slots,
                   r->repeats, r->sweeps_s, r->median_s, (long long)r->actions, (long long)r->ops,
                   (long long)r->st.forward_steps,
                   1e9 * r->median_s / (double)r->actions,
                   1e9 * r->median_s / (double)r->ops, yes(r->counts_match),
                   yes(r->exact));
        }
        printf("]}");
        return;
    }
    printf("\n3. cost per action: 8-byte states, tagging callbacks, host tier only\n");
    printf("  %-10s %8s %7s %5s %9s | %11s %9s | %11s %7s | %6s %5s\n", "strategy", "n", "slots",
           "reps", "sweeps s", "actions/run", "ns/action", "ops/run", "ns/op", "counts", "exact");
    for (int i = 0; i < count; i++) {
        const pl_act_row *r = &rows[i];
        printf("  %-10s %8lld %7d %5d %9.3f | %11lld %9.2f | %11lld %7.2f | %6s %5s\n",
               ebb_strategy_name(r->strategy), (long long)r->n, r->slots, r->repeats, r->sweeps_s,
               (long long)r->actions,
               1e9 * r->median_s / (double)r->actions, (long long)r->ops,
               1e9 * r->median_s / (double)r->ops,
               r->counts_match ? "match" : "DIFFER", r->exact ? "yes" : "NO");
    }
    printf("  max / min ns per op (forward + reverse steps + stores + restores): %.3f "
           "(target <= 1.3); per schedule action: %.3f (an ADVANCE of k steps is one action)\n",
           ratio(ohi, olo), ratio(hi, lo));
}
