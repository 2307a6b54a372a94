/* Disk tier, io_uring backend with registered buffers: random data survives a
 * round trip, for slots that are not a multiple of the block or the alignment,
 * through the fixed-buffer path wherever the limits allow it (root, or an
 * RLIMIT_MEMLOCK hard limit that holds the staging pool); registration
 * refused, or limited by RLIMIT_MEMLOCK, falls back (wholly or for the slots
 * that do not fit) and says so; file registration refused says so. */
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "storage/helpers.h"

/* 1 when this process holds CAP_IPC_LOCK (its io_uring registrations are
 * not counted against RLIMIT_MEMLOCK). */
static int have_ipc_lock(void)
{
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &hdr, data) != 0)
        return 0;
    return (data[CAP_IPC_LOCK / 32].effective >> (CAP_IPC_LOCK % 32)) & 1;
}

/* Drops CAP_IPC_LOCK from this (test) process; 0 on success. */
static int drop_ipc_lock(void)
{
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &hdr, data) != 0)
        return -1;
    data[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
    data[CAP_IPC_LOCK / 32].permitted &= ~(1u << (CAP_IPC_LOCK % 32));
    data[CAP_IPC_LOCK / 32].inheritable &= ~(1u << (CAP_IPC_LOCK % 32));
    return (int)syscall(SYS_capset, &hdr, data);
}

/* The limits let `bytes` be registered: CAP_IPC_LOCK, or a hard limit the
 * pool may raise its soft limit to (with room for the ring's own pages). */
static int limits_allow(uint64_t bytes)
{
    struct rlimit rl;
    if (have_ipc_lock())
        return 1;
    return getrlimit(RLIMIT_MEMLOCK, &rl) == 0 &&
           (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= bytes + 1 * MiB);
}

Test(disk_uring, roundtrip_registered_buffers)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    const size_t size = 1 * MiB + 4096 * 3 + 77; /* 5 blocks of 256 KiB, the last short */
    ebb_pool *h = host_pool(size, 4);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, size, 6, EBB_DISK_BACKEND_URING);
    o.block = 256 * KiB;
    o.queue_depth = 8;
    o.staging = h;
    ebb_pool *d = create_or_skip(&o, NULL);
    ebb_pool_info info;
    ebb_pool_info_get(d, &info);
    cr_assert_str_eq(info.backend, "io_uring");
    cr_assert_eq(info.threads, 1);
    cr_assert_eq(info.queue_depth, 8);
    cr_assert_eq(info.block, 256 * KiB);
    ebb_pool_info hinfo;
    ebb_pool_info_get(h, &hinfo);
    if (limits_allow(hinfo.bytes)) {
        cr_assert_eq(info.registered_buffers, 1, "not registered although the limits allow it: "
                                                 "'%s'", info.warnings);
        cr_assert_eq(info.registered_bytes, hinfo.bytes, "registered %llu of %llu bytes",
                     (unsigned long long)info.registered_bytes,
                     (unsigned long long)hinfo.bytes);
        cr_assert_eq(info.registered_files, 1, "files not registered: '%s'", info.warnings);
    } else {
        cr_assert(info.registered_buffers || strstr(info.warnings, "RLIMIT_MEMLOCK"),
                  "neither registered nor said why: '%s'", info.warnings);
    }
    cr_assert(info.direct || strstr(info.warnings, "O_DIRECT refused"), "warnings: '%s'",
              info.warnings);
    cr_assert_geq(info.bytes, 6 * (uint64_t)size);

    for (int32_t ds = 0; ds < 6; ds++)
        roundtrip(h, d, ds % 2, ds, 2 + ds % 2, (uint64_t)ds + 10);

    ebb_pool_stats st;
    ebb_pool_stats_get(d, &st);
    cr_assert_eq(st.writes, 6);
    cr_assert_eq(st.reads, 6);
    cr_assert_eq(st.bytes_written, 6 * size);
    cr_assert_geq(st.requests, 6 * 5 * 2, "every slot is 5 requests each way");
    cr_assert_eq(st.errors, 0);
    ebb_disk_debug dbg;
    ebb_disk_debug_get(d, &dbg);
    if (info.registered_buffers) {
        cr_assert_eq(dbg.fixed_requests, st.requests, "%llu of %llu requests on fixed buffers",
                     (unsigned long long)dbg.fixed_requests, (unsigned long long)st.requests);
        cr_assert_eq(dbg.plain_requests, 0);
    }
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(disk_uring, roundtrip_from_a_host_pool_that_is_not_registered)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    const size_t size = 512 * KiB;
    ebb_pool *before = host_pool(size, 2); /* mapped above the staging pool, or below */
    ebb_pool *staged = host_pool(size, 1);
    ebb_pool *other = host_pool(size, 2);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, size, 2, EBB_DISK_BACKEND_URING);
    o.staging = staged;
    ebb_pool *d = create_or_skip(&o, NULL);
    roundtrip(other, d, 0, 1, 1, 99); /* unregistered I/O from pools not staged */
    roundtrip(before, d, 0, 0, 1, 98);
    ebb_disk_debug dbg;
    ebb_disk_debug_get(d, &dbg);
    cr_assert_eq(dbg.fixed_requests, 0, "a pool that is not the staging pool used fixed buffers");
    cr_assert_gt(dbg.plain_requests, 0);
    ebb_pool_destroy(d);
    ebb_pool_destroy(other);
    ebb_pool_destroy(before);
    ebb_pool_destroy(staged);
    rm_tmpdir(dir);
}

Test(disk_uring, registration_refused_falls_back_and_says_why)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    ebb_pool *h = host_pool(64 * KiB, 2);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, 64 * KiB, 2, EBB_DISK_BACKEND_URING);
    o.staging = h;
    ebb_storage_fault f = {0};
    f.register_errno = ENOMEM;
    ebb_pool *d = create_or_skip(&o, &f);
    ebb_pool_info info;
    ebb_pool_info_get(d, &info);
    cr_assert_eq(info.registered_buffers, 0);
    cr_assert_eq(info.registered_bytes, 0);
    cr_assert(strstr(info.warnings, "RLIMIT_MEMLOCK") != NULL, "warnings: '%s'", info.warnings);
    cr_assert(strstr(info.warnings, "unregistered I/O") != NULL, "warnings: '%s'", info.warnings);
    roundtrip(h, d, 0, 1, 1, 5);
    ebb_disk_debug dbg;
    ebb_disk_debug_get(d, &dbg);
    cr_assert_eq(dbg.fixed_requests, 0);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

/* A normal user's limit: no CAP_IPC_LOCK, a soft RLIMIT_MEMLOCK of 64 KiB
 * under a hard one of 640 KiB, and 1 MiB of staging memory. The pool raises
 * its soft limit to the hard one, registers the slots that fit, says how
 * much, and runs the other slots unregistered; both kinds round-trip. */
Test(disk_uring, registration_limited_by_memlock)
{
    if (drop_ipc_lock() != 0)
        cr_skip_test("cannot drop CAP_IPC_LOCK here: %s", strerror(errno));
    cr_assert_eq(have_ipc_lock(), 0);
    struct rlimit rl = {64 * KiB, 640 * KiB};
    if (setrlimit(RLIMIT_MEMLOCK, &rl) != 0)
        cr_skip_test("cannot lower RLIMIT_MEMLOCK: %s", strerror(errno));
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    enum { SLOTS = 16 };
    const size_t size = 64 * KiB;
    ebb_pool *h = host_pool(size, SLOTS);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, size, SLOTS, EBB_DISK_BACKEND_URING);
    o.block = 32 * KiB;
    o.staging = h;
    ebb_pool *d = create_or_skip(&o, NULL);
    struct rlimit now;
    cr_assert_eq(getrlimit(RLIMIT_MEMLOCK, &now), 0);
    cr_assert_eq(now.rlim_cur, 640 * KiB, "the soft limit was not raised to the hard one");
    ebb_pool_info info;
    ebb_pool_info_get(d, &info);
    cr_assert_eq(info.registered_buffers, 1, "nothing registered: '%s'", info.warnings);
    cr_assert_gt(info.registered_bytes, 0);
    cr_assert_lt(info.registered_bytes, SLOTS * (uint64_t)size, "all of it registered");
    cr_assert_leq(info.registered_bytes, 640 * KiB);
    cr_assert_eq(info.registered_bytes % size, 0, "registration ends inside a slot");
    cr_assert(strstr(info.warnings, "RLIMIT_MEMLOCK") != NULL, "warnings: '%s'", info.warnings);
    char want[64];
    snprintf(want, sizeof want, "%llu of %llu bytes", (unsigned long long)info.registered_bytes,
             (unsigned long long)(SLOTS * size));
    cr_assert(strstr(info.warnings, want) != NULL, "'%s' missing from warnings: '%s'", want,
              info.warnings);
    /* The first slot is registered, the last is not: both work. */
    roundtrip(h, d, 0, 0, 1, 21);
    ebb_disk_debug dbg;
    ebb_disk_debug_get(d, &dbg);
    cr_assert_gt(dbg.fixed_requests, 0, "the registered slots did not use fixed buffers");
    roundtrip(h, d, SLOTS - 1, 1, SLOTS - 2, 22);
    ebb_disk_debug_get(d, &dbg);
    cr_assert_gt(dbg.plain_requests, 0, "the slots beyond the limit did not fall back");
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

/* io_uring refuses to register the files: I/O goes on through descriptors,
 * and the warnings say so. */
Test(disk_uring, file_registration_refused_is_a_warning)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    ebb_pool *h = host_pool(64 * KiB, 2);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, 64 * KiB, 2, EBB_DISK_BACKEND_URING);
    o.staging = h;
    ebb_storage_fault f = {0};
    f.register_files_errno = EMFILE;
    ebb_pool *d = create_or_skip(&o, &f);
    ebb_pool_info info;
    ebb_pool_info_get(d, &info);
    cr_assert_eq(info.registered_files, 0);
    cr_assert(strstr(info.warnings, "file registration failed") != NULL, "warnings: '%s'",
              info.warnings);
    cr_assert(strstr(info.warnings, "Too many open files") != NULL, "warnings: '%s'",
              info.warnings);
    roundtrip(h, d, 0, 1, 1, 6);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}
