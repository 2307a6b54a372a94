/*
 * ebb — codecs for states on their way to a slower tier: lossless through
 * c-blosc (a shuffle, then lz4, zstd, zlib or blosclz), lossy through zfp
 * (fixed rate, fixed precision or fixed accuracy, for arrays of float32 or
 * float64).
 *
 * A codec is made for one state size and is then read-only: several threads
 * may compress and decompress with it at once.
 *
 *     ebb_codec_options o;
 *     ebb_codec_options_init(&o);
 *     o.mode = EBB_COMPRESSION_LOSSLESS;
 *     o.element = EBB_ELEMENT_FLOAT64;      // shuffles 8-byte values
 *     ebb_codec *c;
 *     if (ebb_codec_create(&o, state_bytes, &c) != EBB_OK)
 *         fprintf(stderr, "ebb: %s\n", ebb_last_error());
 *     size_t cap = ebb_codec_bound(c), len;
 *     ebb_codec_compress(c, state, packed, cap, &len);
 *     ebb_codec_decompress(c, packed, len, state_again);
 *     ebb_codec_destroy(c);
 *
 * Lossless gives back every byte. Fixed rate compresses every state to the
 * same size, known before (ebb_codec_fixed_size): a tier of a given budget
 * holds that many more states. Decompressing checks what it is given: a
 * corrupted or truncated input is EBB_ERR_CHECKSUM, never a crash (zfp's
 * lossy streams carry no check of their own: a changed bit there decodes to
 * other values, which the disk tier's checksum catches).
 */
#ifndef EBB_CODEC_H
#define EBB_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "ebb/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ebb_compression {
    EBB_COMPRESSION_OFF = 0,
    EBB_COMPRESSION_LOSSLESS,        /* c-blosc: every byte back */
    EBB_COMPRESSION_FIXED_RATE,      /* zfp: `rate` bits per value, the size known before */
    EBB_COMPRESSION_FIXED_PRECISION, /* zfp: `precision` bit planes per value */
    EBB_COMPRESSION_FIXED_ACCURACY,  /* zfp: an absolute error of at most `accuracy` */
    EBB_COMPRESSION_COUNT
} ebb_compression;

/* c-blosc's compressors. */
typedef enum ebb_codec_name {
    EBB_CODEC_LZ4 = 0,
    EBB_CODEC_LZ4HC,
    EBB_CODEC_ZSTD,
    EBB_CODEC_ZLIB,
    EBB_CODEC_BLOSCLZ,
    EBB_CODEC_COUNT
} ebb_codec_name;

/* c-blosc's shuffle of the values' bytes (or bits) before compressing. */
typedef enum ebb_shuffle {
    EBB_SHUFFLE_NONE = 0,
    EBB_SHUFFLE_BYTE,
    EBB_SHUFFLE_BIT,
    EBB_SHUFFLE_COUNT
} ebb_shuffle;

/* What a state is an array of. */
typedef enum ebb_element {
    EBB_ELEMENT_BYTES = 0, /* unknown: lossless only, shuffled as single bytes */
    EBB_ELEMENT_FLOAT32,
    EBB_ELEMENT_FLOAT64,
    EBB_ELEMENT_COUNT
} ebb_element;

/* The most dimensions of a state's array (zfp's). */
#define EBB_CODEC_MAX_DIMS 4

/* A compressing tier's codec threads (tier.*.codec_threads,
 * ebb_pool_options.codec_threads, ebb_codec_rates.threads): the default
 * where 0 or nothing is given, and the most, which is also the most c-blosc
 * threads per call (ebb_codec_options.threads). */
#define EBB_CODEC_THREADS_DEFAULT 2
#define EBB_CODEC_THREADS_MAX 256

typedef struct ebb_codec_options {
    ebb_compression mode;  /* default EBB_COMPRESSION_OFF: create refuses it */
    /* lossless */
    ebb_codec_name codec;  /* default lz4 */
    int32_t level;         /* 1 (fastest) .. 9 (smallest), default 5 */
    ebb_shuffle shuffle;   /* default byte */
    int32_t threads;       /* c-blosc's threads per call, 1 .. EBB_CODEC_THREADS_MAX, default 1 */
    /* lossy */
    double rate;           /* fixed rate: bits per value, 1 .. the element's bits */
    int32_t precision;     /* fixed precision: bit planes, 1 .. the element's bits */
    double accuracy;       /* fixed accuracy: the largest absolute error, > 0 */
    /* the state's array: its element (lossy needs float32 or float64) and,
     * optionally, its shape (zfp compresses a 2-, 3- or 4-d field better
     * than the same values as one line) */
    ebb_element element;   /* default bytes */
    int32_t dims;          /* 0 (default): one dimension, the whole state */
    uint64_t shape[EBB_CODEC_MAX_DIMS]; /* dims > 0: the extents, fastest varying
                                           first; their product x the element's
                                           size = the state's size */
} ebb_codec_options;

typedef struct ebb_codec ebb_codec;

/* Defaults as above: mode off, lz4 at level 5 with the byte shuffle on one
 * thread, element bytes, one dimension. */
EBB_API void ebb_codec_options_init(ebb_codec_options *o);

/* A codec for states of `state_size` bytes. EBB_ERR_INVALID_ARG, with the
 * field and what it must be, for options that cannot work (mode off, a
 * level, rate, precision, accuracy or thread count out of range, a lossy
 * mode without a float element, a state size that is not a whole number of
 * elements or not the shape's); EBB_ERR_NO_MEMORY. */
EBB_API ebb_status ebb_codec_create(const ebb_codec_options *o, size_t state_size,
                                    ebb_codec **out);

/* NULL allowed. */
EBB_API void ebb_codec_destroy(ebb_codec *c);

/* The most bytes ebb_codec_compress writes for one state (at least the
 * state's size for lossless, whose incompressible input grows slightly). */
EBB_API size_t ebb_codec_bound(const ebb_codec *c);

/* Fixed rate: the size of every compressed state; 0 for the other modes. */
EBB_API size_t ebb_codec_fixed_size(const ebb_codec *c);

/* The state's size the codec was made for. */
EBB_API size_t ebb_codec_state_size(const ebb_codec *c);

/* Compresses one state into out[0 .. cap), its length in *len.
 * EBB_ERR_INVALID_ARG for NULL pointers or cap below ebb_codec_bound;
 * EBB_ERR_IO if the library fails (it names the library and its code). */
EBB_API ebb_status ebb_codec_compress(const ebb_codec *c, const void *state, void *out, size_t cap,
                                      size_t *len);

/* Decompresses in[0 .. len) into one state. EBB_ERR_CHECKSUM when the input
 * is not a state this codec compressed (a wrong length, a damaged header,
 * data that does not decode to the state's size). */
EBB_API ebb_status ebb_codec_decompress(const ebb_codec *c, const void *in, size_t len,
                                        void *state);

/* Whether a mode gives back other bytes than it was given (the zfp modes):
 * 1 lossy, 0 not (off, lossless, and values out of range). The one rule
 * every part of ebb asks. */
EBB_API int ebb_compression_lossy(ebb_compression mode);

/* Names: "off", "lossless", "fixed-rate", "fixed-precision",
 * "fixed-accuracy"; "lz4", "lz4hc", "zstd", "zlib", "blosclz"; "none",
 * "byte", "bit"; "bytes", "float32", "float64". "?" for other values; never
 * NULL. The _from_name functions: EBB_ERR_INVALID_ARG naming the choices. */
EBB_API const char *ebb_compression_name(ebb_compression mode);
EBB_API const char *ebb_codec_name_str(ebb_codec_name codec);
EBB_API const char *ebb_shuffle_name(ebb_shuffle shuffle);
EBB_API const char *ebb_element_name(ebb_element element);
EBB_API ebb_status ebb_compression_from_name(const char *name, ebb_compression *out);
EBB_API ebb_status ebb_codec_from_name(const char *name, ebb_codec_name *out);
EBB_API ebb_status ebb_shuffle_from_name(const char *name, ebb_shuffle *out);
EBB_API ebb_status ebb_element_from_name(const char *name, ebb_element *out);

/* Bytes of one element: 1, 4, 8. */
EBB_API size_t ebb_element_size(ebb_element element);

/* ---- the compressed channel's model (docs/compression.md, *The channel*) --
 * One description, shared by the disk tier (which measures the figures as a
 * run goes and stores a state raw when compressing would make it slower)
 * and the planner (ebb_plan_problem.codec: given figures, simulated on the
 * same rule). A codec thread takes a whole state: it is compressed, then
 * its bytes / ratio go to disk; read back, then decompressed. */
typedef struct ebb_codec_rates {
    double ratio;          /* state bytes over stored bytes (<= 1: does not shrink) */
    double compress_bps;   /* one codec thread: state bytes compressed a second; 0 = no time */
    double decompress_bps; /* one codec thread: state bytes decompressed a second; 0 = no time */
    int32_t threads;       /* codec threads; 0 = EBB_CODEC_THREADS_DEFAULT */
} ebb_codec_rates;

/* Seconds one state of `bytes` takes alone through the channel compressed,
 * on a disk of `disk_bps` bytes a second (0 = no time): write = 1, its
 * compression on one thread then bytes / ratio on the disk; write = 0, the
 * read of bytes / ratio then its decompression. A ratio <= 0 is taken as 1. */
EBB_API double ebb_codec_state_seconds(const ebb_codec_rates *r, double bytes, double disk_bps,
                                       int write);

/* The channel's rate in state bytes a second while states queue (the codec
 * threads each on a state, the disk on another): min(codec rate x threads,
 * disk_bps x ratio), 0 where both are unbounded. */
EBB_API double ebb_codec_channel_bps(const ebb_codec_rates *r, double disk_bps, int write);

/* The rule for "never slower than off": 1 when compressing a state makes
 * neither its write (on a disk writing write_bps) nor its read (read_bps)
 * slower than the raw state's, one state alone, as the asynchronous
 * strategy sends them (it waits for one store before the next); so ratio >
 * 1 and each of ebb_codec_state_seconds below bytes / disk_bps. A disk of
 * 0 (no time) never pays. */
EBB_API int ebb_codec_pays(const ebb_codec_rates *r, double write_bps, double read_bps);

#ifdef __cplusplus
}
#endif

#endif
