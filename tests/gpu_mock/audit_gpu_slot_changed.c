/* audit = "hash" on restore, the gpu tier (against the fake CUDA runtime): a
 * byte of the stored copy of x_0 in a gpu slot changed (by a fake kernel)
 * between its store and its restore is named ("x_0 restored from gpu slot S
 * differs from its first computation ...: the stored copy was changed");
 * unaudited, the change goes into the adjoint. The host and disk slots:
 * tests/runtime/audit_stored_copy_changed.c. */
#include <cuda_runtime_api.h>

#include "cuda_mock.h"
#include "runtime/workload.h"

typedef struct {
    wl w;
    cudaStream_t stream;
    ebb_run *run;
    unsigned char *x0; /* the copy of x_0 is found by its bytes */
    int changed;
} ctx;

static int forward(void *user, int64_t k, const void *in, void *out)
{
    ctx *c = user;
    if (cudaStreamSynchronize(c->stream) != cudaSuccess)
        return 99;
    return wl_forward_cb(&c->w, k, in, out);
}

static int reverse(void *user, int64_t k, void *state)
{
    ctx *c = user;
    if (cudaStreamSynchronize(c->stream) != cudaSuccess)
        return 99;
    if (c->changed == 0) {
        ebb_pool *g = ebb_run_debug_pool(c->run, EBB_TIER_GPU);
        ebb_pool_info info;
        cr_assert_eq(ebb_pool_info_get(g, &info), EBB_OK);
        unsigned char *copy = NULL;
        cr_assert_eq(cudaHostAlloc((void **)&copy, c->w.size, cudaHostAllocDefault), cudaSuccess);
        for (int32_t s = 0; s < info.slots; s++) {
            unsigned char *p = NULL;
            cr_assert_eq(ebb_pool_slot_ptr(g, s, (void **)&p), EBB_OK);
            cr_assert_eq(cudaMemcpyAsync(copy, p, c->w.size, cudaMemcpyDeviceToHost, c->stream),
                         cudaSuccess);
            cr_assert_eq(cudaStreamSynchronize(c->stream), cudaSuccess);
            if (memcmp(copy, c->x0, c->w.size) == 0) {
                cuda_mock_kernel_fill(c->stream, p + 7, 1, c->x0[7] ^ 0x40);
                cr_assert_eq(cudaStreamSynchronize(c->stream), cudaSuccess);
                c->changed++;
            }
        }
        cudaFreeHost(copy);
    }
    return wl_reverse_cb(&c->w, k, state);
}

static ebb_status run_changed(ebb_audit audit, ctx *c)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.gpu.enabled = 1;
    cfg.gpu.budget = 64ull << 20;
    cfg.disk.enabled = 0;
    const size_t size = 4096;
    const int64_t n = 40;
    memset(c, 0, sizeof *c);
    cr_assert_eq(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking), cudaSuccess);
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = size;
    o.state_tier = EBB_TIER_GPU;
    o.stream = c->stream;
    o.config = &cfg;
    o.strategy = EBB_CONFIG_STRATEGY_REVOLVE;
    o.fast_tier = EBB_TIER_GPU;
    o.steps = n;
    o.slots = 3;
    o.audit = audit;
    o.forward = forward;
    o.reverse = reverse;
    o.user = c;
    wl_init(&c->w, size);
    c->w.steps_known = n;
    cr_assert_eq(cudaHostAlloc((void **)&c->x0, size, cudaHostAllocDefault), cudaSuccess);
    wl_x0(&c->w, c->x0, 3);
    cr_assert_eq(ebb_run_create(&o, &c->run), EBB_OK, "%s", ebb_last_error());
    ebb_status st = ebb_run_forward(c->run, c->x0, NULL);
    if (st == EBB_OK)
        st = ebb_run_reverse(c->run);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", ebb_last_error());
    ebb_run_destroy(c->run);
    cr_assert_eq(cudaStreamSynchronize(c->stream), cudaSuccess);
    cudaStreamDestroy(c->stream);
    cudaFreeHost(c->x0);
    rmdir(dir);
    ebb_config_dispose(&cfg);
    cr_assert_eq(c->changed, 1, "%d stored copies of x_0 changed", c->changed);
    if (st != EBB_OK)
        ebb_callback_fail("%s", msg); /* the message back for the caller */
    return st;
}

Test(audit_gpu_slot_changed, named_on_restore)
{
    ctx c;
    cr_assert_eq(run_changed(EBB_AUDIT_OFF, &c), EBB_OK, "%s", ebb_last_error());
    cr_assert_neq(c.w.adjoint, wl_reference(4096, 40, 3), "the change did not reach the adjoint");
    cr_assert_eq(run_changed(EBB_AUDIT_HASH, &c), EBB_ERR_CHECKSUM, "%s", ebb_last_error());
    const char *msg = ebb_last_error();
    cr_assert(strstr(msg, "x_0 restored from gpu slot") &&
                  strstr(msg, "differs from its first computation") &&
                  strstr(msg, "the stored copy was changed"),
              "%s", msg);
}
