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

static int64_t max3(int64_t a, int64_t b, int64_t c)
{
    int64_t m = a > b ? a : b;
    return m > c ? m : c;
}

int64_t ebb_revolve_split(int64_t l, int64_t c)
{
    if (c <= 1)
        return l - 1;
    int64_t r = ebb_revolve_repetitions(l, c);
    /* The optimal range (Griewank & Walther 2000, Prop. 1):
     *   max(beta(c, r-2), l - beta(c-1, r)) <= m <= min(beta(c, r-1), l - beta(c-1, r-1)).
     * Checked against a brute-force dynamic program in the tests. The largest
     * m is taken: it advances farthest, so the first sweep stores least. */
    int64_t lo = max3(1, ebb_beta(c, r - 2), l - ebb_beta(c - 1, r));
    int64_t hi = ebb_beta(c, r - 1);
    int64_t alt = l - ebb_beta(c - 1, r - 1);
    if (alt < hi)
        hi = alt;
    if (hi < lo)
        hi = lo;
    if (hi > l - 1)
        hi = l - 1;
    return hi;
}
