/* The size a fixed-rate codec compresses every state of `size` bytes to
 * (ebb_codec_fixed_size), for the tests that size slots by it. */
#ifndef EBB_TESTS_SUPPORT_CODEC_FIXED_H
#define EBB_TESTS_SUPPORT_CODEC_FIXED_H

#include <criterion/criterion.h>

#include "ebb/ebb.h"

static inline size_t codec_fixed_size_of(const ebb_codec_options *c, size_t size)
{
    ebb_codec *codec;
    cr_assert_eq(ebb_codec_create(c, size, &codec), EBB_OK, "%s", ebb_last_error());
    size_t f = ebb_codec_fixed_size(codec);
    ebb_codec_destroy(codec);
    return f;
}

#endif
