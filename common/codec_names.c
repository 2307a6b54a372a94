/* The codecs' values by name (include/ebb/codec.h): modes, c-blosc's
 * compressors, shuffles, element types; below codec.c and the libraries'
 * ops tables, which name values in their messages. */
#include <stdio.h>
#include <string.h>

#include "common/error_internal.h"
#include "common/codec_names.h"

const char *const ebb_codec_mode_names[EBB_COMPRESSION_COUNT] = {
    "off", "lossless", "fixed-rate", "fixed-precision", "fixed-accuracy"};
const char *const ebb_codec_names[EBB_CODEC_COUNT] = {"lz4", "lz4hc", "zstd", "zlib", "blosclz"};
const char *const ebb_codec_shuffle_names[EBB_SHUFFLE_COUNT] = {"none", "byte", "bit"};
const char *const ebb_codec_element_names[EBB_ELEMENT_COUNT] = {"bytes", "float32", "float64"};

static const char *name_of(const char *const *names, int count, int v)
{
    return v >= 0 && v < count ? names[v] : "?";
}

/* Index of `name` in names, or an error listing them under `what`. */
static ebb_status from_name(const char *name, const char *const *names, int count,
                            const char *what, int *out)
{
    for (int i = 0; name && i < count; i++)
        if (!strcmp(name, names[i])) {
            *out = i;
            return EBB_OK;
        }
    char list[160] = "";
    size_t at = 0;
    for (int i = 0; i < count && at < sizeof list; i++)
        at += (size_t)snprintf(list + at, sizeof list - at, "%s\"%s\"",
                               i == 0 ? "" : i + 1 == count ? " or " : ", ", names[i]);
    return ebb_fail(EBB_ERR_INVALID_ARG, "unknown %s \"%s\": expected %s", what,
                    name ? name : "(null)", list);
}

int ebb_compression_lossy(ebb_compression m)
{
    return m == EBB_COMPRESSION_FIXED_RATE || m == EBB_COMPRESSION_FIXED_PRECISION ||
           m == EBB_COMPRESSION_FIXED_ACCURACY;
}

const char *ebb_compression_name(ebb_compression m)
{
    return name_of(ebb_codec_mode_names, EBB_COMPRESSION_COUNT, (int)m);
}
const char *ebb_codec_name_str(ebb_codec_name c)
{
    return name_of(ebb_codec_names, EBB_CODEC_COUNT, (int)c);
}
const char *ebb_shuffle_name(ebb_shuffle s)
{
    return name_of(ebb_codec_shuffle_names, EBB_SHUFFLE_COUNT, (int)s);
}
const char *ebb_element_name(ebb_element e)
{
    return name_of(ebb_codec_element_names, EBB_ELEMENT_COUNT, (int)e);
}

#define FROM_NAME(fn, type, names, count, what)                                             \
    ebb_status fn(const char *name, type *out)                                              \
    {                                                                                       \
        int v = 0;                                                                          \
        ebb_status st = from_name(name, names, count, what, &v);                            \
        if (st == EBB_OK && out)                                                            \
            *out = (type)v;                                                                 \
        return st;                                                                          \
    }
FROM_NAME(ebb_compression_from_name, ebb_compression, ebb_codec_mode_names,
          EBB_COMPRESSION_COUNT, "compression")
FROM_NAME(ebb_codec_from_name, ebb_codec_name, ebb_codec_names, EBB_CODEC_COUNT, "codec")
FROM_NAME(ebb_shuffle_from_name, ebb_shuffle, ebb_codec_shuffle_names, EBB_SHUFFLE_COUNT,
          "shuffle")
FROM_NAME(ebb_element_from_name, ebb_element, ebb_codec_element_names, EBB_ELEMENT_COUNT,
          "element type")
#undef FROM_NAME

size_t ebb_element_size(ebb_element e)
{
    return e == EBB_ELEMENT_FLOAT32 ? 4 : e == EBB_ELEMENT_FLOAT64 ? 8 : 1;
}
