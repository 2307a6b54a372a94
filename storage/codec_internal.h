/* The codecs behind include/ebb/codec.h: one ops table per library
 * (codec_blosc.c, codec_zfp.c), chosen by the mode; codec.c checks the
 * options, names the values and dispatches. */
#ifndef EBB_STORAGE_CODEC_INTERNAL_H
#define EBB_STORAGE_CODEC_INTERNAL_H

#include "ebb/codec.h"

typedef struct ebb_codec_ops {
    const char *library; /* "c-blosc", "zfp": for messages */
    /* The options are checked; fills c->bound and c->fixed. */
    ebb_status (*init)(ebb_codec *c);
    ebb_status (*compress)(const ebb_codec *c, const void *state, void *out, size_t cap,
                           size_t *len);
    /* padded: in is readable up to c->bound bytes, zeros past len */
    ebb_status (*decompress)(const ebb_codec *c, const void *in, size_t len, int padded,
                             void *state);
} ebb_codec_ops;

struct ebb_codec {
    ebb_codec_options o;
    size_t state_size;
    size_t count;  /* elements of the state */
    size_t bound;  /* the most compress writes */
    size_t fixed;  /* fixed rate: every state's compressed size */
    const ebb_codec_ops *ops;
};

/* ebb_codec_decompress for a caller that gives the input room: in[0 ..
 * ebb_codec_bound(c)) is readable and zero past len, so zfp decodes it in
 * place instead of copying it into a zeroed buffer of its own (the disk
 * tier's codec threads, whose scratch is that big: nothing allocated). */
ebb_status ebb_codec_decompress_padded(const ebb_codec *c, const void *in, size_t len,
                                       void *state);

extern const ebb_codec_ops ebb_codec_blosc_ops;
extern const ebb_codec_ops ebb_codec_zfp_ops;

#endif
