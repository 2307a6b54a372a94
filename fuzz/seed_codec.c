/* Writes fuzz_codec's seeds: for each codec of codec_table.h, a smooth state
 * and a noisy one compressed, as DIR/<k>-smooth and DIR/<k>-noise (the
 * codec's index as the first byte). Run once by hand:
 *   build/fuzz/fuzz/seed_codec fuzz/corpus/codec */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/codec_table.h"

static void fill(void *state, ebb_element e, int noisy)
{
    uint64_t s = 0x9e3779b97f4a7c15u;
    size_t n = STATE_BYTES / ebb_element_size(e);
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        double v = sin((double)i * 0.1) + (noisy ? (double)(s >> 40) / (double)(1 << 24) : 0);
        if (e == EBB_ELEMENT_FLOAT32)
            ((float *)state)[i] = (float)v;
        else if (e == EBB_ELEMENT_FLOAT64)
            ((double *)state)[i] = v;
        else
            ((unsigned char *)state)[i] = (unsigned char)(noisy ? s >> 56 : i / 16);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: seed_codec DIR\n");
        return 2;
    }
    static unsigned char state[STATE_BYTES];
    for (int k = 0; k < CODECS; k++) {
        ebb_codec_options o;
        codec_options(k, &o);
        ebb_codec *c;
        if (ebb_codec_create(&o, STATE_BYTES, &c) != EBB_OK) {
            fprintf(stderr, "codec %d: %s\n", k, ebb_last_error());
            return 1;
        }
        size_t cap = ebb_codec_bound(c), len = 0;
        unsigned char *out = malloc(cap + 1);
        for (int noisy = 0; noisy < 2; noisy++) {
            fill(state, o.element, noisy);
            out[0] = (unsigned char)k;
            if (!out || ebb_codec_compress(c, state, out + 1, cap, &len) != EBB_OK) {
                fprintf(stderr, "codec %d: %s\n", k, ebb_last_error());
                return 1;
            }
            char path[4096];
            snprintf(path, sizeof path, "%s/%d-%s", argv[1], k, noisy ? "noise" : "smooth");
            FILE *f = fopen(path, "wb");
            if (!f || fwrite(out, 1, len + 1, f) != len + 1 || fclose(f) != 0) {
                perror(path);
                return 1;
            }
        }
        free(out);
        ebb_codec_destroy(c);
    }
    return 0;
}
