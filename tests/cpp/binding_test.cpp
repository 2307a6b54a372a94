/*
 * The C++ interface (ebb/ebb.hpp): the gradient through ebb::run and lambdas
 * is bitwise the C API's; ebb's failures become ebb::error with ebb's message
 * and status; an exception thrown in a lambda comes out of the ebb::run call
 * as the same exception, with nothing left behind; moves keep a run running.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <ftw.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "cpp/adjoint.hpp"
#include "support/settle.h"

extern "C" {
#include "reaction_diffusion/adjoint.h"
}

namespace {

char dir[256];

int remove_entry(const char *path, const struct stat *, int, struct FTW *) { return remove(path); }

void make_dir()
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/ebb-cpp-test-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
    cr_assert_not_null(mkdtemp(dir));
}

void remove_dir()
{
    if (dir[0])
        nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    dir[0] = '\0';
}

/* Entries of a directory ("." and ".." excluded): open files in /proc/self/fd,
 * threads in /proc/self/task, files in the disk tier's directory. */
int entries(const char *path, int own = 0)
{
    DIR *d = opendir(path);
    cr_assert_not_null(d, "%s", path);
    int n = 0;
    while (struct dirent *e = readdir(d))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n - own; /* own: the DIR's descriptor, when path is /proc/self/fd */
}

struct problem {
    rd_params p;
    std::vector<double> u0, target;
    problem(int64_t points, int64_t steps)
    {
        rd_params_default(&p, points, steps);
        u0.resize(static_cast<std::size_t>(points));
        target.resize(static_cast<std::size_t>(points));
        rd_initial(&p, u0.data());
        rd_target(&p, target.data());
    }
};

/* Host budget of `slots` states and a disk budget of `disk` states in dir. */
ebb::config budgets(const problem &pr, int slots, int disk)
{
    ebb::config cfg;
    cfg.set_disk_paths({dir});
    cfg->gpu.enabled = 0;
    const uint64_t bytes = static_cast<uint64_t>(pr.p.points) * sizeof(double);
    cfg->host.budget = static_cast<uint64_t>(slots) * ((bytes + 4095) / 4096 * 4096);
    cfg->disk.budget = static_cast<uint64_t>(disk) * ((bytes + 4095) / 4096 * 4096);
    cfg->disk.enabled = disk > 0;
    return cfg;
}

/* A run of pr's problem with `strategy` in `slots` host slots of cfg (which
 * must outlive the options). */
ebb::run_options options(const problem &pr, const ebb::config &cfg, ebb_strategy strategy,
                         int slots)
{
    ebb::run_options o;
    o.config = cfg.get();
    o.strategy = strategy;
    o.slots = slots;
    o.state_size = static_cast<std::size_t>(pr.p.points) * sizeof(double);
    o.steps = pr.p.steps;
    return o;
}

bool same_bits(const void *a, const void *b, std::size_t n) { return memcmp(a, b, n) == 0; }

} // namespace

TestSuite(cpp, .init = make_dir, .fini = remove_dir);

/* Random (n, slots, strategy): ebb::run with lambdas (examples/cpp) against
 * rd_gradient over the C API (examples/reaction_diffusion): J, dJ/dr and
 * every entry of dJ/du0 bitwise equal. */
Test(cpp, gradient_bitwise_equal_to_c_api)
{
    std::mt19937_64 rng(11);
    const ebb_strategy strategies[] = {EBB_STRATEGY_STORE_ALL, EBB_STRATEGY_REVOLVE,
                                       EBB_STRATEGY_ONLINE, EBB_STRATEGY_MULTISTAGE,
                                       EBB_STRATEGY_DISK_REVOLVE, EBB_STRATEGY_PERIODIC};
    for (int trial = 0; trial < 24; trial++) {
        const int64_t n = 1 + static_cast<int64_t>(rng() % 80);
        const ebb_strategy strategy = strategies[trial % 6];
        int slots = 1 + static_cast<int>(rng() % 6);
        if (strategy == EBB_CONFIG_STRATEGY_STORE_ALL || strategy == EBB_CONFIG_STRATEGY_PERIODIC)
            slots = static_cast<int>(n);
        problem pr(64 + static_cast<int64_t>(rng() % 200), n);
        ebb::config cfg = budgets(pr, slots, static_cast<int>(n));
        ebb::run_options o = options(pr, cfg, strategy, slots);
        if (strategy == EBB_CONFIG_STRATEGY_MULTISTAGE || strategy == EBB_CONFIG_STRATEGY_DISK_REVOLVE)
            o.slow_slots = static_cast<int32_t>(n);

        rd::gradient g = rd::compute(pr.p, pr.target, pr.u0, o);

        rd_adjoint a;
        cr_assert_eq(rd_adjoint_init(&a, &pr.p, pr.target.data()), 0);
        rd_result res;
        cr_assert_eq(rd_gradient(&a, pr.u0.data(), &o, &res), EBB_OK, "%s", ebb_last_error());
        cr_expect(same_bits(&a.objective, &g.objective, sizeof(double)), "J, trial %d", trial);
        cr_expect(same_bits(&a.grad_r, &g.grad_r, sizeof(double)), "dJ/dr, trial %d", trial);
        cr_expect(same_bits(a.lambda, g.lambda.data(), g.lambda.size() * sizeof(double)),
                  "dJ/du0, trial %d (%s, n %lld, slots %d)", trial, g.strategy.c_str(),
                  static_cast<long long>(n), slots);
        cr_expect_eq(g.stats.reverse_steps, n);
        rd_adjoint_free(&a);
    }
}

/* ebb's failures: the status, and what() is ebb's own message. */
Test(cpp, errors_become_ebb_error_with_the_message)
{
    ebb::run_options o; /* state_size 0 */
    try {
        ebb::run r(o, [](int64_t, const void *, void *) {}, [](int64_t, void *) {});
        cr_assert_fail("a run without a state size was created");
    } catch (const ebb::error &e) {
        cr_expect_eq(e.status(), EBB_ERR_INVALID_ARG);
        cr_expect_str_eq(e.what(), ebb_last_error());
        cr_expect(strstr(e.what(), "state_size") != nullptr, "%s", e.what());
        cr_expect_str_eq(e.status_name(), "EBB_ERR_INVALID_ARG");
    }

    ebb::config cfg;
    try {
        cfg.load_string("[tier.host]\nbudgte = \"1 GiB\"\n", "mine.toml");
        cr_assert_fail("an unknown key was accepted");
    } catch (const ebb::error &e) {
        cr_expect_eq(e.status(), EBB_ERR_CONFIG);
        cr_expect(strstr(e.what(), "mine.toml") && strstr(e.what(), "budget"), "%s", e.what());
    }

    /* a chained move through the wrong tiers */
    ebb::pool_options ho(EBB_TIER_HOST);
    ho.slot_size = 4096;
    ho.slots = 2;
    ebb::pool host(ho);
    try {
        ebb::move_via(host, 0, host, 1, host, 0);
        cr_assert_fail("ebb::move_via host -> host -> host was accepted");
    } catch (const ebb::error &e) {
        cr_expect_eq(e.status(), EBB_ERR_UNSUPPORTED);
        cr_expect(strstr(e.what(), "host -> host -> host is not supported"), "%s", e.what());
    }

    /* a discard on a pool that is not lazy; a lazy one's reads zeros after */
    try {
        host.discard(0);
        cr_assert_fail("a discard on a pool that is not lazy was accepted");
    } catch (const ebb::error &e) {
        cr_expect_eq(e.status(), EBB_ERR_INVALID_ARG);
        cr_expect(strstr(e.what(), "lazy host pool's"), "%s", e.what());
    }
    ho.lazy = EBB_LAZY_PAGES;
    ebb::pool lazy(ho);
    auto *bytes = static_cast<unsigned char *>(lazy.slot_ptr(1));
    memset(bytes, 7, 4096);
    lazy.discard(1);
    cr_expect_eq(bytes[0], 0, "a discarded page still reads %d", bytes[0]);

    ebb::schedule_options so;
    so.strategy = EBB_STRATEGY_STORE_ALL;
    so.steps = 10;
    so.slots = 4;
    try {
        ebb::schedule s(so);
        cr_assert_fail("store-all with 4 slots for 10 steps was accepted");
    } catch (const ebb::error &e) {
        cr_expect_eq(e.status(), EBB_ERR_INVALID_ARG);
        cr_expect(strstr(e.what(), "store-all needs 9 slots for 10 steps, got 4"), "%s", e.what());
    }

    /* online told its costs: the wrong count is refused, the right one taken
     * and the stream runs to its end with every step reversed */
    ebb::schedule_options oo;
    oo.strategy = EBB_STRATEGY_ONLINE;
    oo.slots = 3;
    ebb::schedule on(oo);
    ebb_action a;
    do
        a = on.next();
    while (!(a.kind == EBB_ACT_ADVANCE && a.to == 12));
    on.set_steps(12);
    try {
        on.set_forward_costs(std::vector<double>(11, 1.0));
        cr_assert_fail("11 costs for 12 steps were accepted");
    } catch (const ebb::error &e) {
        cr_expect_eq(e.status(), EBB_ERR_INVALID_ARG);
        cr_expect(strstr(e.what(), "11 costs for 12 steps"), "%s", e.what());
    }
    std::vector<double> costs(12, 1.0);
    costs[3] = costs[7] = 20.0;
    on.set_forward_costs(costs);
    int reversed = 0;
    for (a = on.next(); a.kind != EBB_ACT_END; a = on.next())
        reversed += a.kind == EBB_ACT_REVERSE;
    cr_expect_eq(reversed, 12);
}

namespace {
struct step_failed {
    int64_t step;
    int id;
};
} // namespace

/* A lambda throws at a random step: of the first forward sweep, of a
 * recomputation, of the reverse sweep, or something not a std::exception.
 * The same exception comes out of forward() or reverse(); ebb recorded why;
 * the run refuses more work; once destroyed no descriptor, thread or disk
 * file is left. */
Test(cpp, exception_in_a_lambda_propagates_and_leaves_nothing)
{
    std::mt19937_64 rng(7);
    test_settle_process();
    const int fds = entries("/proc/self/fd", 1), threads = entries("/proc/self/task");
    int caught[4] = {0, 0, 0, 0};
    for (int trial = 0; trial < 40; trial++) {
        const int64_t n = 5 + static_cast<int64_t>(rng() % 40);
        const int64_t at = static_cast<int64_t>(rng() % static_cast<uint64_t>(n - 1));
        const int where = trial % 4; /* 0 forward, 1 recomputation, 2 reverse, 3 int */
        problem pr(256, n);
        ebb::config cfg = budgets(pr, 2, 3);
        ebb::run_options o = options(pr, cfg, EBB_CONFIG_STRATEGY_MULTISTAGE, 2);
        o.slow_slots = 3;
        int64_t seen = 0;
        bool thrown = false;
        {
            ebb::run r(
                o,
                [&](int64_t i, const double *in, double *out) {
                    const bool again = i < seen;
                    seen = again ? seen : i + 1;
                    if (!thrown && i == at && (where == 0 || where == 3 || (where == 1 && again))) {
                        thrown = true;
                        if (where == 3)
                            throw 42;
                        throw step_failed{i, trial};
                    }
                    rd_step(&pr.p, in, out);
                },
                [&](int64_t i, double *) {
                    if (where == 2 && i == at)
                        throw std::runtime_error("reverse step says no at " + std::to_string(i));
                });
            try {
                r.forward(pr.u0.data());
                r.reverse();
                cr_assert(where == 1 && !thrown, "trial %d: nothing was thrown", trial);
            } catch (const step_failed &e) {
                cr_expect(where == 0 || where == 1);
                caught[where]++;
                cr_expect_eq(e.step, at);
                cr_expect_eq(e.id, trial, "the same exception object");
                cr_expect(strstr(ebb_last_error(), "forward step") != nullptr, "%s", ebb_last_error());
            } catch (const std::runtime_error &e) {
                cr_expect_eq(where, 2);
                caught[2]++;
                cr_expect(strstr(ebb_last_error(), "reverse step") &&
                              strstr(ebb_last_error(), e.what()), "%s", ebb_last_error());
            } catch (int v) {
                cr_expect_eq(where, 3);
                cr_expect_eq(v, 42);
                caught[3]++;
                cr_expect(strstr(ebb_last_error(), "not a std::exception"), "%s", ebb_last_error());
            }
            if (thrown || where == 2) {
                try {
                    r.reverse();
                    cr_expect_fail("trial %d: a failed run reversed again", trial);
                } catch (const ebb::error &e) {
                    cr_expect_eq(e.status(), EBB_ERR_STATE, "trial %d: %s", trial, e.what());
                }
            }
        }
        cr_expect_eq(entries(dir), 0, "trial %d: files left in the disk tier", trial);
        cr_expect_eq(entries("/proc/self/fd", 1), fds, "trial %d: descriptors left", trial);
        cr_expect_eq(entries("/proc/self/task"), threads, "trial %d: threads left", trial);
    }
    for (int w = 0; w < 4; w++)
        cr_expect_gt(caught[w], 2, "kind %d thrown and caught in only %d trials", w, caught[w]);
}

/* A run moved in the middle of its forward sweep (constructor and
 * assignment) goes on and gives the gradient of an unmoved run; the
 * moved-from object throws; configs copy deeply and move. */
Test(cpp, moves_keep_a_run_running)
{
    problem pr(128, 30);
    ebb::config cfg = budgets(pr, 3, 0);
    ebb::run_options o = options(pr, cfg, EBB_CONFIG_STRATEGY_REVOLVE, 3);
    const rd::gradient ref = rd::compute(pr.p, pr.target, pr.u0, o);

    std::vector<double> lambda(128), next(128);
    double grad_r = 0.0;
    auto fwd = [&](int64_t, const double *in, double *out) { rd_step(&pr.p, in, out); };
    auto rev = [&](int64_t, const double *u) {
        std::swap(lambda, next);
        rd_adjoint_step(&pr.p, u, next.data(), lambda.data(), &grad_r);
    };
    /* Each moved-from run is destroyed before the moved-to one goes on:
     * nothing of it may still be needed (ASan sees a use after free). */
    std::optional<ebb::run> a(std::in_place, o, fwd, rev);
    a->begin(pr.u0.data());
    cr_expect_eq(a->advance(10), 10);
    std::optional<ebb::run> b(std::in_place, std::move(*a));
    cr_expect(!*a && *b);
    try {
        a->advance(1);
        cr_expect_fail("a moved-from run ran");
    } catch (const ebb::error &e) {
        cr_expect_eq(e.status(), EBB_ERR_STATE);
        cr_expect(strstr(e.what(), "moved from"), "%s", e.what());
    }
    a.reset();
    cr_expect_eq(b->advance(7), 7);
    int stray = 0; /* calls of the replaced run's lambdas */
    ebb::run c(
        o, [&](int64_t, const void *, void *) { stray++; }, [&](int64_t, void *) { stray++; });
    c = std::move(*b);
    b.reset();
    cr_expect_eq(c.advance(100), 13);
    const auto *xn = static_cast<const double *>(c.finish_forward());
    rd_final_adjoint(&pr.p, pr.target.data(), xn, lambda.data());
    c.reverse();
    cr_expect_eq(stray, 0);
    cr_expect(same_bits(lambda.data(), ref.lambda.data(), 128 * sizeof(double)));
    cr_expect(same_bits(&grad_r, &ref.grad_r, sizeof grad_r));

    ebb::config copy = cfg;
    copy.set_disk_paths({"/nonexistent/elsewhere"});
    cr_expect_str_eq(cfg->disk.paths[0], dir, "a copy is deep");
    ebb::config moved(std::move(copy));
    cr_expect_null(copy->disk.paths);
    cr_expect_str_eq(moved->disk.paths[0], "/nonexistent/elsewhere");
    cr_expect(moved.format().find("/nonexistent/elsewhere") != std::string::npos);
}

/* ebb::replay hands every validated batch to the lambda; an exception from
 * it stops the replay and comes out as itself. */
Test(cpp, replay_visits_and_propagates)
{
    ebb::schedule_options so;
    so.steps = 50;
    so.slots = 4;
    int64_t reverses = 0;
    ebb_schedule_stats st = ebb::replay(so, [&](const ebb_action *a, std::size_t n) {
        for (std::size_t i = 0; i < n; i++)
            reverses += a[i].kind == EBB_ACT_REVERSE;
    });
    cr_expect_eq(reverses, 50);
    cr_expect_eq(st.reverse_steps, 50);
    cr_expect_eq(ebb::validate(so).forward_steps, st.forward_steps);
    try {
        ebb::replay(so, [](const ebb_action *, std::size_t) { throw step_failed{-1, 99}; });
        cr_expect_fail("the visitor's exception was lost");
    } catch (const step_failed &e) {
        cr_expect_eq(e.id, 99);
    }
    ebb::schedule s(so);
    ebb::schedule t(std::move(s));
    cr_expect(!s && t);
    cr_expect_eq(t.next().kind, EBB_ACT_STORE);
}

/* The other callback shapes: an in-place forward (two arguments), generic
 * lambdas (void pointers) and a plain function pointer give the gradient of
 * the out-of-place typed lambdas, bitwise. */
namespace {
const rd_params *shape_params;
void reverse_noop(int64_t, void *) {}
} // namespace

Test(cpp, inplace_generic_and_function_pointer_callbacks)
{
    problem pr(96, 25);
    ebb::config cfg = budgets(pr, 3, 0);
    ebb::run_options o = options(pr, cfg, EBB_CONFIG_STRATEGY_REVOLVE, 3);
    const rd::gradient ref = rd::compute(pr.p, pr.target, pr.u0, o);

    for (int shape = 0; shape < 2; shape++) {
        std::vector<double> lambda(96), next(96), tmp(96);
        double grad_r = 0.0;
        auto rev = [&](int64_t, auto state) {
            std::swap(lambda, next);
            rd_adjoint_step(&pr.p, static_cast<const double *>(state), next.data(), lambda.data(),
                            &grad_r);
        };
        auto inplace = [&](int64_t, double *x) {
            rd_step(&pr.p, x, tmp.data());
            std::copy(tmp.begin(), tmp.end(), x);
        };
        auto generic = [&](int64_t, auto in, auto out) {
            rd_step(&pr.p, static_cast<const double *>(in), static_cast<double *>(out));
        };
        std::optional<ebb::run> r;
        if (shape == 0)
            r.emplace(o, inplace, rev);
        else
            r.emplace(o, generic, rev);
        cr_expect_eq(r->info().inplace, shape == 0);
        const auto *xn = static_cast<const double *>(r->forward(pr.u0.data()));
        rd_final_adjoint(&pr.p, pr.target.data(), xn, lambda.data());
        r->reverse();
        cr_expect(same_bits(lambda.data(), ref.lambda.data(), 96 * sizeof(double)), "shape %d", shape);
        cr_expect(same_bits(&grad_r, &ref.grad_r, sizeof grad_r), "shape %d", shape);
    }

    shape_params = &pr.p;
    ebb::run r(o, +[](int64_t, const double *in, double *out) { rd_step(shape_params, in, out); },
               reverse_noop);
    cr_expect_eq(r.info().inplace, 0);
    const auto *xn = static_cast<const double *>(r.forward(pr.u0.data()));
    std::vector<double> plain(pr.u0), work(96);
    for (int i = 0; i < 25; i++) {
        rd_step(&pr.p, plain.data(), work.data());
        plain.swap(work);
    }
    cr_expect(same_bits(xn, plain.data(), 96 * sizeof(double)), "x_n of a function pointer run");
    r.reverse();
}

/* The push and pull forms (ebb_run_push, ebb_run_reverse_next) through
 * ebb::run: the caller's own time loop and adjoint loop give the C API's
 * gradient bitwise, the forward lambda only recomputing; a run without a
 * reverse step refuses reverse() with ebb::error and is pulled; an exception
 * thrown in a recomputation comes out of reverse_next. */
Test(cpp, push_and_pull)
{
    problem pr(128, 40);
    ebb::config cfg = budgets(pr, 3, 0);
    ebb::run_options o = options(pr, cfg, EBB_CONFIG_STRATEGY_REVOLVE, 3);
    const rd::gradient ref = rd::compute(pr.p, pr.target, pr.u0, o);

    int calls = 0;
    bool throw_at_5 = false;
    auto fwd = [&](int64_t i, const double *in, double *out) {
        calls++;
        if (throw_at_5 && i == 5)
            throw std::runtime_error("no step 5 today");
        rd_step(&pr.p, in, out);
    };
    for (int attempt = 0; attempt < 2; attempt++) {
        throw_at_5 = attempt == 1;
        calls = 0;
        ebb::run r(o, fwd);
        std::vector<double> x(pr.u0), y(128);
        r.begin(x.data());
        for (int k = 0; k < 40; k++) {
            rd_step(&pr.p, x.data(), y.data());
            x.swap(y);
            r.push(x.data());
        }
        const auto *xn = static_cast<const double *>(r.finish_forward());
        cr_expect(same_bits(xn, x.data(), 128 * sizeof(double)), "x_n is the last pushed");
        cr_expect_eq(calls, 0, "the forward lambda ran in a pushed sweep");
        try {
            r.reverse();
            cr_assert_fail("reverse() without a reverse step");
        } catch (const ebb::error &e) {
            cr_expect_eq(e.status(), EBB_ERR_STATE);
            cr_expect(strstr(e.what(), "without a reverse callback") != nullptr, "%s", e.what());
        }
        std::vector<double> lambda(128), next(128);
        double grad_r = 0.0;
        rd_final_adjoint(&pr.p, pr.target.data(), xn, lambda.data());
        int64_t i, want = 39;
        const double *u;
        try {
            while (r.reverse_next(i, u)) {
                cr_assert_eq(i, want--);
                std::swap(lambda, next);
                rd_adjoint_step(&pr.p, u, next.data(), lambda.data(), &grad_r);
            }
            cr_expect(!throw_at_5, "the exception did not come out");
        } catch (const std::runtime_error &e) {
            cr_expect(throw_at_5, "%s", e.what());
            cr_expect_str_eq(e.what(), "no step 5 today");
            continue;
        }
        cr_expect_eq(want, -1);
        cr_expect_gt(calls, 0, "nothing was recomputed");
        cr_expect_eq(r.stats().recomputed_steps, calls);
        cr_expect(same_bits(lambda.data(), ref.lambda.data(), 128 * sizeof(double)), "dJ/du0");
        cr_expect(same_bits(&grad_r, &ref.grad_r, sizeof grad_r), "dJ/dr");
    }
}
