/* ebb_config_pool_options: a configuration turned into the options of a
 * storage pool, with the slot count its budget holds once every slot is
 * rounded up the way the pool rounds it. */
#include "config/helpers.h"

static size_t page(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p >= 4096 ? (size_t)p : 4096;
}

static size_t round_to(size_t v, size_t a) { return (v + a - 1) / a * a; }

/* The default configuration with explicit budgets and the disk tier in the
 * test's directory. */
static void init_cfg(ebb_config *cfg)
{
    cr_assert_eq(ebb_config_init_default(cfg), EBB_OK);
    cfg->host.budget = UINT64_C(1) << 20;
    cfg->disk.budget = UINT64_C(1) << 20;
    const char *dir = test_dir;
    cr_assert_eq(ebb_config_set_disk_paths(cfg, &dir, 1), EBB_OK);
}

/* ebb_config_pool_options must fail with `status` and a message holding
 * each of the NULL-terminated strings, leaving *out as it was. */
static void expect_error(const ebb_config *cfg, ebb_tier tier, size_t state, ebb_status status, ...)
{
    ebb_pool_options o;
    memset(&o, 0xab, sizeof o);
    ebb_status s = ebb_config_pool_options(cfg, tier, state, &o);
    const char *msg = ebb_last_error();
    cr_assert_eq(s, status, "status %s, expected %s: %s", ebb_status_name(s), ebb_status_name(status),
                 msg);
    va_list ap;
    va_start(ap, status);
    for (const char *want; (want = va_arg(ap, const char *)) != NULL;)
        cr_expect(strstr(msg, want) != NULL, "message\n  %s\nlacks\n  %s", msg, want);
    va_end(ap);
    unsigned char untouched[sizeof o];
    memset(untouched, 0xab, sizeof untouched);
    cr_expect(memcmp(&o, untouched, sizeof o) == 0, "*out was written on failure");
}

static int32_t slots_for(const ebb_config *cfg, ebb_tier tier, size_t state)
{
    ebb_pool_options o;
    ebb_status s = ebb_config_pool_options(cfg, tier, state, &o);
    cr_assert_eq(s, EBB_OK, "%s tier, state %zu: %s", ebb_tier_name(tier), state, ebb_last_error());
    cr_expect_eq(o.slot_size, state);
    cr_expect_eq(o.tier, tier);
    return o.slots;
}

TestSuite(pool_options, .init = setup_dir, .fini = cleanup_dir);

Test(pool_options, host_fields)
{
    ebb_config cfg;
    init_cfg(&cfg);
    cfg.host.numa = 0;
    cfg.host.pin = 0;
    cfg.host.prefault = 0;
    cfg.gpu.device = 3;
    ebb_pool_options o;
    cr_assert_eq(ebb_config_pool_options(&cfg, EBB_TIER_HOST, 256 << 10, &o), EBB_OK, "%s",
                 ebb_last_error());
    cr_expect_eq(o.tier, EBB_TIER_HOST);
    cr_expect_eq(o.slot_size, 256 << 10);
    cr_expect_eq(o.slots, 4); /* 1 MiB / 256 KiB: an exact fit */
    cr_expect_eq(o.numa_node, 0);
    cr_expect_eq(o.pin, 0);
    cr_expect_eq(o.prefault, 0);
    cr_expect_eq(o.device, 3);
    cr_expect_null(o.staging);
    /* The defaults: pin and prefault on, NUMA auto. */
    cfg.host.numa = EBB_NUMA_AUTO;
    cfg.host.pin = 1;
    cfg.host.prefault = 1;
    cr_assert_eq(ebb_config_pool_options(&cfg, EBB_TIER_HOST, 4096, &o), EBB_OK, "%s", ebb_last_error());
    cr_expect_eq(o.numa_node, -1);
    cr_expect_eq(o.pin, 1);
    cr_expect_eq(o.prefault, 1);
    ebb_config_dispose(&cfg);
}

/* Host slots are rounded up to a cache line below a page, to the page from
 * one on: a budget of k strides holds k slots, one byte less holds k - 1. */
Test(pool_options, host_slot_counts)
{
    ebb_config cfg;
    init_cfg(&cfg);
    size_t pg = page();
    const size_t states[] = {1, 48, 65, pg - 64, pg - 63, 4096, 5000, pg, pg + 1, 3 * pg - 1,
                             1 << 20, (1 << 20) + 1};
    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++) {
        size_t stride = round_to(states[i], round_to(states[i], 64) < pg ? 64 : pg);
        for (uint64_t k = 1; k <= 5; k += 2) {
            cfg.host.budget = k * stride;
            cr_expect_eq(slots_for(&cfg, EBB_TIER_HOST, states[i]), (int32_t)k, "state %zu, budget %llu",
                         states[i], (unsigned long long)cfg.host.budget);
            cfg.host.budget = k * stride - 1;
            if (k > 1)
                cr_expect_eq(slots_for(&cfg, EBB_TIER_HOST, states[i]), (int32_t)(k - 1),
                             "state %zu, budget %llu", states[i], (unsigned long long)cfg.host.budget);
        }
    }
    ebb_config_dispose(&cfg);
}

/* What the options promise is what the pool takes: slots x the page-rounded
 * state, within the budget. */
Test(pool_options, host_pool_fits_the_budget)
{
    ebb_config cfg;
    init_cfg(&cfg);
    cfg.host.budget = 10 * page() + 123;
    ebb_pool_options o;
    cr_assert_eq(ebb_config_pool_options(&cfg, EBB_TIER_HOST, page() + 1, &o), EBB_OK, "%s",
                 ebb_last_error());
    cr_expect_eq(o.slots, 5);
    ebb_pool *pool = NULL;
    cr_assert_eq(ebb_pool_create(&o, &pool), EBB_OK, "%s", ebb_last_error());
    ebb_pool_info info;
    cr_assert_eq(ebb_pool_info_get(pool, &info), EBB_OK);
    cr_expect_eq(info.slots, 5);
    cr_expect_eq(info.slot_stride, 2 * page());
    cr_expect_leq(info.bytes, cfg.host.budget);
    ebb_pool_destroy(pool);
    ebb_config_dispose(&cfg);
}

Test(pool_options, disk_fields)
{
    ebb_config cfg;
    init_cfg(&cfg);
    cfg.disk.block_size = UINT64_C(64) << 10;
    cfg.disk.queue_depth = 5;
    cfg.disk.threads = 3;
    cfg.disk.backend = EBB_DISK_BACKEND_THREADS;
    cfg.disk.direct = 0;
    cfg.disk.checksum = 1;
    cfg.gpu.chunk_size = UINT64_C(1) << 20; /* not the disk tier's */
    ebb_pool_options o;
    cr_assert_eq(ebb_config_pool_options(&cfg, EBB_TIER_DISK, 100000, &o), EBB_OK, "%s",
                 ebb_last_error());
    cr_expect_eq(o.tier, EBB_TIER_DISK);
    cr_expect_eq(o.slot_size, 100000);
    cr_expect_eq(o.slots, 10); /* 1 MiB / 100 KiB rounded to 4 KiB (102400) */
    cr_expect_eq((const void *)o.paths, (const void *)cfg.disk.paths); /* borrowed */
    cr_expect_eq(o.path_count, 1);
    cr_expect_str_eq(o.paths[0], test_dir);
    cr_expect_eq(o.backend, EBB_DISK_BACKEND_THREADS);
    cr_expect_eq(o.queue_depth, 5);
    cr_expect_eq(o.threads, 3);
    cr_expect_eq(o.direct, 0);
    cr_expect_eq(o.checksum, 1);
    cr_expect_eq(o.block, 64 << 10);
    cr_expect_null(o.staging);
    cr_expect_null(o.compression, "tier.disk.compression is off");
    /* The pool takes them as they are (threads backend, buffered). */
    ebb_pool *pool = NULL;
    cr_assert_eq(ebb_pool_create(&o, &pool), EBB_OK, "%s", ebb_last_error());
    ebb_pool_info info;
    cr_assert_eq(ebb_pool_info_get(pool, &info), EBB_OK);
    cr_expect_eq(info.slots, 10);
    cr_expect_eq(info.threads, 3);
    cr_expect_eq(info.queue_depth, 5);
    cr_expect_eq(info.block, 64 << 10);
    cr_expect_eq(info.checksum, 1);
    if (info.alignment == 4096)
        cr_expect_leq(info.bytes, cfg.disk.budget);
    ebb_pool_destroy(pool);
    ebb_config_dispose(&cfg);
}

/* One path: slots are the state rounded up to 4 KiB. */
Test(pool_options, disk_slot_counts)
{
    ebb_config cfg;
    init_cfg(&cfg);
    cfg.disk.budget = 64 << 10;
    cr_expect_eq(slots_for(&cfg, EBB_TIER_DISK, 4096), 16);
    cr_expect_eq(slots_for(&cfg, EBB_TIER_DISK, 4097), 8);
    cr_expect_eq(slots_for(&cfg, EBB_TIER_DISK, 1), 16);
    cfg.disk.budget = (64 << 10) - 1;
    cr_expect_eq(slots_for(&cfg, EBB_TIER_DISK, 4096), 15);
    /* Exact fit and one byte short. */
    cfg.disk.budget = 12288;
    cr_expect_eq(slots_for(&cfg, EBB_TIER_DISK, 12288), 1);
    cr_expect_eq(slots_for(&cfg, EBB_TIER_DISK, 8193), 1);
    cfg.disk.budget = 12287;
    expect_error(&cfg, EBB_TIER_DISK, 12288, EBB_ERR_NO_MEMORY,
                 "key 'tier.disk.budget' (default or set by the program): 12.0 KiB (12287 bytes) "
                 "holds no state of 12 KiB; expected a budget of at least 12 KiB (raise it, or "
                 "disable the tier)",
                 NULL);
    ebb_config_dispose(&cfg);
}

/* Several paths: a slot is striped in whole blocks and each path holds an
 * equal share of the budget; the pool made from the options stays within
 * every share. */
Test(pool_options, disk_striped_slot_counts)
{
    ebb_config cfg;
    init_cfg(&cfg);
    const char *dirs[2];
    char a[512], b[512];
    snprintf(a, sizeof a, "%s", make_in_dir("nvme0", NULL));
    snprintf(b, sizeof b, "%s", make_in_dir("nvme1", NULL));
    dirs[0] = a;
    dirs[1] = b;
    cr_assert_eq(ebb_config_set_disk_paths(&cfg, dirs, 2), EBB_OK);
    cfg.disk.block_size = 64 << 10;
    cfg.disk.direct = 0;
    cfg.disk.budget = 1 << 20; /* 512 KiB a path */
    /* Striping does not inflate a slot: 100 KiB states, 5 a path, 10 in all,
     * as with one path (a block larger than a slot costs nothing). */
    cr_expect_eq(slots_for(&cfg, EBB_TIER_DISK, 100 << 10), 10);
    /* 64 KiB: exact fit, 16 slots; one byte short of the budget leaves each
     * path 7: 14 slots. */
    cr_expect_eq(slots_for(&cfg, EBB_TIER_DISK, 64 << 10), 16);
    cfg.disk.budget = (1 << 20) - 1;
    cr_expect_eq(slots_for(&cfg, EBB_TIER_DISK, 64 << 10), 14);
    /* 128 KiB + 1 rounds up to 132 KiB: 3 a path, 6 in all. */
    cfg.disk.budget = 1 << 20;
    cr_expect_eq(slots_for(&cfg, EBB_TIER_DISK, (128 << 10) + 1), 6);

    ebb_pool_options o;
    cr_assert_eq(ebb_config_pool_options(&cfg, EBB_TIER_DISK, 100 << 10, &o), EBB_OK, "%s",
                 ebb_last_error());
    cr_expect_eq(o.path_count, 2);
    ebb_pool *pool = NULL;
    cr_assert_eq(ebb_pool_create(&o, &pool), EBB_OK, "%s", ebb_last_error());
    ebb_pool_info info;
    cr_assert_eq(ebb_pool_info_get(pool, &info), EBB_OK);
    cr_expect_eq(info.slots, 10);
    cr_expect_leq(info.bytes, cfg.disk.budget);
    ebb_pool_destroy(pool);

    /* A share smaller than a (rounded) state holds nothing. */
    cfg.disk.budget = 20 << 10;
    expect_error(&cfg, EBB_TIER_DISK, 10000, EBB_ERR_NO_MEMORY,
                 "key 'tier.disk.budget' (default or set by the program): 20 KiB holds no state of "
                 "10 kB: a slot is a state rounded up to 4 KiB (the direct-I/O alignment) and each "
                 "of the 2 paths holds an equal share of the budget; expected a budget of at least "
                 "24 KiB (raise it, or disable the tier)", NULL);
    cfg.disk.budget = 24 << 10;
    cr_expect_eq(slots_for(&cfg, EBB_TIER_DISK, 10000), 2);
    ebb_config_dispose(&cfg);
}

/* A budget smaller than one slot: EBB_ERR_NO_MEMORY naming the budget key (with
 * the file and line that set it), the budget, the state and what to do. */
Test(pool_options, budget_too_small)
{
    ebb_config cfg;
    load_ok("[run]\n[tier.host]\nbudget = \"1 MiB\"\n", &cfg);
    cr_expect_eq(slots_for(&cfg, EBB_TIER_HOST, 1 << 20), 1);
    size_t pg = page();
    if (pg == 4096) {
        /* ebb_config_check counts the state, the pool a page-rounded slot. */
        cr_expect_eq(ebb_config_check(&cfg, (1 << 20) + 1), EBB_ERR_NO_MEMORY);
        expect_error(&cfg, EBB_TIER_HOST, (1 << 20) + 1, EBB_ERR_NO_MEMORY,
                     "t.toml:3: key 'tier.host.budget': 1 MiB holds no state of 1.0 MiB (1048577 "
                     "bytes): a slot is a state rounded up to 4 KiB (the page size); expected a "
                     "budget of at least 1028 KiB (raise it, or disable the tier)",
                     NULL);
    }
    ebb_config_dispose(&cfg);

    /* Set by the program, the state exactly the budget but not a whole page. */
    init_cfg(&cfg);
    cfg.host.budget = 5000;
    cr_expect_eq(ebb_config_check(&cfg, 5000), EBB_OK, "%s", ebb_last_error());
    expect_error(&cfg, EBB_TIER_HOST, 5000, EBB_ERR_NO_MEMORY,
                 "key 'tier.host.budget' (default or set by the program): 5 kB holds no state of "
                 "5 kB: a slot is a state rounded up to", "(the page size); expected a budget of at "
                 "least", NULL);
    /* "auto": the rule and what it came to now. */
    cfg.host.budget = EBB_BUDGET_AUTO;
    expect_error(&cfg, EBB_TIER_HOST, SIZE_MAX / 2, EBB_ERR_NO_MEMORY,
                 "key 'tier.host.budget' (default or set by the program): \"auto\" (half of "
                 "MemAvailable, now ", ") holds no state of ", "(raise it, or disable the tier)",
                 NULL);
    ebb_config_dispose(&cfg);
}

/* A disabled tier: EBB_ERR_CONFIG naming tier.<t>.enabled, and where it
 * was set. */
Test(pool_options, disabled_tier)
{
    ebb_config cfg;
    load_ok("[tier.host]\nbudget = \"1 MiB\"\n\n[tier.disk]\nenabled = false\n", &cfg);
    expect_error(&cfg, EBB_TIER_DISK, 4096, EBB_ERR_CONFIG,
                 "t.toml:5: key 'tier.disk.enabled': the disk tier is disabled; expected "
                 "tier.disk.enabled = true for a disk pool", NULL);
    cr_expect_eq(slots_for(&cfg, EBB_TIER_HOST, 4096), (int32_t)((1 << 20) / page()));
    ebb_config_dispose(&cfg);
    init_cfg(&cfg);
    cfg.host.enabled = 0;
    expect_error(&cfg, EBB_TIER_HOST, 4096, EBB_ERR_CONFIG,
                 "key 'tier.host.enabled' (default or set by the program): the host tier is "
                 "disabled; expected tier.host.enabled = true for a host pool", NULL);
    cfg.gpu.enabled = 0;
    expect_error(&cfg, EBB_TIER_GPU, 4096, EBB_ERR_CONFIG, "key 'tier.gpu.enabled'",
                 "the gpu tier is disabled; expected tier.gpu.enabled = true for a gpu pool", NULL);
    ebb_config_dispose(&cfg);
}

/* The gpu tier: slots of the state rounded to 256 bytes, the copy chunk
 * from tier.gpu.chunk_size. Whether a device exists is not checked here: the
 * options are filled, and ebb_pool_create is what fails without one. */
Test(pool_options, gpu_tier)
{
    ebb_config cfg;
    init_cfg(&cfg);
    cfg.gpu.enabled = 1;
    cfg.gpu.budget = 4096;
    cfg.gpu.chunk_size = UINT64_C(16) << 20;
    cfg.disk.block_size = UINT64_C(1) << 20; /* not the gpu tier's */
    ebb_pool_options o;
    cr_assert_eq(ebb_config_pool_options(&cfg, EBB_TIER_GPU, 1000, &o), EBB_OK, "%s", ebb_last_error());
    cr_expect_eq(o.tier, EBB_TIER_GPU);
    cr_expect_eq(o.slots, 4); /* 4096 / 1024 */
    cr_expect_eq(o.block, 16 << 20);
    cr_expect_eq(o.device, 0);
    cr_expect_eq(slots_for(&cfg, EBB_TIER_GPU, 256), 16);
    cr_expect_eq(slots_for(&cfg, EBB_TIER_GPU, 257), 8);
    cr_expect_eq(slots_for(&cfg, EBB_TIER_GPU, 4096), 1);
    cfg.gpu.budget = 4095;
    expect_error(&cfg, EBB_TIER_GPU, 4096, EBB_ERR_NO_MEMORY,
                 "key 'tier.gpu.budget' (default or set by the program): 4.0 KiB (4095 bytes) holds "
                 "no state of 4 KiB; expected a budget of at least 4 KiB (raise it, or disable the "
                 "tier)", NULL);
    cr_expect_eq(slots_for(&cfg, EBB_TIER_GPU, 3840), 1); /* 15 x 256: fits in 4095 */

    ebb_pool *pool = NULL;
    if (ebb_gpu_count() == 0) {
        cr_expect_eq(ebb_pool_create(&o, &pool), EBB_ERR_UNSUPPORTED, "%s", ebb_last_error());
        cr_expect_null(pool);
        /* "auto" is half of the device's free memory: no device, no budget. */
        cfg.gpu.budget = EBB_BUDGET_AUTO;
        expect_error(&cfg, EBB_TIER_GPU, 1000, EBB_ERR_UNSUPPORTED,
                     "key 'tier.gpu.enabled' (default or set by the program): the GPU tier is enabled "
                     "but CUDA device 0 does not exist", NULL);
    } else {
        cr_assert_eq(ebb_pool_create(&o, &pool), EBB_OK, "%s", ebb_last_error());
        ebb_pool_info info;
        cr_assert_eq(ebb_pool_info_get(pool, &info), EBB_OK);
        cr_expect_eq(info.slots, 4);
        cr_expect_eq(info.slot_stride, 1024);
        cr_expect_eq(info.block, 16 << 20);
        cr_expect_leq(info.bytes, 4096);
        ebb_pool_destroy(pool);
        cfg.gpu.budget = EBB_BUDGET_AUTO;
        cr_expect_gt(slots_for(&cfg, EBB_TIER_GPU, 1000), 0);
    }
    ebb_config_dispose(&cfg);
}

Test(pool_options, slots_capped_at_int32_max)
{
    ebb_config cfg;
    init_cfg(&cfg);
    cfg.host.budget = UINT64_C(1) << 62;
    cr_expect_eq(slots_for(&cfg, EBB_TIER_HOST, 1), INT32_MAX);
    cfg.host.budget = (uint64_t)INT32_MAX * page();
    cr_expect_eq(slots_for(&cfg, EBB_TIER_HOST, page()), INT32_MAX);
    cfg.host.budget -= 1;
    cr_expect_eq(slots_for(&cfg, EBB_TIER_HOST, page()), INT32_MAX - 1);
    ebb_config_dispose(&cfg);
}

Test(pool_options, bad_arguments)
{
    ebb_config cfg;
    init_cfg(&cfg);
    ebb_pool_options o;
    cr_expect_eq(ebb_config_pool_options(NULL, EBB_TIER_HOST, 4096, &o), EBB_ERR_INVALID_ARG);
    cr_expect(strstr(ebb_last_error(), "ebb_config_pool_options: cfg is NULL") != NULL, "%s",
              ebb_last_error());
    cr_expect_eq(ebb_config_pool_options(&cfg, EBB_TIER_HOST, 4096, NULL), EBB_ERR_INVALID_ARG);
    cr_expect(strstr(ebb_last_error(), "out is NULL") != NULL, "%s", ebb_last_error());
    expect_error(&cfg, EBB_TIER_HOST, 0, EBB_ERR_INVALID_ARG,
                 "ebb_config_pool_options: state_bytes is 0; expected the bytes of one state", NULL);
    expect_error(&cfg, EBB_TIER_COUNT, 4096, EBB_ERR_INVALID_ARG, "is not a tier", NULL);
    expect_error(&cfg, (ebb_tier)-1, 4096, EBB_ERR_INVALID_ARG, "is not a tier", NULL);
    ebb_config_dispose(&cfg);
}

/* Values a program set out of range are refused as ebb_config_check refuses
 * them, naming the key, before any pool is made of them. */
Test(pool_options, values_out_of_range)
{
    ebb_config cfg;
    init_cfg(&cfg);
    cfg.disk.queue_depth = 0;
    expect_error(&cfg, EBB_TIER_DISK, 4096, EBB_ERR_CONFIG,
                 "key 'tier.disk.queue_depth' (default or set by the program): expected an integer "
                 "from 1 to 4096, got 0", NULL);
    cfg.disk.queue_depth = 16;
    cfg.disk.threads = 5000;
    expect_error(&cfg, EBB_TIER_DISK, 4096, EBB_ERR_CONFIG, "key 'tier.disk.threads'", "got 5000", NULL);
    cfg.disk.threads = 0;
    cfg.gpu.chunk_size = 0;
    cfg.gpu.enabled = 1;
    cfg.gpu.budget = 1 << 20;
    expect_error(&cfg, EBB_TIER_GPU, 4096, EBB_ERR_CONFIG, "key 'tier.gpu.chunk_size'", NULL);
    cfg.gpu.chunk_size = 1;
    /* No directory at all. */
    size_t n = cfg.disk.path_count;
    cfg.disk.path_count = 0;
    expect_error(&cfg, EBB_TIER_DISK, 4096, EBB_ERR_CONFIG,
                 "key 'tier.disk.path' (default or set by the program): 0 directories given; "
                 "expected at least one", NULL);
    cfg.disk.path_count = n;
    ebb_config_dispose(&cfg);
}

/* The same file the command-line tools read: keys land in the options. */
Test(pool_options, from_a_file)
{
    char text[1024];
    snprintf(text, sizeof text,
             "[tier.host]\nbudget = \"64 MiB\"\npin = false\nprefault = false\n"
             "[tier.disk]\npath = \"%s\"\nbudget = \"32 MiB\"\nblock_size = \"1 MiB\"\n"
             "queue_depth = 4\nthreads = 2\nbackend = \"threads\"\n"
             "[tier.gpu]\nenabled = false\nchunk_size = \"2 MiB\"\n",
             test_dir);
    ebb_config cfg;
    load_ok(text, &cfg);
    ebb_pool_options h, d;
    cr_assert_eq(ebb_config_pool_options(&cfg, EBB_TIER_HOST, 16 << 20, &h), EBB_OK, "%s",
                 ebb_last_error());
    cr_expect_eq(h.slots, 4);
    cr_expect_eq(h.pin, 0);
    cr_expect_eq(h.prefault, 0);
    cr_assert_eq(ebb_config_pool_options(&cfg, EBB_TIER_DISK, 16 << 20, &d), EBB_OK, "%s",
                 ebb_last_error());
    cr_expect_eq(d.slots, 2);
    cr_expect_eq(d.block, 1 << 20);
    cr_expect_eq(d.queue_depth, 4);
    cr_expect_eq(d.threads, 2);
    cr_expect_eq(d.backend, EBB_DISK_BACKEND_THREADS);
    cr_expect_eq(cfg.gpu.chunk_size, 2 << 20);
    expect_error(&cfg, EBB_TIER_GPU, 4096, EBB_ERR_CONFIG,
                 "t.toml:13: key 'tier.gpu.enabled': the gpu tier is disabled", NULL);
    ebb_config_dispose(&cfg);
}

/* The compression keys reach the disk pool's options, borrowed; never the
 * other tiers'. */
Test(pool_options, disk_compression)
{
    ebb_config cfg;
    init_cfg(&cfg);
    cfg.disk.compression.mode = EBB_COMPRESSION_LOSSLESS;
    cfg.disk.compression.codec = EBB_CODEC_ZSTD;
    cfg.disk.codec_threads = 3;
    ebb_pool_options o;
    cr_assert_eq(ebb_config_pool_options(&cfg, EBB_TIER_DISK, 100000, &o), EBB_OK, "%s",
                 ebb_last_error());
    cr_expect_eq((const void *)o.compression, (const void *)&cfg.disk.compression);
    cr_expect_eq(o.codec_threads, 3);
    cr_assert_eq(ebb_config_pool_options(&cfg, EBB_TIER_HOST, 100000, &o), EBB_OK, "%s",
                 ebb_last_error());
    cr_expect_null(o.compression);
    ebb_config_dispose(&cfg);
}

/* A fixed rate below the state's size: the disk budget holds that many more
 * slots (the pool's slots take the fixed size), once the element is known. */
Test(pool_options, disk_fixed_rate_slots)
{
    ebb_config cfg;
    init_cfg(&cfg);
    ebb_pool_options o;
    cr_assert_eq(ebb_config_pool_options(&cfg, EBB_TIER_DISK, 128 << 10, &o), EBB_OK, "%s",
                 ebb_last_error());
    int32_t plain = o.slots;
    cr_assert_gt(plain, 0);
    cfg.disk.compression.mode = EBB_COMPRESSION_FIXED_RATE;
    cfg.disk.compression.rate = 16;
    cr_assert_eq(ebb_config_pool_options(&cfg, EBB_TIER_DISK, 128 << 10, &o), EBB_OK, "%s",
                 ebb_last_error());
    cr_expect_eq(o.slots, plain, "no element yet: the state's size");
    cfg.disk.compression.element = EBB_ELEMENT_FLOAT64;
    cr_assert_eq(ebb_config_pool_options(&cfg, EBB_TIER_DISK, 128 << 10, &o), EBB_OK, "%s",
                 ebb_last_error());
    cr_expect_eq(o.slots, 4 * plain, "16 bits of 64: %d slots, %d without", o.slots, plain);
    cfg.disk.compression.mode = EBB_COMPRESSION_LOSSLESS;
    cr_assert_eq(ebb_config_pool_options(&cfg, EBB_TIER_DISK, 128 << 10, &o), EBB_OK, "%s",
                 ebb_last_error());
    cr_expect_eq(o.slots, plain, "lossless: sizes not known before");
    ebb_config_dispose(&cfg);
}
