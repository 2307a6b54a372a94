/*
 * Failures and disagreements under ebb_mpi_run_create: every rank must
 * return an error naming the rank at fault (or two that disagree), none may
 * hang (run_mpirun.sh's time limit), and no file may stay in any rank's disk
 * directory. Cases: a rank's options refused before any agreement; a rank
 * whose disk cannot be created after the others agreed; a reverse callback
 * failing on the last rank; a forward callback failing on rank 0 during the
 * asynchronous strategy's decisions; n unknown with the forward sweeps
 * ending at different steps (online, and async, whose ranks are then at
 * different collectives); a rank calling ebb_run_finish_forward before its
 * n known steps ran; a rank alone measuring its costs; a rank alone giving
 * its states' sizes. Argument: a scratch directory.
 */
#include "mpi_workload.h"

enum { SIZE = 32768 + 8, STEPS = 80 };

typedef struct ecase {
    const char *name;
    int strategy;
    int unknown;          /* n unknown */
    int bad_rank;         /* the rank at fault */
    int bad_options;      /* its state_size is 0 */
    int bad_disk;         /* its disk directory does not exist */
    int64_t fail_forward, fail_reverse, end_at; /* on bad_rank; -1 none */
    ebb_status expect;
    const char *message;  /* in every rank's error, after "rank R failed: " or as is */
    int names_rank;       /* 1: the message starts "rank <bad_rank> failed: " */
    int64_t finish_at;    /* > 0: bad_rank calls ebb_run_finish_forward after this many
                             of the n known steps (a misuse every rank must hear of) */
    int measure;          /* bad_rank alone sets measure_costs */
    int sized;            /* bad_rank alone gives state_sizes */
} ecase;

static const ecase cases[] = {
    {"options refused", EBB_CONFIG_STRATEGY_REVOLVE, 0, 1, 1, 0, -1, -1, -1, EBB_ERR_INVALID_ARG,
     "state_size must be > 0", 1, 0, 0, 0},
    {"disk missing", EBB_CONFIG_STRATEGY_MULTISTAGE, 0, -1, 0, 1, -1, -1, -1, EBB_ERR_IO,
     "", 1, 0, 0, 0},
    {"reverse fails", EBB_CONFIG_STRATEGY_ASYNC, 0, -1, 0, 0, -1, 17, -1, EBB_ERR_CALLBACK,
     "synthetic failure in reverse step 17", 1, 0, 0, 0},
    {"forward fails", EBB_CONFIG_STRATEGY_ASYNC, 0, 0, 0, 0, 41, -1, -1, EBB_ERR_CALLBACK,
     "synthetic failure in forward step 41", 1, 0, 0, 0},
    {"online ends early", EBB_CONFIG_STRATEGY_ONLINE, 1, -1, 0, 0, -1, -1, 60, EBB_ERR_STATE,
     "forward sweeps ended at different steps", 0, 0, 0, 0},
    {"async ends early", EBB_CONFIG_STRATEGY_ASYNC, 1, -1, 0, 0, -1, -1, 60, EBB_ERR_STATE,
     "", 0, 0, 0, 0},
    {"finish too early", EBB_CONFIG_STRATEGY_REVOLVE, 0, 1, 0, 0, -1, -1, -1, EBB_ERR_STATE,
     "forward sweeps ended at different steps", 0, 50, 0, 0},
    {"measure differs", EBB_CONFIG_STRATEGY_ONLINE, 1, -1, 0, 0, -1, -1, -1, EBB_ERR_INVALID_ARG,
     "the ranks disagree on ebb_run_options.measure_costs: rank", 0, 0, 1, 0},
    {"sizes refused", EBB_CONFIG_STRATEGY_REVOLVE, 0, 1, 0, 0, -1, -1, -1, EBB_ERR_INVALID_ARG,
     "a run over MPI ranks takes no state sizes", 1, 0, 0, 1},
};

static void one_case(const ecase *c, const char *dir, int rank, int ranks)
{
    int bad = c->bad_rank >= 0 ? c->bad_rank : ranks - 1;
    int me_bad = rank == bad;
    ebb_config cfg;
    char missing[4200];
    snprintf(missing, sizeof missing, "%s/no/such/dir", dir);
    const char *paths[] = {me_bad && c->bad_disk ? missing : dir};
    if (ebb_config_init_default(&cfg) != EBB_OK || ebb_config_set_disk_paths(&cfg, paths, 1)) {
        mw_fail("%s: configuration: %s", c->name, ebb_last_error());
        return;
    }
    cfg.gpu.enabled = 0;
    cfg.host.budget = 6 * SIZE;
    cfg.host.pin = cfg.host.prefault = 0;
    cfg.disk.budget = 40 * SIZE;
    cfg.disk.direct = 0;
    cfg.disk.max_bandwidth = rank == 0 ? 20000000 : 0;
    mw w;
    mw_init(&w, SIZE, me_bad && c->end_at > 0 ? c->end_at : STEPS);
    w.unknown = c->unknown;
    w.spin_s = 1e-4;
    if (me_bad) {
        w.fail_forward = c->fail_forward;
        w.fail_reverse = c->fail_reverse;
    }
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = me_bad && c->bad_options ? 0 : SIZE;
    o.forward = mw_forward;
    o.reverse = mw_reverse;
    o.user = &w;
    o.steps = c->unknown ? 0 : STEPS;
    o.config = &cfg;
    o.strategy = c->strategy;
    o.measure_costs = me_bad && c->measure;
    static size_t sizes[STEPS + 1];
    for (int i = 0; i <= STEPS; i++)
        sizes[i] = SIZE - (size_t)(i % 3) * 8;
    o.state_sizes = me_bad && c->sized ? sizes : NULL;
    ebb_run *run = NULL;
    ebb_status st = ebb_mpi_run_create(&o, MPI_COMM_WORLD, &run);
    if (st == EBB_OK && me_bad && c->finish_at > 0) {
        unsigned char *x0 = calloc(1, SIZE);
        if ((st = ebb_run_begin(run, x0)) == EBB_OK &&
            (st = ebb_run_advance(run, c->finish_at, NULL)) == EBB_OK)
            st = ebb_run_finish_forward(run, NULL);
        free(x0);
    } else if (st == EBB_OK) {
        st = mw_sweeps(run, &w, (uint64_t)rank);
    }
    const char *msg = mw_check_failure(c->name, st, c->expect, bad, c->names_rank, c->message);
    if (rank == 0)
        printf("%-18s every rank: %s\n", c->name, msg);
    mw_end_case(run, &cfg, c->name, dir);
}

int main(int argc, char **argv)
{
    char dir[4096];
    int ranks = mw_start(&argc, &argv, dir, sizeof dir);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        one_case(&cases[i], dir, mw_rank, ranks);
    rmdir(dir);
    return mw_finish();
}
