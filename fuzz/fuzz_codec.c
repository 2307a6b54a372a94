/* Fuzz target: the codec's decoder, ebb_codec_decompress, for lossless
 * states (c-blosc's chunks and headers) and each lossy mode (zfp's fixed
 * rate, fixed precision and fixed accuracy streams): what the disk tier
 * reads back from a file. The first byte picks the codec (codec_table.h),
 * the rest is the compressed state. Any input is decoded (EBB_OK) or refused
 * with EBB_ERR_CHECKSUM and a message; nothing is read or written outside
 * the input and the state. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/codec_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static ebb_codec *codecs[CODECS];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int k = data[0] % CODECS;
    if (!codecs[k]) {
        ebb_codec_options o;
        codec_options(k, &o);
        if (ebb_codec_create(&o, STATE_BYTES, &codecs[k]) != EBB_OK) {
            fprintf(stderr, "codec %d: %s\n", k, ebb_last_error());
            abort();
        }
    }
    /* the input in a buffer of its exact size, the state in one of its own */
    size_t len = size - 1;
    unsigned char *in = malloc(len ? len : 1), *state = malloc(STATE_BYTES);
    if (!in || !state)
        abort();
    memcpy(in, data + 1, len);
    ebb_status st = ebb_codec_decompress(codecs[k], in, len, state);
    if (st != EBB_OK && (st != EBB_ERR_CHECKSUM || ebb_last_error()[0] == '\0')) {
        fprintf(stderr, "codec %d: %s: %s\n", k, ebb_status_name(st), ebb_last_error());
        abort();
    }
    free(in);
    free(state);
    return 0;
}
