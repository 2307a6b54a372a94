/* Checksums never run on the io_uring thread: while it hashes, nothing is
 * submitted and the device idles. Every XXH3 call made while the pool works
 * is counted by the thread that makes it (the test defines XXH3_64bits,
 * which the library would take from libxxhash, and calls libxxhash's own
 * through dlopen; the threads are told by their names): the ring thread
 * ("ebb-uring") makes none, and the writes' and reads' blocks are all
 * hashed somewhere. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <xxhash.h>

#include "storage/helpers.h"

static _Atomic long on_ring, elsewhere;

XXH64_hash_t XXH3_64bits(const void *data, size_t len)
{
    static XXH64_hash_t (*real)(const void *, size_t);
    if (!real) {
        void *lib = dlopen("libxxhash.so.0", RTLD_NOW | RTLD_LOCAL);
        cr_assert_not_null(lib, "dlopen libxxhash: %s", dlerror());
        *(void **)&real = dlsym(lib, "XXH3_64bits");
        cr_assert_not_null(real, "dlsym XXH3_64bits: %s", dlerror());
    }
    char name[16] = "";
    (void)prctl(PR_GET_NAME, name, 0, 0, 0);
    if (strcmp(name, "ebb-uring") == 0)
        atomic_fetch_add(&on_ring, 1);
    else
        atomic_fetch_add(&elsewhere, 1);
    return real(data, len);
}

Test(disk_checksum_off_ring, ring_thread_never_hashes)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    enum { N = 6 };
    const size_t size = 1 * MiB + 100; /* 5 blocks of 256 KiB, the last short */
    ebb_pool *h = host_pool(size, 2 * N);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, size, N, EBB_DISK_BACKEND_URING);
    o.block = 256 * KiB;
    o.checksum = 1;
    o.staging = h;
    ebb_pool *d = create_or_skip(&o, NULL);
    ebb_ticket t[N];
    for (int32_t i = 0; i < N; i++) {
        fill_random(slot_ptr(h, i), size, (uint64_t)i + 3);
        cr_assert_eq(ebb_move(d, i, h, i, &t[i]), EBB_OK, "%s", ebb_last_error());
    }
    cr_assert_eq(ebb_ticket_wait_all(t, N), EBB_OK, "%s", ebb_last_error());
    for (int32_t i = 0; i < N; i++)
        cr_assert_eq(ebb_move(h, N + i, d, i, &t[i]), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_ticket_wait_all(t, N), EBB_OK, "%s", ebb_last_error());
    for (int32_t i = 0; i < N; i++)
        cr_assert(memcmp(slot_ptr(h, i), slot_ptr(h, N + i), size) == 0, "slot %d differs", i);
    long ring = atomic_load(&on_ring), other = atomic_load(&elsewhere);
    cr_assert_eq(ring, 0, "%ld of %ld block hashes ran on the io_uring thread", ring,
                 ring + other);
    cr_assert_geq(other, 2 * N * 5, "only %ld block hashes for %d writes and reads of 5 blocks",
                  other, N);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}
