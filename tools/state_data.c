/* Synthetic state contents (state_data.h). */
#include "tools/state_data.h"

#include <math.h>

const char *state_data_name(state_data d)
{
    static const char *const names[STATE_DATA_COUNT] = {"random", "smooth", "sparse"};
    return (unsigned)d < STATE_DATA_COUNT ? names[d] : "?";
}

/* splitmix64 */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double unit(uint64_t *s) { return (double)(next(s) >> 11) * 0x1p-53; }

void state_data_fill(void *buf, size_t n, ebb_element e, state_data d, uint64_t seed)
{
    uint64_t s = seed;
    if (e == EBB_ELEMENT_BYTES) {
        unsigned char *b = buf;
        for (size_t i = 0; i < n; i++)
            b[i] = d == STATE_DATA_SMOOTH   ? (unsigned char)(i / 64)
                   : d == STATE_DATA_SPARSE ? (unit(&s) < 0.95 ? 0 : (unsigned char)next(&s))
                                            : (unsigned char)next(&s);
        return;
    }
    size_t count = n / ebb_element_size(e);
    double a = 1 + unit(&s), f = 1e-4 * (1 + unit(&s));
    for (size_t i = 0; i < count; i++) {
        double v = d == STATE_DATA_SMOOTH   ? a * sin(f * (double)i) + 0.5 * cos(3.1 * f * (double)i)
                   : d == STATE_DATA_RANDOM ? 2 * unit(&s) - 1
                   : unit(&s) < 0.95        ? 0.0
                                            : unit(&s) - 0.5;
        if (e == EBB_ELEMENT_FLOAT32)
            ((float *)buf)[i] = (float)v;
        else
            ((double *)buf)[i] = v;
    }
}
