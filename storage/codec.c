/* Codecs (include/ebb/codec.h): the options checked and the calls handed
 * to the library's ops table (codec_internal.h); names in codec_names.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "storage/codec_internal.h"

void ebb_codec_options_init(ebb_codec_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->mode = EBB_COMPRESSION_OFF;
    o->codec = EBB_CODEC_LZ4;
    o->level = 5;
    o->shuffle = EBB_SHUFFLE_BYTE;
    o->threads = 1;
    o->element = EBB_ELEMENT_BYTES;
}

/* The options that do not depend on the library, and the element count. */
static ebb_status check(const ebb_codec_options *o, size_t state_size, size_t *count)
{
    if ((unsigned)o->mode >= EBB_COMPRESSION_COUNT || o->mode == EBB_COMPRESSION_OFF)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_codec_options.mode is %s: a codec needs lossless, fixed-rate, "
                        "fixed-precision or fixed-accuracy",
                        ebb_compression_name(o->mode));
    if ((unsigned)o->element >= EBB_ELEMENT_COUNT)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_codec_options.element is %d: expected bytes, float32 or float64",
                        (int)o->element);
    int lossy = ebb_compression_lossy(o->mode);
    if (lossy && o->element == EBB_ELEMENT_BYTES)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "%s compression (zfp) needs the state's element type: set "
                        "ebb_codec_options.element to float32 or float64",
                        ebb_compression_name(o->mode));
    size_t es = ebb_element_size(o->element);
    if (state_size == 0 || state_size % es)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "a state of %zu bytes is not a whole number of %s values (%zu bytes each)",
                        state_size, ebb_element_name(o->element), es);
    *count = state_size / es;
    if (o->dims < 0 || o->dims > EBB_CODEC_MAX_DIMS)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_codec_options.dims is %d: expected 0 .. %d",
                        o->dims, EBB_CODEC_MAX_DIMS);
    if (o->dims > 0) {
        uint64_t p = 1;
        for (int d = 0; d < o->dims; d++) {
            if (o->shape[d] == 0 || p > UINT64_MAX / o->shape[d])
                return ebb_fail(EBB_ERR_INVALID_ARG,
                                "ebb_codec_options.shape[%d] is %llu: every extent must be at "
                                "least 1 and their product fit 64 bits",
                                d, (unsigned long long)o->shape[d]);
            p *= o->shape[d];
        }
        if (p != *count)
            return ebb_fail(EBB_ERR_INVALID_ARG,
                            "ebb_codec_options.shape holds %llu values, the state %zu %s values "
                            "(%zu bytes)",
                            (unsigned long long)p, *count, ebb_element_name(o->element),
                            state_size);
    }
    double bits = (double)(8 * es);
    switch (o->mode) {
    case EBB_COMPRESSION_LOSSLESS:
        if ((unsigned)o->codec >= EBB_CODEC_COUNT)
            return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_codec_options.codec is %d: expected lz4, "
                            "lz4hc, zstd, zlib or blosclz", (int)o->codec);
        if ((unsigned)o->shuffle >= EBB_SHUFFLE_COUNT)
            return ebb_fail(EBB_ERR_INVALID_ARG,
                            "ebb_codec_options.shuffle is %d: expected none, byte or bit",
                            (int)o->shuffle);
        if (o->level < 1 || o->level > 9)
            return ebb_fail(EBB_ERR_INVALID_ARG,
                            "ebb_codec_options.level is %d: expected 1 (fastest) .. 9 (smallest)",
                            o->level);
        if (o->threads < 1 || o->threads > EBB_CODEC_THREADS_MAX)
            return ebb_fail(EBB_ERR_INVALID_ARG,
                            "ebb_codec_options.threads is %d: expected 1 .. %d", o->threads,
                            EBB_CODEC_THREADS_MAX);
        break;
    case EBB_COMPRESSION_FIXED_RATE:
        if (!(o->rate >= 1 && o->rate <= bits))
            return ebb_fail(EBB_ERR_INVALID_ARG,
                            "ebb_codec_options.rate is %g: expected 1 .. %g bits per %s value",
                            o->rate, bits, ebb_element_name(o->element));
        break;
    case EBB_COMPRESSION_FIXED_PRECISION:
        if (o->precision < 1 || o->precision > (int32_t)bits)
            return ebb_fail(EBB_ERR_INVALID_ARG,
                            "ebb_codec_options.precision is %d: expected 1 .. %d bit planes of a "
                            "%s value",
                            o->precision, (int)bits, ebb_element_name(o->element));
        break;
    default: /* fixed accuracy */
        if (!(o->accuracy > 0 && isfinite(o->accuracy)))
            return ebb_fail(EBB_ERR_INVALID_ARG,
                            "ebb_codec_options.accuracy is %g: expected a finite error bound > 0",
                            o->accuracy);
        break;
    }
    return EBB_OK;
}

ebb_status ebb_codec_create(const ebb_codec_options *o, size_t state_size, ebb_codec **out)
{
    if (!o || !out)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_codec_create: options and out must not be NULL");
    *out = NULL;
    size_t count = 0;
    ebb_status st = check(o, state_size, &count);
    if (st != EBB_OK)
        return st;
    ebb_codec *c = calloc(1, sizeof *c);
    if (!c)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate a codec");
    c->o = *o;
    c->state_size = state_size;
    c->count = count;
    c->ops = o->mode == EBB_COMPRESSION_LOSSLESS ? &ebb_codec_blosc_ops : &ebb_codec_zfp_ops;
    if ((st = c->ops->init(c)) != EBB_OK) {
        free(c);
        return st;
    }
    *out = c;
    return EBB_OK;
}

void ebb_codec_destroy(ebb_codec *c)
{
    free(c);
}

size_t ebb_codec_bound(const ebb_codec *c) { return c ? c->bound : 0; }
size_t ebb_codec_fixed_size(const ebb_codec *c) { return c ? c->fixed : 0; }
size_t ebb_codec_state_size(const ebb_codec *c) { return c ? c->state_size : 0; }

ebb_status ebb_codec_compress(const ebb_codec *c, const void *state, void *out, size_t cap,
                              size_t *len)
{
    if (!c || !state || !out || !len)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_codec_compress: NULL codec, state, out or len");
    if (cap < c->bound)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_codec_compress: an output of %zu bytes is below the bound of %zu "
                        "(ebb_codec_bound)",
                        cap, c->bound);
    return c->ops->compress(c, state, out, cap, len);
}

static ebb_status decompress(const ebb_codec *c, const void *in, size_t len, int padded,
                             void *state)
{
    if (!c || !in || !state)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_codec_decompress: NULL codec, input or state");
    if (len == 0 || len > c->bound)
        return ebb_fail(EBB_ERR_CHECKSUM,
                        "a compressed state of %zu bytes: %s states compress to 1 .. %zu bytes",
                        len, ebb_compression_name(c->o.mode), c->bound);
    return c->ops->decompress(c, in, len, padded, state);
}

ebb_status ebb_codec_decompress(const ebb_codec *c, const void *in, size_t len, void *state)
{
    return decompress(c, in, len, 0, state);
}

ebb_status ebb_codec_decompress_padded(const ebb_codec *c, const void *in, size_t len,
                                       void *state)
{
    return decompress(c, in, len, 1, state);
}
