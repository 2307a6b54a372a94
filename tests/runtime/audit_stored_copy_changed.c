/* audit = "hash" on restore: a stored copy changed between its store and its
 * restore is named ("x_K restored from TIER slot S differs from its first
 * computation ...: the stored copy was changed"), for a host slot (a byte of
 * the stored copy of x_0 flipped in memory) and a disk slot (a byte of disk
 * slot 0's file flipped, the disk checksum off so that the audit is what
 * sees it). Without the audit the same change reaches the adjoint unnoticed.
 * A gpu slot: tests/gpu_mock/audit_gpu_slot_changed.c. */
#include "storage/fault.h"
#include "workload.h"

typedef struct {
    wl w;
    ebb_tier tier;     /* the tier whose stored copy is changed */
    int64_t at;        /* at this reverse step */
    unsigned char *x0; /* host: the copy of x_0 is found by its bytes */
    int changed;       /* copies changed */
} ctx;

static void change_host_copy(ctx *c)
{
    ebb_pool *host = ebb_run_debug_pool(c->w.run, EBB_TIER_HOST);
    cr_assert_not_null(host);
    ebb_pool_info info;
    cr_assert_eq(ebb_pool_info_get(host, &info), EBB_OK);
    for (int32_t s = 0; s < info.slots; s++) {
        unsigned char *p = NULL;
        cr_assert_eq(ebb_pool_slot_ptr(host, s, (void **)&p), EBB_OK);
        if (memcmp(p, c->x0, c->w.size) == 0) {
            p[7] ^= 0x40;
            c->changed++;
        }
    }
}

static void change_disk_copy(ctx *c)
{
    int fd;
    int64_t off;
    const char *name;
    ebb_pool *disk = ebb_run_debug_pool(c->w.run, EBB_TIER_DISK);
    cr_assert_eq(ebb_disk_debug_locate(disk, 0, 0, &fd, &off, &name), EBB_OK);
    void *block = NULL; /* aligned: the file is open with O_DIRECT */
    cr_assert_eq(posix_memalign(&block, 4096, 4096), 0);
    cr_assert_eq(pread(fd, block, 4096, off), 4096);
    ((unsigned char *)block)[100] ^= 0xff;
    cr_assert_eq(pwrite(fd, block, 4096, off), 4096);
    free(block);
    c->changed++;
}

static int changing_reverse(void *user, int64_t k, void *state)
{
    ctx *c = user;
    if (k == c->at && c->changed == 0) {
        if (c->tier == EBB_TIER_HOST)
            change_host_copy(c);
        else
            change_disk_copy(c);
    }
    return wl_reverse_cb(&c->w, k, state);
}

/* One run with the copy changed at reverse step `at`: its status. */
static ebb_status run_changed(ebb_config *cfg, ctx *c, ebb_audit audit)
{
    const size_t size = 5000;
    const int64_t n = 60;
    wl_init(&c->w, size);
    c->w.steps_known = n;
    c->changed = 0;
    c->x0 = malloc(size);
    cr_assert_not_null(c->x0);
    wl_x0(&c->w, c->x0, 9);
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = size;
    o.steps = n;
    o.config = cfg;
    o.audit = audit;
    o.forward = wl_forward_cb;
    o.reverse = changing_reverse;
    o.user = c;
    if (c->tier == EBB_TIER_HOST) {
        cfg->disk.enabled = 0;
        o.strategy = EBB_CONFIG_STRATEGY_REVOLVE;
        o.slots = 3;
    } else {
        cfg->disk.checksum = 0;
        o.strategy = EBB_CONFIG_STRATEGY_MULTISTAGE;
        o.slots = 2;
        o.slow_slots = 6;
        o.staging = 2; /* reads reach the disk (faults.c) */
    }
    ebb_status st = wl_run(&o, NULL, &c->w, 9, NULL);
    cr_assert_eq(c->changed, 1, "%d stored copies changed", c->changed);
    free(c->x0);
    return st;
}

static void expect_named(ebb_tier tier, int64_t at)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    ctx c = {.tier = tier, .at = at};

    /* unaudited, the change goes into the adjoint */
    cr_assert_eq(run_changed(&cfg, &c, EBB_AUDIT_OFF), EBB_OK, "%s", ebb_last_error());
    cr_assert_neq(c.w.adjoint, wl_reference(5000, 60, 9), "the change did not reach the adjoint");

    cr_assert_eq(run_changed(&cfg, &c, EBB_AUDIT_HASH), EBB_ERR_CHECKSUM, "%s",
                 ebb_last_error());
    const char *msg = ebb_last_error();
    cr_assert(strstr(msg, "restored from") && strstr(msg, "differs from its first computation") &&
                  strstr(msg, "the stored copy was changed"),
              "%s", msg);
    if (tier == EBB_TIER_HOST)
        cr_assert(strstr(msg, "x_0 restored from host slot"), "%s", msg);
    cr_assert_eq(wl_dir_entries(dir), 0);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

Test(audit_stored_copy_changed, host_slot) { expect_named(EBB_TIER_HOST, 59); }

Test(audit_stored_copy_changed, disk_slot) { expect_named(EBB_TIER_DISK, 50); }
