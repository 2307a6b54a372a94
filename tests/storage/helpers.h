/* Shared helpers for the storage tests (a header: only *.c files are tests). */
#ifndef EBB_TESTS_STORAGE_HELPERS_H
#define EBB_TESTS_STORAGE_HELPERS_H

#include <criterion/criterion.h>
#include <errno.h>
#include <dirent.h>
#include <stdint.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ebb/ebb.h"
#include "storage/fault.h"
#include "support/uring_refused.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

/* A fresh directory under $TMPDIR or /tmp; removed by rm_tmpdir. */
static inline void make_tmpdir(char *buf, size_t len)
{
    const char *base = getenv("TMPDIR");
    if (!base || base[0] != '/')
        base = "/tmp";
    snprintf(buf, len, "%s/ebb-storage-test-XXXXXX", base);
    cr_assert_not_null(mkdtemp(buf), "mkdtemp %s", buf);
}

/* Removes the directory; fails the test if anything was left in it (the
 * disk tier's files must never be visible). */
static inline void rm_tmpdir(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    struct dirent *e;
    int left = 0;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            left++;
    closedir(d);
    cr_expect_eq(left, 0, "%d files left in %s", left, dir);
    rmdir(dir);
}

/* A temporary directory on /dev/shm, when that is another file system than
 * `other` (a second device for the per-device tests); otherwise removes
 * `other` and skips the test. */
static inline void shm_dir_or_skip(char *buf, size_t len, const char *other)
{
    struct stat a, b;
    snprintf(buf, len, "/dev/shm/ebb-test-XXXXXX");
    if (stat("/dev/shm", &a) == 0 && stat(other, &b) == 0 && a.st_dev != b.st_dev && mkdtemp(buf))
        return;
    rm_tmpdir(other);
    cr_skip_test("/dev/shm is missing or on the same file system as %s", other);
}

static inline void fill_random(void *buf, size_t n, uint64_t seed)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    unsigned char *p = buf;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p[i] = (unsigned char)(x >> 24);
    }
}

static inline ebb_pool *host_pool(size_t slot_size, int32_t slots)
{
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_HOST);
    o.slot_size = slot_size;
    o.slots = slots;
    ebb_pool *p = NULL;
    ebb_status s = ebb_pool_create(&o, &p);
    cr_assert_eq(s, EBB_OK, "host pool: %s", ebb_last_error());
    return p;
}

/* A host pool for `device`, asserted pinned (needs a GPU, real or the mock). */
static inline ebb_pool *pinned_host_pool(int device, int32_t slots, size_t size)
{
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_HOST);
    o.slot_size = size;
    o.slots = slots;
    o.device = device;
    ebb_pool *h = NULL;
    cr_assert_eq(ebb_pool_create(&o, &h), EBB_OK, "host pool: %s", ebb_last_error());
    ebb_pool_info info;
    ebb_pool_info_get(h, &info);
    cr_assert_eq(info.pinned, 1, "host pool not pinned: %s", info.warnings);
    return h;
}

/* A gpu pool on `device`; block 0 keeps the default copy chunk. */
static inline ebb_pool *gpu_pool(int device, int32_t slots, size_t size, size_t block)
{
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_GPU);
    o.slot_size = size;
    o.slots = slots;
    o.device = device;
    if (block)
        o.block = block;
    ebb_pool *g = NULL;
    cr_assert_eq(ebb_pool_create(&o, &g), EBB_OK, "gpu pool: %s", ebb_last_error());
    return g;
}

static inline void *slot_ptr(ebb_pool *p, int32_t slot)
{
    void *ptr = NULL;
    cr_assert_eq(ebb_pool_slot_ptr(p, slot, &ptr), EBB_OK, "%s", ebb_last_error());
    return ptr;
}

/* Disk options for one directory. */
static inline void disk_options(ebb_pool_options *o, const char *const *dirs, int n,
                                size_t slot_size, int32_t slots, ebb_disk_backend backend)
{
    ebb_pool_options_init(o, EBB_TIER_DISK);
    o->slot_size = slot_size;
    o->slots = slots;
    o->paths = dirs;
    o->path_count = n;
    o->backend = backend;
}

/* ebb_pool_create_with_faults (fault NULL: none) for a test that cannot run
 * without the pool it asks for: where that is an io_uring pool and io_uring
 * is refused here, removes the pool's (empty, fresh) directories and skips
 * the test; fails it on any other error. */
static inline ebb_pool *create_or_skip(const ebb_pool_options *o, const ebb_storage_fault *fault)
{
    ebb_pool *p = NULL;
    ebb_status s = ebb_pool_create_with_faults(o, fault, &p);
    if (s != EBB_OK && uring_refused(ebb_last_error())) {
        for (int i = 0; i < o->path_count; i++)
            rmdir(o->paths[i]);
        cr_skip_test("io_uring is refused here: %s", ebb_last_error());
    }
    cr_assert_eq(s, EBB_OK, "%s", ebb_last_error());
    return p;
}

/* host slot hs (random data) -> disk slot ds -> host slot hs2, compared. */
static inline void roundtrip(ebb_pool *host, ebb_pool *disk, int32_t hs, int32_t ds, int32_t hs2,
                             uint64_t seed)
{
    ebb_pool_info hi;
    ebb_pool_info_get(host, &hi);
    fill_random(slot_ptr(host, hs), hi.slot_size, seed);
    memset(slot_ptr(host, hs2), 0, hi.slot_size);
    ebb_ticket t;
    cr_assert_eq(ebb_move(disk, ds, host, hs, &t), EBB_OK, "store: %s", ebb_last_error());
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "store wait: %s", ebb_last_error());
    cr_assert_eq(ebb_move(host, hs2, disk, ds, &t), EBB_OK, "load: %s", ebb_last_error());
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "load wait: %s", ebb_last_error());
    cr_assert(memcmp(slot_ptr(host, hs), slot_ptr(host, hs2), hi.slot_size) == 0,
              "data differs after the disk round trip (slot %d)", ds);
}

/* Disk slots 0..slots-1 written at once from random data in host slots
 * 0..slots-1, read back at once into host slots slots..2*slots-1, compared;
 * `rounds` times with new data. */
static inline void all_slots_round_trip(ebb_pool *h, ebb_pool *d, int32_t slots, size_t size,
                                        uint64_t seed, int rounds)
{
    ebb_ticket *t = calloc((size_t)slots, sizeof *t);
    cr_assert_not_null(t);
    for (int r = 0; r < rounds; r++) {
        for (int32_t s = 0; s < slots; s++) {
            fill_random(slot_ptr(h, s), size, seed + (uint64_t)(r * slots + s));
            cr_assert_eq(ebb_move(d, s, h, s, &t[s]), EBB_OK, "%s", ebb_last_error());
        }
        cr_assert_eq(ebb_ticket_wait_all(t, (size_t)slots), EBB_OK, "%s", ebb_last_error());
        for (int32_t s = 0; s < slots; s++) {
            memset(slot_ptr(h, slots + s), 0, size);
            cr_assert_eq(ebb_move(h, slots + s, d, s, &t[s]), EBB_OK, "%s", ebb_last_error());
        }
        cr_assert_eq(ebb_ticket_wait_all(t, (size_t)slots), EBB_OK, "%s", ebb_last_error());
        for (int32_t s = 0; s < slots; s++)
            cr_assert(memcmp(slot_ptr(h, s), slot_ptr(h, slots + s), size) == 0,
                      "slot %d differs after the round trip (round %d, size %zu)", s, r, size);
    }
    free(t);
}

#endif
