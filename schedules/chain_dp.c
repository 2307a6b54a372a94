/* The exact dynamic program for heterogeneous chains (chain_dp.h). */
#include "schedules/chain_dp.h"

#include <math.h>
#include <stdlib.h>

#include "common/error_internal.h"

static int64_t row(const chain_dp *dp, int32_t s, int32_t k, int32_t t)
{
    return (int64_t)dp->base[(int64_t)s * (dp->n + 1) + t] + (k - s);
}

static double *cell(const chain_dp *dp, int32_t s, int32_t k, int32_t t, int32_t m)
{
    return &dp->cost[row(dp, s, k, t) * (dp->levels + 1) + m];
}

double chain_dp_cost(const chain_dp *dp, int32_t s, int32_t k, int32_t t, int32_t m)
{
    return *cell(dp, s, k, t, m);
}

static int32_t pack(int kind, int32_t j, int32_t kk)
{
    return kind | j << 3 | kk << 17;
}

chain_choice chain_dp_choice(const chain_dp *dp, int32_t s, int32_t k, int32_t t, int32_t m)
{
    int32_t c = dp->choice[row(dp, s, k, t) * (dp->levels + 1) + m];
    return (chain_choice){.kind = c & 7, .j = (c >> 3) & 0x3fff, .kk = (c >> 17) & 0x3fff};
}

void chain_dp_free(chain_dp *dp)
{
    free(dp->pre);
    free(dp->base);
    free(dp->cost);
    free(dp->choice);
    *dp = (chain_dp){0};
}

double chain_dp_reverse(const chain_dp *dp, int32_t i, int32_t M)
{
    const double *by_m = dp->in.rev_by_m ? dp->in.rev_by_m[i] : NULL;
    if (!by_m)
        return dp->in.rev[i];
    return by_m[M < dp->levels ? M : dp->levels];
}

/* One cell: R(s, k, t, m) from the cells of shorter spans. */
static void solve_cell(chain_dp *dp, int32_t s, int32_t k, int32_t t, int32_t m)
{
    const double *pre = dp->pre;
    const int32_t *size = dp->in.size;
    const int32_t L = dp->levels;
    double best = HUGE_VAL;
    int32_t how = pack(CHAIN_NONE, 0, 0);
    if (k == t) {
        best = 0;
    } else if (t - 1 == s) {
        best = chain_dp_reverse(dp, s, m + size[s]);
        how = pack(CHAIN_LAST, 0, 0);
    } else {
        double c = pre[t - 1] - pre[s] + chain_dp_reverse(dp, t - 1, m) +
                   *cell(dp, s, k, t - 1, m);
        if (c < best) {
            best = c;
            how = pack(CHAIN_LAST, 0, 0);
        }
    }
    if (k > s && k < t) {
        double c = HUGE_VAL;
        if (k == t - 1) {
            c = pre[k] - pre[s] + chain_dp_reverse(dp, k, m + size[s]);
        } else if (size[k] <= m + size[s]) {
            int32_t left = m + size[s] - size[k];
            c = pre[k] - pre[s] + *cell(dp, k, k, t, left < L ? left : L);
        }
        if (c < best) {
            best = c;
            how = pack(CHAIN_MOVE, 0, 0);
        }
    }
    if (dp->in.tape && k == s && s < t) {
        const int32_t *tape = dp->in.tape;
        double c = HUGE_VAL;
        int32_t direct = 0;
        if (t - 1 == s) {
            if (tape[s] <= m)
                c = dp->in.bwd[s] + (t == dp->n && dp->in.ends_chain ? 0 : dp->in.fwd[s]);
        } else if (tape[s] <= m) {
            /* x_{s+1} is live: stored for its part, or, when it is the
             * last step left, reversed at once (j = 1) */
            if ((int64_t)tape[s] + size[s + 1] <= m)
                c = *cell(dp, s + 1, s + 1, t, m - tape[s] - size[s + 1]);
            if (t - 2 == s && chain_dp_reverse(dp, s + 1, m - tape[s]) < c) {
                c = chain_dp_reverse(dp, s + 1, m - tape[s]);
                direct = 1;
            }
            c += dp->in.fwd[s] + dp->in.bwd[s];
        }
        if (c < best) {
            best = c;
            how = pack(CHAIN_TAPE, direct, 0);
        }
    }
    if (k < t) {
        /* with tapes, storing x_{t-1} lets its part tape step t-1 */
        int32_t last_j = dp->in.tape ? t - 1 : t - 2;
        for (int32_t j = s + 1; j <= last_j; j++) {
            if (size[j] > m)
                continue;
            double to_j = pre[j] - pre[s];
            for (int32_t kk = j > k ? j : k; kk <= t - 1; kk++) {
                double c = to_j + *cell(dp, j, kk, t, m - size[j]) + *cell(dp, s, k, kk, m);
                if (c < best) {
                    best = c;
                    how = pack(CHAIN_SPLIT, j, kk);
                }
            }
        }
    }
    int64_t at = row(dp, s, k, t) * (L + 1) + m;
    dp->cost[at] = best;
    dp->choice[at] = how;
}

uint64_t chain_dp_rows(int32_t n)
{
    return (uint64_t)(n + 1) * (uint64_t)(n + 2) * (uint64_t)(n + 3) / 6;
}

ebb_status chain_dp_reserve(chain_dp *dp, int32_t max_n, int32_t levels)
{
    *dp = (chain_dp){.max_n = max_n, .levels = levels};
    if (max_n < 1 || max_n > CHAIN_DP_MAX_STEPS || levels < 0)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "the exact chain program takes 1 .. %d steps and a budget >= 0 units, "
                        "got %d steps and %d units",
                        CHAIN_DP_MAX_STEPS, max_n, levels);
    size_t cells = (size_t)chain_dp_rows(max_n) * (size_t)(levels + 1);
    dp->pre = malloc(sizeof *dp->pre * (size_t)(max_n + 1));
    dp->base = malloc(sizeof *dp->base * (size_t)(max_n + 1) * (size_t)(max_n + 1));
    dp->cost = malloc(sizeof *dp->cost * cells);
    dp->choice = malloc(sizeof *dp->choice * cells);
    if (!dp->pre || !dp->base || !dp->cost || !dp->choice) {
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
    for (int32_t d = 0; d <= n; d++)
        for (int32_t s = 0; s + d <= n; s++)
            for (int32_t k = s; k <= s + d; k++)
                for (int32_t m = 0; m <= dp->levels; m++)
                    solve_cell(dp, s, k, s + d, m);
}

ebb_status chain_dp_build(chain_dp *dp, const chain_dp_steps *in, int32_t levels)
{
    ebb_status st = chain_dp_reserve(dp, in->n, levels);
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
    return chain_dp_cost(dp, 0, 0, n, dp->levels - dp->in.size[0]) + dp->in.fwd[n - 1];
}
