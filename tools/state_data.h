/* What the synthetic states hold (`ebb bench --compression --data`, later
 * `ebb run --data`): random values, smooth fields (slow sines, as a PDE
 * solver's) or sparse ones (95 % zeros, as a spiking network's). The codec
 * tests compress the same states (tests/codec/data.h links this file). */
#ifndef EBB_TOOLS_STATE_DATA_H
#define EBB_TOOLS_STATE_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "ebb/codec.h"

typedef enum state_data { STATE_DATA_RANDOM = 0, STATE_DATA_SMOOTH, STATE_DATA_SPARSE,
                          STATE_DATA_ROUGH, STATE_DATA_COUNT } state_data;

/* "random", "smooth", "sparse", "rough". */
const char *state_data_name(state_data d);

/* The generator behind the fills (splitmix64): the next number from *s. The
 * codec tests draw their random choices from it too. */
uint64_t state_data_next(uint64_t *s);

/* Fills n bytes of buf with values of `e` (bytes: random bits, a slow ramp,
 * or 95 % zero bytes; floats: uniform in [-1, 1), sines, or 95 % zeros and
 * the rest uniform), from `seed`. Rough is random's values: floats with no
 * relation between neighbours, as a chaotic model's states, which lossless
 * compression barely shrinks (their sign and exponent bytes only). */
void state_data_fill(void *buf, size_t n, ebb_element e, state_data d, uint64_t seed);

/* `ebb run --data smooth|sparse|rough`: x_0 (a smooth field, 95 % zeros in
 * a fixed pattern, or uniform values) and one pass of a forward step, out =
 * a in + b delta, with a and b from `key` and delta a smooth field, nonzero
 * only where the pattern is, or uniform per value: the states stay smooth,
 * sparse in the same places, or rough, step after step. Float elements (bytes are taken as float64); in == out
 * allowed. The same for every call with the same arguments. */
void state_data_x0(void *x, size_t n, ebb_element e, state_data d, uint64_t seed);
void state_data_step(const void *in, void *out, size_t n, ebb_element e, state_data d,
                     uint64_t key);

/* The `a` of state_data_step's pass with `key`: the pass's Jacobian is a
 * times the identity, whatever the data (the numeric adjoint of `ebb run`,
 * tools/workload.c). */
double state_data_gain(uint64_t key);

#endif
