/*
 * gpu_measured: a GPU state's step times measured on the device
 * (ebb_run_options.measure_costs), on a real GPU:
 *
 *   gpu_measured [--steps N] [--state-size BYTES] [--dear-copies C]
 *                [--slots S] [--device D]
 *
 * Defaults: 240 steps of 16 MiB states, each forward step a device copy of
 * the state, one step in six 16 copies; reverse steps 2 copies; 3 GPU
 * slots; device 0. Prints ebb's measured forward times against the plain
 * loop's own events around the same work (ratios), the host's view of the
 * same callbacks, and the device time online recomputes measuring and not.
 * Exit 0 when both gradients equal store-all's.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu_measured_run.h"

int main(int argc, char **argv)
{
    gpu_measured_args a = {.steps = 240, .state_size = 16u << 20, .copies = 1,
                           .dear_every = 6, .dear_copies = 16, .reverse_copies = 2,
                           .slots = 3, .device = 0};
    static const struct option opts[] = {
        {"steps", required_argument, 0, 'n'},       {"state-size", required_argument, 0, 's'},
        {"dear-copies", required_argument, 0, 'c'}, {"slots", required_argument, 0, 'S'},
        {"device", required_argument, 0, 'D'},      {0, 0, 0, 0}};
    int o;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (o) {
        case 'n': a.steps = strtoll(optarg, NULL, 0); break;
        case 's': a.state_size = (size_t)strtoull(optarg, NULL, 0); break;
        case 'c': a.dear_copies = atoi(optarg); break;
        case 'S': a.slots = atoi(optarg); break;
        case 'D': a.device = atoi(optarg); break;
        default:
            fprintf(stderr, "usage: gpu_measured [--steps N] [--state-size BYTES] "
                            "[--dear-copies C] [--slots S] [--device D]\n");
            return 2;
        }
    }
    gpu_measured_result r;
    if (gpu_measured_run(&a, &r) != 0) {
        fprintf(stderr, "gpu_measured: %s\n", r.error);
        return 1;
    }
    int exact = r.gradient_measured == r.reference && r.gradient_plain == r.reference;
    printf("%lld steps of %zu bytes, one in %d %d copies, %d GPU slots:\n", (long long)a.steps,
           a.state_size, a.dear_every, a.dear_copies, (int)a.slots);
    printf("  plain loop: forward step %.3f ms, dear step %.3f ms (medians, device events)\n",
           1e3 * r.plain_cheap_s, 1e3 * r.plain_dear_s);
    printf("  measured by ebb / plain loop: min %.3f, median %.3f, max %.3f\n", r.ratio_min,
           r.ratio_median, r.ratio_max);
    printf("  the host's clock over the same forward callbacks: %.3f ms in all\n",
           1e3 * r.host_forward_s);
    printf("  online recomputes %.3f s of device time measuring, %.3f s not\n",
           r.recomputed_measured_s, r.recomputed_plain_s);
    printf("  gradients bitwise store-all's: %s\n", exact ? "yes" : "NO");
    return exact ? 0 : 1;
}
