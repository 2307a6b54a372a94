/*
 * rd_mpi_compare --points N --steps n DUMP...: checks the dumps of
 * example_reaction_diffusion_mpi (one per rank count) against the
 * single-process gradient, computed here by the plain adjoint loop of
 * examples/reaction_diffusion/model.c with every state in memory (no ebb,
 * no MPI; tests/examples shows every ebb strategy gives its bits):
 *   dJ/du0   bitwise equal at every grid point (each point's arithmetic is
 *            the same whatever rank owns it: the ghosts carry the same bits);
 *   J, dJ/dr within 1e-12 relative (sums over the grid: each rank sums its
 *            block, MPI adds the ranks' sums, another association of the
 *            same terms), and bitwise equal from a 1-rank dump (one block,
 *            the whole grid's association).
 * Prints one line per dump; exits 1 when a check fails, 2 on bad input.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

static const double sum_bound = 1e-12;

typedef struct reference {
    double *lambda, objective, grad_r;
} reference;

static int plain_adjoint(const rd_params *p, reference *ref)
{
    size_t np = (size_t)p->points;
    double *u = malloc((size_t)(p->steps + 1) * np * sizeof(double));
    double *target = malloc(np * sizeof(double)), *next = malloc(np * sizeof(double));
    ref->lambda = malloc(np * sizeof(double));
    if (!u || !target || !next || !ref->lambda) {
        free(u);
        free(target);
        free(next);
        return -1;
    }
    rd_initial(p, u);
    rd_target(p, target);
    ref->objective = 0.0;
    ref->grad_r = 0.0;
    for (int64_t i = 0; i < p->steps; i++) {
        ref->objective += rd_running_cost(p, u + (size_t)i * np);
        rd_step(p, u + (size_t)i * np, u + (size_t)(i + 1) * np);
    }
    const double *un = u + (size_t)p->steps * np;
    ref->objective += rd_final_cost(p, target, un);
    rd_final_adjoint(p, target, un, ref->lambda);
    for (int64_t i = p->steps - 1; i >= 0; i--) {
        memcpy(next, ref->lambda, np * sizeof(double));
        rd_adjoint_step(p, u + (size_t)i * np, next, ref->lambda, &ref->grad_r);
    }
    free(u);
    free(target);
    free(next);
    return 0;
}

static double relative(double a, double b)
{
    double scale = fmax(fabs(a), fabs(b));
    return scale > 0.0 ? fabs(a - b) / scale : 0.0;
}

/* 0: the dump passes; 1: it differs; 2: it cannot be read. */
static int check(const char *path, const rd_params *p, const reference *ref, double *grad)
{
    FILE *f = fopen(path, "rb");
    char magic[8];
    int64_t head[3];
    double sums[2];
    size_t np = (size_t)p->points;
    int ok = f && fread(magic, 8, 1, f) == 1 && memcmp(magic, "ebbrdmpi", 8) == 0 &&
             fread(head, sizeof head, 1, f) == 1 && fread(sums, sizeof sums, 1, f) == 1 &&
             head[0] == p->points && head[1] == p->steps && fread(grad, sizeof *grad, np, f) == np;
    if (f)
        fclose(f);
    if (!ok) {
        fprintf(stderr, "%s: not a dump of %lld points and %lld steps\n", path,
                (long long)p->points, (long long)p->steps);
        return 2;
    }
    int64_t differ = 0, first = -1;
    for (size_t j = 0; j < np; j++)
        if (memcmp(&grad[j], &ref->lambda[j], sizeof *grad) != 0 && differ++ == 0)
            first = (int64_t)j;
    double ej = relative(sums[0], ref->objective), er = relative(sums[1], ref->grad_r);
    int one_rank = head[2] == 1;
    int sums_ok = one_rank ? memcmp(&sums[0], &ref->objective, 8) == 0 &&
                                 memcmp(&sums[1], &ref->grad_r, 8) == 0
                           : ej <= sum_bound && er <= sum_bound;
    printf("%lld ranks: dJ/du0 %s", (long long)head[2], differ ? "DIFFERS" : "bitwise equal");
    if (differ)
        printf(" at %lld of %lld points (first: %lld, %.17g against %.17g)", (long long)differ,
               (long long)np, (long long)first, grad[first], ref->lambda[first]);
    printf("; J relative difference %.1e, dJ/dr %.1e (bound: %s)%s\n", ej, er,
           one_rank ? "bitwise on 1 rank" : "1e-12", sums_ok ? "" : "  <-- TOO LARGE");
    return differ || !sums_ok ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 6 || strcmp(argv[1], "--points") || strcmp(argv[3], "--steps")) {
        fprintf(stderr, "usage: rd_mpi_compare --points N --steps n DUMP...\n");
        return 2;
    }
    rd_params p;
    rd_params_default(&p, atoll(argv[2]), atoll(argv[4]));
    if (p.points < 3 || p.steps < 1) {
        fprintf(stderr, "rd_mpi_compare: --points must be >= 3 and --steps >= 1\n");
        return 2;
    }
    reference ref;
    double *grad = malloc((size_t)p.points * sizeof *grad);
    if (!grad || plain_adjoint(&p, &ref) != 0) {
        fprintf(stderr, "rd_mpi_compare: out of memory\n");
        return 2;
    }
    printf("single process (plain adjoint loop): J = %.17e, dJ/dr = %.17e\n", ref.objective,
           ref.grad_r);
    int rc = 0;
    for (int i = 5; i < argc; i++) {
        int r = check(argv[i], &p, &ref, grad);
        rc = r > rc ? r : rc;
    }
    free(grad);
    free(ref.lambda);
    return rc;
}
