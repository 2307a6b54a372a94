/* Striping over several directories keeps the budget: a slot occupies its
 * size rounded up to the alignment, as with one directory, whatever the
 * block. A block larger than the slot does not inflate it, and the short
 * last block of a slot takes only its own length. Every file holds at most
 * ceil(slots / paths) slots' worth, consecutive blocks of a slot still go to
 * different drives, and no two blocks overlap (all slots round-trip). */
#include <sys/stat.h>

#include "storage/helpers.h"

static uint64_t round_up_u64(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

/* Writes every slot with its own data, then reads every slot back. */
static void all_slots_roundtrip(ebb_pool *h, ebb_pool *d, int32_t slots, size_t size)
{
    ebb_ticket t;
    for (int32_t s = 0; s < slots; s++) {
        fill_random(slot_ptr(h, 0), size, (uint64_t)s + 1000);
        cr_assert_eq(ebb_move(d, s, h, 0, &t), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "%s", ebb_last_error());
    }
    for (int32_t s = 0; s < slots; s++) {
        fill_random(slot_ptr(h, 0), size, (uint64_t)s + 1000);
        memset(slot_ptr(h, 1), 0, size);
        cr_assert_eq(ebb_move(h, 1, d, s, &t), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "%s", ebb_last_error());
        cr_assert(memcmp(slot_ptr(h, 0), slot_ptr(h, 1), size) == 0,
                  "slot %d differs: blocks of different slots overlap", s);
    }
}

/* Each file's preallocated size, found through the blocks that live in it. */
static void file_sizes(ebb_pool *d, int32_t slots, uint32_t blocks, int nfiles, uint64_t *max,
                       uint64_t *sum)
{
    int fds[8];
    int n = 0;
    *max = *sum = 0;
    for (int32_t s = 0; s < slots; s++)
        for (uint32_t b = 0; b < blocks; b++) {
            int fd = -1;
            cr_assert_eq(ebb_disk_debug_locate(d, s, b, &fd, NULL, NULL), EBB_OK);
            int seen = 0;
            for (int i = 0; i < n; i++)
                seen |= fds[i] == fd;
            if (seen)
                continue;
            cr_assert_lt(n, 8);
            fds[n++] = fd;
            struct stat st;
            cr_assert_eq(fstat(fd, &st), 0);
            *sum += (uint64_t)st.st_size;
            if ((uint64_t)st.st_size > *max)
                *max = (uint64_t)st.st_size;
        }
    cr_assert_eq(n, nfiles, "blocks found in %d files, expected %d", n, nfiles);
}

/* The case: 4 MiB states, the default 8 MiB block, two directories:
 * 10 slots take 40 MiB (20 MiB per directory), as in one directory. */
Test(disk_stripe_budget, block_larger_than_slot)
{
    char a[256], b[256];
    make_tmpdir(a, sizeof a);
    make_tmpdir(b, sizeof b);
    const char *dirs[] = {a, b};
    const size_t size = 4 * MiB;
    ebb_pool *h = host_pool(size, 2);
    ebb_pool_options o;
    disk_options(&o, dirs, 2, size, 10, EBB_DISK_BACKEND_AUTO);
    cr_assert_eq(o.block, 8 * MiB, "the default block");
    o.staging = h;
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create(&o, &d), EBB_OK, "%s", ebb_last_error());
    ebb_pool_info info;
    ebb_pool_info_get(d, &info);
    cr_assert_eq(info.bytes, 40 * (uint64_t)MiB, "10 slots of 4 MiB reserve %llu bytes",
                 (unsigned long long)info.bytes);
    uint64_t max, sum;
    file_sizes(d, 10, 1, 2, &max, &sum);
    cr_assert_eq(sum, 40 * (uint64_t)MiB);
    cr_assert_leq(max, 20 * (uint64_t)MiB, "one directory holds %llu bytes",
                  (unsigned long long)max);
    /* Consecutive slots alternate between the drives. */
    int fd0 = -1, fd1 = -1;
    ebb_disk_debug_locate(d, 0, 0, &fd0, NULL, NULL);
    ebb_disk_debug_locate(d, 1, 0, &fd1, NULL, NULL);
    cr_assert_neq(fd0, fd1);
    all_slots_roundtrip(h, d, 10, size);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(a);
    rm_tmpdir(b);
}

/* A slot of 2 whole blocks and a short one, over three directories, with a
 * slot count that leaves the last round of slots incomplete: no padding of
 * the short block, no holes, consecutive blocks of a slot on different
 * drives. */
Test(disk_stripe_budget, short_last_block_three_paths)
{
    char a[256], b[256], c[256];
    make_tmpdir(a, sizeof a);
    make_tmpdir(b, sizeof b);
    make_tmpdir(c, sizeof c);
    const char *dirs[] = {a, b, c};
    const size_t block = 256 * KiB;
    const size_t size = 2 * block + 5000; /* blocks of 256 KiB, 256 KiB, 5000 bytes */
    const int32_t slots = 7;
    ebb_pool *h = host_pool(size, 2);
    ebb_pool_options o;
    disk_options(&o, dirs, 3, size, slots, EBB_DISK_BACKEND_AUTO);
    o.block = block;
    o.staging = h;
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create(&o, &d), EBB_OK, "%s", ebb_last_error());
    ebb_pool_info info;
    ebb_pool_info_get(d, &info);
    uint64_t stride = round_up_u64(size, info.alignment);
    cr_assert_eq(info.bytes, (uint64_t)slots * stride, "%d slots of stride %llu reserve %llu",
                 (int)slots, (unsigned long long)stride, (unsigned long long)info.bytes);
    uint64_t max, sum;
    file_sizes(d, slots, 3, 3, &max, &sum);
    cr_assert_eq(sum, info.bytes);
    cr_assert_leq(max, 3 * stride, "a file holds more than ceil(7 / 3) slots");
    for (int32_t s = 0; s < slots; s++) {
        int f0 = -1, f1 = -1, f2 = -1;
        ebb_disk_debug_locate(d, s, 0, &f0, NULL, NULL);
        ebb_disk_debug_locate(d, s, 1, &f1, NULL, NULL);
        ebb_disk_debug_locate(d, s, 2, &f2, NULL, NULL);
        cr_assert(f0 != f1 && f1 != f2 && f0 != f2, "slot %d: its blocks share a drive", s);
    }
    all_slots_roundtrip(h, d, slots, size);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(a);
    rm_tmpdir(b);
    rm_tmpdir(c);
}
