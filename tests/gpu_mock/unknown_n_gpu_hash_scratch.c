/* A run with the live state on a (fake) GPU, n unknown and the hash audit
 * hashes each gpu state through a host scratch buffer. Its host pool, given
 * every slot of the host budget (async's gpu -> host tier), is made ready in
 * extents; the scratch buffer is its first (ready at creation), so that
 * hashing does not make the whole pool ready at the first state (the last
 * buffer would take every extent below it). The adjoint is the oracle's. */
#include "cuda_mock.h"
#include "gpu_mock/gpu_workload.h"

enum { SIZE = 4096, STEPS = 40 };

typedef struct {
    gpu_wl g; /* first: the callbacks' user pointer */
    ebb_host_debug host; /* at the last reverse step */
} gctx;

static void observe(gpu_wl *g)
{
    ebb_pool *host = ebb_run_debug_pool(g->w.run, EBB_TIER_HOST);
    cr_assert_not_null(host);
    cr_assert_eq(ebb_host_debug_get(host, &((gctx *)g)->host), EBB_OK, "%s", ebb_last_error());
}

Test(unknown_n_gpu_hash_scratch, scratch_is_ready)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.gpu.enabled = 1;
    cfg.gpu.budget = 1ull << 20;
    cfg.host.budget = 64ull << 20; /* 16,384 slots */
    static gctx c;
    gpu_wl *g = &c.g;
    g->observe = observe;
    wl_init(&g->w, SIZE);
    g->w.last_at = STEPS - 1;
    cr_assert_eq(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking), cudaSuccess);
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = SIZE;
    o.state_tier = EBB_TIER_GPU;
    o.stream = g->stream;
    o.config = &cfg;
    o.strategy = EBB_CONFIG_STRATEGY_ASYNC;
    o.steps = 0;
    o.slots = 2; /* gpu: few, so that states go on to the host */
    o.audit = EBB_AUDIT_HASH;
    o.forward = gpu_wl_forward;
    o.reverse = gpu_wl_reverse;
    o.user = g;
    ebb_storage_fault f = {0};
    f.ready_slots = 4; /* the host pool's first extent */
    unsigned char *h0 = NULL;
    cr_assert_eq(cudaHostAlloc((void **)&h0, SIZE, cudaHostAllocDefault), cudaSuccess);
    wl_x0(&g->w, h0, 21);
    ebb_run *run = NULL;
    cr_assert_eq(ebb_run_create_with_faults(&o, &f, &run), EBB_OK, "%s", ebb_last_error());
    g->w.run = run;
    ebb_run_info info;
    cr_assert_eq(ebb_run_info_get(run, &info), EBB_OK);
    cr_assert_str_eq(info.strategy_name, "async");
    cr_assert_eq(ebb_run_forward(run, h0, NULL), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_reverse(run), EBB_OK, "%s", ebb_last_error());
    ebb_run_destroy(run);
    cudaFreeHost(h0);
    cudaStreamDestroy(g->stream);
    cr_log_info("%d host buffers; %d ready in %d extents", info.buffers[EBB_TIER_HOST],
                c.host.ready_slots, c.host.extents);
    cr_assert_gt(info.buffers[EBB_TIER_HOST], 10000, "%d host buffers",
                 info.buffers[EBB_TIER_HOST]);
    cr_assert_gt(c.host.ready_slots, 0, "the host pool was not seen during the reverse sweep");
    cr_assert_lt(c.host.ready_slots, 4 * STEPS, "%d of %d host slots ready", c.host.ready_slots,
                 info.buffers[EBB_TIER_HOST]);
    cr_assert_eq(g->w.reverse_calls, STEPS);
    cr_assert_eq(g->w.adjoint, wl_reference(SIZE, STEPS, 21));
    cr_assert_eq(wl_dir_entries(dir), 0);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}
