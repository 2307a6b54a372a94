/* Lossless states through c-blosc (its context calls: no global state, safe
 * from several threads). A state is cut into chunks of at most CHUNK bytes,
 * each compressed on its own and stored one after the other; each chunk's
 * header says its compressed length, so decompressing walks them, checking
 * each header (blosc_cbuffer_validate) before decoding it. */
#include <blosc.h>
#include <string.h>

#include "common/error_internal.h"
#include "storage/codec_internal.h"

/* Bytes of state per chunk: the unit the threads of the disk tier can share
 * and pipeline with the I/O, far below c-blosc's 2 GiB limit. */
#define CHUNK ((size_t)16 << 20)

/* ebb_codec_options.threads goes to c-blosc as it is */
_Static_assert(EBB_CODEC_THREADS_MAX <= BLOSC_MAX_THREADS,
               "EBB_CODEC_THREADS_MAX exceeds c-blosc's threads per call");

static const char *const compressor[EBB_CODEC_COUNT] = {"lz4", "lz4hc", "zstd", "zlib",
                                                        "blosclz"};
static const int shuffle_flag[EBB_SHUFFLE_COUNT] = {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE,
                                                    BLOSC_BITSHUFFLE};

static size_t chunks(size_t n) { return (n + CHUNK - 1) / CHUNK; }

static ebb_status blosc_init_codec(ebb_codec *c)
{
    /* c-blosc may lack a compressor it was built without */
    const char *name = compressor[c->o.codec];
    char *have = (char *)blosc_list_compressors();
    if (!have || !strstr(have, name))
        return ebb_fail(EBB_ERR_UNSUPPORTED,
                        "this c-blosc (%s) has no %s compressor (it has: %s): choose another "
                        "codec",
                        BLOSC_VERSION_STRING, name, have ? have : "none");
    c->bound = c->state_size + chunks(c->state_size) * BLOSC_MAX_OVERHEAD;
    c->fixed = 0;
    return EBB_OK;
}

static ebb_status blosc_compress_state(const ebb_codec *c, const void *state, void *out,
                                       size_t cap, size_t *len)
{
    const unsigned char *src = state;
    unsigned char *dst = out;
    size_t done = 0, at = 0;
    while (done < c->state_size) {
        size_t n = c->state_size - done < CHUNK ? c->state_size - done : CHUNK;
        int r = blosc_compress_ctx(c->o.level, shuffle_flag[c->o.shuffle],
                                   ebb_element_size(c->o.element), n, src + done, dst + at,
                                   cap - at, compressor[c->o.codec], 0, c->o.threads);
        if (r <= 0) /* cannot happen with room for n + the overhead */
            return ebb_fail(EBB_ERR_IO, "c-blosc failed to compress %zu bytes with %s (code %d)",
                            n, compressor[c->o.codec], r);
        done += n;
        at += (size_t)r;
    }
    *len = at;
    return EBB_OK;
}

static ebb_status blosc_decompress_state(const ebb_codec *c, const void *in, size_t len,
                                         int padded, void *state)
{
    (void)padded; /* c-blosc never reads past what its headers say */
    const unsigned char *src = in;
    unsigned char *dst = state;
    size_t done = 0, at = 0;
    while (done < c->state_size) {
        size_t want = c->state_size - done < CHUNK ? c->state_size - done : CHUNK;
        size_t nbytes = 0, cbytes = 0, block = 0;
        if (len - at < BLOSC_MIN_HEADER_LENGTH)
            return ebb_fail(EBB_ERR_CHECKSUM,
                            "a compressed state ends after %zu of its bytes, inside the header "
                            "of chunk %zu (%zu bytes in all)",
                            at, done / CHUNK, len);
        blosc_cbuffer_sizes(src + at, &nbytes, &cbytes, &block);
        if (cbytes > len - at || nbytes != want ||
            blosc_cbuffer_validate(src + at, cbytes, &nbytes) != 0)
            return ebb_fail(EBB_ERR_CHECKSUM,
                            "chunk %zu of a compressed state has a damaged header (it says %zu "
                            "bytes from %zu, where %zu bytes from at most %zu are expected)",
                            done / CHUNK, nbytes, cbytes, want, len - at);
        int r = blosc_decompress_ctx(src + at, dst + done, want, c->o.threads);
        if (r < 0 || (size_t)r != want)
            return ebb_fail(EBB_ERR_CHECKSUM,
                            "chunk %zu of a compressed state does not decode (c-blosc code %d)",
                            done / CHUNK, r);
        done += want;
        at += cbytes;
    }
    if (at != len)
        return ebb_fail(EBB_ERR_CHECKSUM,
                        "a compressed state of %zu bytes decoded from its first %zu: its length "
                        "is wrong",
                        len, at);
    return EBB_OK;
}

const ebb_codec_ops ebb_codec_blosc_ops = {
    .library = "c-blosc",
    .init = blosc_init_codec,
    .compress = blosc_compress_state,
    .decompress = blosc_decompress_state,
};
