/*
 * example_cpp_reaction_diffusion: the reaction-diffusion adjoint of
 * examples/reaction_diffusion/ written against the C++ interface
 * (ebb/ebb.hpp): an ebb::config with the example's budgets, lambdas as the
 * steps (adjoint.hpp), ebb::error for failures, and the finite-difference
 * check of the gradient.
 *
 *     example_cpp_reaction_diffusion [--points N] [--steps n] [--strategy S]
 *                                    [--config FILE] [--no-check]
 *
 * Exit status: 0 when J is the plain loop's to the bit and the gradient
 * agrees with central differences (relative error <= 1e-6), 1 otherwise or
 * on an ebb error, 2 for a bad command line.
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

#include "adjoint.hpp"

namespace {

constexpr int host_states = 4, disk_states = 32; /* the C example's budgets */
constexpr double check_eps = 1e-6, check_bound = 1e-6;

struct cli {
    int64_t points = 1048576, steps = 200;
    std::string strategy, config;
    bool check = true;
};

bool parse(int argc, char **argv, cli &c)
{
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto value = [&]() -> const char * { return i + 1 < argc ? argv[++i] : nullptr; };
        const char *v = nullptr;
        if (a == "--no-check")
            c.check = false;
        else if ((a == "--points" || a == "--steps" || a == "--strategy" || a == "--config") &&
                 (v = value())) {
            if (a == "--strategy")
                c.strategy = v;
            else if (a == "--config")
                c.config = v;
            else {
                char *end;
                long long n = std::strtoll(v, &end, 10);
                if (*end || n < (a == "--points" ? 3 : 1)) {
                    std::fprintf(stderr, "ebb: %s: expected a count, got '%s'\n", a.c_str(), v);
                    return false;
                }
                (a == "--points" ? c.points : c.steps) = n;
            }
        } else {
            std::fprintf(stderr, "usage: %s [--points N] [--steps n] [--strategy S] "
                                 "[--config FILE] [--no-check]\n", argv[0]);
            return false;
        }
    }
    return true;
}

uint64_t round_up(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

/* The embedded default, the file, then the example's budgets and strategy
 * for the keys the file left alone (line[key] == 0), then --strategy. */
ebb::config make_config(const cli &c, std::size_t state)
{
    ebb::config cfg;
    if (!c.config.empty())
        cfg.load_file(c.config);
    const uint64_t page = std::max<uint64_t>(4096, static_cast<uint64_t>(sysconf(_SC_PAGESIZE)));
    if (!cfg->line[EBB_KEY_HOST_BUDGET])
        cfg->host.budget = host_states * round_up(state, page);
    if (!cfg->line[EBB_KEY_DISK_BUDGET])
        cfg->disk.budget = disk_states * round_up(state, 4096);
    if (!cfg->line[EBB_KEY_RUN_STRATEGY])
        cfg->strategy = cfg->disk.enabled ? EBB_CONFIG_STRATEGY_MULTISTAGE
                                          : EBB_CONFIG_STRATEGY_REVOLVE;
    if (!c.strategy.empty())
        cfg.set_strategy(c.strategy);
    cfg.check_fits(state);
    return cfg;
}

double relative_error(double a, double b)
{
    double scale = std::fmax(std::fabs(a), std::fabs(b));
    return scale > 0.0 ? std::fabs(a - b) / scale : 0.0;
}

/* dJ/du0 . d and dJ/dr against central differences of the plain loop. */
double gradient_check(const rd_params &p, const std::vector<double> &target,
                      const std::vector<double> &u0, const rd::gradient &g)
{
    const std::size_t n = u0.size();
    std::vector<double> d(n), u(n), work(2 * n);
    rd_direction(&p, 42, d.data());
    const double adjoint_u = rd_dot(&p, g.lambda.data(), d.data());
    for (std::size_t j = 0; j < n; j++)
        u[j] = u0[j] + check_eps * d[j];
    double plus = rd_objective(&p, target.data(), u.data(), work.data());
    for (std::size_t j = 0; j < n; j++)
        u[j] = u0[j] - check_eps * d[j];
    double minus = rd_objective(&p, target.data(), u.data(), work.data());
    const double fd_u = (plus - minus) / (2.0 * check_eps);
    rd_params q = p;
    q.r = p.r + check_eps;
    plus = rd_objective(&q, target.data(), u0.data(), work.data());
    q.r = p.r - check_eps;
    minus = rd_objective(&q, target.data(), u0.data(), work.data());
    const double fd_r = (plus - minus) / (2.0 * check_eps);
    const double err_u = relative_error(adjoint_u, fd_u), err_r = relative_error(g.grad_r, fd_r);
    std::printf("gradient check dJ/du0.d: adjoint %.6e, finite differences %.6e, relative error %.1e\n",
                adjoint_u, fd_u, err_u);
    std::printf("gradient check dJ/dr:    adjoint %.6e, finite differences %.6e, relative error %.1e\n",
                g.grad_r, fd_r, err_r);
    return std::fmax(err_u, err_r);
}

} // namespace

int main(int argc, char **argv)
{
    cli c;
    if (!parse(argc, argv, c))
        return 2;
    rd_params p;
    rd_params_default(&p, c.points, c.steps);
    const std::size_t n = static_cast<std::size_t>(p.points);
    std::vector<double> u0(n), target(n), work(2 * n);
    rd_initial(&p, u0.data());
    rd_target(&p, target.data());
    try {
        ebb::config cfg = make_config(c, n * sizeof(double));
        ebb::run_options o;
        o.config = cfg.get();
        rd::gradient g = rd::compute(p, target, u0, o);

        const double j_plain = rd_objective(&p, target.data(), u0.data(), work.data());
        const bool same = std::memcmp(&j_plain, &g.objective, sizeof j_plain) == 0;
        std::printf("C++ reaction-diffusion adjoint, ebb %s: %lld points, %lld steps, strategy %s\n",
                    ebb::version().c_str(), static_cast<long long>(p.points),
                    static_cast<long long>(p.steps), g.strategy.c_str());
        std::printf("objective J = %.17g (the plain forward loop gives %s)\n", g.objective,
                    same ? "the same bits" : "a DIFFERENT value");
        std::printf("dJ/dr = %.17g\n", g.grad_r);
        std::printf("forward steps %lld (%lld recomputed), reverse steps %lld\n",
                    static_cast<long long>(g.stats.forward_steps),
                    static_cast<long long>(g.stats.recomputed_steps),
                    static_cast<long long>(g.stats.reverse_steps));
        bool ok = same;
        if (c.check)
            ok = gradient_check(p, target, u0, g) <= check_bound && ok;
        std::printf("%s\n", ok ? "ok" : "FAILED");
        return ok ? 0 : 1;
    } catch (const ebb::error &e) {
        std::fprintf(stderr, "ebb: %s (%s)\n", e.what(), e.status_name());
        return 1;
    }
}
