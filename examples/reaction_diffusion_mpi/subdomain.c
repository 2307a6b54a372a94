/* The domain-decomposed reaction-diffusion adjoint through ebb over MPI
 * (subdomain.h). */
#include "subdomain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rd_sub_init(rd_sub *d, const rd_params *p, MPI_Comm comm)
{
    memset(d, 0, sizeof *d);
    d->p = *p;
    d->comm = comm;
    d->halo_comm = MPI_COMM_NULL;
    MPI_Comm_rank(comm, &d->rank);
    MPI_Comm_size(comm, &d->ranks);
    if (p->points < d->ranks) {
        if (d->rank == 0)
            fprintf(stderr, "ebb: %lld points cannot be split over %d ranks: give --points %d "
                            "or more\n", (long long)p->points, d->ranks, d->ranks);
        return -1;
    }
    /* Halos travel on a communicator of their own, apart from ebb's (it
     * duplicates the one it is given) and from anything else the program
     * sends. */
    if (MPI_Comm_dup(comm, &d->halo_comm) != MPI_SUCCESS) {
        fprintf(stderr, "ebb: rank %d: MPI_Comm_dup failed\n", d->rank);
        return -1;
    }
    /* Rank r owns points r N / P .. (r + 1) N / P - 1; the grid is periodic,
     * so the ranks form a ring. */
    int64_t n = p->points, r = d->rank, np = d->ranks;
    d->lo = r * n / np;
    d->m = (r + 1) * n / np - d->lo;
    d->left = (d->rank + d->ranks - 1) % d->ranks;
    d->right = (d->rank + 1) % d->ranks;
    size_t bytes = (size_t)d->m * sizeof(double);
    d->u0 = malloc(bytes);
    d->target = malloc(bytes);
    d->lambda = malloc(bytes);
    d->scratch = malloc(bytes);
    if (!d->u0 || !d->target || !d->lambda || !d->scratch) {
        fprintf(stderr, "ebb: rank %d: out of memory for %lld points\n", d->rank,
                (long long)d->m);
        rd_sub_free(d);
        return -1;
    }
    rd_initial_block(p, d->lo, d->m, d->u0);
    rd_target_block(p, d->lo, d->m, d->target);
    return 0;
}

void rd_sub_free(rd_sub *d)
{
    free(d->u0);
    free(d->target);
    free(d->lambda);
    free(d->scratch);
    d->u0 = d->target = d->lambda = d->scratch = NULL;
    if (d->halo_comm != MPI_COMM_NULL)
        MPI_Comm_free(&d->halo_comm);
}

enum { TAG_FORWARD_LEFT = 11, TAG_FORWARD_RIGHT, TAG_REVERSE_LEFT, TAG_REVERSE_RIGHT };

/* One halo exchange of field x (m values) at `step`: our first value goes to
 * the left neighbour, whose last value comes back as our left ghost, and the
 * mirror image on the right. Each message carries the sender's step too, so
 * that ranks running different schedules (what ebb_mpi_run_create exists to
 * prevent) fail with a message instead of computing with a wrong ghost.
 * 0, or the callback's failure value. */
static int halo(rd_sub *d, int64_t step, const double *x, int tag, double *left, double *right)
{
    double to_left[2] = {(double)step, x[0]}, to_right[2] = {(double)step, x[d->m - 1]};
    double from_left[2], from_right[2];
    if (MPI_Sendrecv(to_left, 2, MPI_DOUBLE, d->left, tag, from_right, 2, MPI_DOUBLE, d->right,
                     tag, d->halo_comm, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
        MPI_Sendrecv(to_right, 2, MPI_DOUBLE, d->right, tag + 1, from_left, 2, MPI_DOUBLE,
                     d->left, tag + 1, d->halo_comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return ebb_callback_fail("rank %d: halo exchange of step %lld failed", d->rank,
                                 (long long)step);
    d->halos++;
    if (from_left[0] != (double)step || from_right[0] != (double)step)
        return ebb_callback_fail("rank %d at step %lld got halos of steps %.0f (rank %d) and "
                                 "%.0f (rank %d): the ranks run different schedules",
                                 d->rank, (long long)step, from_left[0], d->left, from_right[0],
                                 d->right);
    *left = from_left[1];
    *right = from_right[1];
    return 0;
}

/* u_i -> u_{i+1} on this rank's block. As in the single-process example,
 * only steps of the first sweep (step == seen) add their running term to J:
 * a recomputed step must not count twice. */
static int forward_cb(void *user, int64_t step, const void *in, void *out)
{
    rd_sub *d = user;
    const double *u = in;
    double left = 0.0, right = 0.0;
    int rc = halo(d, step, u, TAG_FORWARD_LEFT, &left, &right);
    if (rc)
        return rc;
    const int first_time = step == d->seen;
    if (first_time) {
        d->objective += rd_running_cost_block(&d->p, u, d->m);
        d->seen++;
    }
    rd_step_block(&d->p, left, u, right, out, d->m);
    if (d->unknown_steps && first_time && step == d->p.steps - 1)
        return EBB_STEP_LAST;
    return EBB_STEP_OK;
}

/* The adjoint of step i on this rank's block; `state` holds u_i. The
 * ghosts are lambda_{i+1}'s, so the exchange comes before the stencil. */
static int reverse_cb(void *user, int64_t step, void *state)
{
    rd_sub *d = user;
    if (step != d->next_reverse)
        return ebb_callback_fail("rank %d: reverse step %lld came when step %lld was expected",
                                 d->rank, (long long)step, (long long)d->next_reverse);
    double *next = d->lambda; /* lambda_{i+1} */
    double left = 0.0, right = 0.0;
    int rc = halo(d, step, next, TAG_REVERSE_LEFT, &left, &right);
    if (rc)
        return rc;
    d->lambda = d->scratch;
    d->scratch = next;
    d->grad_r -= d->p.dt * rd_adjoint_step_block(&d->p, state, left, next, right, d->lambda, d->m);
    d->next_reverse--;
    return EBB_STEP_OK;
}

ebb_status rd_sub_gradient(rd_sub *d, const ebb_run_options *base, ebb_mpi_stats *stats,
                           ebb_run_stats *mine)
{
    ebb_run_options o = *base;
    o.state_size = (size_t)d->m * sizeof(double);
    o.state_tier = EBB_TIER_HOST;
    o.forward = forward_cb;
    o.forward_inplace = NULL;
    o.reverse = reverse_cb;
    o.user = d;
    int strategy = o.strategy;
    if (strategy == EBB_RUN_FROM_CONFIG)
        strategy = o.config ? (int)o.config->strategy : EBB_CONFIG_STRATEGY_AUTO;
    d->unknown_steps = strategy == EBB_CONFIG_STRATEGY_ONLINE;
    o.steps = d->unknown_steps ? 0 : d->p.steps;
    d->objective = d->grad_r = 0.0;
    d->seen = 0;
    d->halos = 0;

    ebb_run *run = NULL;
    void *xn = NULL;
    ebb_status s = ebb_mpi_run_create(&o, d->comm, &run);
    if (s == EBB_OK)
        s = ebb_run_forward(run, d->u0, &xn);
    if (s == EBB_OK) {
        /* x_n is ebb's buffer, valid until the reverse sweep starts. */
        d->objective += rd_final_cost_block(&d->p, d->target, xn, d->m);
        rd_final_adjoint_block(&d->p, d->target, xn, d->lambda, d->m);
        d->next_reverse = d->seen - 1;
        s = ebb_run_reverse(run);
    }
    ebb_run_info info;
    if (s == EBB_OK && (s = ebb_run_info_get(run, &info)) == EBB_OK)
        snprintf(d->strategy, sizeof d->strategy, "%s", info.strategy_name);
    if (s == EBB_OK)
        s = ebb_mpi_stats_reduce(run, stats);
    if (s == EBB_OK)
        s = ebb_run_stats_get(run, mine);
    ebb_run_destroy(run);
    return s;
}
