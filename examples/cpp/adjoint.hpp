/*
 * The reaction-diffusion adjoint of examples/reaction_diffusion/ driven from
 * C++ through ebb/ebb.hpp: the model (model.c, plain C, the part a solver
 * already has) stays as it is; the two steps ebb calls are lambdas. One
 * function: J, dJ/du_0 and dJ/dr through one ebb run.
 */
#ifndef EBB_EXAMPLE_CPP_ADJOINT_HPP
#define EBB_EXAMPLE_CPP_ADJOINT_HPP

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ebb/ebb.hpp"

extern "C" {
#include "reaction_diffusion/model.h"
}

namespace rd {

struct gradient {
    double objective = 0.0;     /* J */
    double grad_r = 0.0;        /* dJ/dr */
    std::vector<double> lambda; /* dJ/du_0 */
    std::string strategy;       /* what the run resolved */
    ebb_run_stats stats{};
};

/* `base` holds the caller's choices (config, strategy, slots); the state,
 * the steps and the callbacks are set here. The online strategy runs with
 * n unknown (steps = 0): the forward says which step was the last. Throws
 * ebb::error when ebb fails, or whatever a step throws. */
inline gradient compute(const rd_params &p, const std::vector<double> &target,
                        const std::vector<double> &u0, const ebb_run_options &base)
{
    const std::size_t n_points = static_cast<std::size_t>(p.points);
    gradient g;
    g.lambda.assign(n_points, 0.0);
    std::vector<double> lambda_next(n_points);
    int64_t seen = 0, next_reverse = 0;

    ebb_run_options o = base;
    o.state_size = n_points * sizeof(double);
    o.state_tier = EBB_TIER_HOST;
    int strategy = o.strategy;
    if (strategy == EBB_RUN_FROM_CONFIG)
        strategy = o.config ? static_cast<int>(o.config->strategy) : EBB_CONFIG_STRATEGY_AUTO;
    const bool unknown_steps = strategy == EBB_CONFIG_STRATEGY_ONLINE;
    o.steps = unknown_steps ? 0 : p.steps;

    ebb::run run(
        o,
        /* x_i -> x_{i+1}; ebb calls it again for recomputed states, whose
         * running term J already holds (step < seen). */
        [&](int64_t step, const double *in, double *out) {
            const bool first_time = step == seen;
            if (first_time) {
                g.objective += rd_running_cost(&p, in);
                seen++;
            }
            rd_step(&p, in, out);
            return unknown_steps && first_time && step == p.steps - 1 ? EBB_STEP_LAST
                                                                      : EBB_STEP_OK;
        },
        /* The adjoint of step i; `u` holds u_i. */
        [&](int64_t step, const double *u) {
            if (step != next_reverse)
                throw std::logic_error("reverse step " + std::to_string(step) +
                                       " came when step " + std::to_string(next_reverse) +
                                       " was expected");
            std::swap(g.lambda, lambda_next); /* lambda_next = lambda_{i+1} */
            rd_adjoint_step(&p, u, lambda_next.data(), g.lambda.data(), &g.grad_r);
            next_reverse--;
        });

    /* x_n is ebb's buffer until the reverse sweep starts. */
    const auto *xn = static_cast<const double *>(run.forward(u0.data()));
    g.objective += rd_final_cost(&p, target.data(), xn);
    rd_final_adjoint(&p, target.data(), xn, g.lambda.data());
    next_reverse = seen - 1;
    run.reverse();
    g.strategy = run.info().strategy_name;
    g.stats = run.stats();
    return g;
}

} // namespace rd

#endif
