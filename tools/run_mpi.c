/*
 * `ebb run --mpi`: the workload on every rank of MPI_COMM_WORLD, each with
 * its own x_0 (seed S + rank) and, through mpirun's MPMD form, its own
 * configuration; the schedule decisions are the library's, agreed. Rank 0
 * prints each rank's action-stream hash, gradient, wall and stall times,
 * and the statistics reduced over the ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebb/ebb.h"
#include "ebb/mpi.h"
#include "tools/json.h"
#include "tools/run_mpi.h"

struct run_mpi {
    int rank, size;
    int have_stats;
    ebb_mpi_stats stats;
};

/* What each rank sends rank 0. */
typedef struct rank_figures {
    uint64_t hash, gradient, seed;
    double wall_s, stall_s;
    int64_t recomputed, stores_slow;
} rank_figures;

run_mpi *run_mpi_begin(int *rank, int *size)
{
    int rc = MPI_Init(NULL, NULL);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "ebb run: --mpi: MPI_Init failed (error %d); run it under mpirun\n", rc);
        return NULL;
    }
    run_mpi *m = calloc(1, sizeof *m);
    if (!m) {
        fprintf(stderr, "ebb run: --mpi: out of memory\n");
        MPI_Finalize();
        return NULL;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m->size);
    *rank = m->rank;
    *size = m->size;
    return m;
}

static ebb_status create(void *ctx, const ebb_run_options *o, ebb_run **run)
{
    (void)ctx;
    return ebb_mpi_run_create(o, MPI_COMM_WORLD, run);
}

static void before_destroy(void *ctx, ebb_run *run, int ok)
{
    run_mpi *m = ctx;
    /* collective: every rank has ok alike, since a failure is agreed */
    if (ok && ebb_mpi_stats_reduce(run, &m->stats) == EBB_OK)
        m->have_stats = 1;
    else if (ok)
        fprintf(stderr, "ebb run: rank %d: statistics: %s\n", m->rank, ebb_last_error());
}

void run_mpi_request(run_mpi *m, workload_request *req)
{
    req->create = create;
    req->before_destroy = before_destroy;
    req->ctx = m;
}

static void array_key(json_writer *w, const char *key)
{
    if (w->count[w->depth]++ > 0)
        fputs(", ", w->out);
    fprintf(w->out, "\"%s\": [", key);
}

static void hex_array(json_writer *w, const char *key, const rank_figures *f, int n, int gradient)
{
    array_key(w, key);
    for (int i = 0; i < n; i++)
        printf("%s\"%016llx\"", i ? ", " : "",
               (unsigned long long)(gradient ? f[i].gradient : f[i].hash));
    fputc(']', w->out);
}

static void double_array(json_writer *w, const char *key, const rank_figures *f, int n, int stall)
{
    array_key(w, key);
    for (int i = 0; i < n; i++)
        printf("%s%.9g", i ? ", " : "", stall ? f[i].stall_s : f[i].wall_s);
    fputc(']', w->out);
}

static void tiers(json_writer *w, const char *key, const uint64_t *v)
{
    json_object(w, key);
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        json_int(w, ebb_tier_name((ebb_tier)t), (int64_t)v[t]);
    json_close(w);
}

static void print_json(const run_mpi *m, const workload_plan *plan, const workload_result *r,
                       const rank_figures *f)
{
    const ebb_mpi_stats *s = &m->stats;
    json_writer w;
    json_begin(&w, stdout);
    json_int(&w, "ranks", m->size);
    json_string(&w, "strategy", r->strategy);
    json_string(&w, "asked", r->asked);
    json_string(&w, "reason", r->reason);
    json_int(&w, "steps", r->stats.steps);
    json_int(&w, "state_size", (int64_t)plan->size);
    array_key(&w, "seeds");
    for (int i = 0; i < m->size; i++)
        printf("%s%llu", i ? ", " : "", (unsigned long long)f[i].seed);
    fputc(']', stdout);
    hex_array(&w, "actions_hash", f, m->size, 0);
    json_bool(&w, "actions_agree", s->actions_agree);
    hex_array(&w, "gradients", f, m->size, 1);
    json_double(&w, "wall_s", s->wall_max_s);
    double_array(&w, "wall_rank_s", f, m->size, 0);
    double_array(&w, "stall_s", f, m->size, 1);
    json_double(&w, "stall_max_s", s->stall_max_s);
    json_int(&w, "stall_max_rank", s->stall_max_rank);
    array_key(&w, "recomputed_steps");
    for (int i = 0; i < m->size; i++)
        printf("%s%lld", i ? ", " : "", (long long)f[i].recomputed);
    fputc(']', stdout);
    array_key(&w, "slow_tier_stores");
    for (int i = 0; i < m->size; i++)
        printf("%s%lld", i ? ", " : "", (long long)f[i].stores_slow);
    fputc(']', stdout);
    tiers(&w, "bytes_written_total", s->bytes_written_total);
    tiers(&w, "bytes_read_total", s->bytes_read_total);
    json_int(&w, "agreements", s->agreements);
    json_int(&w, "ranks_per_node", s->ranks_per_node);
    json_end(&w);
}

static void print_text(const run_mpi *m, const workload_result *r, const rank_figures *f)
{
    const ebb_mpi_stats *s = &m->stats;
    printf("ebb run --mpi: %d ranks, %s, %lld steps; action streams %s\n", m->size, r->strategy,
           (long long)r->stats.steps, s->actions_agree ? "identical" : "DIFFER");
    printf("%5s %16s %16s %9s %9s %10s\n", "rank", "actions hash", "gradient", "wall s",
           "stall s", "recomputed");
    for (int i = 0; i < m->size; i++)
        printf("%5d %016llx %016llx %9.3f %9.3f %10lld\n", i, (unsigned long long)f[i].hash,
               (unsigned long long)f[i].gradient, f[i].wall_s, f[i].stall_s,
               (long long)f[i].recomputed);
    printf("most stall: rank %d, %.3f s; store decisions agreed: %lld collectives\n",
           s->stall_max_rank, s->stall_max_s, (long long)s->agreements);
}

int run_mpi_end(run_mpi *m, const workload_plan *plan, const workload_request *req,
                const workload_result *r, int outcome, int json)
{
    int ok = outcome == 0 && m->have_stats, all_ok = 0;
    if (outcome != 0)
        fprintf(stderr, "ebb run: rank %d: %s: %s\n", m->rank, r->strategy, r->error);
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    int rc = 1;
    if (!all_ok) {
        if (ok)
            fprintf(stderr, "ebb run: rank %d: another rank failed\n", m->rank);
        goto out;
    }
    rank_figures mine = {.hash = m->stats.actions_hash, .gradient = r->gradient,
                         .seed = req->seed, .wall_s = r->stats.wall_s,
                         .stall_s = r->stats.stall_total_s,
                         .recomputed = r->stats.recomputed_steps,
                         .stores_slow = r->info.slow_tier >= 0 &&
                                                r->info.slow_tier < EBB_TIER_COUNT &&
                                                r->info.slow_tier != r->info.fast_tier
                                            ? r->stats.stores[r->info.slow_tier]
                                            : 0};
    rank_figures *all = m->rank == 0 ? calloc((size_t)m->size, sizeof *all) : NULL;
    if (m->rank == 0 && !all) {
        fprintf(stderr, "ebb run: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1); /* the tool, not the library */
    }
    MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0,
               MPI_COMM_WORLD);
    rc = 0;
    if (m->rank == 0) {
        if (json)
            print_json(m, plan, r, all);
        else
            print_text(m, r, all);
        fflush(stdout);
        if (!m->stats.actions_agree) {
            fprintf(stderr, "ebb run: the ranks' action streams differ (an agreement bug)\n");
            rc = 1;
        }
        free(all);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
out:
    free(m);
    MPI_Finalize();
    return rc;
}
