/*
 * ebb — C++ interface, errors: ebb::error (ebb's message and status) and the
 * owning handle the other RAII types share. Part of ebb/ebb.hpp.
 */
#ifndef EBB_ERROR_HPP
#define EBB_ERROR_HPP

#include <stdexcept>
#include <string>
#include <utility>

#include "ebb/ebb.h"

namespace ebb {


/* A failed ebb call: what() is ebb's message, status() its ebb_status. */
class error : public std::runtime_error {
public:
    error(ebb_status status, const std::string &message)
        : std::runtime_error(message), status_(status) {}
    ebb_status status() const noexcept { return status_; }
    const char *status_name() const noexcept { return ebb_status_name(status_); }

private:
    ebb_status status_;
};

/* Throws ebb::error with the thread's last message unless `s` is EBB_OK. */
inline void check(ebb_status s)
{
    if (s != EBB_OK)
        throw error(s, ebb_last_error());
}

inline std::string version() { return ebb_version(); }

namespace detail {

/* A handle owned through a deleter; moving it leaves the source empty. */
template <class T, void (*Destroy)(T *)> class handle {
public:
    handle() noexcept = default;
    explicit handle(T *p) noexcept : p_(p) {}
    handle(handle &&o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
    handle &operator=(handle &&o) noexcept
    {
        if (this != &o) {
            reset();
            p_ = std::exchange(o.p_, nullptr);
        }
        return *this;
    }
    handle(const handle &) = delete;
    handle &operator=(const handle &) = delete;
    ~handle() { reset(); }
    void reset() noexcept
    {
        if (p_)
            Destroy(p_);
        p_ = nullptr;
    }
    T *get() const noexcept { return p_; }
    T *release() noexcept { return std::exchange(p_, nullptr); }

private:
    T *p_ = nullptr;
};

/* The object was moved from (its handle went with the move). */
template <class T> T *live(T *p, const char *what)
{
    if (!p)
        throw error(EBB_ERR_STATE, std::string(what) + " is empty: it was moved from");
    return p;
}

} // namespace detail
} // namespace ebb

#endif
