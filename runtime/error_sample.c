/*
 * The lossy error estimate (ebb_run_options.error_samples, run.error_samples;
 * docs/compression.md, *The error estimate*): exact copies of a few states
 * taken as the first forward sweep computes them, compared with the states
 * the reverse sweep hands out for the same steps.
 *
 * Which steps: with n known, K = min(error_samples, n) steps at the middles
 * of K equal parts of 0 .. n-1, s_j = floor((2j + 1) n / 2K). With n unknown,
 * every k-th step from x_0 on, k = 1 at first: when the K copies are all
 * taken and another is due, k doubles and the copies of the steps that are
 * no multiple of the new k are dropped, so that the kept ones stay evenly
 * spread over what ran (between K/2 and K of them, one k apart; x_n itself,
 * which no reverse step gets, is never compared).
 *
 * What is compared: the state handed to the reverse callback (or returned by
 * ebb_run_reverse_next) for a sampled step, before the callback may change
 * it, with its copy: bitwise first (equal bytes: an error of exactly 0),
 * then |x~ - x|_2 / |x|_2 in double over the element type's values (|x~ -
 * x|_2 when |x|_2 is 0). An element type of bytes counts the states that
 * differ only.
 *
 * The gradient's estimate: with each copy of x_s the first sweep's step from
 * it, rho_s = |x_{s+1} - x_s|_2 / |x_s|_2, is kept (taken when x_{s+1} is
 * computed, the next call here). Two sums over the compared states: of the
 * sizes, S = sum rho_s e_s, and of the vectors, D = sum rho_s (x~_s - x_s) /
 * |x_s|_2 (one array of doubles a value); the estimate is n / K' sqrt(S
 * |D|_2), K' the states compared (docs/compression.md says why).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/error_internal.h"
#include "runtime/runtime_internal.h"

/* The element type compared: the options', else the first lossy tier's,
 * else any tier's float type, else bytes. */
static int element_of(const ebb_run *run)
{
    if (run->opt.element >= 0)
        return run->opt.element;
    if (rt_tier_lossy(run, EBB_TIER_HOST))
        return (int)run->host_codec.element;
    if (rt_tier_lossy(run, EBB_TIER_DISK))
        return (int)run->codec.element;
    if (run->host_codec.element != EBB_ELEMENT_BYTES)
        return (int)run->host_codec.element;
    return (int)run->codec.element;
}

ebb_status rt_errs_init(ebb_run *run)
{
    rt_errs *e = &run->errs;
    memset(e, 0, sizeof *e);
    e->every = 1;
    e->pending = -1;
    int32_t k = run->opt.error_samples;
    if (k <= 0)
        return EBB_OK;
    /* a GPU state was refused (run_config.c) */
    if (run->opt.steps > 0 && k > run->opt.steps)
        k = (int32_t)run->opt.steps;
    size_t size = run->opt.state_size;
    if (size > SIZE_MAX / (size_t)k)
        return ebb_fail(EBB_ERR_NO_MEMORY, "error_samples = %d copies of %zu-byte states do not "
                        "fit in memory; ask for fewer", (int)k, size);
    e->step = malloc((size_t)k * sizeof *e->step);
    e->rho = calloc((size_t)k, sizeof *e->rho);
    /* mapped as the host pool's slots are, transparent huge pages advised:
     * most of the copies' cost is the first touch of their pages */
    e->bytes = (size_t)k * size;
    void *mem = mmap(NULL, e->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int err = errno;
    if (mem != MAP_FAILED) {
        e->data = mem;
        (void)madvise(mem, e->bytes, MADV_HUGEPAGE);
    }
    if (!e->step || !e->rho || !e->data) {
        rt_errs_free(run);
        return ebb_fail_errno(EBB_ERR_NO_MEMORY, mem == MAP_FAILED ? err : ENOMEM,
                              "error_samples = %d: cannot allocate %d copies of the %zu-byte "
                              "state (%llu bytes); ask for fewer",
                              (int)k, (int)k, size, (unsigned long long)((uint64_t)k * size));
    }
    e->cap = k;
    e->element = element_of(run);
    /* D where a tier is lossy and the values are floats (else no state differs,
       or nothing is measured of it) */
    size_t value = e->element == EBB_ELEMENT_FLOAT64   ? sizeof(double)
                 : e->element == EBB_ELEMENT_FLOAT32 ? sizeof(float)
                                                     : 0;
    if (value && (rt_tier_lossy(run, EBB_TIER_HOST) || rt_tier_lossy(run, EBB_TIER_DISK))) {
        e->values = size / value;
        e->drift_bytes = e->values * sizeof(double);
        mem = mmap(NULL, e->drift_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
                   0);
        if (mem == MAP_FAILED) {
            err = errno;
            rt_errs_free(run);
            return ebb_fail_errno(EBB_ERR_NO_MEMORY, err,
                                  "error_samples = %d: cannot allocate the %zu bytes that sum "
                                  "the sampled errors; ask for none",
                                  (int)k, e->values * sizeof(double));
        }
        e->drift = mem;
    }
    run->info.error_samples = k;
    run->info.error_sample_bytes = (uint64_t)k * size + e->drift_bytes;
    return EBB_OK;
}

void rt_errs_free(ebb_run *run)
{
    free(run->errs.step);
    free(run->errs.rho);
    if (run->errs.data)
        munmap(run->errs.data, run->errs.bytes);
    if (run->errs.drift)
        munmap(run->errs.drift, run->errs.drift_bytes);
    run->errs.drift = NULL;
    run->errs.step = NULL;
    run->errs.rho = NULL;
    run->errs.data = NULL;
    run->errs.cap = 0;
}

/* |a - x|_2 / |x|_2 in double (|a - x|_2 when |x|_2 is 0); *norm: |x|_2. */
static double rel_of(double dd, double xx, double *norm)
{
    *norm = sqrt(xx);
    return xx > 0 ? sqrt(dd / xx) : sqrt(dd);
}

static double rel_f64(const double *a, const double *x, size_t count, double *norm)
{
    double dd = 0, xx = 0;
    for (size_t i = 0; i < count; i++) {
        double d = a[i] - x[i];
        dd += d * d;
        xx += x[i] * x[i];
    }
    return rel_of(dd, xx, norm);
}

static double rel_f32(const float *a, const float *x, size_t count, double *norm)
{
    double dd = 0, xx = 0;
    for (size_t i = 0; i < count; i++) {
        double d = (double)a[i] - (double)x[i];
        dd += d * d;
        xx += (double)x[i] * (double)x[i];
    }
    return rel_of(dd, xx, norm);
}

/* |a - x|_2 / |x|_2 over the state's values of the element type (0 for
 * bytes); *norm: |x|_2 (0 for bytes). */
static double rel_error(int element, const void *a, const void *x, size_t size, double *norm)
{
    *norm = 0;
    if (element == EBB_ELEMENT_FLOAT64)
        return rel_f64(a, x, size / sizeof(double), norm);
    if (element == EBB_ELEMENT_FLOAT32)
        return rel_f32(a, x, size / sizeof(float), norm);
    return 0;
}

/* D += w (a - x); returns |D|_2. */
static double drift_add(rt_errs *e, double w, const void *a, const void *x)
{
    double dd = 0;
    for (size_t i = 0; i < e->values; i++) {
        double d = e->element == EBB_ELEMENT_FLOAT64
                       ? ((const double *)a)[i] - ((const double *)x)[i]
                       : (double)((const float *)a)[i] - (double)((const float *)x)[i];
        e->drift[i] += w * d;
        dd += e->drift[i] * e->drift[i];
    }
    return sqrt(dd);
}

/* n known: the j-th sampled step. */
static int64_t known_step(const rt_errs *e, int64_t n, int32_t j)
{
    /* (2j + 1) n / 2K without overflow: n = q 2K + r */
    int64_t twice = 2 * (int64_t)e->cap, odd = 2 * (int64_t)j + 1;
    return odd * (n / twice) + odd * (n % twice) / twice;
}

/* n unknown: k doubles, the copies of steps no multiple of it go. */
static void thin(ebb_run *run)
{
    rt_errs *e = &run->errs;
    size_t size = run->opt.state_size;
    e->every *= 2;
    int32_t kept = 0;
    for (int32_t i = 0; i < e->count; i++) {
        if (e->step[i] % e->every)
            continue;
        if (kept != i) {
            e->step[kept] = e->step[i];
            e->rho[kept] = e->rho[i];
            memcpy(e->data + (size_t)kept * size, e->data + (size_t)i * size, size);
        }
        kept++;
    }
    e->count = kept;
}

ebb_status rt_errs_computed(ebb_run *run, int64_t step, int32_t b)
{
    rt_errs *e = &run->errs;
    if (e->cap == 0)
        return EBB_OK;
    ebb_status st;
    size_t size = run->opt.state_size;
    if (e->pending >= 0) { /* x_step = x_{s+1} of the last copy: the step's change */
        if ((st = rt_settle(run, run->state, b)) != EBB_OK)
            return st;
        double norm;
        e->rho[e->pending] = rel_error(e->element, rt_buf_ptr(run, run->state, b),
                                       e->data + (size_t)e->pending * size, size, &norm);
        e->pending = -1;
    }
    int64_t n = run->opt.steps;
    if (n > 0) {
        if (e->count >= e->cap || step != known_step(e, n, e->count))
            return EBB_OK;
    } else {
        if (step % e->every)
            return EBB_OK;
        if (e->count == e->cap)
            thin(run);
        if (step % e->every || e->count == e->cap) /* (K = 1 keeps x_0 alone) */
            return EBB_OK;
    }
    if ((st = rt_settle(run, run->state, b)) != EBB_OK)
        return st;
    memcpy(e->data + (size_t)e->count * size, rt_buf_ptr(run, run->state, b), size);
    e->rho[e->count] = 0;
    e->pending = e->count;
    e->step[e->count++] = step;
    return EBB_OK;
}

ebb_status rt_errs_compare(ebb_run *run, int64_t step, int32_t b)
{
    rt_errs *e = &run->errs;
    if (e->cap == 0 || e->count == 0)
        return EBB_OK;
    int32_t lo = 0, hi = e->count - 1; /* the copies are in step order */
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (e->step[mid] < step)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (e->step[lo] != step)
        return EBB_OK;
    ebb_status st = rt_settle(run, run->state, b);
    if (st != EBB_OK)
        return st;
    size_t size = run->opt.state_size;
    const unsigned char *got = rt_buf_ptr(run, run->state, b);
    const unsigned char *exact = e->data + (size_t)lo * size;
    double rel = 0;
    if (memcmp(got, exact, size) != 0) {
        run->stats.error_samples_differ++;
        double x;
        rel = rel_error(e->element, got, exact, size, &x);
        if (e->drift)
            e->drift_norm = drift_add(e, e->rho[lo] / (x > 0 ? x : 1.0), got, exact);
    }
    e->sum_rho_err += e->rho[lo] * rel;
    run->stats.error_samples++;
    if (!(rel <= run->stats.state_rel_error_max)) /* a NaN is kept */
        run->stats.state_rel_error_max = rel;
    e->sum_sq += rel * rel;
    run->stats.state_rel_error_rms = sqrt(e->sum_sq / (double)run->stats.error_samples);
    /* bytes: S is 0 (nothing is measured but which states differ) */
    double sum = e->drift ? sqrt(e->sum_rho_err * e->drift_norm) : e->sum_rho_err;
    run->stats.gradient_rel_error_estimate =
        (double)run->info.steps * sum / (double)run->stats.error_samples;
    return EBB_OK;
}
