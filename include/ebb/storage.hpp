/*
 * ebb — C++ interface, storage: ebb::pool and ebb::ticket over
 * ebb/storage.h. Part of ebb/ebb.hpp.
 */
#ifndef EBB_STORAGE_HPP
#define EBB_STORAGE_HPP

#include <array>
#include <cstdint>

#include "ebb/error.hpp"

namespace ebb {

/* ---- storage pools ------------------------------------------------------- */

/* An operation in flight; copy freely (it holds no resource). */
class ticket {
public:
    ticket() noexcept : t_{} {}
    explicit ticket(const ebb_ticket &t) noexcept : t_(t) {}
    void wait() const { check(ebb_ticket_wait(&t_)); }
    bool done() const
    {
        int d = 0;
        check(ebb_ticket_test(&t_, &d));
        return d != 0;
    }
    const ebb_ticket &get() const noexcept { return t_; }

private:
    ebb_ticket t_;
};

struct pool_options : ebb_pool_options {
    explicit pool_options(ebb_tier which) noexcept : ebb_pool_options()
    {
        ebb_pool_options_init(this, which);
    }
};

class pool {
public:
    explicit pool(const ebb_pool_options &o)
    {
        ebb_pool *p = nullptr;
        check(ebb_pool_create(&o, &p));
        h_ = decltype(h_)(p);
    }
    ebb_pool_info info() const
    {
        ebb_pool_info i;
        check(ebb_pool_info_get(ptr(), &i));
        return i;
    }
    ebb_pool_stats stats() const
    {
        ebb_pool_stats s;
        check(ebb_pool_stats_get(ptr(), &s));
        return s;
    }
    void reset_stats() { check(ebb_pool_stats_reset(ptr())); }
    void *slot_ptr(int32_t slot) const
    {
        void *p = nullptr;
        check(ebb_pool_slot_ptr(ptr(), slot, &p));
        return p;
    }
    /* a lazy host pool's slot: its pages from byte `from` on given back */
    void discard(int32_t slot, size_t from = 0) { check(ebb_pool_slot_discard(ptr(), slot, from)); }
    ticket put(int32_t slot, const void *src)
    {
        ebb_ticket t;
        check(ebb_pool_put(ptr(), slot, src, &t));
        return ticket(t);
    }
    ticket get_slot(int32_t slot, void *dst)
    {
        ebb_ticket t;
        check(ebb_pool_get(ptr(), slot, dst, &t));
        return ticket(t);
    }
    ebb_pool *get() const noexcept { return h_.get(); }
    explicit operator bool() const noexcept { return h_.get() != nullptr; }

private:
    ebb_pool *ptr() const { return detail::live(h_.get(), "ebb::pool"); }
    detail::handle<ebb_pool, ebb_pool_destroy> h_;
};

/* ebb_move (named so as not to read as std::move): slot `src_slot` of `src` into slot `dst_slot` of `dst`. */
inline ticket move_slot(pool &dst, int32_t dst_slot, pool &src, int32_t src_slot)
{
    ebb_ticket t;
    check(ebb_move(dst.get(), dst_slot, src.get(), src_slot, &t));
    return ticket(t);
}

/* ebb_move_via: gpu -> host -> disk or disk -> host -> gpu through host slot
 * `via_slot` of `via`, pipelined by the disk's blocks; the two legs' tickets
 * (the second completes after the first). */
inline std::array<ticket, 2> move_via(pool &dst, int32_t dst_slot, pool &via, int32_t via_slot,
                                      pool &src, int32_t src_slot)
{
    ebb_ticket t[2];
    check(ebb_move_via(dst.get(), dst_slot, via.get(), via_slot, src.get(), src_slot, t));
    return {ticket(t[0]), ticket(t[1])};
}

} // namespace ebb

#endif
