/* A lazy host pool (ebb_pool_options.lazy) takes memory as its slots are
 * written and gives it back by ebb_pool_slot_discard: counted page by page
 * with mincore over the slots' range. A discarded part reads as zeros, the
 * rest keeps its bytes; what cannot be lazy, or discarded, is refused. */
#include <sys/mman.h>
#include <unistd.h>

#include "storage/helpers.h"

/* Pages of [p, p + bytes) in memory. */
static size_t resident_pages(const void *p, size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t pages = (bytes + page - 1) / page;
    unsigned char *v = malloc(pages);
    cr_assert_not_null(v);
    cr_assert_eq(mincore((void *)p, pages * page, v), 0);
    size_t in = 0;
    for (size_t i = 0; i < pages; i++)
        in += v[i] & 1;
    free(v);
    return in;
}

static ebb_pool *lazy_pool(size_t size, int32_t slots)
{
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_HOST);
    o.slot_size = size;
    o.slots = slots;
    o.lazy = 1;
    ebb_pool *p = NULL;
    cr_assert_eq(ebb_pool_create(&o, &p), EBB_OK, "%s", ebb_last_error());
    return p;
}

Test(host_lazy, takes_what_is_written_and_gives_it_back)
{
    const size_t size = 8 * MiB, page = (size_t)sysconf(_SC_PAGESIZE);
    ebb_pool *h = lazy_pool(size, 4);
    ebb_pool_info info;
    cr_assert_eq(ebb_pool_info_get(h, &info), EBB_OK);
    cr_assert_eq(info.pinned, 0);
    unsigned char *s0 = slot_ptr(h, 0), *s1 = slot_ptr(h, 1);
    cr_assert_eq(resident_pages(s0, 4 * info.slot_stride), 0, "nothing taken at create");
    /* slot 0 gets 3 MiB, slot 1 a whole state */
    fill_random(s0, 3 * MiB, 1);
    unsigned char *full = malloc(size), *back = malloc(size);
    fill_random(full, size, 2);
    ebb_ticket t;
    cr_assert_eq(ebb_pool_put(h, 1, full, &t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(resident_pages(s0, size), 3 * MiB / page);
    cr_assert_eq(resident_pages(s1, size), size / page);
    /* slot 1 keeps its first 1 MiB + 100 bytes: the page holding byte
     * 1 MiB + 100 stays, those after it go */
    size_t keep = MiB + 100;
    cr_assert_eq(ebb_pool_slot_discard(h, 1, keep), EBB_OK, "%s", ebb_last_error());
    size_t kept_pages = (keep + page - 1) / page;
    cr_assert_eq(resident_pages(s1, size), kept_pages);
    memcpy(back, s1, size);
    cr_assert(memcmp(back, full, kept_pages * page) == 0, "the kept pages changed");
    for (size_t j = kept_pages * page; j < size; j++)
        cr_assert_eq(back[j], 0, "byte %zu reads %d after its page was given back", j, back[j]);
    cr_assert_eq(ebb_pool_slot_discard(h, 0, 0), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(resident_pages(s0, size), 0);
    /* written again, it takes memory again */
    fill_random(s0, size, 3);
    cr_assert_eq(resident_pages(s0, size), size / page);
    free(full);
    free(back);
    ebb_pool_destroy(h);
}

Test(host_lazy, refusals_say_why)
{
    ebb_pool *plain = host_pool(MiB, 2), *lazy = lazy_pool(MiB, 2);
    cr_assert_eq(ebb_pool_slot_discard(plain, 0, 0), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "not a non-lazy host pool's"), "%s", ebb_last_error());
    cr_assert_eq(ebb_pool_slot_discard(lazy, 2, 0), EBB_ERR_INVALID_ARG);
    cr_assert_eq(ebb_pool_slot_discard(lazy, 0, MiB + 1), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "byte 1048577 is past the slot's 1048576"), "%s",
              ebb_last_error());
    cr_assert_eq(ebb_pool_slot_discard(NULL, 0, 0), EBB_ERR_INVALID_ARG);
    ebb_pool_destroy(plain);
    ebb_pool_destroy(lazy);
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_GPU);
    o.slot_size = MiB;
    o.slots = 1;
    o.lazy = 1;
    ebb_pool *p = NULL;
    cr_assert_eq(ebb_pool_create(&o, &p), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "gpu pool: lazy is for host pools"), "%s",
              ebb_last_error());
    ebb_pool_options_init(&o, EBB_TIER_HOST);
    o.slot_size = MiB;
    o.slots = 1;
    o.lazy = 1;
    ebb_codec_options c;
    ebb_codec_options_init(&c);
    c.mode = EBB_COMPRESSION_FIXED_RATE;
    o.compression = &c;
    cr_assert_eq(ebb_pool_create(&o, &p), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "lazy slots hold states as they are"), "%s",
              ebb_last_error());
    cr_assert_null(p);
}
