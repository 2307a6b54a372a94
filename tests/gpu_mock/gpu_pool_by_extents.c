/* A gpu pool made ready in extents (ready_slots, as a run with n unknown
 * makes it) allocates device memory as its slots are first used: its first
 * extent at creation, then extents that double the ready slots, each one
 * cudaMalloc with the slots' events. Data in every slot, across extents,
 * round-trips exactly. When the device has no memory left for the next
 * extent (the fake runtime's cudaMalloc fails as CUDA's does) the move is
 * refused with EBB_ERR_NO_MEMORY naming the slot and the key to lower,
 * nothing of the extent kept; the ready slots keep their data and the pool
 * goes on. Destroying it gives every extent back. A run with n unknown and
 * its states on the gpu takes what it fills, not its whole gpu budget. */
#include "gpu_mock/mock_helpers.h"
#include "gpu_mock/gpu_workload.h"

enum { SIZE = 64 * 1024, SLOTS = 1000 };

static ebb_pool *lazy_gpu(int32_t ready)
{
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_GPU);
    o.slot_size = SIZE;
    o.slots = SLOTS;
    o.device = 0;
    o.block = 16 * 1024;
    o.ready_slots = ready;
    ebb_pool *g = NULL;
    cr_assert_eq(ebb_pool_create(&o, &g), EBB_OK, "%s", ebb_last_error());
    return g;
}

static ebb_host_debug ready_of(ebb_pool *g)
{
    ebb_host_debug d;
    cr_assert_eq(ebb_host_debug_get(g, &d), EBB_OK, "%s", ebb_last_error());
    return d;
}

/* host slot `hs` -> gpu slot `gs`, waited for */
static ebb_status up(ebb_pool *g, int32_t gs, ebb_pool *h, int32_t hs)
{
    ebb_ticket t;
    ebb_status s = ebb_move(g, gs, h, hs, &t);
    if (s == EBB_OK)
        mock_wait_ok(&t, "host -> gpu");
    return s;
}

static void down_and_check(ebb_pool *g, int32_t gs, ebb_pool *h, uint64_t seed)
{
    ebb_ticket t;
    cr_assert_eq(ebb_move(h, 1, g, gs, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "gpu -> host");
    static unsigned char want[SIZE];
    fill_random(want, SIZE, seed);
    cr_assert(memcmp(slot_ptr(h, 1), want, SIZE) == 0, "gpu slot %d lost its data", (int)gs);
}

Test(gpu_pool_by_extents, allocated_as_used)
{
    size_t before = cuda_mock_device_bytes(0);
    ebb_pool *h = pinned_host_pool(0, 2, SIZE);
    ebb_pool *g = lazy_gpu(4);
    ebb_pool_info info;
    cr_assert_eq(ebb_pool_info_get(g, &info), EBB_OK);
    size_t stride = info.slot_stride;
    cr_assert_eq(cuda_mock_device_bytes(0) - before, 4 * stride, "only the first extent");
    cr_assert_eq(ready_of(g).ready_slots, 4);
    /* slots used in order: 4 -> 8 -> 16 -> 32 -> 64 -> 128 ready */
    static const int32_t expect_ready[] = {4, 4, 4, 4, 8, 8, 8, 8, 16};
    for (int32_t s = 0; s < 100; s++) {
        fill_random(slot_ptr(h, 0), SIZE, 100 + (uint64_t)s);
        cr_assert_eq(up(g, s, h, 0), EBB_OK, "slot %d: %s", (int)s, ebb_last_error());
        if (s < 9)
            cr_assert_eq(ready_of(g).ready_slots, expect_ready[s], "after slot %d", (int)s);
    }
    ebb_host_debug d = ready_of(g);
    cr_assert_eq(d.ready_slots, 128);
    cr_assert_eq(d.extents, 6);
    cr_assert_eq(cuda_mock_device_bytes(0) - before, 128 * stride);
    for (int32_t s = 0; s < 100; s++)
        down_and_check(g, s, h, 100 + (uint64_t)s);
    /* a slot far above: the extent reaches it (slot + 1 ready) */
    void *p = NULL;
    cr_assert_eq(ebb_pool_slot_ptr(g, 700, &p), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ready_of(g).ready_slots, 701);
    for (int32_t s = 0; s < 100; s += 7)
        down_and_check(g, s, h, 100 + (uint64_t)s);
    ebb_pool_destroy(g);
    cr_assert_eq(cuda_mock_device_bytes(0), before, "every extent given back");
    ebb_pool_destroy(h);
}

Test(gpu_pool_by_extents, no_memory_for_the_next_extent)
{
    size_t before = cuda_mock_device_bytes(0);
    ebb_pool *h = pinned_host_pool(0, 2, SIZE);
    ebb_pool *g = lazy_gpu(4);
    ebb_pool_info info;
    cr_assert_eq(ebb_pool_info_get(g, &info), EBB_OK);
    size_t stride = info.slot_stride;
    /* room for 4 slots more (the next extent: 4 .. 7), not for 8 .. 15 */
    cuda_mock_set_device_memory((10ull << 30) + before + 8 * stride);
    for (int32_t s = 0; s < 8; s++) {
        fill_random(slot_ptr(h, 0), SIZE, 200 + (uint64_t)s);
        cr_assert_eq(up(g, s, h, 0), EBB_OK, "slot %d: %s", (int)s, ebb_last_error());
    }
    fill_random(slot_ptr(h, 0), SIZE, 999);
    ebb_status st = up(g, 8, h, 0);
    cr_assert_eq(st, EBB_ERR_NO_MEMORY, "got %d: %s", (int)st, ebb_last_error());
    const char *m = ebb_last_error();
    cr_assert(strstr(m, "slot 8") && strstr(m, "8 .. 15") && strstr(m, "tier.gpu.budget") &&
                  strstr(m, "cudaMalloc"),
              "%s", m);
    cr_assert_eq(cudaGetLastError(), cudaSuccess, "the failed cudaMalloc left the last error");
    cr_assert_eq(ready_of(g).ready_slots, 8);
    cr_assert_eq(cuda_mock_device_bytes(0) - before, 8 * stride, "nothing of the extent kept");
    /* an event that cannot be created: the extent's memory given back too */
    cuda_mock_set_device_memory(80ull << 30);
    cuda_mock_fail_call("cudaEventCreateWithFlags", 5, 1, cudaErrorMemoryAllocation);
    cr_assert_eq(up(g, 8, h, 0), EBB_ERR_NO_MEMORY);
    m = ebb_last_error();
    cr_assert(strstr(m, "cudaEventCreateWithFlags") && !strstr(m, "cudaMalloc"), "%s", m);
    cr_assert_eq(cuda_mock_device_bytes(0) - before, 8 * stride);
    cr_assert_eq(ready_of(g).ready_slots, 8);
    for (int32_t s = 0; s < 8; s++)
        down_and_check(g, s, h, 200 + (uint64_t)s);
    /* with memory again, the pool goes on */
    fill_random(slot_ptr(h, 0), SIZE, 300);
    cr_assert_eq(up(g, 8, h, 0), EBB_OK, "%s", ebb_last_error());
    down_and_check(g, 8, h, 300);
    cr_assert_eq(ready_of(g).ready_slots, 16);
    ebb_pool_destroy(g);
    cr_assert_eq(cuda_mock_device_bytes(0), before);
    ebb_pool_destroy(h);
}

/* A pool whose first extent does not fit the device's memory is refused at
 * creation with EBB_ERR_NO_MEMORY naming the bytes and the key, nothing
 * left allocated; the last error is not left set. */
Test(gpu_pool_by_extents, first_extent_does_not_fit)
{
    size_t before = cuda_mock_device_bytes(0);
    cuda_mock_set_device_memory((10ull << 30) + before + 100 * SIZE);
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_GPU);
    o.slot_size = SIZE;
    o.slots = SLOTS; /* every slot at creation: 1000 of them, room for 100 */
    o.device = 0;
    ebb_pool *g = NULL;
    ebb_status st = ebb_pool_create(&o, &g);
    cr_assert_eq(st, EBB_ERR_NO_MEMORY, "got %d: %s", (int)st, ebb_last_error());
    cr_assert_null(g);
    const char *m = ebb_last_error();
    cr_assert(strstr(m, "1000 slots of 65536 bytes") && strstr(m, "lower the gpu budget") &&
                  strstr(m, "cudaMalloc"),
              "%s", m);
    cr_assert_eq(cudaGetLastError(), cudaSuccess);
    cr_assert_eq(cuda_mock_device_bytes(0), before, "nothing left allocated");
    o.ready_slots = 50; /* the same pool made ready in extents fits */
    cr_assert_eq(ebb_pool_create(&o, &g), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(cuda_mock_device_bytes(0) - before, 50 * (size_t)SIZE);
    ebb_pool_destroy(g);
    cuda_mock_set_device_memory(80ull << 30);
}

/* A run with n unknown, states on the gpu: its gpu pool has every slot of
 * the budget (1 GiB: 262,144 of 4 KiB) but allocates what the run fills. */
enum { RSIZE = 4096, STEPS = 40 };

typedef struct {
    gpu_wl g;            /* first: the callbacks' user pointer */
    size_t device_bytes; /* at the last reverse step */
} gctx;

static void observe(gpu_wl *g)
{
    ((gctx *)g)->device_bytes = cuda_mock_device_bytes(0);
}

Test(gpu_pool_by_extents, run_with_n_unknown_takes_what_it_fills)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.gpu.enabled = 1;
    cfg.gpu.budget = 1ull << 30;
    cfg.host.budget = 1ull << 20;
    static gctx c;
    gpu_wl *g = &c.g;
    g->observe = observe;
    wl_init(&g->w, RSIZE);
    g->w.last_at = STEPS - 1;
    cr_assert_eq(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking), cudaSuccess);
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = RSIZE;
    o.state_tier = EBB_TIER_GPU;
    o.stream = g->stream;
    o.config = &cfg;
    o.strategy = EBB_CONFIG_STRATEGY_ONLINE;
    o.steps = 0;
    o.forward = gpu_wl_forward;
    o.reverse = gpu_wl_reverse;
    o.user = g;
    unsigned char *x0 = NULL;
    cr_assert_eq(cudaHostAlloc((void **)&x0, RSIZE, cudaHostAllocDefault), cudaSuccess);
    wl_x0(&g->w, x0, 21);
    size_t before = cuda_mock_device_bytes(0);
    ebb_run *run = NULL;
    cr_assert_eq(ebb_run_create(&o, &run), EBB_OK, "%s", ebb_last_error());
    g->w.run = run;
    ebb_run_info info;
    cr_assert_eq(ebb_run_info_get(run, &info), EBB_OK);
    cr_assert_eq(ebb_run_forward(run, x0, NULL), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_reverse(run), EBB_OK, "%s", ebb_last_error());
    ebb_run_destroy(run);
    cudaFreeHost(x0);
    cudaStreamDestroy(g->stream);
    cr_assert_gt(c.device_bytes, before, "no device memory seen during the reverse sweep");
    size_t used = c.device_bytes - before;
    cr_log_info("%d gpu buffers (%zu bytes); %zu bytes allocated", info.buffers[EBB_TIER_GPU],
                (size_t)info.bytes[EBB_TIER_GPU], used);
    cr_assert_gt(info.buffers[EBB_TIER_GPU], 200000, "%d gpu buffers", info.buffers[EBB_TIER_GPU]);
    cr_assert_leq(used, (size_t)64 << 20, "%zu bytes of device memory for %d steps", used, STEPS);
    cr_assert_eq(cuda_mock_device_bytes(0), before, "the run gave its memory back");
    cr_assert_eq(g->w.reverse_calls, STEPS);
    cr_assert_eq(g->w.adjoint, wl_reference(RSIZE, STEPS, 21));
    rmdir(dir);
    ebb_config_dispose(&cfg);
}
