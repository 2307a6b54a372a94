/* Each of the decoder's checks sees what it guards, with its message: a
 * length outside 1 .. the bound, a lossless state cut inside a chunk's
 * header, a header that says another size, data c-blosc cannot decode,
 * bytes after the last chunk; a fixed-rate state of another length; a zfp
 * stream cut short. Every refusal is EBB_ERR_CHECKSUM. (corrupt_input.c:
 * random damage never crashes; the fuzz target fuzz/fuzz_codec.c.) */
#include "codec/data.h"

enum { SIZE = 64 << 10 };

typedef struct {
    ebb_codec *c;
    unsigned char *packed, *bad, *state;
    size_t len, cap;
} packed_state;

/* A smooth state of SIZE bytes compressed with `o`. */
static void pack(const ebb_codec_options *o, packed_state *p)
{
    cr_assert_eq(ebb_codec_create(o, SIZE, &p->c), EBB_OK, "%s", ebb_last_error());
    p->cap = ebb_codec_bound(p->c);
    p->state = malloc(SIZE);
    p->packed = malloc(p->cap);
    p->bad = malloc(p->cap);
    cr_assert(p->state && p->packed && p->bad);
    fill_data(p->state, SIZE, o->element, DATA_SMOOTH, 7);
    cr_assert_eq(ebb_codec_compress(p->c, p->state, p->packed, p->cap, &p->len), EBB_OK);
    memcpy(p->bad, p->packed, p->len);
}

static void unpack(packed_state *p)
{
    ebb_codec_destroy(p->c);
    free(p->state);
    free(p->packed);
    free(p->bad);
}

/* Decodes bad[0 .. len) and expects the refusal with `text` in its message. */
static void refused(packed_state *p, size_t len, const char *text)
{
    ebb_status st = ebb_codec_decompress(p->c, p->bad, len, p->state);
    cr_assert_eq(st, EBB_ERR_CHECKSUM, "%zu bytes: %s (%s)", len, ebb_status_name(st),
                 ebb_last_error());
    cr_assert(strstr(ebb_last_error(), text), "'%s' lacks '%s'", ebb_last_error(), text);
}

static void lossless(ebb_codec_options *o)
{
    ebb_codec_options_init(o);
    o->mode = EBB_COMPRESSION_LOSSLESS;
    o->element = EBB_ELEMENT_FLOAT64;
}

Test(decode_errors, length_outside_the_bound)
{
    ebb_codec_options o;
    lossless(&o);
    packed_state p;
    pack(&o, &p);
    char text[128];
    snprintf(text, sizeof text, "a compressed state of 0 bytes: lossless states compress to 1 .. %zu bytes", p.cap);
    refused(&p, 0, text);
    snprintf(text, sizeof text, "a compressed state of %zu bytes: lossless", p.cap + 1);
    refused(&p, p.cap + 1, text);
    unpack(&p);
}

Test(decode_errors, lossless_cut_inside_a_header)
{
    ebb_codec_options o;
    lossless(&o);
    packed_state p;
    pack(&o, &p);
    refused(&p, 10, "ends after 0 of its bytes, inside the header of chunk 0");
    unpack(&p);
}

Test(decode_errors, lossless_header_says_another_size)
{
    ebb_codec_options o;
    lossless(&o);
    packed_state p;
    pack(&o, &p);
    p.bad[4] ^= 0x08; /* the header's uncompressed size (bytes 4 .. 7, little-endian) */
    refused(&p, p.len, "chunk 0 of a compressed state has a damaged header");
    unpack(&p);
}

Test(decode_errors, lossless_data_that_does_not_decode)
{
    ebb_codec_options o;
    lossless(&o);
    o.element = EBB_ELEMENT_BYTES; /* runs of equal bytes: lz4 compresses them */
    o.shuffle = EBB_SHUFFLE_NONE;
    packed_state p;
    pack(&o, &p);
    /* lz4's tokens past the 16-byte header: some flip makes c-blosc fail */
    int seen = 0;
    for (size_t at = 16; at < p.len && !seen; at++) {
        memcpy(p.bad, p.packed, p.len);
        p.bad[at] ^= 0xff;
        ebb_status st = ebb_codec_decompress(p.c, p.bad, p.len, p.state);
        cr_assert(st == EBB_OK || st == EBB_ERR_CHECKSUM, "%s", ebb_status_name(st));
        seen = st != EBB_OK && strstr(ebb_last_error(), "chunk 0 of a compressed state does not "
                                                        "decode (c-blosc code");
    }
    cr_assert(seen, "no flipped byte of %zu made c-blosc fail", p.len);
    unpack(&p);
}

Test(decode_errors, lossless_bytes_after_the_last_chunk)
{
    ebb_codec_options o;
    lossless(&o);
    packed_state p;
    pack(&o, &p);
    cr_assert_lt(p.len + 8, p.cap);
    char text[128];
    snprintf(text, sizeof text, "a compressed state of %zu bytes decoded from its first %zu: its "
             "length is wrong", p.len + 8, p.len);
    refused(&p, p.len + 8, text);
    unpack(&p);
}

Test(decode_errors, fixed_rate_of_another_length)
{
    ebb_codec_options o;
    ebb_codec_options_init(&o);
    o.mode = EBB_COMPRESSION_FIXED_RATE;
    o.element = EBB_ELEMENT_FLOAT32;
    o.rate = 8;
    packed_state p;
    pack(&o, &p);
    char text[128];
    snprintf(text, sizeof text, "a fixed-rate state is %zu bytes, this one %zu", p.len, p.len - 8);
    refused(&p, p.len - 8, text);
    unpack(&p);
}

Test(decode_errors, zfp_stream_cut_short)
{
    ebb_codec_options o;
    ebb_codec_options_init(&o);
    o.mode = EBB_COMPRESSION_FIXED_ACCURACY;
    o.element = EBB_ELEMENT_FLOAT64;
    o.accuracy = 1e-9;
    packed_state p;
    pack(&o, &p);
    char text[128];
    snprintf(text, sizeof text, "a compressed state of %zu bytes does not decode: zfp read",
             p.len / 2);
    refused(&p, p.len / 2, text);
    unpack(&p);
}
