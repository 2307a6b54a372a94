/*
 * Every strategy under ebb_mpi_run_create, each rank with its own x_0, its
 * own disk directory and budgets, and rank 0's disk slowed
 * (tier.disk.max_bandwidth): the action streams must be identical on every
 * rank (the hashes gathered here, and ebb_mpi_stats_reduce's verdict), and
 * each rank's adjoint must equal, bitwise, its own single-process store-all
 * adjoint. With halo exchanges in the forward steps (the ranks then run in
 * step), a rank must never wait in ebb for another's next step: no hang
 * within run_mpirun.sh's time limit. Online and async measuring their
 * costs, each rank its own dear steps, plan one reverse sweep on every rank
 * (each step's largest time). Run with 2 and 4 ranks. Argument: a scratch directory.
 */
#include "mpi_workload.h"

enum { SIZE = 65536 + 24, STEPS = 120 };

typedef struct tcase {
    const char *name;
    int strategy;  /* ebb_config_strategy */
    int unknown;   /* n unknown */
    int planned;   /* auto with step times */
    int halo;      /* the forward steps exchange halos: the ranks run in step */
    int measure;   /* measure_costs, each rank its own dear steps */
} tcase;

static const tcase cases[] = {
    {"store-all", EBB_CONFIG_STRATEGY_STORE_ALL, 0, 0, 0, 0},
    {"periodic", EBB_CONFIG_STRATEGY_PERIODIC, 0, 0, 0, 0},
    {"revolve", EBB_CONFIG_STRATEGY_REVOLVE, 0, 0, 0, 0},
    {"online", EBB_CONFIG_STRATEGY_ONLINE, 1, 0, 0, 0},
    {"multistage", EBB_CONFIG_STRATEGY_MULTISTAGE, 0, 0, 0, 0},
    {"disk-revolve", EBB_CONFIG_STRATEGY_DISK_REVOLVE, 0, 0, 0, 0},
    {"async", EBB_CONFIG_STRATEGY_ASYNC, 0, 0, 0, 0},
    {"async n unknown", EBB_CONFIG_STRATEGY_ASYNC, 1, 0, 0, 0},
    {"auto planned", EBB_CONFIG_STRATEGY_AUTO, 0, 1, 0, 0},
    {"async halo", EBB_CONFIG_STRATEGY_ASYNC, 0, 0, 1, 0},
    {"multistage halo", EBB_CONFIG_STRATEGY_MULTISTAGE, 0, 0, 1, 0},
    /* each rank its own step times, only rank 0 a disk bandwidth: its own
     * costs would give each rank its own schedule; they take the largest */
    {"h-revolve", EBB_CONFIG_STRATEGY_H_REVOLVE, 0, 1, 0, 0},
    {"online measured", EBB_CONFIG_STRATEGY_ONLINE, 1, 0, 0, 1},
    {"online measured n", EBB_CONFIG_STRATEGY_ONLINE, 0, 0, 0, 1},
    {"async measured", EBB_CONFIG_STRATEGY_ASYNC, 1, 0, 0, 1},
    {"async measured n", EBB_CONFIG_STRATEGY_ASYNC, 0, 0, 0, 1},
};

/* This rank's configuration: host and disk tiers, its own directory. */
static int config(ebb_config *cfg, const char *dir, int rank, int64_t host_states)
{
    if (ebb_config_init_default(cfg) != EBB_OK)
        return -1;
    const char *paths[] = {dir};
    if (ebb_config_set_disk_paths(cfg, paths, 1) != EBB_OK)
        return -1;
    cfg->gpu.enabled = 0;
    cfg->host.enabled = 1;
    cfg->host.budget = (uint64_t)host_states * SIZE;
    cfg->host.pin = 0;
    cfg->host.prefault = 0;
    cfg->disk.enabled = 1;
    cfg->disk.budget = (uint64_t)60 * SIZE;
    cfg->disk.direct = 0;
    cfg->disk.max_bandwidth = rank == 0 ? 20000000 : 0; /* rank 0's disk is slow */
    return 0;
}

/* The single-process store-all adjoint of this rank's x_0. */
static uint64_t oracle(const char *dir, int rank, uint64_t seed)
{
    ebb_config cfg;
    if (config(&cfg, dir, rank, STEPS + 16) != 0) {
        mw_fail("oracle configuration: %s", ebb_last_error());
        return 0;
    }
    cfg.disk.enabled = 0;
    mw w;
    mw_init(&w, SIZE, STEPS);
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = SIZE;
    o.forward = mw_forward;
    o.reverse = mw_reverse;
    o.user = &w;
    o.steps = STEPS;
    o.config = &cfg;
    o.strategy = EBB_CONFIG_STRATEGY_STORE_ALL;
    ebb_run *run = NULL;
    ebb_status st = ebb_run_create(&o, &run);
    if (st == EBB_OK)
        st = mw_sweeps(run, &w, seed);
    if (st != EBB_OK)
        mw_fail("oracle store-all run: %s", ebb_last_error());
    ebb_run_destroy(run);
    ebb_config_dispose(&cfg);
    return w.adjoint;
}

/* the first case's hash: the others' streams differ from it */
static uint64_t first_hash;

static void one_case(const tcase *c, const char *dir, int rank, int ranks, uint64_t expect)
{
    ebb_config cfg;
    /* rank 1 has room for more fast slots: the ranks use the least */
    int64_t host = c->strategy == EBB_CONFIG_STRATEGY_STORE_ALL ? STEPS + 16
                   : c->strategy == EBB_CONFIG_STRATEGY_PERIODIC ? 24
                                                                 : 6;
    host += rank == 1 ? 3 : 0;
    if (config(&cfg, dir, rank, host) != 0) {
        mw_fail("%s: configuration: %s", c->name, ebb_last_error());
        return;
    }
    mw w;
    mw_init(&w, SIZE, STEPS);
    w.unknown = c->unknown;
    w.spin_s = 2e-4;
    w.halo = c->halo;
    w.uneven = c->measure;
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = SIZE;
    o.forward = mw_forward;
    o.reverse = mw_reverse;
    o.user = &w;
    o.steps = c->unknown ? 0 : STEPS;
    o.config = &cfg;
    o.strategy = c->strategy;
    o.measure_costs = c->measure;
    if (c->planned) {
        o.forward_seconds = w.spin_s * (1 + 0.1 * rank); /* each rank its own estimate */
        o.reverse_seconds = 1e-4;
    }
    ebb_run *run = NULL;
    ebb_status st = ebb_mpi_run_create(&o, MPI_COMM_WORLD, &run);
    if (st == EBB_OK)
        st = mw_sweeps(run, &w, (uint64_t)rank);
    ebb_mpi_stats s;
    memset(&s, 0, sizeof s);
    ebb_run_info info;
    memset(&info, 0, sizeof info);
    ebb_run_stats rs;
    memset(&rs, 0, sizeof rs);
    if (st == EBB_OK && (st = ebb_mpi_stats_reduce(run, &s)) == EBB_OK)
        st = ebb_run_info_get(run, &info) == EBB_OK ? ebb_run_stats_get(run, &rs) : EBB_ERR_STATE;
    if (st != EBB_OK)
        mw_fail("%s: %s", c->name, ebb_last_error());
    /* the hashes, gathered here too: not only the library's own verdict */
    uint64_t *all = calloc((size_t)ranks, sizeof *all);
    MPI_Allgather(&s.actions_hash, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, MPI_COMM_WORLD);
    for (int r = 0; r < ranks; r++)
        if (all[r] != all[0])
            mw_fail("%s: rank %d's action hash %016llx differs from rank 0's %016llx", c->name,
                    r, (unsigned long long)all[r], (unsigned long long)all[0]);
    if (st == EBB_OK && (s.actions_hash == 0 || (first_hash && s.actions_hash == first_hash)))
        mw_fail("%s: action hash %016llx: zero, or the same as store-all's", c->name,
                (unsigned long long)s.actions_hash);
    if (!first_hash)
        first_hash = s.actions_hash;
    if (st == EBB_OK && !s.actions_agree)
        mw_fail("%s: ebb_mpi_stats_reduce says the action streams differ", c->name);
    if (st == EBB_OK && s.ranks != ranks)
        mw_fail("%s: ebb_mpi_stats.ranks %d, expected %d", c->name, s.ranks, ranks);
    if (st == EBB_OK && w.adjoint != expect)
        mw_fail("%s: adjoint %016llx, its single-process store-all gives %016llx", c->name,
                (unsigned long long)w.adjoint, (unsigned long long)expect);
    if (rank == 0 && st == EBB_OK)
        printf("%-16s ran %-12s actions %016llx  disk stores %3lld  decisions agreed %3lld  "
               "recomputed %4lld  most stall %.4f s (rank %d)\n",
               c->name, info.strategy_name, (unsigned long long)all[0],
               (long long)rs.stores[EBB_TIER_DISK], (long long)s.agreements,
               (long long)rs.recomputed_steps, s.stall_max_s, s.stall_max_rank);
    free(all);
    mw_end_case(run, &cfg, c->name, dir);
}

int main(int argc, char **argv)
{
    char dir[4096];
    int ranks = mw_start(&argc, &argv, dir, sizeof dir);
    uint64_t expect = oracle(dir, mw_rank, (uint64_t)mw_rank);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        one_case(&cases[i], dir, mw_rank, ranks, expect);
    /* the ranks' x_0 differ: their adjoints must too (the seeds reach the runs) */
    uint64_t first = expect;
    MPI_Bcast(&first, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (mw_rank != 0 && first == expect)
        mw_fail("rank %d's adjoint equals rank 0's: the seeds did not differ", mw_rank);
    rmdir(dir);
    return mw_finish();
}
