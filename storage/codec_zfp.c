/* Lossy states through zfp: the state is a 1- to 4-d array of float32 or
 * float64 values, compressed whole in fixed-rate, fixed-precision or
 * fixed-accuracy mode (no header: the codec knows the field). zfp's
 * objects are made per call, so one codec serves several threads. zfp does
 * not check its input; a shorter one is padded with zeros to the bound
 * before decoding (unless the caller gave it that room already:
 * ebb_codec_decompress_padded), so the decoder never reads past what it was
 * given. */
#include <stdlib.h>
#include <string.h>
#include <zfp.h>

#include "common/error_internal.h"
#include "storage/codec_internal.h"

typedef struct zfp_call {
    zfp_field *field;
    zfp_stream *zs;
    bitstream *bits;
} zfp_call;

static void call_close(zfp_call *z)
{
    if (z->zs)
        zfp_stream_close(z->zs);
    if (z->bits)
        stream_close(z->bits);
    if (z->field)
        zfp_field_free(z->field);
}

/* The field over `data` and a stream in the codec's mode (buf may be NULL:
 * for the bound only). */
static ebb_status call_open(const ebb_codec *c, void *data, void *buf, size_t bytes, zfp_call *z)
{
    memset(z, 0, sizeof *z);
    zfp_type type = c->o.element == EBB_ELEMENT_FLOAT32 ? zfp_type_float : zfp_type_double;
    const uint64_t *s = c->o.shape;
    switch (c->o.dims) {
    case 2: z->field = zfp_field_2d(data, type, s[0], s[1]); break;
    case 3: z->field = zfp_field_3d(data, type, s[0], s[1], s[2]); break;
    case 4: z->field = zfp_field_4d(data, type, s[0], s[1], s[2], s[3]); break;
    default: z->field = zfp_field_1d(data, type, c->count); break;
    }
    z->zs = zfp_stream_open(NULL);
    if (buf)
        z->bits = stream_open(buf, bytes);
    if (!z->field || !z->zs || (buf && !z->bits)) {
        call_close(z);
        return ebb_fail(EBB_ERR_NO_MEMORY, "zfp could not allocate its stream");
    }
    unsigned dims = c->o.dims > 0 ? (unsigned)c->o.dims : 1;
    switch (c->o.mode) {
    case EBB_COMPRESSION_FIXED_RATE: zfp_stream_set_rate(z->zs, c->o.rate, type, dims, zfp_false); break;
    case EBB_COMPRESSION_FIXED_PRECISION: zfp_stream_set_precision(z->zs, (unsigned)c->o.precision); break;
    default: zfp_stream_set_accuracy(z->zs, c->o.accuracy); break;
    }
    if (z->bits) {
        zfp_stream_set_bit_stream(z->zs, z->bits);
        zfp_stream_rewind(z->zs);
    }
    return EBB_OK;
}

static ebb_status zfp_init_codec(ebb_codec *c)
{
    zfp_call z;
    ebb_status st = call_open(c, NULL, NULL, 0, &z);
    if (st != EBB_OK)
        return st;
    c->bound = zfp_stream_maximum_size(z.zs, z.field);
    c->fixed = 0;
    if (c->o.mode == EBB_COMPRESSION_FIXED_RATE) {
        /* every block takes maxbits; the stream ends on a whole word */
        unsigned minbits, maxbits, maxprec;
        int minexp;
        zfp_stream_params(z.zs, &minbits, &maxbits, &maxprec, &minexp);
        uint64_t bits = (uint64_t)zfp_field_blocks(z.field) * maxbits;
        uint64_t word = stream_word_bits;
        c->fixed = (size_t)((bits + word - 1) / word * (word / 8));
    }
    call_close(&z);
    if (c->bound == 0 || c->fixed > c->bound)
        return ebb_fail(EBB_ERR_INVALID_ARG, "zfp refuses this field (%s, %zu values, %d dims)",
                        ebb_element_name(c->o.element), c->count, c->o.dims);
    return EBB_OK;
}

static ebb_status zfp_compress_state(const ebb_codec *c, const void *state, void *out, size_t cap,
                                     size_t *len)
{
    zfp_call z;
    /* zfp's field is not const, but compressing only reads it */
    ebb_status st = call_open(c, (void *)(uintptr_t)state, out, cap, &z);
    if (st != EBB_OK)
        return st;
    size_t n = zfp_compress(z.zs, z.field);
    call_close(&z);
    if (n == 0 || n > c->bound || (c->fixed && n != c->fixed))
        return ebb_fail(EBB_ERR_IO,
                        "zfp failed to compress a state of %zu %s values (%zu bytes written, "
                        "%zu expected%s)",
                        c->count, ebb_element_name(c->o.element), n,
                        c->fixed ? c->fixed : c->bound, c->fixed ? ": the fixed rate's size"
                                                                 : " at most");
    *len = n;
    return EBB_OK;
}

static ebb_status zfp_decompress_state(const ebb_codec *c, const void *in, size_t len,
                                       int padded, void *state)
{
    if (c->fixed && len != c->fixed)
        return ebb_fail(EBB_ERR_CHECKSUM,
                        "a fixed-rate state is %zu bytes, this one %zu: it is not one this codec "
                        "compressed",
                        c->fixed, len);
    void *copy = NULL;
    if (len < c->bound && !padded) {
        if (!(copy = calloc(1, c->bound)))
            return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate %zu bytes to decode a state",
                            c->bound);
        memcpy(copy, in, len);
    }
    zfp_call z;
    ebb_status st = call_open(c, state, copy ? copy : (void *)(uintptr_t)in, c->bound, &z);
    if (st == EBB_OK) {
        size_t n = zfp_decompress(z.zs, z.field);
        call_close(&z);
        if (n == 0 || n > len)
            st = ebb_fail(EBB_ERR_CHECKSUM,
                          "a compressed state of %zu bytes does not decode: zfp read %zu bytes",
                          len, n);
    }
    free(copy);
    return st;
}

const ebb_codec_ops ebb_codec_zfp_ops = {
    .library = "zfp",
    .init = zfp_init_codec,
    .compress = zfp_compress_state,
    .decompress = zfp_decompress_state,
};
