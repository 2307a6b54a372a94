/* The exact dynamic program for heterogeneous chains (chain_dp.h). */
#include "schedules/chain_dp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"

static int64_t row(const chain_dp *dp, int32_t s, int32_t k, int32_t t)
{
    return (int64_t)dp->base[(int64_t)s * (dp->n + 1) + t] + (k - s);
}

/* The cell of (s, k, t, m) with x_s in the fast tier (v = 0) or the slow
 * one (v = 1). */
static int64_t at(const chain_dp *dp, int32_t s, int32_t k, int32_t t, int32_t m, int v)
{
    return (row(dp, s, k, t) * dp->tiers + v) * (dp->levels + 1) + m;
}

static double R(const chain_dp *dp, int32_t s, int32_t k, int32_t t, int32_t m, int v)
{
    return dp->cost[at(dp, s, k, t, m, v)];
}

double chain_dp_cost(const chain_dp *dp, int32_t s, int32_t k, int32_t t, int32_t m)
{
    return R(dp, s, k, t, m, 0);
}

double chain_dp_cost_in(const chain_dp *dp, int32_t s, int32_t k, int32_t t, int32_t m, int v)
{
    return R(dp, s, k, t, m, v);
}

/* x_s in the slow tier and live when its part starts: the part's first
 * restore reads nothing. */
static double R_live(const chain_dp *dp, int32_t s, int32_t k, int32_t t, int32_t m)
{
    return k == t ? 0 : R(dp, s, k, t, m, 1) - dp->in.rd[s];
}

static int32_t pack(int kind, int32_t j, int32_t kk, int slow)
{
    return kind | j << 3 | kk << 16 | slow << 29;
}

chain_choice chain_dp_choice_in(const chain_dp *dp, int32_t s, int32_t k, int32_t t, int32_t m,
                                int v)
{
    int32_t c = dp->choice[at(dp, s, k, t, m, v)];
    return (chain_choice){.kind = c & 7, .j = (c >> 3) & 0x1fff, .kk = (c >> 16) & 0x1fff,
                          .slow = (c >> 29) & 1};
}

chain_choice chain_dp_choice(const chain_dp *dp, int32_t s, int32_t k, int32_t t, int32_t m)
{
    return chain_dp_choice_in(dp, s, k, t, m, 0);
}

void chain_dp_free(chain_dp *dp)
{
    free(dp->pre);
    free(dp->base);
    free(dp->cost);
    free(dp->choice);
    free(dp->scratch);
    *dp = (chain_dp){0};
}

double chain_dp_reverse(const chain_dp *dp, int32_t i, int32_t M)
{
    const double *by_m = dp->in.rev_by_m ? dp->in.rev_by_m[i] : NULL;
    if (!by_m)
        return dp->in.rev[i];
    return by_m[M < dp->levels ? M : dp->levels];
}

/* x_j, just reached and live, stored for the part (j, kk, t) with m units
 * free: in the fast tier, or written to the slow one. The cost; *slow
 * says which. */
static double stored(const chain_dp *dp, int32_t j, int32_t kk, int32_t t, int32_t m, int *slow)
{
    double c = dp->in.size[j] <= m ? R(dp, j, kk, t, m - dp->in.size[j], 0) : HUGE_VAL;
    *slow = 0;
    if (dp->in.wr) {
        double w = dp->in.wr[j] + R_live(dp, j, kk, t, m);
        if (w < c) {
            c = w;
            *slow = 1;
        }
    }
    return c;
}

/* One cell, x_s in tier v, without moving x_s between the tiers: every
 * choice but SPLIT, R(s, k, t, m) from the cells of shorter spans. */
static void solve_cell(chain_dp *dp, int32_t s, int32_t k, int32_t t, int32_t m, int v)
{
    const double *pre = dp->pre;
    const int32_t *size = dp->in.size;
    const int32_t L = dp->levels;
    int64_t i = at(dp, s, k, t, m, v);
    /* making x_s live, and the fast units it takes */
    const double c0 = v ? dp->in.rd[s] : 0;
    const int32_t own = v ? 0 : size[s];
    double best = HUGE_VAL;
    int32_t how = pack(CHAIN_NONE, 0, 0, 0);
    int slow = 0;
    if (t - 1 == s) {
        best = c0 + chain_dp_reverse(dp, s, m + own);
        how = pack(CHAIN_LAST, 0, 0, 0);
    } else {
        double c = c0 + pre[t - 1] - pre[s] + chain_dp_reverse(dp, t - 1, m) +
                   R(dp, s, k, t - 1, m, v);
        if (c < best) {
            best = c;
            how = pack(CHAIN_LAST, 0, 0, 0);
        }
    }
    if (k > s && k < t) {
        double c = HUGE_VAL;
        int32_t free_m = m + own < L ? m + own : L;
        if (k == t - 1)
            c = chain_dp_reverse(dp, k, m + own);
        else
            c = stored(dp, k, k, t, free_m, &slow);
        c += c0 + pre[k] - pre[s];
        if (c < best) {
            best = c;
            how = pack(CHAIN_MOVE, 0, 0, k == t - 1 ? 0 : slow);
        }
    }
    if (dp->in.tape && v == 0 && k == s && s < t) {
        /* a tape holds x_s: taped only from the fast tier */
        const int32_t *tape = dp->in.tape;
        double c = HUGE_VAL;
        int32_t direct = 0;
        if (t - 1 == s) {
            if (tape[s] <= m)
                c = dp->in.bwd[s] + (t == dp->n && dp->in.ends_chain ? 0 : dp->in.fwd[s]);
        } else if (tape[s] <= m) {
            /* x_{s+1} is live: stored for its part, or, when it is the
             * last step left, reversed at once (j = 1) */
            c = stored(dp, s + 1, s + 1, t, m - tape[s], &slow);
            if (t - 2 == s && chain_dp_reverse(dp, s + 1, m - tape[s]) < c) {
                c = chain_dp_reverse(dp, s + 1, m - tape[s]);
                direct = 1;
                slow = 0;
            }
            c += dp->in.fwd[s] + dp->in.bwd[s];
        }
        if (c < best) {
            best = c;
            how = pack(CHAIN_TAPE, direct, 0, slow);
        }
    }
    dp->cost[i] = best;
    dp->choice[i] = how;
}

/* best[m] = min(best[m], to_j + part[m] + rest[m]), how[m] = split where
 * that took it, m < count (the rows are distinct): two cells at a time
 * (the compiler's vector extension, SSE2 on x86-64), the mins without a
 * branch. */
typedef double dp_v2d __attribute__((vector_size(16)));
typedef int64_t dp_v2i __attribute__((vector_size(16)));

static void split_into(double *restrict best, int32_t *restrict how,
                       const double *restrict part, const double *restrict rest, double to_j,
                       int32_t split, int32_t count)
{
    const dp_v2d tj = {to_j, to_j};
    int32_t m = 0;
    for (; m + 2 <= count; m += 2) {
        dp_v2d p, r, b;
        memcpy(&p, part + m, sizeof p);
        memcpy(&r, rest + m, sizeof r);
        memcpy(&b, best + m, sizeof b);
        dp_v2d c = tj + p + r;
        dp_v2i less = c < b;
        if (!(less[0] | less[1]))
            continue;
        dp_v2i merged = (less & (dp_v2i)c) | (~less & (dp_v2i)b);
        memcpy(best + m, &merged, sizeof merged);
        if (less[0])
            how[m] = split;
        if (less[1])
            how[m + 1] = split;
    }
    for (; m < count; m++) {
        double c = to_j + part[m] + rest[m];
        if (c < best[m]) {
            best[m] = c;
            how[m] = split;
        }
    }
}

/* The row (s, k, t) in tier v, every m: each cell's other choices, then
 * SPLIT: advance to x_j, store it, let x_j's part reverse kk .. t-1 and
 * reverse k .. kk-1 from x_s. The choices come in the same order for each
 * m (j, then kk, rising; a later one taken only where it costs less), m
 * innermost so that both rows read run through memory in order. */
static void solve_row(chain_dp *dp, int32_t s, int32_t k, int32_t t, int v)
{
    const int32_t L = dp->levels;
    double *best = &dp->cost[at(dp, s, k, t, 0, v)];
    int32_t *how = &dp->choice[at(dp, s, k, t, 0, v)];
    if (k == t) { /* nothing left: x_s is freed (s may be n: no step of its own) */
        for (int32_t m = 0; m <= L; m++) {
            best[m] = 0;
            how[m] = pack(CHAIN_NONE, 0, 0, 0);
        }
        return;
    }
    for (int32_t m = 0; m <= L; m++)
        solve_cell(dp, s, k, t, m, v);
    const int32_t *size = dp->in.size;
    const double c0 = v ? dp->in.rd[s] : 0;
    /* with tapes, storing x_{t-1} lets its part tape step t-1 */
    int32_t last_j = dp->in.tape ? t - 1 : t - 2;
    for (int32_t j = s + 1; j <= last_j; j++) {
        double to_j = c0 + dp->pre[j] - dp->pre[s];
        /* one tier: x_j stored in the fast one, where its units are free */
        int32_t from = dp->in.wr ? 0 : size[j];
        for (int32_t kk = j > k ? j : k; kk <= t - 1; kk++) {
            const double *rest = &dp->cost[at(dp, s, k, kk, 0, v)];
            if (dp->in.wr) {
                for (int32_t m = from; m <= L; m++) {
                    int slow = 0;
                    double c = to_j + stored(dp, j, kk, t, m, &slow) + rest[m];
                    if (c < best[m]) {
                        best[m] = c;
                        how[m] = pack(CHAIN_SPLIT, j, kk, slow);
                    }
                }
                continue;
            }
            split_into(best + from, how + from, &dp->cost[at(dp, j, kk, t, 0, 0)],
                       rest + from, to_j, pack(CHAIN_SPLIT, j, kk, 0), L + 1 - from);
        }
    }
}

/* A row's cells once every m is solved in both tiers: x_s may also move,
 * fast to slow (DEMOTE, a write) or slow to fast (PROMOTE, a read), to a
 * cell solved without moving it (moving it back never pays). */
static void move_between_tiers(chain_dp *dp, int32_t s, int32_t k, int32_t t)
{
    if (k == t) /* s may be n: no state of its own */
        return;
    const int32_t L = dp->levels, size = dp->in.size[s];
    double *fast = &dp->cost[at(dp, s, k, t, 0, 0)], *slow = &dp->cost[at(dp, s, k, t, 0, 1)];
    int32_t *fast_how = &dp->choice[at(dp, s, k, t, 0, 0)];
    int32_t *slow_how = &dp->choice[at(dp, s, k, t, 0, 1)];
    double *fast0 = dp->scratch, *slow0 = dp->scratch + (L + 1);
    for (int32_t m = 0; m <= L; m++) {
        fast0[m] = fast[m];
        slow0[m] = slow[m];
    }
    for (int32_t m = 0; m <= L; m++) {
        int32_t up = m + size < L ? m + size : L;
        double c = dp->in.wr[s] + slow0[up];
        if (c < fast[m]) {
            fast[m] = c;
            fast_how[m] = pack(CHAIN_DEMOTE, 0, 0, 0);
        }
        if (size <= m && dp->in.rd[s] + fast0[m - size] < slow[m]) {
            slow[m] = dp->in.rd[s] + fast0[m - size];
            slow_how[m] = pack(CHAIN_PROMOTE, 0, 0, 0);
        }
    }
}

uint64_t chain_dp_rows(int32_t n)
{
    return (uint64_t)(n + 1) * (uint64_t)(n + 2) * (uint64_t)(n + 3) / 6;
}

ebb_status chain_dp_reserve(chain_dp *dp, int32_t max_n, int32_t levels, int32_t tiers)
{
    *dp = (chain_dp){.max_n = max_n, .levels = levels, .tiers = tiers};
    if (max_n < 1 || max_n > CHAIN_DP_MAX_FORCED || levels < 0)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "the exact chain program takes 1 .. %d steps and a budget >= 0 units, "
                        "got %d steps and %d units",
                        CHAIN_DP_MAX_FORCED, max_n, levels);
    size_t cells = (size_t)chain_dp_rows(max_n) * (size_t)tiers * (size_t)(levels + 1);
    dp->pre = malloc(sizeof *dp->pre * (size_t)(max_n + 1));
    dp->scratch = malloc(sizeof *dp->scratch * 2 * (size_t)(levels + 1));
    dp->base = malloc(sizeof *dp->base * (size_t)(max_n + 1) * (size_t)(max_n + 1));
    dp->cost = malloc(sizeof *dp->cost * cells);
    dp->choice = malloc(sizeof *dp->choice * cells);
    if (!dp->pre || !dp->base || !dp->cost || !dp->choice || !dp->scratch) {
        chain_dp_free(dp);
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the chain program's table (%d steps, "
                        "%d memory units): fewer units (memory_levels) need less",
                        max_n, levels);
    }
    return EBB_OK;
}

void chain_dp_solve(chain_dp *dp, const chain_dp_steps *in)
{
    int32_t n = in->n;
    dp->n = n;
    dp->in = *in;
    dp->pre[0] = 0;
    for (int32_t i = 0; i < n; i++)
        dp->pre[i + 1] = dp->pre[i] + in->fwd[i];
    int64_t rows = 0;
    for (int32_t s = 0; s <= n; s++)
        for (int32_t t = s; t <= n; t++) {
            dp->base[(int64_t)s * (n + 1) + t] = (int32_t)rows;
            rows += t - s + 1;
        }
    int32_t tiers = dp->tiers;
    for (int32_t d = 0; d <= n; d++)
        for (int32_t s = 0; s + d <= n; s++)
            for (int32_t k = s; k <= s + d; k++) {
                for (int v = 0; v < tiers; v++)
                    solve_row(dp, s, k, s + d, v);
                if (tiers > 1)
                    move_between_tiers(dp, s, k, s + d);
            }
}

ebb_status chain_dp_build(chain_dp *dp, const chain_dp_steps *in, int32_t levels)
{
    ebb_status st = chain_dp_reserve(dp, in->n, levels, in->wr ? 2 : 1);
    if (st == EBB_OK)
        chain_dp_solve(dp, in);
    return st;
}

double chain_dp_total(const chain_dp *dp)
{
    int32_t n = dp->n;
    if (n == 1) {
        double r = chain_dp_reverse(dp, 0, dp->levels);
        /* the tape holds x_0 beside its own bytes */
        if (dp->in.tape && (int64_t)dp->in.tape[0] + dp->in.size[0] <= dp->levels &&
            dp->in.bwd[0] < r)
            r = dp->in.bwd[0];
        return dp->in.fwd[0] + r;
    }
    /* The first sweep runs step n-1 once more than the table counts: the
     * table reverses t-1 from the state before it, the sweep reaches x_n. */
    return chain_dp_root(dp, NULL) + dp->in.fwd[n - 1];
}

double chain_dp_root(const chain_dp *dp, int *x0_slow)
{
    int32_t n = dp->n, L = dp->levels;
    double c = R(dp, 0, 0, n, L - dp->in.size[0], 0);
    if (x0_slow)
        *x0_slow = 0;
    if (dp->in.wr && dp->in.wr[0] + R_live(dp, 0, 0, n, L) < c) {
        c = dp->in.wr[0] + R_live(dp, 0, 0, n, L);
        if (x0_slow)
            *x0_slow = 1;
    }
    return c;
}
