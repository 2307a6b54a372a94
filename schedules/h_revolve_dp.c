/*
 * H-Revolve's dynamic programme over two levels (see h_revolve.h). For a
 * sub-chain of l steps (l + 1 reverse steps) whose first state is live:
 *   opt_k(l, m)   cost when that state is not stored yet,
 *   optp_k(l, m)  cost when it is already stored at level k (m slots there,
 *                 its own included).
 * Memory (k = 0): optp_0(l, 1) re-runs from the stored state for every
 * reverse step; with m >= 2 the best of that and, over the first forward run
 * j, j + opt_0(l - j, m - 1) + read_0 + optp_0(j - 1, m). Disk (k = 1): the
 * best of solving the sub-chain in memory, opt_0(l, C), and the same split
 * with opt_1(l - j, m - 1) and read_1. opt_k = write_k + optp_k, except that
 * on disk storing is skipped when memory alone is cheaper. Only optp and the
 * chosen split are kept; opt is rebuilt from them.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/error_internal.h"
#include "schedules/h_revolve.h"

struct ebb_h_revolve_dp {
    int64_t n;                 /* steps; the top sub-chain has l = n - 1 */
    int32_t c, d;              /* memory and disk slots, at most n each: a sub-chain
                                  of l < n steps never holds more than l + 1 states */
    int all_memory;            /* memory is free and holds x_0 .. x_{n-2}: every
                                  state is stored there (no table) */
    ebb_h_revolve_costs costs;
    double *optp;              /* row (k, m) of n values, memory rows first */
    int32_t *split;            /* the chosen j, 0 = fallback */
    uint8_t *lg;               /* floor(log2(len)), len <= n, for the search */
};

static int64_t row(const ebb_h_revolve_dp *p, int level, int32_t m)
{
    if (m > (level == 0 ? p->c : p->d)) /* slots beyond n: the row of n */
        m = level == 0 ? p->c : p->d;
    return ((int64_t)(level == 0 ? m - 1 : p->c + m - 1)) * p->n;
}

static double optp(const ebb_h_revolve_dp *p, int level, int32_t m, int64_t l)
{
    return p->optp[row(p, level, m) + l];
}

static double opt0(const ebb_h_revolve_dp *p, int32_t m, int64_t l)
{
    return l == 0 ? p->costs.reverse : p->costs.write[0] + optp(p, 0, m, l);
}

static double opt1(const ebb_h_revolve_dp *p, int32_t m, int64_t l)
{
    double mem = opt0(p, p->c, l);
    if (m == 0 || l == 0)
        return mem;
    double disk = p->costs.write[1] + optp(p, 1, m, l);
    return disk < mem ? disk : mem;
}

static double opt_at(const ebb_h_revolve_dp *p, int level, int32_t m, int64_t l)
{
    return level == 0 ? opt0(p, m, l) : opt1(p, m, l);
}

/* j + opt_k(l - j, m - 1) + read_k + optp_k(j - 1, m) */
static double split_cost(const ebb_h_revolve_dp *p, int level, int32_t m, int64_t l, int64_t j,
                         const double *own)
{
    return (double)j + opt_at(p, level, m - 1, l - j) + p->costs.read[level] + own[j - 1];
}

/* Range minimum over a growing array (a sparse table: O(1) per query,
 * O(log n) per appended value), for the least increment of opt or optp over
 * a range of lengths. Values are kept as floats rounded down, so a minimum
 * is never above the true one and the bound stays a bound. */
typedef struct {
    int levels;
    float *t;            /* levels rows of n */
    const uint8_t *lg;   /* floor(log2(len)) for len <= n */
    int64_t n;
} min_table;

static int table_alloc(min_table *m, int64_t n, const uint8_t *lg)
{
    m->n = n;
    m->lg = lg;
    m->levels = lg[n] + 1;
    m->t = malloc((size_t)m->levels * (size_t)n * sizeof *m->t);
    return m->t ? 0 : -1;
}

static void table_append(min_table *m, int64_t i, double v)
{
    float f = (float)v;
    if ((double)f > v)
        f = nextafterf(f, -INFINITY);
    m->t[i] = f;
    for (int k = 1; k < m->levels; k++) {
        int64_t start = i - ((int64_t)1 << k) + 1;
        if (start < 0)
            break;
        float x = m->t[(int64_t)(k - 1) * m->n + start];
        float y = m->t[(int64_t)(k - 1) * m->n + start + ((int64_t)1 << (k - 1))];
        m->t[(int64_t)k * m->n + start] = x < y ? x : y;
    }
}

/* Least value over [lo, hi], both appended; hi >= lo. */
static double table_min(const min_table *m, int64_t lo, int64_t hi)
{
    int k = m->lg[hi - lo + 1];
    float x = m->t[(int64_t)k * m->n + lo];
    float y = m->t[(int64_t)k * m->n + hi - ((int64_t)1 << k) + 1];
    return x < y ? x : y;
}

/* What the search of one row needs. */
typedef struct {
    const ebb_h_revolve_dp *p;
    int level;
    int32_t m;
    const double *own;   /* optp of this row, filled up to l - 1 */
    min_table dg, dh;    /* increments of opt(., m - 1) and of this row's optp */
} search;

/* Over splits a .. b (l fixed), the cost j + g(l - j) + read + h(j - 1) is
 * at least its value with g and h replaced by lines through g(l - b) and
 * h(a - 1) with their least increments over the range as slopes; a line is
 * least at an end. On a stretch where both are straight the bound is exact,
 * so equal-cost plateaus are cut off as a whole. */
static double lower_bound(const search *q, int64_t l, int64_t a, int64_t b)
{
    double g = opt_at(q->p, q->level, q->m - 1, l - b);
    double base = g + q->p->costs.read[q->level] + q->own[a - 1];
    if (a == b)
        return base + (double)a;
    double sg = table_min(&q->dg, l - b, l - a - 1);
    double sh = table_min(&q->dh, a - 1, b - 2);
    double w = (double)(b - a);
    return base + fmin((double)a + w * sg, (double)b + w * sh);
}

/* The best split of [1, l - 1]: every split (exact), or a branch and bound
 * on lower_bound seeded with the previous length's split (the default; it
 * finds the same optimum, up to rounding in the last bits). */
static int64_t best_split(search *q, int64_t l, int exact, int64_t hint, double *value)
{
    const ebb_h_revolve_dp *p = q->p;
    int64_t best_j = hint < 1 ? 1 : hint > l - 1 ? l - 1 : hint;
    double best = split_cost(p, q->level, q->m, l, best_j, q->own);
    if (exact) {
        for (int64_t j = 1; j <= l - 1; j++) {
            double v = split_cost(p, q->level, q->m, l, j, q->own);
            if (v < best) {
                best = v;
                best_j = j;
            }
        }
        *value = best;
        return best_j;
    }
    int64_t lo[160], hi[160];
    int top = 0;
    lo[top] = 1;
    hi[top++] = l - 1;
    while (top > 0) {
        int64_t a = lo[--top], b = hi[top];
        if (lower_bound(q, l, a, b) >= best)
            continue;
        if (b - a < 8) {
            for (int64_t j = a; j <= b; j++) {
                double v = split_cost(p, q->level, q->m, l, j, q->own);
                if (v < best) {
                    best = v;
                    best_j = j;
                }
            }
            continue;
        }
        /* Halves, the one holding the best split so far popped first; the
         * stack grows by one per halving, at most 63 deep. */
        int64_t mid = a + (b - a) / 2;
        int left_first = best_j <= mid;
        lo[top] = left_first ? mid + 1 : a;
        hi[top++] = left_first ? b : mid;
        lo[top] = left_first ? a : mid + 1;
        hi[top++] = left_first ? mid : b;
    }
    *value = best;
    return best_j;
}

/* Fills row (level, m); rows with fewer slots are complete. */
static int fill_row(ebb_h_revolve_dp *p, int level, int32_t m, int exact)
{
    const ebb_h_revolve_costs *c = &p->costs;
    double *own = p->optp + row(p, level, m);
    int32_t *choice = p->split + row(p, level, m);
    int splits = p->n >= 3 && (level == 1 || m >= 2);
    search q = {.p = p, .level = level, .m = m, .own = own};
    if (splits && !exact) {
        if (table_alloc(&q.dg, p->n, p->lg) || table_alloc(&q.dh, p->n, p->lg)) {
            free(q.dg.t);
            free(q.dh.t);
            return -1;
        }
        for (int64_t x = 0; x + 1 < p->n; x++)
            table_append(&q.dg, x, opt_at(p, level, m - 1, x + 1) - opt_at(p, level, m - 1, x));
    }
    int64_t hint = 1; /* best split of the previous length */
    for (int64_t l = 0; l < p->n; l++) {
        double best;
        if (l == 0)
            best = c->reverse;
        else if (level == 0)
            best = (double)(l + 1) * c->reverse + (double)l * (double)(l + 1) / 2.0 +
                   (double)l * c->read[0];
        else
            best = opt0(p, p->c, l);
        int64_t arg = 0;
        if (splits && l >= 2) {
            double v;
            hint = best_split(&q, l, exact, hint, &v);
            if (v < best) {
                best = v;
                arg = hint;
            }
        }
        own[l] = best;
        choice[l] = (int32_t)arg;
        if (splits && !exact && l >= 1)
            table_append(&q.dh, l - 1, own[l] - own[l - 1]);
    }
    free(q.dg.t);
    free(q.dh.t);
    return 0;
}

ebb_status ebb_h_revolve_dp_create(int64_t steps, int32_t memory_slots, int32_t disk_slots,
                                   const ebb_h_revolve_costs *costs, int exact,
                                   ebb_h_revolve_dp **out)
{
    if (!out || !costs)
        return ebb_fail(EBB_ERR_INVALID_ARG, "h-revolve: NULL argument");
    *out = NULL;
    if (steps < 1 || memory_slots < 1 || disk_slots < 0)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "h-revolve needs steps >= 1, memory slots >= 1 and disk slots >= 0, "
                        "got %lld, %d and %d",
                        (long long)steps, memory_slots, disk_slots);
    const double *all[] = {&costs->write[0], &costs->write[1], &costs->read[0], &costs->read[1],
                           &costs->reverse};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (!(*all[i] >= 0) || isinf(*all[i]))
            return ebb_fail(EBB_ERR_INVALID_ARG,
                            "h-revolve: write, read and reverse costs must be finite and >= 0, "
                            "got %g",
                            *all[i]);
    if (steps > INT32_MAX)
        return ebb_fail(EBB_ERR_INVALID_ARG, "h-revolve: %lld steps exceed the table's %d",
                        (long long)steps, INT32_MAX);
    if (memory_slots > steps)
        memory_slots = (int32_t)steps;
    if (disk_slots > steps)
        disk_slots = (int32_t)steps;
    if (memory_slots >= steps - 1 && costs->write[0] == 0 && costs->read[0] == 0) {
        /* the optimum needs no table: store every state in memory */
        ebb_h_revolve_dp *p = calloc(1, sizeof *p);
        if (!p)
            return ebb_fail(EBB_ERR_NO_MEMORY, "h-revolve: cannot allocate the programme");
        *p = (ebb_h_revolve_dp){.n = steps, .c = memory_slots, .d = disk_slots,
                                .costs = *costs, .all_memory = 1};
        *out = p;
        return EBB_OK;
    }
    int64_t rows = (int64_t)memory_slots + disk_slots;
    if (rows * steps > EBB_H_REVOLVE_MAX_ENTRIES)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "h-revolve: (%d memory + %d disk slots) x %lld steps exceeds the table "
                        "limit of %lld entries; give it fewer slots (smaller budgets) or fewer "
                        "steps, or choose another strategy",
                        memory_slots, disk_slots, (long long)steps,
                        (long long)EBB_H_REVOLVE_MAX_ENTRIES);
    ebb_h_revolve_dp *p = calloc(1, sizeof *p);
    if (!p)
        return ebb_fail(EBB_ERR_NO_MEMORY, "h-revolve: cannot allocate the programme");
    p->n = steps;
    p->c = memory_slots;
    p->d = disk_slots;
    p->costs = *costs;
    p->optp = malloc((size_t)(rows * steps) * sizeof *p->optp);
    p->split = malloc((size_t)(rows * steps) * sizeof *p->split);
    p->lg = malloc((size_t)steps + 1);
    if (!p->optp || !p->split || !p->lg) {
        ebb_h_revolve_dp_destroy(p);
        return ebb_fail(EBB_ERR_NO_MEMORY, "h-revolve: cannot allocate a table of %lld entries",
                        (long long)(rows * steps));
    }
    p->lg[0] = 0;
    for (int64_t len = 1; len <= steps; len++)
        p->lg[len] = (uint8_t)(len == 1 ? 0 : p->lg[len / 2] + 1);
    int failed = 0;
    for (int32_t m = 1; m <= memory_slots && !failed; m++)
        failed = fill_row(p, 0, m, exact);
    for (int32_t m = 1; m <= disk_slots && !failed; m++)
        failed = fill_row(p, 1, m, exact);
    if (failed) {
        ebb_h_revolve_dp_destroy(p);
        return ebb_fail(EBB_ERR_NO_MEMORY, "h-revolve: cannot allocate the search trees for "
                        "%lld steps", (long long)steps);
    }
    *out = p;
    return EBB_OK;
}

void ebb_h_revolve_dp_destroy(ebb_h_revolve_dp *dp)
{
    if (!dp)
        return;
    free(dp->optp);
    free(dp->split);
    free(dp->lg);
    free(dp);
}

double ebb_h_revolve_dp_cost(const ebb_h_revolve_dp *dp)
{
    /* The programme leaves out the last forward step of the first sweep
     * (x_n, the loss), which ebb runs once. */
    if (dp->all_memory) /* n forward steps, n reverse steps, nothing else */
        return (double)dp->n * (1.0 + dp->costs.reverse);
    return 1.0 + opt1(dp, dp->d, dp->n - 1);
}

int32_t ebb_h_revolve_dp_split(const ebb_h_revolve_dp *dp, int level, int32_t m, int64_t l)
{
    if (dp->all_memory) /* one step, store the next state */
        return 1;
    return dp->split[row(dp, level, m) + l];
}

int ebb_h_revolve_dp_use_disk(const ebb_h_revolve_dp *dp, int32_t m, int64_t l)
{
    if (m == 0 || l == 0 || dp->all_memory)
        return 0;
    return dp->costs.write[1] + optp(dp, 1, m, l) < opt0(dp, dp->c, l);
}
