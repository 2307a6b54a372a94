/* The live state on a (fake) GPU and a lossy disk (tier.disk.compression =
 * "fixed-rate", rate 16 of float64, smooth states): a disk restore (disk ->
 * host -> gpu, the state decompressed in the host slot, then copied up
 * whole) hands the reverse sweep each state within zfp's error of the
 * exact one, and the run's adjoint is bitwise the same state's on the host
 * (the same round trips); the hash audit (each state hashed through the
 * host scratch buffer) passes with it. Multistage and disk-revolve, gpu
 * slots over disk slots. */
#include <math.h>

#include "cuda_mock.h"
#include "gpu_mock/gpu_workload.h"

enum { V = 1024, STEPS = 60 };

typedef struct {
    cudaStream_t stream;
    double exact[STEPS + 1][V];
    double worst;
    uint64_t adjoint;
} sg;

static void step(int64_t k, const double *x, double *y)
{
    for (int i = 0; i < V; i++)
        y[i] = 0.9 * x[i] + 0.1 * sin(0.001 * i + 0.01 * (double)k);
}

static int sg_forward(void *user, int64_t k, const void *in, void *out)
{
    sg *g = user;
    if (cudaStreamSynchronize(g->stream) != cudaSuccess)
        return 98;
    step(k, in, out);
    return EBB_STEP_OK;
}

static int sg_reverse(void *user, int64_t k, void *state)
{
    sg *g = user;
    if (cudaStreamSynchronize(g->stream) != cudaSuccess)
        return 98;
    const double *x = state;
    for (int i = 0; i < V; i++) {
        double e = fabs(x[i] - g->exact[k][i]);
        g->worst = e > g->worst ? e : g->worst;
    }
    g->adjoint = XXH3_64bits_withSeed(state, sizeof g->exact[0], g->adjoint ^ (uint64_t)k);
    return EBB_STEP_OK;
}

static void run_once(ebb_config *cfg, sg *g, ebb_config_strategy s, ebb_tier state, int audit)
{
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = sizeof g->exact[0];
    o.state_tier = state;
    o.stream = g->stream;
    o.config = cfg;
    o.strategy = (int)s;
    o.fast_tier = state;
    o.slow_tier = EBB_TIER_DISK;
    o.steps = STEPS;
    o.slots = 2;
    o.slow_slots = 20;
    o.io_ratio = 2;
    o.element = EBB_ELEMENT_FLOAT64;
    o.audit = audit;
    o.forward = sg_forward;
    o.reverse = sg_reverse;
    o.user = g;
    double *h0 = NULL;
    cr_assert_eq(cudaHostAlloc((void **)&h0, o.state_size, cudaHostAllocDefault), cudaSuccess);
    memcpy(h0, g->exact[0], o.state_size);
    g->worst = 0;
    g->adjoint = 0x5eed;
    ebb_run *run = NULL;
    cr_assert_eq(ebb_run_create(&o, &run), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_forward(run, h0, NULL), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_reverse(run), EBB_OK, "%s: %s", ebb_config_strategy_name(s),
                 ebb_last_error());
    ebb_run_stats st;
    cr_assert_eq(ebb_run_stats_get(run, &st), EBB_OK);
    cr_assert_gt(st.decompressions[EBB_TIER_DISK], 0, "no state came back from the disk");
    ebb_run_destroy(run);
    cudaFreeHost(h0);
}

Test(audit_gpu_lossy_disk, restores_within_the_error_and_audited)
{
    static const ebb_config_strategy strategies[] = {EBB_CONFIG_STRATEGY_MULTISTAGE,
                                                     EBB_CONFIG_STRATEGY_DISK_REVOLVE};
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.gpu.enabled = 1;
    cfg.gpu.budget = 64ull << 20;
    cfg.disk.compression.mode = EBB_COMPRESSION_FIXED_RATE;
    cfg.disk.compression.rate = 16;
    static sg g;
    for (int i = 0; i < V; i++)
        g.exact[0][i] = cos(0.002 * i);
    for (int k = 0; k < STEPS; k++)
        step(k, g.exact[k], g.exact[k + 1]);
    cr_assert_eq(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking), cudaSuccess);
    for (size_t i = 0; i < sizeof strategies / sizeof *strategies; i++) {
        const char *name = ebb_config_strategy_name(strategies[i]);
        run_once(&cfg, &g, strategies[i], EBB_TIER_HOST, EBB_AUDIT_OFF);
        uint64_t host = g.adjoint;
        cr_assert_gt(g.worst, 0, "%s: the restores were exact", name);
        cr_assert_lt(g.worst, 1e-4, "%s, host state: %g from the exact state", name, g.worst);
        for (int audit = EBB_AUDIT_OFF; audit <= EBB_AUDIT_HASH; audit += EBB_AUDIT_HASH) {
            run_once(&cfg, &g, strategies[i], EBB_TIER_GPU, audit);
            cr_assert_lt(g.worst, 1e-4, "%s, gpu state, audit %s: %g from the exact state", name,
                         ebb_audit_name((ebb_audit)audit), g.worst);
            cr_assert_eq(g.adjoint, host, "%s, gpu state, audit %s: not the host state's adjoint",
                         name, ebb_audit_name((ebb_audit)audit));
        }
    }
    cudaStreamDestroy(g.stream);
    cr_assert_eq(wl_dir_entries(dir), 0);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}
