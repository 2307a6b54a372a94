/* Shared helpers for the disk tier's compression tests (a header: only *.c
 * files are tests): a disk pool with a codec, and states to fill it with
 * (tests/codec/data.h's generator). */
#ifndef EBB_TESTS_STORAGE_CODEC_HELPERS_H
#define EBB_TESTS_STORAGE_CODEC_HELPERS_H

#include "codec/data.h"
#include "storage/helpers.h"

/* Lossless (lz4, byte shuffle) of `element` values, or the mode given. */
static inline ebb_codec_options codec_opts(ebb_compression mode, ebb_element element)
{
    ebb_codec_options c;
    ebb_codec_options_init(&c);
    c.mode = mode;
    c.element = element;
    c.rate = 16;
    c.precision = 20;
    c.accuracy = 1e-6;
    return c;
}

/* The options of a disk pool in dirs[0] with compression `c` (copied at
 * create) and `codec_threads` codec threads, staging through `host`. */
static inline void codec_disk_options(ebb_pool_options *o, const char *const *dirs, size_t size,
                                      int32_t slots, ebb_disk_backend backend,
                                      const ebb_codec_options *c, int32_t codec_threads,
                                      ebb_pool *host)
{
    disk_options(o, dirs, 1, size, slots, backend);
    o->staging = host;
    o->compression = c;
    o->codec_threads = codec_threads;
}

/* Such a pool with its checksum and block; skips where io_uring is asked
 * for and refused. Every state that shrinks is stored compressed
 * (fault.codec_always_pays): on a fast disk, or with a loaded codec, the
 * rule would store some raw. */
static inline ebb_pool *codec_disk(const char *const *dirs, size_t size, int32_t slots,
                                   ebb_disk_backend backend, int checksum, size_t block,
                                   const ebb_codec_options *c, int32_t codec_threads,
                                   ebb_pool *host)
{
    ebb_pool_options o;
    codec_disk_options(&o, dirs, size, slots, backend, c, codec_threads, host);
    o.block = block;
    o.checksum = checksum;
    ebb_storage_fault f = {0};
    f.codec_always_pays = 1;
    return create_or_skip(&o, &f);
}

/* host slot hs (filled already) -> disk slot ds -> host slot hs2. */
static inline void store_load(ebb_pool *h, ebb_pool *d, int32_t hs, int32_t ds, int32_t hs2)
{
    ebb_ticket t;
    cr_assert_eq(ebb_move(d, ds, h, hs, &t), EBB_OK, "store: %s", ebb_last_error());
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "store wait: %s", ebb_last_error());
    cr_assert_eq(ebb_move(h, hs2, d, ds, &t), EBB_OK, "load: %s", ebb_last_error());
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "load wait: %s", ebb_last_error());
}

#endif
