/* Binomial checkpointing arithmetic; see binomial.h. */
#include "schedules/binomial.h"

#include <math.h>

/* Past this, binomials are only compared with int64 values (saturated). */
#define SATURATED ((unsigned __int128)1 << 126)

/* binom(a, k) over min(k, a - k) factors, every partial product exact
 * (binom(a-k+i, i) = binom(a-k+i-1, i-1) (a-k+i) / i). Each factor is at
 * least 2 while k <= a/2, so it saturates within about 126 of them: O(1)
 * however large a is. Below SATURATED the value is exact. */
static unsigned __int128 binom_sat(int64_t a, int64_t k)
{
    if (k < 0 || k > a)
        return 0;
    if (k > a - k)
        k = a - k;
    unsigned __int128 v = 1;
    for (int64_t i = 1; i <= k; i++) {
        uint64_t f = (uint64_t)(a - k + i);
        if (v > SATURATED / f)
            return SATURATED;
        v = v * f / (uint64_t)i;
    }
    return v;
}

int64_t ebb_beta(int64_t c, int64_t r)
{
    if (r < 0 || c < 0)
        return 0;
    if (c > INT64_MAX - r)
        return r == 0 || c == 0 ? 1 : INT64_MAX;
    unsigned __int128 v = binom_sat(c + r, r);
    return v > (unsigned __int128)INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* The least r >= 0 with beta(2, r) = (r+1)(r+2)/2 >= l: the root of the
 * quadratic, then corrected by exact integer comparisons (the square root is
 * taken in floating point). */
static int64_t repetitions_c2(int64_t l)
{
    int64_t r = (int64_t)((sqrtl(8.0L * (long double)l + 1.0L) - 3.0L) / 2.0L);
    if (r < 0)
        r = 0;
    while (r > 0 && (unsigned __int128)r * (uint64_t)(r + 1) / 2 >= (unsigned __int128)l)
        r--;
    while ((unsigned __int128)(r + 1) * (uint64_t)(r + 2) / 2 < (unsigned __int128)l)
        r++;
    return r;
}

int64_t ebb_revolve_repetitions(int64_t l, int64_t c)
{
    if (l <= 1)
        return 0;
    if (c == 1)
        return l - 1; /* beta(1, r) = r + 1 */
    if (c == 2)
        return repetitions_c2(l);
    /* Small r (the common case: c large next to log l) by stepping up
     * beta(c, r), as cheap as it gets; past that, a bisection (beta(c, r)
     * grows with r and beta(c, l - 1) >= l), O(log l) evaluations. */
    enum { STEPS = 64 };
    unsigned __int128 v = 1; /* beta(c, r) */
    for (int64_t r = 1; r <= STEPS; r++) {
        v = v * (unsigned __int128)(c + r) / (unsigned __int128)r;
        if (v >= (unsigned __int128)l)
            return r;
        if (v > SATURATED / (unsigned __int128)(c + r + 1))
            break; /* cannot happen below l < 2^63; keeps the products in range */
    }
    int64_t lo = STEPS + 1, hi = l - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (c > INT64_MAX - mid || binom_sat(c + mid, mid) >= (unsigned __int128)l)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

int64_t ebb_revolve_cost(int64_t l, int64_t c)
{
    if (l <= 1)
        return 0;
    if (c < 1)
        return -1;
    /* T = r*l - beta(c+1, r-1), beta(c+1, r-1) = binom(c+r, r-1) < r*l <
     * 2^126, so exact; checked against int64 at the end. O(log l) in all:
     * closed forms for c <= 2, a bisection for r otherwise. */
    int64_t r = ebb_revolve_repetitions(l, c);
    if (c > INT64_MAX - r)
        return -1;
    __int128 cost = (__int128)r * l - (__int128)binom_sat(c + r, r - 1);
    return cost > INT64_MAX || cost < 0 ? -1 : (int64_t)cost;
}

int64_t ebb_revolve_split(int64_t l, int64_t c)
{
    if (c <= 1)
        return l - 1;
    if (l <= c + 1)
        return 1; /* r = 1: every state fits, keep them all (the common leaf case) */
    /* One pass finds r and beta(c, r-1), beta(c, r-2) in 64 bits (this runs
     * once per stored checkpoint, so it is on the hot path). Every value
     * before the last is below l, so only the last product can overflow, and
     * then beta(c, r) is simply "more than l". */
    uint64_t b1 = 0, b0 = 1; /* beta(c, r-1), beta(c, r) */
    uint64_t b2 = 0;         /* beta(c, r-2) */
    int64_t r = 0;
    while (b0 < (uint64_t)l) {
        r++;
        b2 = b1;
        b1 = b0;
        uint64_t prod;
        if (__builtin_mul_overflow(b0, (uint64_t)(c + r), &prod))
            b0 = (uint64_t)((unsigned __int128)b0 * (uint64_t)(c + r) / (uint64_t)r);
        else
            b0 = prod / (uint64_t)r;
    }
    /* beta(c-1, r) = beta(c, r) * c / (c + r); beta(c-1, r-1) = beta(c-1, r) * r / (c - 1 + r). */
    unsigned __int128 bm = (unsigned __int128)b0 * (uint64_t)c / (uint64_t)(c + r);
    unsigned __int128 bm1 = r > 0 ? bm * (uint64_t)r / (uint64_t)(c - 1 + r) : 0;
    /* The optimal range (Griewank & Walther 2000):
     *   max(beta(c, r-2), l - beta(c-1, r)) <= m <= min(beta(c, r-1), l - beta(c-1, r-1)).
     * Checked against a brute-force dynamic program in the tests. The largest
     * m is taken: it advances farthest, so the first sweep stores least. */
    int64_t lo = 1;
    if (r >= 2 && (int64_t)b2 > lo)
        lo = (int64_t)b2;
    if (bm < (unsigned __int128)l && l - (int64_t)bm > lo)
        lo = l - (int64_t)bm;
    int64_t hi = r >= 1 ? (int64_t)b1 : 1;
    if (r >= 1 && bm1 < (unsigned __int128)l && l - (int64_t)bm1 < hi)
        hi = l - (int64_t)bm1;
    if (hi < lo)
        hi = lo;
    if (hi > l - 1)
        hi = l - 1;
    return hi;
}
