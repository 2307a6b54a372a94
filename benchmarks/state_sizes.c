/* States of different sizes in a run (ebb_run_options.state_sizes) against
 * the same chain run with every slot the largest state's size, within the
 * same host budget in bytes, from the least budget the chain runs in to
 * one that holds every state. The chain has four stages whose states halve
 * in size (an image network's activations: 8, 4, 2, 1 MiB at the default
 * scale); a step reads its input and writes its output (its time follows
 * its bytes, and both runs are told so: forward_costs). Per budget: forward steps run, the seconds of create (the
 * schedule made, the pools mapped: a pool of slots of the largest state
 * takes its memory there) and of the sweeps with destroy, and the most
 * resident memory the process gained from create on (read after create
 * and in every callback). docs/heterogeneous.md, *States of different sizes*.
 *
 *     build/release/benchmarks/state_sizes [steps per stage, default 8] [largest MiB, 8]
 *                                          [passes over its input a step makes, 1]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ebb/ebb.h"

typedef struct chain {
    int64_t n;
    size_t *size;
    double *f, *r; /* each step's costs: the MiB it reads and writes, and its reverse's */
    int passes;    /* times a forward step reads its input */
    int64_t forward_calls;
    uint64_t adjoint, baseline, peak;
} chain;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t resident(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long size = 0, res = 0;
    if (!f)
        return 0;
    if (fscanf(f, "%llu %llu", &size, &res) != 2)
        res = 0;
    fclose(f);
    return res * (uint64_t)sysconf(_SC_PAGESIZE);
}

static void seen(chain *c)
{
    uint64_t r = resident();
    if (r > c->baseline && r - c->baseline > c->peak)
        c->peak = r - c->baseline;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

static int forward(void *user, int64_t k, const void *in, void *out)
{
    chain *c = user;
    const uint64_t *a = in;
    uint64_t *b = out, h = (uint64_t)k;
    size_t na = c->size[k] / 8, nb = c->size[k + 1] / 8;
    for (int p = 0; p < c->passes; p++)
        for (size_t j = 0; j < na; j++)
            h = mix(h ^ a[j]);
    for (size_t j = 0; j < nb; j++)
        b[j] = h + j;
    c->forward_calls++;
    seen(c);
    return EBB_STEP_OK;
}

static int reverse(void *user, int64_t k, void *state)
{
    chain *c = user;
    const uint64_t *x = state;
    for (size_t j = 0; j < c->size[k] / 8; j += 512)
        c->adjoint = mix(c->adjoint ^ x[j]);
    seen(c);
    return EBB_STEP_OK;
}

/* One run; 0 and the figures, or the status (the budget too small). */
static ebb_status run_once(chain *c, ebb_config *cfg, size_t largest, int sized, uint64_t budget,
                           double *create, double *sweeps)
{
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = largest;
    o.steps = c->n;
    o.config = cfg;
    o.forward = forward;
    o.reverse = reverse;
    o.user = c;
    o.strategy = EBB_STRATEGY_REVOLVE;
    o.audit = EBB_AUDIT_OFF;
    o.forward_costs = c->f;
    o.reverse_costs = c->r;
    if (sized) {
        o.state_sizes = c->size;
    } else {
        o.slots = (int32_t)(budget / largest);
        if (o.slots < 1)
            return EBB_ERR_NO_MEMORY;
    }
    cfg->host.budget = budget;
    c->forward_calls = 0;
    c->adjoint = 0;
    c->peak = 0;
    unsigned char *x0 = calloc(1, c->size[0]);
    ebb_run *run = NULL;
    /* what the run takes and costs from create (a pool of slots of the
     * largest state takes its memory there) to destroy */
    c->baseline = resident();
    double t0 = now_s();
    ebb_status st = x0 ? ebb_run_create(&o, &run) : EBB_ERR_NO_MEMORY;
    seen(c);
    double t1 = now_s();
    void *xn;
    if (st == EBB_OK && (st = ebb_run_forward(run, x0, &xn)) == EBB_OK)
        st = ebb_run_reverse(run);
    ebb_run_destroy(run);
    *create = t1 - t0;
    *sweeps = now_s() - t1;
    if (st != EBB_OK && st != EBB_ERR_NO_MEMORY)
        fprintf(stderr, "state_sizes: %s\n", ebb_last_error());
    free(x0);
    return st;
}

int main(int argc, char **argv)
{
    int per = argc > 1 ? atoi(argv[1]) : 8;
    int mib = argc > 2 ? atoi(argv[2]) : 8;
    int passes = argc > 3 ? atoi(argv[3]) : 1;
    if (per < 1 || mib < 1 || passes < 1) {
        fprintf(stderr, "usage: state_sizes [steps per stage >= 1] [largest MiB >= 1] "
                        "[passes >= 1]\n");
        return 2;
    }
    chain c = {.n = 4 * per, .passes = passes};
    size_t largest = (size_t)mib << 20;
    c.size = malloc(sizeof *c.size * (size_t)(c.n + 1));
    c.f = malloc(sizeof *c.f * (size_t)c.n);
    c.r = malloc(sizeof *c.r * (size_t)c.n);
    if (!c.size || !c.f || !c.r)
        return 1;
    uint64_t total = 0;
    for (int64_t i = 0; i <= c.n; i++) {
        c.size[i] = largest >> (i < c.n ? i / per : 3);
        total += i < c.n ? c.size[i] : 0;
    }
    for (int64_t i = 0; i < c.n; i++) { /* both runs are told what each step costs */
        c.f[i] = (double)(passes * c.size[i] + c.size[i + 1]) / (1 << 20);
        c.r[i] = (double)c.size[i] / (1 << 20) / 512;
    }
    ebb_config cfg;
    if (ebb_config_init_default(&cfg) != EBB_OK)
        return 1;
    cfg.disk.enabled = 0;
    cfg.gpu.enabled = 0;
    printf("# %lld steps in 4 stages of %d, states %zu to %zu bytes, %llu bytes in all "
           "(x_0 .. x_{n-1}); a step reads its input %d times\n",
           (long long)c.n, per, largest >> 3, largest, (unsigned long long)total, passes);
    printf("# budget (bytes, fraction of all) | forward steps sized, uniform | create s sized, "
           "uniform | sweeps s sized, uniform | resident gained MiB sized, uniform\n");
    /* from x_0 alone (every state recomputed from it) to every state */
    const double fractions[] = {0, 0.125, 0.25, 0.375, 0.5, 0.75, 1};
    for (size_t f = 0; f < sizeof fractions / sizeof *fractions; f++) {
        uint64_t budget = fractions[f] == 0 ? c.size[0] : (uint64_t)(fractions[f] * (double)total);
        double cs = 0, ws = 0, cu = 0, wu = 0;
        ebb_status ss = run_once(&c, &cfg, largest, 1, budget, &cs, &ws);
        int64_t fs = c.forward_calls;
        double ps = (double)c.peak / (1 << 20);
        ebb_status su = run_once(&c, &cfg, largest, 0, budget, &cu, &wu);
        int64_t fu = c.forward_calls;
        double pu = (double)c.peak / (1 << 20);
        printf("%llu (%.3f) | ", (unsigned long long)budget, (double)budget / (double)total);
        if (ss == EBB_OK)
            printf("%lld, ", (long long)fs);
        else
            printf("-, ");
        if (su == EBB_OK)
            printf("%lld | ", (long long)fu);
        else
            printf("- | ");
        printf("%.3f, %.3f | %.3f, %.3f | %.1f, %.1f\n", ss == EBB_OK ? cs : 0,
               su == EBB_OK ? cu : 0, ss == EBB_OK ? ws : 0, su == EBB_OK ? wu : 0,
               ss == EBB_OK ? ps : 0, su == EBB_OK ? pu : 0);
    }
    ebb_config_dispose(&cfg);
    free(c.size);
    free(c.f);
    free(c.r);
    return 0;
}
