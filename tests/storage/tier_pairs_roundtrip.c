/* Random data crosses every pair of tiers present and comes back intact:
 * host <-> host, host <-> disk (both backends, several drives), and with a
 * GPU host <-> gpu, gpu <-> gpu and gpu -> host -> disk -> host -> gpu. */
#include "storage/helpers.h"

static const size_t SIZE = 2 * MiB + 12345;

Test(tier_pairs, host_host)
{
    ebb_pool *a = host_pool(SIZE, 1), *b = host_pool(SIZE, 1);
    fill_random(slot_ptr(a, 0), SIZE, 1);
    ebb_ticket t;
    cr_assert_eq(ebb_move(b, 0, a, 0, &t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK);
    cr_assert(memcmp(slot_ptr(a, 0), slot_ptr(b, 0), SIZE) == 0);
    ebb_pool_destroy(a);
    ebb_pool_destroy(b);
}

static void host_disk(ebb_disk_backend backend, int ndirs)
{
    char dir[3][256];
    const char *dirs[3];
    for (int i = 0; i < ndirs; i++) {
        make_tmpdir(dir[i], sizeof dir[i]);
        dirs[i] = dir[i];
    }
    ebb_pool *h = host_pool(SIZE, 2);
    ebb_pool_options o;
    disk_options(&o, dirs, ndirs, SIZE, 5, backend);
    o.block = 512 * KiB;
    o.staging = h;
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create(&o, &d), EBB_OK, "%s", ebb_last_error());
    ebb_pool_info info;
    ebb_pool_info_get(d, &info);
    cr_assert_eq(info.path_count, ndirs);
    if (ndirs > 1) {
        /* Consecutive blocks of a slot land on different drives. */
        int fd0, fd1;
        cr_assert_eq(ebb_disk_debug_locate(d, 0, 0, &fd0, NULL, NULL), EBB_OK);
        cr_assert_eq(ebb_disk_debug_locate(d, 0, 1, &fd1, NULL, NULL), EBB_OK);
        cr_assert_neq(fd0, fd1, "blocks 0 and 1 of slot 0 share a file");
    }
    for (int32_t s = 0; s < 5; s++)
        roundtrip(h, d, 0, s, 1, (uint64_t)(s + 31 * ndirs));
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    for (int i = 0; i < ndirs; i++)
        rm_tmpdir(dir[i]);
}

Test(tier_pairs, host_disk_io_uring)
{
    host_disk(EBB_DISK_BACKEND_AUTO, 1);
}

Test(tier_pairs, host_disk_threads)
{
    host_disk(EBB_DISK_BACKEND_THREADS, 1);
}

Test(tier_pairs, host_disk_striped_over_three_directories)
{
    host_disk(EBB_DISK_BACKEND_AUTO, 3);
    host_disk(EBB_DISK_BACKEND_THREADS, 3);
}

Test(tier_pairs, gpu_pairs)
{
    if (ebb_gpu_count() == 0)
        cr_skip_test("no CUDA device here: gpu <-> host and gpu <-> gpu need one");
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    ebb_pool *h = host_pool(SIZE, 3);
    ebb_pool_info hi;
    ebb_pool_info_get(h, &hi);
    cr_assert_eq(hi.pinned, 1, "host pool not pinned: %s", hi.warnings);
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_GPU);
    o.slot_size = SIZE;
    o.slots = 2;
    o.block = 1 * MiB; /* several chunks per slot */
    ebb_pool *g = NULL;
    cr_assert_eq(ebb_pool_create(&o, &g), EBB_OK, "%s", ebb_last_error());
    ebb_pool *dk = NULL;
    disk_options(&o, dirs, 1, SIZE, 1, EBB_DISK_BACKEND_AUTO);
    o.staging = h;
    cr_assert_eq(ebb_pool_create(&o, &dk), EBB_OK, "%s", ebb_last_error());

    fill_random(slot_ptr(h, 0), SIZE, 5);
    ebb_ticket t;
    cr_assert_eq(ebb_move(g, 0, h, 0, &t), EBB_OK, "%s", ebb_last_error()); /* host -> gpu */
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_move(g, 1, g, 0, &t), EBB_OK, "%s", ebb_last_error()); /* gpu -> gpu */
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_move(h, 1, g, 1, &t), EBB_OK, "%s", ebb_last_error()); /* gpu -> host */
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "%s", ebb_last_error());
    cr_assert(memcmp(slot_ptr(h, 0), slot_ptr(h, 1), SIZE) == 0);
    /* the chain the runtime uses: host -> disk -> host -> gpu -> host */
    cr_assert_eq(ebb_move(dk, 0, h, 1, &t), EBB_OK);
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_move(h, 2, dk, 0, &t), EBB_OK);
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_move(g, 0, h, 2, &t), EBB_OK);
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "%s", ebb_last_error());
    memset(slot_ptr(h, 1), 0, SIZE);
    cr_assert_eq(ebb_move(h, 1, g, 0, &t), EBB_OK);
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "%s", ebb_last_error());
    cr_assert(memcmp(slot_ptr(h, 0), slot_ptr(h, 1), SIZE) == 0);
    /* put/get with the caller's device memory (a slot address stands for it) */
    void *dev = NULL;
    cr_assert_eq(ebb_pool_slot_ptr(g, 1, &dev), EBB_OK);
    cr_assert_eq(ebb_pool_put(g, 0, dev, &t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_ticket_stream_wait(&t, NULL), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_pool_order_after(g, NULL), EBB_OK, "%s", ebb_last_error());
    /* pageable memory is refused */
    unsigned char *pageable = malloc(SIZE);
    cr_assert_eq(ebb_pool_get(g, 0, pageable, &t), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "pageable") != NULL, "%s", ebb_last_error());
    free(pageable);
    ebb_pool_destroy(dk);
    ebb_pool_destroy(g);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}
