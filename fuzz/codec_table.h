/* The codecs fuzz_codec decodes with (and seed_codec writes its seeds for):
 * lossless through c-blosc (two compressors and shuffles) and each lossy
 * mode of zfp (float32 and float64, 1- to 3-d), all for states of
 * STATE_BYTES bytes. The first input byte picks one (modulo the count). */
#ifndef EBB_FUZZ_CODEC_TABLE_H
#define EBB_FUZZ_CODEC_TABLE_H

#include <stdlib.h>

#include "ebb/ebb.h"

enum { STATE_BYTES = 1024, CODECS = 7 };

/* Options of codec k (0 .. CODECS-1). */
static inline void codec_options(int k, ebb_codec_options *o)
{
    ebb_codec_options_init(o);
    switch (k) {
    case 0: /* lossless, lz4, byte shuffle of float64 */
        o->mode = EBB_COMPRESSION_LOSSLESS;
        o->element = EBB_ELEMENT_FLOAT64;
        break;
    case 1: /* lossless, zstd, bit shuffle of bytes */
        o->mode = EBB_COMPRESSION_LOSSLESS;
        o->codec = EBB_CODEC_ZSTD;
        o->shuffle = EBB_SHUFFLE_BIT;
        break;
    case 2: /* fixed rate, float64, 1-d */
        o->mode = EBB_COMPRESSION_FIXED_RATE;
        o->element = EBB_ELEMENT_FLOAT64;
        o->rate = 16;
        break;
    case 3: /* fixed rate, float32, 16 x 16 */
        o->mode = EBB_COMPRESSION_FIXED_RATE;
        o->element = EBB_ELEMENT_FLOAT32;
        o->rate = 8;
        o->dims = 2;
        o->shape[0] = 16;
        o->shape[1] = 16;
        break;
    case 4: /* fixed precision, float64, 1-d */
        o->mode = EBB_COMPRESSION_FIXED_PRECISION;
        o->element = EBB_ELEMENT_FLOAT64;
        o->precision = 24;
        break;
    case 5: /* fixed accuracy, float32, 4 x 8 x 8 */
        o->mode = EBB_COMPRESSION_FIXED_ACCURACY;
        o->element = EBB_ELEMENT_FLOAT32;
        o->accuracy = 1e-3;
        o->dims = 3;
        o->shape[0] = 4;
        o->shape[1] = 8;
        o->shape[2] = 8;
        break;
    default: /* fixed accuracy, float64, 1-d */
        o->mode = EBB_COMPRESSION_FIXED_ACCURACY;
        o->element = EBB_ELEMENT_FLOAT64;
        o->accuracy = 1e-6;
        break;
    }
}

#endif
