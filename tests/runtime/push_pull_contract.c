/* The push and pull forms' contract: a sweep is pushed or advanced, never
 * both, and a reverse sweep pulled or called back, never both (EBB_ERR_STATE
 * with a message, the run going on); calls out of order say so; n unknown
 * ends where the caller finishes; a run without a reverse callback refuses
 * ebb_run_reverse and is pulled; a forward callback failing in a
 * recomputation inside ebb_run_reverse_next ends the run with its message;
 * a caller that stops pulling early and destroys the run leaves no file and
 * no descriptor. */
#include "support/settle.h"
#include "workload.h"

/* revolve with 3 slots, pulled (no reverse callback) */
static ebb_run_options base(wl *w, ebb_config *cfg, int64_t n)
{
    ebb_run_options o = wl_options(w, cfg, n);
    o.strategy = EBB_CONFIG_STRATEGY_REVOLVE;
    o.slots = 3;
    o.reverse = NULL;
    return o;
}

/* Pushes x_1 .. x_count from the caller's state x (x_k on entry, x_{k+count} after). */
static void push(ebb_run *run, wl *w, unsigned char *x, int64_t k, int64_t count)
{
    unsigned char *y = malloc(w->size);
    for (int64_t j = k; j < k + count; j++) {
        wl_step(w, j, x, y);
        memcpy(x, y, w->size);
        cr_assert_eq(ebb_run_push(run, x), EBB_OK, "push %lld: %s", (long long)j,
                     ebb_last_error());
    }
    free(y);
}

/* Pulls every state left, folding them into the adjoint. */
static void pull_all(ebb_run *run, wl *w, int64_t from)
{
    int64_t i;
    const void *xi;
    for (;;) {
        cr_assert_eq(ebb_run_reverse_next(run, &i, &xi), EBB_OK, "%s", ebb_last_error());
        if (i < 0)
            break;
        cr_assert_eq(i, from--);
        w->adjoint = XXH3_64bits_withSeed(xi, w->size, w->adjoint ^ (uint64_t)i);
    }
    cr_assert_null(xi);
    cr_assert_eq(from, -1);
}

Test(push_pull_contract, forms_are_not_mixed)
{
    wl_setup env;
    wl_setup_open(&env);
    wl w;
    wl_init(&w, 100);
    w.steps_known = 10;
    ebb_run_options o = base(&w, &env.cfg, 10);
    o.reverse = wl_reverse_cb;
    unsigned char x[100];
    wl_x0(&w, x, 3);

    /* advanced, then pushed */
    ebb_run *run = wl_create(&o);
    wl_says(ebb_run_push(run, x), EBB_ERR_STATE, "ebb_run_push cannot be called before the forward");
    cr_assert_eq(ebb_run_begin(run, x), EBB_OK);
    cr_assert_eq(ebb_run_advance(run, 2, NULL), EBB_OK);
    wl_says(ebb_run_push(run, x), EBB_ERR_STATE, "runs the forward callback (ebb_run_advance); a "
                                              "sweep is either pushed or advanced");
    cr_assert_eq(ebb_run_advance(run, INT64_MAX, NULL), EBB_OK, "the run went on: %s",
                 ebb_last_error());
    cr_assert_eq(ebb_run_finish_forward(run, NULL), EBB_OK);
    wl_says(ebb_run_push(run, x), EBB_ERR_STATE, "ebb_run_push cannot be called after the forward");
    /* pulled, then called back */
    int64_t i;
    const void *xi;
    cr_assert_eq(ebb_run_reverse_next(run, &i, &xi), EBB_OK);
    cr_assert_eq(i, 9);
    wl_says(ebb_run_reverse(run), EBB_ERR_STATE, "this reverse sweep is pulled");
    w.adjoint = XXH3_64bits_withSeed(xi, w.size, w.adjoint ^ 9);
    pull_all(run, &w, 8);
    cr_assert_eq(w.adjoint, wl_reference(100, 10, 3));
    wl_says(ebb_run_reverse_next(run, &i, &xi), EBB_ERR_STATE, "after the reverse sweep");
    cr_assert_eq(i, -1);
    cr_assert_null(xi);
    wl_says(ebb_run_reverse_next(run, NULL, &xi), EBB_ERR_INVALID_ARG, "NULL argument");
    ebb_run_destroy(run);

    /* pushed, then advanced; finish_forward before all n; push beyond n */
    wl_init(&w, 100);
    w.steps_known = 10;
    wl_x0(&w, x, 3);
    run = wl_create(&o);
    cr_assert_eq(ebb_run_begin(run, x), EBB_OK);
    wl_says(ebb_run_push(run, NULL), EBB_ERR_INVALID_ARG, "x_next is NULL");
    push(run, &w, x, 0, 4);
    wl_says(ebb_run_advance(run, 1, NULL), EBB_ERR_STATE, "this forward sweep is pushed "
                                                       "(ebb_run_push)");
    wl_says(ebb_run_reverse_next(run, &i, &xi), EBB_ERR_STATE,
         "ebb_run_reverse_next cannot be called in the forward sweep");
    wl_says(ebb_run_finish_forward(run, NULL), EBB_ERR_STATE, "only 4 of the 10 steps ran; call "
                                                           "ebb_run_push");
    push(run, &w, x, 4, 6);
    wl_says(ebb_run_push(run, x), EBB_ERR_STATE, "all 10 states were pushed already");
    cr_assert_eq(ebb_run_finish_forward(run, NULL), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(w.forward_calls, 0);
    cr_assert_eq(ebb_run_reverse(run), EBB_OK, "push + the callback: %s", ebb_last_error());
    cr_assert_eq(w.adjoint, wl_reference(100, 10, 3));
    cr_assert_eq(w.reverse_calls, 10);
    ebb_run_destroy(run);
    wl_setup_close(&env);
}

Test(push_pull_contract, reverse_callback_optional)
{
    wl_setup env;
    wl_setup_open(&env);
    wl w;
    wl_init(&w, 64);
    w.steps_known = 12;
    ebb_run_options o = base(&w, &env.cfg, 12);
    unsigned char x[64];
    wl_x0(&w, x, 5);
    ebb_run *run = wl_create(&o);
    cr_assert_eq(ebb_run_forward(run, x, NULL), EBB_OK);
    wl_says(ebb_run_reverse(run), EBB_ERR_STATE, "created without a reverse callback");
    pull_all(run, &w, 11); /* the run went on */
    cr_assert_eq(w.adjoint, wl_reference(64, 12, 5));
    ebb_run_stats s;
    cr_assert_eq(ebb_run_stats_get(run, &s), EBB_OK);
    cr_assert_eq(s.reverse_steps, 12);
    cr_assert_gt(s.recomputed_steps, 0);
    cr_assert_eq(s.reverse_callback_s, 0.0);
    ebb_run_destroy(run);
    wl_setup_close(&env);
}

/* n unknown: pushed, ended by the caller (online and async) */
Test(push_pull_contract, unknown_n_pushed)
{
    wl_setup env;
    wl_setup_open(&env);
    const ebb_config_strategy s[] = {EBB_CONFIG_STRATEGY_ONLINE, EBB_CONFIG_STRATEGY_ASYNC};
    for (int k = 0; k < 2; k++) {
        wl w;
        wl_init(&w, 200);
        ebb_run_options o = base(&w, &env.cfg, 0);
        o.strategy = (int)s[k];
        o.slow_slots = 4;
        unsigned char x[200];
        wl_x0(&w, x, 7);
        ebb_run *run = wl_create(&o);
        cr_assert_eq(ebb_run_begin(run, x), EBB_OK);
        wl_says(ebb_run_finish_forward(run, NULL), EBB_ERR_STATE, "no forward step ran yet");
        push(run, &w, x, 0, 57);
        void *xn;
        cr_assert_eq(ebb_run_finish_forward(run, &xn), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(memcmp(xn, x, 200), 0);
        ebb_run_info info;
        cr_assert_eq(ebb_run_info_get(run, &info), EBB_OK);
        cr_assert_eq(info.steps, 57);
        pull_all(run, &w, 56);
        cr_assert_eq(w.adjoint, wl_reference(200, 57, 7), "%s", ebb_config_strategy_name(s[k]));
        ebb_run_destroy(run);
    }
    cr_assert_eq(wl_dir_entries(env.dir), 0);
    wl_setup_close(&env);
}

Test(push_pull_contract, recomputation_fails_inside_reverse_next)
{
    wl_setup env;
    wl_setup_open(&env);
    wl w;
    wl_init(&w, 5000);
    w.steps_known = 40;
    w.fail_forward_at = 5;
    w.fail_forward_call = 1; /* pushed: the first call is a recomputation */
    ebb_run_options o = base(&w, &env.cfg, 40);
    o.strategy = EBB_CONFIG_STRATEGY_MULTISTAGE;
    o.slots = 2;
    o.slow_slots = 4;
    o.staging = 2;
    unsigned char x[5000];
    wl_x0(&w, x, 11);
    ebb_run *run = wl_create(&o);
    cr_assert_eq(ebb_run_begin(run, x), EBB_OK);
    push(run, &w, x, 0, 40);
    cr_assert_eq(ebb_run_finish_forward(run, NULL), EBB_OK);
    int64_t i;
    const void *xi;
    ebb_status st;
    while ((st = ebb_run_reverse_next(run, &i, &xi)) == EBB_OK && i >= 0)
        ;
    wl_says(st, EBB_ERR_CALLBACK,
         "forward step 5 (recomputation) failed: synthetic failure in forward step 5");
    cr_assert_eq(i, -1);
    cr_assert_null(xi);
    /* stopped: every pool released at once; later calls quote the message */
    cr_assert_null(ebb_run_debug_pool(run, EBB_TIER_DISK));
    wl_says(ebb_run_reverse_next(run, &i, &xi), EBB_ERR_STATE, "synthetic failure in forward step 5");
    ebb_run_destroy(run);
    cr_assert_eq(wl_dir_entries(env.dir), 0);
    wl_setup_close(&env);
}

/* The caller stops pulling half way (an error of its own, say) and
 * destroys the run: the disk pool's files and descriptors are gone. */
Test(push_pull_contract, early_destroy_leaves_nothing)
{
    wl_setup env;
    wl_setup_open(&env);
    test_settle_process();
    int fds = wl_dir_entries("/proc/self/fd");
    wl w;
    wl_init(&w, 5000);
    w.steps_known = 60;
    ebb_run_options o = base(&w, &env.cfg, 60);
    o.strategy = EBB_CONFIG_STRATEGY_ASYNC;
    o.slots = 3;
    o.slow_slots = 8;
    o.staging = 2;
    unsigned char x[5000];
    wl_x0(&w, x, 13);
    ebb_run *run = wl_create(&o);
    cr_assert_gt(wl_dir_entries("/proc/self/fd"), fds, "the disk pool opened no file");
    cr_assert_eq(ebb_run_begin(run, x), EBB_OK);
    push(run, &w, x, 0, 60);
    cr_assert_eq(ebb_run_finish_forward(run, NULL), EBB_OK);
    ebb_run_stats s;
    cr_assert_eq(ebb_run_stats_get(run, &s), EBB_OK);
    cr_assert_gt(s.stores[EBB_TIER_DISK], 0, "nothing went to disk");
    int64_t i;
    const void *xi;
    for (int k = 0; k < 30; k++)
        cr_assert_eq(ebb_run_reverse_next(run, &i, &xi), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(i, 30);
    ebb_run_destroy(run);
    cr_assert_eq(wl_dir_entries("/proc/self/fd"), fds, "descriptors left open");
    cr_assert_eq(wl_dir_entries(env.dir), 0, "files left in %s", env.dir);
    wl_setup_close(&env);
}
