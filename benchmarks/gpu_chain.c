/*
 * gpu_chain: a state's latency from a gpu slot to a disk slot and back,
 * through a host slot in two steps against one ebb_move_via (pipelined by
 * the disk's blocks), and each channel alone, on a real GPU:
 *
 *   gpu_chain [--state-size BYTES] [--block BYTES] [--repeat N] [--disk DIR]
 *             [--device D] [--json]
 *
 * Defaults: 256 MiB states, the disk's default block (8 MiB), 9 rounds,
 * disk in $TMPDIR (or /tmp), device 0. Prints the medians; the chained
 * move should take about the slower channel's time, the two-step one the
 * sum. Exit 0 when every restored state equals the stored one.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu_chain_run.h"

int main(int argc, char **argv)
{
    gpu_chain_args a = {.state_size = 256u << 20, .block = 0, .repeat = 9, .device = 0};
    const char *tmp = getenv("TMPDIR");
    a.disk_dir = tmp && *tmp ? tmp : "/tmp";
    int json = 0;
    static const struct option opts[] = {
        {"state-size", required_argument, 0, 's'}, {"block", required_argument, 0, 'b'},
        {"repeat", required_argument, 0, 'r'},     {"disk", required_argument, 0, 'd'},
        {"device", required_argument, 0, 'D'},     {"json", no_argument, 0, 'j'},
        {0, 0, 0, 0}};
    int o;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (o) {
        case 's': a.state_size = (size_t)strtoull(optarg, NULL, 0); break;
        case 'b': a.block = (size_t)strtoull(optarg, NULL, 0); break;
        case 'r': a.repeat = atoi(optarg); break;
        case 'd': a.disk_dir = optarg; break;
        case 'D': a.device = atoi(optarg); break;
        case 'j': json = 1; break;
        default:
            fprintf(stderr, "usage: gpu_chain [--state-size BYTES] [--block BYTES] [--repeat N] "
                            "[--disk DIR] [--device D] [--json]\n");
            return 2;
        }
    }
    gpu_chain_result r;
    if (gpu_chain_run(&a, &r) != 0) {
        fprintf(stderr, "gpu_chain: %s\n", r.error);
        return 1;
    }
    double ss = r.chained_store_s / r.two_step_store_s, rs = r.chained_restore_s / r.two_step_restore_s;
    if (json) {
        printf("{\"state_size\": %zu, \"repeat\": %d, \"d2h_s\": %.6f, \"disk_write_s\": %.6f, "
               "\"two_step_store_s\": %.6f, \"chained_store_s\": %.6f, \"store_ratio\": %.4f, "
               "\"disk_read_s\": %.6f, \"h2d_s\": %.6f, \"two_step_restore_s\": %.6f, "
               "\"chained_restore_s\": %.6f, \"restore_ratio\": %.4f, \"exact\": %s}\n",
               a.state_size, a.repeat, r.d2h_s, r.disk_write_s, r.two_step_store_s,
               r.chained_store_s, ss, r.disk_read_s, r.h2d_s, r.two_step_restore_s,
               r.chained_restore_s, rs, r.exact ? "true" : "false");
    } else {
        printf("state %zu bytes, medians of %d (ms):\n", a.state_size, a.repeat);
        printf("  store:   d2h %.2f, disk write %.2f; two steps %.2f, chained %.2f (%.2f x)\n",
               1e3 * r.d2h_s, 1e3 * r.disk_write_s, 1e3 * r.two_step_store_s,
               1e3 * r.chained_store_s, ss);
        printf("  restore: disk read %.2f, h2d %.2f; two steps %.2f, chained %.2f (%.2f x)\n",
               1e3 * r.disk_read_s, 1e3 * r.h2d_s, 1e3 * r.two_step_restore_s,
               1e3 * r.chained_restore_s, rs);
        printf("  restored states exact: %s\n", r.exact ? "yes" : "NO");
    }
    return r.exact ? 0 : 1;
}
