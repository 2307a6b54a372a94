/* The engine's own cost per step with small states is mostly its clock
 * reads. A run in host memory reads the clock once per callback, whatever
 * the schedule puts between two callbacks (stores, restores and frees of
 * host slots), and the time a caller spends between its calls is charged to
 * no callback. The run's io here is the real one with its clock counted. */
#include <math.h>
#include <time.h>

#include "workload.h"

typedef struct counting_io {
    rt_io base;
    rt_io_ops ops;
    rt_io *real;
    int64_t reads;
} counting_io;

static counting_io cio;

static double counted_now(rt_io *io)
{
    (void)io;
    cio.reads++;
    return cio.real->ops->now(cio.real);
}

static rt_io *counting(void)
{
    cio.real = rt_io_storage();
    cio.ops = *cio.real->ops;
    cio.ops.now = counted_now;
    cio.base.ops = &cio.ops;
    cio.reads = 0;
    return &cio.base;
}

static ebb_run *create_counted(wl *w, ebb_config *cfg, ebb_config_strategy s, int64_t n,
                               int32_t slots)
{
    ebb_run_options o = wl_options(w, cfg, n);
    o.strategy = (int)s;
    o.slots = slots;
    rt_create_args args;
    cr_assert_eq(rt_args_from_config(&o, cfg, &args), EBB_OK, "%s", ebb_last_error());
    args.io = counting();
    ebb_run *r = NULL;
    cr_assert_eq(rt_run_create(&args, &r), EBB_OK, "%s", ebb_last_error());
    return r;
}

Test(clock_reads, one_read_per_callback)
{
    /* schedules that hand out their actions in batches (online asks for
       the next after every step: a read after each) */
    static const ebb_config_strategy strategies[] = {
        EBB_CONFIG_STRATEGY_STORE_ALL, EBB_CONFIG_STRATEGY_PERIODIC, EBB_CONFIG_STRATEGY_REVOLVE};
    wl_setup env;
    wl_setup_open(&env);
    wl_rng rng = {0xc10c4};
    for (int c = 0; c < 48; c++) {
        ebb_config_strategy s = strategies[c % 3];
        int64_t n = wl_pick(&rng, 40, 3000);
        int64_t least = s == EBB_CONFIG_STRATEGY_STORE_ALL ? n
                      : s == EBB_CONFIG_STRATEGY_PERIODIC  ? 2 * (int64_t)sqrt((double)n) + 2
                                                           : 2;
        int32_t slots = (int32_t)wl_pick(&rng, least, s == EBB_CONFIG_STRATEGY_STORE_ALL ? n : n + 1);
        wl w;
        wl_init(&w, 8);
        w.steps_known = n;
        unsigned char x0[8];
        wl_x0(&w, x0, (uint64_t)c);
        ebb_run *r = create_counted(&w, &env.cfg, s, n, slots);
        cio.reads = 0;
        void *xn = NULL;
        cr_assert_eq(ebb_run_forward(r, x0, &xn), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(ebb_run_reverse(r), EBB_OK, "%s", ebb_last_error());
        int64_t reads = cio.reads;
        ebb_run_stats st;
        cr_assert_eq(ebb_run_stats_get(r, &st), EBB_OK);
        ebb_run_destroy(r);
        cr_assert_eq(w.adjoint, wl_reference(8, n, (uint64_t)c), "case %d: adjoint", c);
        /* one a callback, a few a sweep, one after each batch the schedule makes */
        int64_t callbacks = st.forward_steps + st.reverse_steps;
        int64_t most = callbacks + 8 + callbacks / 64;
        cr_assert_leq(reads, most,
                      "case %d (strategy %d, n %lld, %d slots): %lld clock reads for %lld "
                      "callbacks",
                      c, (int)s, (long long)n, slots, (long long)reads, (long long)callbacks);
        /* the callbacks' spans do not overlap and lie within the sweeps */
        cr_assert_leq(st.forward_callback_s + st.reverse_callback_s, st.wall_s + 1e-9,
                      "case %d: callbacks %.9f + %.9f s in a run of %.9f s", c,
                      st.forward_callback_s, st.reverse_callback_s, st.wall_s);
    }
    wl_setup_close(&env);
}

static void sleep_ms(int ms)
{
    struct timespec t = {0, ms * 1000000L};
    nanosleep(&t, NULL);
}

/* A step at a time (ebb_run_advance), a pause before the reverse sweep:
 * neither pause is any callback's time. */
Test(clock_reads, the_callers_time_is_no_callbacks)
{
    enum { N = 12, PAUSE_MS = 5 };
    wl_setup env;
    wl_setup_open(&env);
    wl w;
    wl_init(&w, 8);
    w.steps_known = N;
    unsigned char x0[8];
    wl_x0(&w, x0, 7);
    ebb_run *r = create_counted(&w, &env.cfg, EBB_CONFIG_STRATEGY_STORE_ALL, N, N);
    cr_assert_eq(ebb_run_begin(r, x0), EBB_OK, "%s", ebb_last_error());
    for (int k = 0; k < N; k++) {
        sleep_ms(PAUSE_MS);
        int64_t done = 0;
        cr_assert_eq(ebb_run_advance(r, 1, &done), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(done, 1);
    }
    void *xn = NULL;
    cr_assert_eq(ebb_run_finish_forward(r, &xn), EBB_OK, "%s", ebb_last_error());
    sleep_ms(4 * PAUSE_MS);
    cr_assert_eq(ebb_run_reverse(r), EBB_OK, "%s", ebb_last_error());
    ebb_run_stats st;
    cr_assert_eq(ebb_run_stats_get(r, &st), EBB_OK);
    ebb_run_destroy(r);
    cr_assert_eq(w.adjoint, wl_reference(8, N, 7));
    /* the steps themselves take microseconds */
    cr_assert_lt(st.forward_callback_s, PAUSE_MS * 1e-3, "forward callbacks: %.6f s",
                 st.forward_callback_s);
    cr_assert_lt(st.reverse_callback_s, PAUSE_MS * 1e-3, "reverse callbacks: %.6f s",
                 st.reverse_callback_s);
    wl_setup_close(&env);
}
