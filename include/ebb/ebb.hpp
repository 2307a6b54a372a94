/*
 * ebb — C++ interface: header-only RAII types over the C API (ebb/ebb.h),
 * lambdas as callbacks, ebb::error exceptions. It adds no symbol to the
 * library: everything here is inline over the C functions. docs/cpp.md is
 * the guide.
 *
 *     ebb::config cfg;                         // the embedded default
 *     ebb::run_options o;
 *     o.state_size = n_points * sizeof(double);
 *     o.steps = n;
 *     o.config = cfg.get();
 *     ebb::run run(o,
 *         [&](int64_t i, const double *in, double *out) { step(in, out); },
 *         [&](int64_t i, double *state) { adjoint_step(state); });
 *     auto *xn = static_cast<double *>(run.forward(x0));   // evaluate the loss
 *     run.reverse();                                        // reverse(n-1) .. reverse(0)
 *
 * A C++ exception thrown by a callback never crosses ebb's C frames: the
 * trampoline catches it, reports it to ebb (ebb_callback_fail, so the run
 * stops and cleans up as for any failed step) and the same exception is
 * rethrown from the ebb::run call that was running.
 */
#ifndef EBB_EBB_HPP
#define EBB_EBB_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ebb/ebb.h"
#include "ebb/error.hpp"
#include "ebb/schedule.hpp"
#include "ebb/storage.hpp"

namespace ebb {

namespace detail {

/* The parameter list of a callable that is not generic (lambda, function
 * pointer), so a callback may take `const double *` instead of `const void *`;
 * a generic lambda gets the void pointers. */
template <class F, class = void> struct params {
    static constexpr bool known = false;
};
template <class C, class R, class... A> struct params<R (C::*)(A...) const, void> {
    static constexpr bool known = true;
    using type = std::tuple<A...>;
};
template <class C, class R, class... A> struct params<R (C::*)(A...), void> {
    static constexpr bool known = true;
    using type = std::tuple<A...>;
};
template <class R, class... A> struct params<R (*)(A...), void> {
    static constexpr bool known = true;
    using type = std::tuple<A...>;
};
template <class F>
struct params<F, std::void_t<decltype(&F::operator())>> : params<decltype(&F::operator())> {};

/* The type the k-th argument is cast to before the call. */
template <class F, std::size_t K, class Default, class = void> struct arg {
    using type = Default;
};
template <class F, std::size_t K, class Default>
struct arg<F, K, Default, std::enable_if_t<params<std::decay_t<F>>::known>> {
    using tuple = typename params<std::decay_t<F>>::type;
    using type = std::conditional_t<(K < std::tuple_size<tuple>::value),
                                    std::tuple_element_t<(K < std::tuple_size<tuple>::value ? K : 0), tuple>,
                                    Default>;
};

template <class F> constexpr std::size_t arity()
{
    if constexpr (params<std::decay_t<F>>::known)
        return std::tuple_size<typename params<std::decay_t<F>>::type>::value;
    else if constexpr (std::is_invocable_v<F &, int64_t, const void *, void *>)
        return 3;
    else
        return 2;
}

/* A callback's result: void and EBB_STEP_OK alike mean "the step ran". */
template <class F, class... A> int call_step(F &f, A... a)
{
    if constexpr (std::is_void_v<std::invoke_result_t<F &, A...>>) {
        f(a...);
        return EBB_STEP_OK;
    } else {
        return static_cast<int>(f(a...));
    }
}

/* Records the exception for the rethrow and tells ebb why the step failed. */
inline int fail(std::exception_ptr &pending)
{
    pending = std::current_exception();
    try {
        std::rethrow_exception(pending);
    } catch (const std::exception &e) {
        return ebb_callback_fail("%s", e.what());
    } catch (...) {
        return ebb_callback_fail("a C++ exception that is not a std::exception");
    }
}

/* What the C callbacks reach through `user`. It lives on the heap so that
 * moving an ebb::run leaves the address ebb holds valid. */
struct callbacks {
    std::function<int(int64_t, const void *, void *)> forward;
    std::function<int(int64_t, void *)> forward_inplace;
    std::function<int(int64_t, void *)> reverse;
    std::exception_ptr pending;

    void rethrow_pending()
    {
        if (pending)
            std::rethrow_exception(std::exchange(pending, nullptr));
    }

    static int forward_c(void *user, int64_t i, const void *in, void *out) noexcept
    {
        auto *cb = static_cast<callbacks *>(user);
        try {
            return cb->forward(i, in, out);
        } catch (...) {
            return fail(cb->pending);
        }
    }
    static int forward_inplace_c(void *user, int64_t i, void *state) noexcept
    {
        auto *cb = static_cast<callbacks *>(user);
        try {
            return cb->forward_inplace(i, state);
        } catch (...) {
            return fail(cb->pending);
        }
    }
    static int reverse_c(void *user, int64_t i, void *state) noexcept
    {
        auto *cb = static_cast<callbacks *>(user);
        try {
            return cb->reverse(i, state);
        } catch (...) {
            return fail(cb->pending);
        }
    }
};

template <class F> std::function<int(int64_t, const void *, void *)> wrap_forward(F f)
{
    using In = typename arg<F, 1, const void *>::type;
    using Out = typename arg<F, 2, void *>::type;
    static_assert(std::is_pointer_v<In> && std::is_pointer_v<Out>,
                  "a forward step takes (int64_t step, const T *in, T *out)");
    return [f = std::move(f)](int64_t i, const void *in, void *out) mutable {
        return call_step(f, i, static_cast<In>(in), static_cast<Out>(out));
    };
}

template <class F> std::function<int(int64_t, void *)> wrap_state(F f)
{
    using State = typename arg<F, 1, void *>::type;
    static_assert(std::is_pointer_v<State>, "a step on one state takes (int64_t step, T *state)");
    return [f = std::move(f)](int64_t i, void *state) mutable {
        return call_step(f, i, static_cast<State>(state));
    };
}

} // namespace detail

/* ---- configuration --------------------------------------------------------- */

/* An ebb_config that frees itself. Starts from the embedded default; copies
 * are deep (ebb_config_copy). A moved-from config is empty (zeroed). */
class config {
public:
    config() { check(ebb_config_init_default(&c_)); }
    static config from_file(const std::string &path)
    {
        config c;
        c.load_file(path);
        return c;
    }
    config(const config &o) { check(ebb_config_copy(&o.c_, &c_)); }
    config &operator=(const config &o)
    {
        if (this != &o) {
            ebb_config copy;
            check(ebb_config_copy(&o.c_, &copy));
            ebb_config_dispose(&c_);
            c_ = copy;
        }
        return *this;
    }
    config(config &&o) noexcept : c_(o.c_) { o.c_ = ebb_config{}; }
    config &operator=(config &&o) noexcept
    {
        if (this != &o) {
            ebb_config_dispose(&c_);
            c_ = o.c_;
            o.c_ = ebb_config{};
        }
        return *this;
    }
    ~config() { ebb_config_dispose(&c_); }

    /* A TOML file or text over the current values (docs/configuration.md). */
    void load_file(const std::string &path) { check(ebb_config_load_file(path.c_str(), &c_)); }
    void load_string(const std::string &toml, const std::string &name = "<string>")
    {
        check(ebb_config_load_string(toml.c_str(), name.c_str(), &c_));
    }
    /* Throws unless states of `state_bytes` fit here (0: size unknown). */
    void check_fits(std::size_t state_bytes) const { check(ebb_config_check(&c_, state_bytes)); }
    uint64_t budget(ebb_tier tier) const
    {
        uint64_t b = 0;
        check(ebb_config_budget(&c_, tier, &b));
        return b;
    }
    ebb_pool_options pool_options(ebb_tier tier, std::size_t state_bytes) const
    {
        ebb_pool_options o;
        check(ebb_config_pool_options(&c_, tier, state_bytes, &o));
        return o;
    }
    void set_disk_paths(const std::vector<std::string> &paths)
    {
        std::vector<const char *> p;
        for (const auto &s : paths)
            p.push_back(s.c_str());
        check(ebb_config_set_disk_paths(&c_, p.data(), p.size()));
    }
    void set_strategy(const std::string &name)
    {
        ebb_config_strategy s;
        check(ebb_config_strategy_from_name(name.c_str(), &s));
        c_.strategy = s;
    }
    /* The TOML text that loads back to these values. */
    std::string format() const
    {
        std::size_t n = 0;
        check(ebb_config_format(&c_, nullptr, 0, &n));
        std::string s(n + 1, '\0');
        check(ebb_config_format(&c_, s.data(), s.size(), &n));
        s.resize(n);
        return s;
    }

    ebb_config *get() noexcept { return &c_; }
    const ebb_config *get() const noexcept { return &c_; }
    ebb_config *operator->() noexcept { return &c_; }
    const ebb_config *operator->() const noexcept { return &c_; }

private:
    ebb_config c_{};
};

/* ---- the runtime --------------------------------------------------------- */

/* ebb_run_options with ebb's defaults. forward, forward_inplace, reverse and
 * user are set by ebb::run from its lambdas. */
struct run_options : ebb_run_options {
    run_options() noexcept : ebb_run_options() { ebb_run_options_init(this); }
};

/* A run driving two callables:
 *   forward  (int64_t i, const T *in, T *out)  out of place, or
 *            (int64_t i, T *state)             in place (detected by arity);
 *   reverse  (int64_t i, T *state)             state holds x_i; left out, the
 *                                              reverse sweep is pulled (reverse_next).
 * T is any object type (void included). A callable returns void or an int
 * (EBB_STEP_OK, EBB_STEP_LAST, ebb_callback_fail(...)); an exception thrown
 * from it stops the run and is rethrown from the call that ran it. Moving a
 * run is cheap and keeps it running; a moved-from run throws ebb::error. */
class run {
public:
    template <class Forward, class Reverse>
    run(const ebb_run_options &o, Forward forward_step, Reverse reverse_step)
        : cb_(std::make_unique<detail::callbacks>())
    {
        static_assert(detail::arity<Reverse>() == 2, "reverse takes (step, state)");
        cb_->reverse = detail::wrap_state(std::move(reverse_step));
        create(o, std::move(forward_step), &detail::callbacks::reverse_c);
    }
    /* Without a reverse step: the reverse sweep is pulled (reverse_next). */
    template <class Forward>
    run(const ebb_run_options &o, Forward forward_step)
        : cb_(std::make_unique<detail::callbacks>())
    {
        create(o, std::move(forward_step), nullptr);
    }

    /* The whole forward sweep from x0; returns ebb's buffer holding x_n,
     * valid until reverse() starts. */
    void *forward(const void *x0)
    {
        void *xn = nullptr;
        done(ebb_run_forward(ptr(), x0, &xn));
        return xn;
    }
    void begin(const void *x0) { done(ebb_run_begin(ptr(), x0)); }
    /* Up to max_steps more steps; returns how many ran. */
    int64_t advance(int64_t max_steps)
    {
        int64_t n = 0;
        done(ebb_run_advance(ptr(), max_steps, &n));
        return n;
    }
    void *finish_forward()
    {
        void *xn = nullptr;
        done(ebb_run_finish_forward(ptr(), &xn));
        return xn;
    }
    void reverse() { done(ebb_run_reverse(ptr())); }

    /* The push form of the first sweep (ebb_run_push): x_next, computed by
     * the caller from the state before it, is copied in as the next state. */
    void push(const void *x_next) { done(ebb_run_push(ptr(), x_next)); }
    /* The pull form of the reverse sweep (ebb_run_reverse_next): true with
     * step = i and state = x_i (ebb's, valid until the next call), for
     * i = n-1 .. 0; false once the sweep ended. */
    template <class T> bool reverse_next(int64_t &step, const T *&state)
    {
        const void *s = nullptr;
        done(ebb_run_reverse_next(ptr(), &step, &s));
        state = static_cast<const T *>(s);
        return step >= 0;
    }

    ebb_run_info info() const
    {
        ebb_run_info i;
        check(ebb_run_info_get(ptr(), &i));
        return i;
    }
    ebb_run_stats stats() const
    {
        ebb_run_stats s;
        check(ebb_run_stats_get(ptr(), &s));
        return s;
    }
    ebb_run *get() const noexcept { return h_.get(); }
    explicit operator bool() const noexcept { return h_.get() != nullptr; }

    run(run &&) noexcept = default;
    /* The run goes before its callbacks, as in the destructor. */
    run &operator=(run &&o) noexcept
    {
        if (this != &o) {
            h_ = std::move(o.h_);
            cb_ = std::move(o.cb_);
        }
        return *this;
    }
    run(const run &) = delete;
    run &operator=(const run &) = delete;

private:
    template <class Forward> void create(const ebb_run_options &o, Forward forward_step,
                                         ebb_reverse_fn reverse_c)
    {
        ebb_run_options c = o;
        c.forward = nullptr;
        c.forward_inplace = nullptr;
        if constexpr (detail::arity<Forward>() == 3) {
            cb_->forward = detail::wrap_forward(std::move(forward_step));
            c.forward = &detail::callbacks::forward_c;
        } else {
            static_assert(detail::arity<Forward>() == 2,
                          "forward takes (step, in, out) or (step, state)");
            cb_->forward_inplace = detail::wrap_state(std::move(forward_step));
            c.forward_inplace = &detail::callbacks::forward_inplace_c;
        }
        c.reverse = reverse_c;
        c.user = cb_.get();
        ebb_run *r = nullptr;
        check(ebb_run_create(&c, &r));
        h_ = decltype(h_)(r);
    }
    ebb_run *ptr() const { return detail::live(h_.get(), "ebb::run"); }
    /* A callback's exception first (ebb already stopped the run), then ebb's error. */
    void done(ebb_status s)
    {
        cb_->rethrow_pending();
        check(s);
    }

    std::unique_ptr<detail::callbacks> cb_;
    detail::handle<ebb_run, ebb_run_destroy> h_; /* destroyed before cb_ */
};

} // namespace ebb

#endif
