/*
 * ebb — C++ interface, schedules: ebb::schedule, ebb::validator,
 * ebb::validate and ebb::replay over ebb/schedule.h. Part of ebb/ebb.hpp.
 */
#ifndef EBB_SCHEDULE_HPP
#define EBB_SCHEDULE_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <vector>

#include "ebb/error.hpp"

namespace ebb {

/* ---- schedules and the validator ------------------------------------------ */

struct schedule_options : ebb_schedule_options {
    schedule_options() noexcept : ebb_schedule_options() { ebb_schedule_options_init(this); }
};

class schedule {
public:
    explicit schedule(const ebb_schedule_options &o)
    {
        ebb_schedule *s = nullptr;
        check(ebb_schedule_create(&o, &s));
        h_ = decltype(h_)(s);
    }
    ebb_action next()
    {
        ebb_action a;
        check(ebb_schedule_next(ptr(), &a));
        return a;
    }
    /* Up to `max` next actions (fewer after END, or after an online ADVANCE). */
    std::vector<ebb_action> next_batch(std::size_t max)
    {
        std::vector<ebb_action> v(max);
        std::size_t n = 0;
        check(ebb_schedule_next_batch(ptr(), v.data(), v.size(), &n));
        v.resize(n);
        return v;
    }
    void set_steps(int64_t n) { check(ebb_schedule_set_steps(ptr(), n)); }
    /* Online: the forward steps' costs, one a step, after set_steps. */
    void set_forward_costs(const std::vector<double> &costs)
    {
        check(ebb_schedule_set_forward_costs(ptr(), costs.data(),
                                             static_cast<int64_t>(costs.size())));
    }
    std::array<int32_t, EBB_TIER_COUNT> tier_slots() const
    {
        std::array<int32_t, EBB_TIER_COUNT> s{};
        check(ebb_schedule_tier_slots(ptr(), s.data()));
        return s;
    }
    ebb_schedule_options options() const
    {
        ebb_schedule_options o;
        check(ebb_schedule_get_options(ptr(), &o));
        return o;
    }
    ebb_schedule *get() const noexcept { return h_.get(); }
    explicit operator bool() const noexcept { return h_.get() != nullptr; }

private:
    ebb_schedule *ptr() const { return detail::live(h_.get(), "ebb::schedule"); }
    detail::handle<ebb_schedule, ebb_schedule_destroy> h_;
};

class validator {
public:
    validator(int64_t steps, const std::array<int32_t, EBB_TIER_COUNT> &slots)
    {
        ebb_validator *v = nullptr;
        check(ebb_validator_create(steps, slots.data(), &v));
        h_ = decltype(h_)(v);
    }
    void check_actions(const ebb_action *a, std::size_t n) { check(ebb_validator_check(ptr(), a, n)); }
    void check_actions(const std::vector<ebb_action> &a) { check_actions(a.data(), a.size()); }
    void finish() const { check(ebb_validator_finish(ptr())); }
    ebb_schedule_stats stats() const
    {
        ebb_schedule_stats s;
        check(ebb_validator_stats(ptr(), &s));
        return s;
    }
    ebb_validator *get() const noexcept { return h_.get(); }

private:
    ebb_validator *ptr() const { return detail::live(h_.get(), "ebb::validator"); }
    detail::handle<ebb_validator, ebb_validator_destroy> h_;
};

inline ebb_schedule_stats validate(const ebb_schedule_options &o)
{
    ebb_schedule_stats s;
    check(ebb_schedule_validate(&o, &s));
    return s;
}

/* As validate, handing each validated batch to visit(const ebb_action *, size_t).
 * An exception from `visit` stops the replay and is rethrown. */
template <class Visit> ebb_schedule_stats replay(const ebb_schedule_options &o, Visit &&visit)
{
    struct ctx {
        Visit &visit;
        std::exception_ptr pending;
    } c{visit, nullptr};
    auto tramp = [](void *user, const ebb_action *a, std::size_t n) noexcept -> ebb_status {
        auto *x = static_cast<ctx *>(user);
        try {
            x->visit(a, n);
            return EBB_OK;
        } catch (...) {
            x->pending = std::current_exception();
            return EBB_ERR_CALLBACK;
        }
    };
    ebb_schedule_stats s;
    ebb_status st = ebb_schedule_replay(&o, &s, tramp, &c);
    if (c.pending)
        std::rethrow_exception(c.pending);
    check(st);
    return s;
}

} // namespace ebb

#endif
