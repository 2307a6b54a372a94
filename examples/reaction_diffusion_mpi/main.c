/*
 * example_reaction_diffusion_mpi: the reaction-diffusion adjoint of
 * examples/reaction_diffusion, domain decomposed over MPI ranks with a halo
 * exchange in every forward and every reverse step, ebb keeping each rank's
 * forward states under one schedule that all ranks share.
 *
 *     mpirun -np 4 ./example_reaction_diffusion_mpi --strategy async
 *
 * Rank 0 prints J, dJ/dr and a checksum of dJ/du0 (gathered in grid order);
 * they do not depend on the number of ranks (examples/README.md says to
 * which digit, and why). This file is the command line and the report;
 * subdomain.c is the part to copy.
 */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebb/ebb.h"
#include "subdomain.h"

static const char usage[] =
    "usage: mpirun -np P example_reaction_diffusion_mpi [--points N] [--steps n]\n"
    "          [--strategy S] [--config FILE] [--host-states K] [--disk-states D]\n"
    "          [--dump FILE]\n"
    "\n"
    "The reaction-diffusion adjoint split over the MPI ranks (each owns N/P points\n"
    "and exchanges one ghost value with each neighbour in every step).\n"
    "  --points N       grid points over all ranks (default 1048576)\n"
    "  --steps n        time steps (default 200)\n"
    "  --strategy S     auto, store-all, periodic, revolve, online, multistage\n"
    "                   (default), disk-revolve, async\n"
    "  --config FILE    this rank's ebb configuration (with mpirun's MPMD form each\n"
    "                   rank may have its own); keys it leaves unset keep the\n"
    "                   example's defaults below\n"
    "  --host-states K  tier.host.budget in states of this rank's block (default 4)\n"
    "  --disk-states D  tier.disk.budget in states of this rank's block (default 32)\n"
    "  --dump FILE      rank 0 writes J, dJ/dr and dJ/du0 there (binary, see README)\n";

typedef struct cli {
    int64_t points, steps, host_states, disk_states;
    const char *strategy, *config, *dump;
} cli;

static int parse_count(const char *opt, const char *text, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end || v < lo || v > hi) {
        fprintf(stderr, "ebb: %s: expected an integer from %lld to %lld, got '%s'\n", opt,
                (long long)lo, (long long)hi, text);
        return -1;
    }
    *out = v;
    return 0;
}

/* 0 to run, 1 to exit with 0 (--help), -1 to exit with 2. Every rank parses
 * the same way; only rank 0 (`talk`) prints. */
static int parse_cli(int argc, char **argv, int talk, cli *c)
{
    static const struct option longopts[] = {
        {"points", required_argument, 0, 'N'}, {"steps", required_argument, 0, 'n'},
        {"strategy", required_argument, 0, 's'}, {"config", required_argument, 0, 'c'},
        {"host-states", required_argument, 0, 'H'}, {"disk-states", required_argument, 0, 'D'},
        {"dump", required_argument, 0, 'd'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    *c = (cli){.points = 1048576, .steps = 200, .host_states = 4, .disk_states = 32};
    int ch, bad = 0;
    opterr = 0;
    while (!bad && (ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (ch) {
        case 'N': bad = parse_count("--points", optarg, 3, INT64_C(1) << 34, &c->points); break;
        case 'n': bad = parse_count("--steps", optarg, 1, INT64_C(1) << 40, &c->steps); break;
        case 'H': bad = parse_count("--host-states", optarg, 1, 1 << 20, &c->host_states); break;
        case 'D': bad = parse_count("--disk-states", optarg, 1, 1 << 20, &c->disk_states); break;
        case 's': c->strategy = optarg; break;
        case 'c': c->config = optarg; break;
        case 'd': c->dump = optarg; break;
        case 'h':
            if (talk)
                fputs(usage, stdout);
            return 1;
        default:
            if (talk)
                fprintf(stderr, "ebb: unknown or incomplete option '%s'\n\n%s", argv[optind - 1],
                        usage);
            return -1;
        }
    }
    if (!bad && optind < argc) {
        if (talk)
            fprintf(stderr, "ebb: unexpected argument '%s'\n\n%s", argv[optind], usage);
        return -1;
    }
    return bad ? -1 : 0;
}

/* The embedded default, then this rank's file, then the example's budgets
 * (in states of this rank's block) for what the file left unset, then
 * --strategy. 0, or -1 with the reason in ebb_last_error(). */
static int setup_config(const cli *c, size_t state, ebb_config *cfg)
{
    if (ebb_config_init_default(cfg) != EBB_OK)
        return -1;
    if (c->config && ebb_config_load_file(c->config, cfg) != EBB_OK)
        return -1;
    if (!cfg->line[EBB_KEY_HOST_BUDGET])
        cfg->host.budget = (uint64_t)c->host_states * ebb_slot_stride(EBB_TIER_HOST, state, 0);
    if (!cfg->line[EBB_KEY_DISK_BUDGET])
        cfg->disk.budget = (uint64_t)c->disk_states * ebb_slot_stride(EBB_TIER_DISK, state, 0);
    if (!cfg->line[EBB_KEY_RUN_STRATEGY])
        cfg->strategy = cfg->disk.enabled ? EBB_CONFIG_STRATEGY_MULTISTAGE
                                          : EBB_CONFIG_STRATEGY_REVOLVE;
    if (c->strategy) {
        ebb_config_strategy s;
        if (ebb_config_strategy_from_name(c->strategy, &s) != EBB_OK)
            return -1;
        cfg->strategy = s;
    }
    return ebb_config_check(cfg, state) == EBB_OK ? 0 : -1;
}

/* FNV-1a over the bytes: equal checksums mean (but for a 2^-64 chance)
 * bitwise equal gradients. */
static uint64_t checksum(const double *x, int64_t count)
{
    const unsigned char *b = (const unsigned char *)x;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < (size_t)count * sizeof *x; i++)
        h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* The dump: "ebbrdmpi", N, n, P (int64), J, dJ/dr, dJ/du0[0 .. N-1] (double),
 * in this machine's byte order. 0, or -1 with a message. */
static int write_dump(const char *path, const rd_params *p, int ranks, double j, double gr,
                      const double *grad)
{
    FILE *f = fopen(path, "wb");
    int64_t head[3] = {p->points, p->steps, ranks};
    double sums[2] = {j, gr};
    int ok = f && fwrite("ebbrdmpi", 1, 8, f) == 8 && fwrite(head, sizeof head, 1, f) == 1 &&
             fwrite(sums, sizeof sums, 1, f) == 1 &&
             fwrite(grad, sizeof *grad, (size_t)p->points, f) == (size_t)p->points;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        perror(path);
    return ok ? 0 : -1;
}

/* Gathers dJ/du0 to rank 0 in grid order, reduces J and dJ/dr, and prints
 * them. 0, or -1. Collective. */
static int report(const rd_sub *d, const cli *c, const ebb_mpi_stats *ms, const ebb_run_stats *st)
{
    double sums[2] = {d->objective, d->grad_r}, total[2] = {0, 0};
    MPI_Reduce(sums, total, 2, MPI_DOUBLE, MPI_SUM, 0, d->comm);
    double *grad = NULL, *stalls = NULL, stall = st->stall_total_s;
    int *counts = NULL, *displs = NULL, ok = 1;
    if (d->rank == 0) {
        grad = malloc((size_t)d->p.points * sizeof *grad);
        stalls = malloc((size_t)d->ranks * sizeof *stalls);
        counts = malloc((size_t)d->ranks * sizeof *counts);
        displs = malloc((size_t)d->ranks * sizeof *displs);
        ok = grad && stalls && counts && displs;
        for (int r = 0; ok && r < d->ranks; r++) {
            int64_t lo = r * d->p.points / d->ranks, hi = (r + 1) * d->p.points / d->ranks;
            counts[r] = (int)(hi - lo);
            displs[r] = (int)lo;
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, d->comm);
    if (ok) {
        MPI_Gather(&stall, 1, MPI_DOUBLE, stalls, 1, MPI_DOUBLE, 0, d->comm);
        MPI_Gatherv(d->lambda, (int)d->m, MPI_DOUBLE, grad, counts, displs, MPI_DOUBLE, 0, d->comm);
    }
    if (d->rank == 0 && ok) {
        printf("run: %d ranks, strategy %s; actions agree on every rank: %s (hash %016llx)\n",
               ms->ranks, d->strategy,
               ms->actions_agree ? "yes" : "NO", (unsigned long long)ms->actions_hash);
        printf("  forward steps %lld = %lld + %lld recomputed, reverse steps %lld (rank 0)\n",
               (long long)st->forward_steps, (long long)st->steps,
               (long long)st->recomputed_steps, (long long)st->reverse_steps);
        printf("  halo exchanges %lld per rank; agreements (collectives for decisions) %lld\n",
               (long long)d->halos, (long long)ms->agreements);
        printf("  wall %.3f s (slowest rank); stall max %.3f s (rank %d); stall per rank:",
               ms->wall_max_s, ms->stall_max_s, ms->stall_max_rank);
        for (int r = 0; r < d->ranks; r++)
            printf(" %.3f", stalls[r]);
        printf("\n\nJ = %.17e\ndJ/dr = %.17e\n", total[0], total[1]);
        printf("dJ/du0 checksum = %016llx (FNV-1a over the %lld doubles in grid order)\n",
               (unsigned long long)checksum(grad, d->p.points), (long long)d->p.points);
        if (c->dump && write_dump(c->dump, &d->p, d->ranks, total[0], total[1], grad) != 0)
            ok = 0;
        ok &= ms->actions_agree;
    } else if (d->rank == 0) {
        fprintf(stderr, "ebb: out of memory gathering %lld points\n", (long long)d->p.points);
    }
    free(grad);
    free(counts);
    free(displs);
    free(stalls);
    return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    cli c;
    int parsed = parse_cli(argc, argv, rank == 0, &c);
    if (parsed) {
        MPI_Finalize();
        return parsed > 0 ? 0 : 2;
    }
    if (c.points / ranks > INT_MAX) { /* MPI_Gatherv counts are ints */
        if (rank == 0)
            fprintf(stderr, "ebb: --points %lld over %d ranks: at most %d points per rank\n",
                    (long long)c.points, ranks, INT_MAX);
        MPI_Finalize();
        return 2;
    }

    rd_params p;
    rd_params_default(&p, c.points, c.steps);
    rd_sub d;
    ebb_config cfg = {0};
    int ok = rd_sub_init(&d, &p, MPI_COMM_WORLD) == 0;
    if (ok && setup_config(&c, (size_t)d.m * sizeof(double), &cfg) != 0) {
        fprintf(stderr, "ebb: rank %d: %s\n", rank, ebb_last_error());
        ok = 0;
    }
    /* The run is collective: every rank must reach it, or none. */
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    int rc = 1;
    if (all_ok) {
        if (rank == 0)
            printf("Reaction-diffusion adjoint over %d MPI ranks, driven by ebb %s\n"
                   "  u_t = k u_xx - r u^3 on a periodic grid of %lld points, %lld steps "
                   "(examples/reaction_diffusion);\n"
                   "  blocks of %lld to %lld points per rank, one ghost value from each "
                   "neighbour in every forward and reverse step\n",
                   ranks, ebb_version(), (long long)p.points, (long long)p.steps,
                   (long long)(p.points / ranks), (long long)((p.points + ranks - 1) / ranks));
        ebb_run_options base;
        ebb_run_options_init(&base);
        base.config = &cfg;
        ebb_mpi_stats ms;
        ebb_run_stats st;
        ebb_status s = rd_sub_gradient(&d, &base, &ms, &st);
        if (s != EBB_OK) {
            /* The same status on every rank; the message names the failing one. */
            if (rank == 0)
                fprintf(stderr, "ebb: %s\n", ebb_last_error());
        } else if (report(&d, &c, &ms, &st) == 0) {
            rc = 0;
        }
    }
    rd_sub_free(&d);
    ebb_config_dispose(&cfg);
    MPI_Finalize();
    return rc;
}
