/* Synthetic state contents (state_data.h). */
#include "tools/state_data.h"

#include <math.h>

const char *state_data_name(state_data d)
{
    static const char *const names[STATE_DATA_COUNT] = {"random", "smooth", "sparse",
                                                               "rough"};
    return (unsigned)d < STATE_DATA_COUNT ? names[d] : "?";
}

uint64_t state_data_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double unit(uint64_t *s) { return (double)(state_data_next(s) >> 11) * 0x1p-53; }

void state_data_fill(void *buf, size_t n, ebb_element e, state_data d, uint64_t seed)
{
    uint64_t s = seed;
    if (e == EBB_ELEMENT_BYTES) {
        unsigned char *b = buf;
        for (size_t i = 0; i < n; i++) {
            if (d == STATE_DATA_SMOOTH)
                b[i] = (unsigned char)(i / 64);
            else if (d == STATE_DATA_SPARSE && unit(&s) < 0.95)
                b[i] = 0;
            else
                b[i] = (unsigned char)state_data_next(&s);
        }
        return;
    }
    size_t count = n / ebb_element_size(e);
    double a = 1 + unit(&s), f = 1e-4 * (1 + unit(&s));
    for (size_t i = 0; i < count; i++) {
        double v = d == STATE_DATA_SMOOTH   ? a * sin(f * (double)i) + 0.5 * cos(3.1 * f * (double)i)
                   : d != STATE_DATA_SPARSE ? 2 * unit(&s) - 1
                   : unit(&s) < 0.95        ? 0.0
                                            : unit(&s) - 0.5;
        if (e == EBB_ELEMENT_FLOAT32)
            ((float *)buf)[i] = (float)v;
        else
            ((double *)buf)[i] = v;
    }
}

/* The sparse pattern: about 1 value in 20 nonzero. */
static int nonzero_at(size_t i)
{
    uint64_t s = (uint64_t)i;
    return state_data_next(&s) % 20 == 0;
}

/* delta(i): a periodic parabola (smooth, continuous across its period), on
 * the pattern a value from i, or (rough) a value from i everywhere. */
static double delta_at(size_t i, state_data d)
{
    if (d == STATE_DATA_ROUGH) {
        uint64_t s = (uint64_t)i ^ 0x27d4eb2fu;
        return unit(&s) - 0.5;
    }
    if (d == STATE_DATA_SPARSE) {
        uint64_t s = (uint64_t)i ^ 0x5bd1e995u;
        return nonzero_at(i) ? unit(&s) - 0.5 : 0.0;
    }
    const double period = 65536;
    double u = (double)(i % 65536) / period - 0.5;
    return u * u;
}

void state_data_x0(void *x, size_t n, ebb_element e, state_data d, uint64_t seed)
{
    ebb_element f = e == EBB_ELEMENT_FLOAT32 ? e : EBB_ELEMENT_FLOAT64;
    if (d != STATE_DATA_SPARSE) {
        state_data_fill(x, n, f, d, seed);
        return;
    }
    size_t count = n / ebb_element_size(f);
    uint64_t s = seed;
    for (size_t i = 0; i < count; i++) {
        double v = nonzero_at(i) ? unit(&s) - 0.5 : 0.0;
        if (f == EBB_ELEMENT_FLOAT32)
            ((float *)x)[i] = (float)v;
        else
            ((double *)x)[i] = v;
    }
}

double state_data_gain(uint64_t key) { return 1.0 - 0x1p-10 * (double)(1 + key % 7); }

void state_data_step(const void *in, void *out, size_t n, ebb_element e, state_data d,
                     uint64_t key)
{
    double a = state_data_gain(key), b = 0x1p-8 * (double)(1 + key % 5);
    if (e == EBB_ELEMENT_FLOAT32) {
        const float *x = in;
        float *y = out;
        for (size_t i = 0; i < n / 4; i++)
            y[i] = (float)(a * x[i] + b * delta_at(i, d));
    } else {
        const double *x = in;
        double *y = out;
        for (size_t i = 0; i < n / 8; i++)
            y[i] = a * x[i] + b * delta_at(i, d);
    }
}
