/* A codec thread that queued a compressed write may still be waking the
 * io_uring engine when the ring has written the state, its ticket has
 * completed and the caller destroys the pool. The kick is held in that
 * window (fault.kick_pause_us) while the pool is destroyed: the engine's
 * state must outlive the codec threads (ASan sees nothing touch freed
 * memory), and the state written reads back whole. */
#include "storage/helpers.h"

static const size_t SIZE = 256 * KiB;

Test(disk_destroy, while_a_codec_thread_kicks, .timeout = 60)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    ebb_pool *h = host_pool(SIZE, 2);
    ebb_codec_options c;
    ebb_codec_options_init(&c);
    c.mode = EBB_COMPRESSION_LOSSLESS;
    for (int round = 0; round < 2; round++) {
        ebb_pool_options o;
        disk_options(&o, dirs, 1, SIZE, 1, EBB_DISK_BACKEND_URING);
        o.compression = &c;
        o.direct = 0;
        ebb_storage_fault f = {.kick_pause_us = 200000};
        ebb_pool *d = create_or_skip(&o, &f);
        memset(slot_ptr(h, 0), round + 1, SIZE);
        ebb_ticket t;
        cr_assert_eq(ebb_move(d, 0, h, 0, &t), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "%s", ebb_last_error());
        memset(slot_ptr(h, 1), 0, SIZE);
        cr_assert_eq(ebb_move(h, 1, d, 0, &t), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "%s", ebb_last_error());
        cr_assert(memcmp(slot_ptr(h, 0), slot_ptr(h, 1), SIZE) == 0, "round %d", round);
        /* Written again, destroyed as soon as the write completed. */
        cr_assert_eq(ebb_move(d, 0, h, 0, &t), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "%s", ebb_last_error());
        ebb_pool_destroy(d);
    }
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}
