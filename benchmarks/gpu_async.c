/*
 * gpu_async: the GPU end-to-end case of the asynchronous strategy
 * on a real GPU. A state in device memory; GPU slots for a few percent of
 * the states, pinned host slots and the disk below; forward and reverse
 * steps made of device copies (no kernels). Prints the overhead against the
 * plain loop (n forward + n reverse steps, nothing kept) and whether the
 * gradient equals store-all's (every state on the GPU).
 *
 *   gpu_async [--steps N] [--state-size BYTES] [--forward-copies K]
 *             [--reverse-copies K] [--gpu-fraction F] [--host-slots H]
 *             [--disk DIR] [--strategy S] [--json]
 *
 * Defaults: 1000 steps of 16 MiB, 20 and 40 device copies per forward and
 * reverse step, GPU slots 5 % of n, 64 host slots, disk in $TMPDIR (or /tmp).
 * Exit 0 when the gradient is exact and the overhead <= 1.10.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu_async_run.h"

int main(int argc, char **argv)
{
    gpu_async_args a = {.steps = 1000, .state_size = 16u << 20, .copies_forward = 20,
                        .copies_reverse = 40, .gpu_fraction = 0.05, .host_slots = 64,
                        .strategy = "async"};
    const char *tmp = getenv("TMPDIR");
    a.disk_dir = tmp && *tmp ? tmp : "/tmp";
    int json = 0;
    static const struct option opts[] = {
        {"steps", required_argument, 0, 'n'},          {"state-size", required_argument, 0, 's'},
        {"forward-copies", required_argument, 0, 'f'}, {"reverse-copies", required_argument, 0, 'r'},
        {"gpu-fraction", required_argument, 0, 'g'},   {"host-slots", required_argument, 0, 'h'},
        {"disk", required_argument, 0, 'd'},           {"strategy", required_argument, 0, 'S'},
        {"json", no_argument, 0, 'j'},                 {0, 0, 0, 0}};
    int o;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (o) {
        case 'n': a.steps = atoll(optarg); break;
        case 's': a.state_size = (size_t)strtoull(optarg, NULL, 0); break;
        case 'f': a.copies_forward = atoi(optarg); break;
        case 'r': a.copies_reverse = atoi(optarg); break;
        case 'g': a.gpu_fraction = atof(optarg); break;
        case 'h': a.host_slots = atoi(optarg); break;
        case 'd': a.disk_dir = optarg; break;
        case 'S': a.strategy = optarg; break;
        case 'j': json = 1; break;
        default:
            fprintf(stderr, "usage: gpu_async [--steps N] [--state-size BYTES] [--forward-copies K] "
                            "[--reverse-copies K] [--gpu-fraction F] [--host-slots H] [--disk DIR] "
                            "[--strategy S] [--json]\n");
            return 2;
        }
    }
    gpu_async_result r;
    if (gpu_async_run(&a, &r) != 0) {
        fprintf(stderr, "gpu_async: %s\n", r.error);
        return 1;
    }
    double overhead = r.ideal_s > 0 ? r.wall_s / r.ideal_s : 0;
    double device_overhead = r.ideal_s > 0 ? r.device_wall_s / r.ideal_s : 0;
    int exact = r.gradient == r.reference;
    if (json)
        printf("{\"steps\": %lld, \"state_size\": %zu, \"strategy\": \"%s\", \"gpu_slots\": %d, "
               "\"host_slots\": %d, \"ideal_s\": %.6f, \"wall_s\": %.6f, \"forward_s\": %.6f, "
               "\"reverse_s\": %.6f, \"stall_s\": %.6f, \"forward_steps\": %lld, "
               "\"bytes_host\": %llu, \"bytes_disk\": %llu, \"overhead\": %.4f, "
               "\"device_wall_s\": %.6f, \"device_overhead\": %.4f, \"recomputed\": %lld, "
               "\"host_stores\": %lld, \"forward_step_s\": %.9f, \"reverse_step_s\": %.9f, "
               "\"d2h_bps\": %.4g, \"h2d_bps\": %.4g, \"predicted_s\": %.6f, "
               "\"predicted_recomputed\": %lld, \"predicted_host_stores\": %lld, "
               "\"gradient_exact\": %s}\n",
               (long long)a.steps, a.state_size, a.strategy, r.gpu_slots, r.host_slots, r.ideal_s,
               r.wall_s, r.forward_s, r.reverse_s, r.stall_s, (long long)r.forward_steps,
               (unsigned long long)r.bytes_host, (unsigned long long)r.bytes_disk, overhead,
               r.device_wall_s, device_overhead, (long long)r.recomputed,
               (long long)r.host_stores, r.forward_step_s, r.reverse_step_s, r.d2h_bps, r.h2d_bps,
               r.predicted_s, (long long)r.predicted_recomputed,
               (long long)r.predicted_host_stores, exact ? "true" : "false");
    else
        printf("gpu_async: %lld steps of %zu bytes, %s, %d gpu slots, %d host slots: wall %.3f s, "
               "ideal %.3f s, overhead %.3f, stall %.3f s, %lld forward steps, gradient %s\n"
               "  device: wall %.3f s (overhead %.3f), %lld host stores, %lld recomputed; the "
               "planner: %.3f s, %lld host stores, %lld recomputed\n",
               (long long)a.steps, a.state_size, a.strategy, r.gpu_slots, r.host_slots, r.wall_s,
               r.ideal_s, overhead, r.stall_s, (long long)r.forward_steps,
               exact ? "exact" : "DIFFERS", r.device_wall_s, device_overhead,
               (long long)r.host_stores, (long long)r.recomputed, r.predicted_s,
               (long long)r.predicted_host_stores, (long long)r.predicted_recomputed);
    return exact && overhead <= 1.10 ? 0 : 1;
}
