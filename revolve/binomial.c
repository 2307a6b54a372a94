/* Binomial checkpointing arithmetic; see binomial.h. */
#include "revolve/binomial.h"

int64_t ebb_beta(int64_t c, int64_t r)
{
    if (r < 0 || c < 0)
        return 0;
    /* binom(c+r, r) built as prod (c+i)/i, exact at every step. */
    unsigned __int128 v = 1;
    for (int64_t i = 1; i <= r; i++) {
        v = v * (unsigned __int128)(c + i) / (unsigned __int128)i;
        if (v > (unsigned __int128)INT64_MAX)
            return INT64_MAX;
    }
    return (int64_t)v;
}

int64_t ebb_revolve_repetitions(int64_t l, int64_t c)
{
    if (c == 1)
        return l > 1 ? l - 1 : 0; /* beta(1, r) = r + 1 */
    int64_t r = 0;
    unsigned __int128 v = 1; /* beta(c, r) */
    while (v < (unsigned __int128)l) {
        r++;
        v = v * (unsigned __int128)(c + r) / (unsigned __int128)r;
    }
    return r;
}

int64_t ebb_revolve_cost(int64_t l, int64_t c)
{
    if (l <= 1)
        return 0;
    if (c < 1)
        return -1;
    /* r*l - beta(c+1, r-1) >= (r-1)*l: give up before r*l overflows. The
     * search for r is O(r); r is below about sqrt(2l) once c >= 2. */
    if (c == 2 && l > (int64_t)1 << 40)
        return -1;
    int64_t r = ebb_revolve_repetitions(l, c);
    if (r > 1 && r - 1 > INT64_MAX / l)
        return -1;
    __int128 cost = (__int128)r * l - ebb_beta(c + 1, r - 1);
    return cost > INT64_MAX ? -1 : (int64_t)cost;
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
