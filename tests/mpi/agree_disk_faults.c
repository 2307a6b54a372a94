/*
 * Disk failures in the middle of a run under ebb_mpi_run_create, on one rank
 * only: its disk filling up (a write completes with ENOSPC, injected through
 * the disk pool's fault hooks, storage/fault.h) during the forward sweep, and
 * a checksum mismatch (a byte of every disk slot overwritten in its file at
 * the first reverse step) found when the reverse sweep reads a state back. Every rank must return the
 * failing rank's status with "rank R failed: <its message>", none may hang
 * (run_mpirun.sh's time limit), and no file may stay in any rank's disk
 * directory. Each fault under multistage (agreement at the sweeps' ends) and
 * async (agreement at every decision). Argument: a scratch directory.
 */
#include <errno.h>

#include "mpi_workload.h"
#include "runtime/runtime_internal.h"
#include "storage/storage_internal.h"

enum { SIZE = 32768 + 8, STEPS = 80 };

typedef struct dcase {
    const char *name;
    int strategy;
    int bad_rank;       /* -1: the last rank */
    int enospc;         /* 1: its io_nth-th disk request fails with ENOSPC */
    uint64_t io_nth;
    int64_t corrupt_at; /* >= 0: at this reverse step, every disk slot is overwritten */
    ebb_status expect;
    const char *message; /* in every rank's error, after "rank R failed: " */
} dcase;

static const dcase cases[] = {
    {"disk full, multistage", EBB_CONFIG_STRATEGY_MULTISTAGE, -1, 1, 3, -1, EBB_ERR_IO,
     "No space left on device"},
    {"disk full, async", EBB_CONFIG_STRATEGY_ASYNC, 0, 1, 2, -1, EBB_ERR_IO,
     "No space left on device"},
    {"checksum, multistage", EBB_CONFIG_STRATEGY_MULTISTAGE, 0, 0, 0, STEPS - 1,
     EBB_ERR_CHECKSUM, "checksum mismatch reading disk slot"},
    {"checksum, async", EBB_CONFIG_STRATEGY_ASYNC, -1, 0, 0, STEPS - 1, EBB_ERR_CHECKSUM,
     "checksum mismatch reading disk slot"},
};

typedef struct ctx {
    mw w;               /* first: the workload's callbacks take a ctx as an mw */
    ebb_run *run;
    int64_t corrupt_at;
    int corrupted;
} ctx;

/* Flips a byte of every disk slot's first block in its (unlinked) file:
 * whichever state the reverse sweep reads from disk next is found corrupt
 * (async's use of the slots depends on timing, so no one slot is sure to
 * be read again). */
static int corrupting_reverse(void *user, int64_t k, void *state)
{
    ctx *c = user;
    if (k == c->corrupt_at) {
        ebb_pool *disk = ebb_run_debug_pool(c->run, EBB_TIER_DISK);
        ebb_pool_info info;
        if (!disk || ebb_pool_info_get(disk, &info) != EBB_OK)
            return ebb_callback_fail("no disk pool: %s", ebb_last_error());
        for (int32_t s = 0; s < info.slots; s++) {
            int fd;
            int64_t off;
            const char *name;
            unsigned char b;
            if (ebb_disk_debug_locate(disk, s, 0, &fd, &off, &name) != EBB_OK ||
                pread(fd, &b, 1, off + 100) != 1)
                return ebb_callback_fail("cannot reach disk slot %d: %s", (int)s,
                                         ebb_last_error());
            b ^= 0xff;
            if (pwrite(fd, &b, 1, off + 100) != 1)
                return ebb_callback_fail("cannot overwrite disk slot %d in %s", (int)s, name);
        }
        c->corrupted = 1;
    }
    return mw_reverse(&c->w, k, state);
}

static void one_case(const dcase *d, const char *dir, int rank, int ranks)
{
    int bad = d->bad_rank >= 0 ? d->bad_rank : ranks - 1;
    int me_bad = rank == bad;
    ebb_config cfg;
    const char *paths[] = {dir};
    if (ebb_config_init_default(&cfg) != EBB_OK || ebb_config_set_disk_paths(&cfg, paths, 1)) {
        mw_fail("%s: configuration: %s", d->name, ebb_last_error());
        return;
    }
    cfg.gpu.enabled = 0;
    cfg.host.budget = 6 * SIZE;
    cfg.host.pin = cfg.host.prefault = 0;
    cfg.disk.budget = 40 * SIZE;
    cfg.disk.direct = 0; /* buffered: the corruption is a plain one-byte pwrite */
    cfg.disk.checksum = 1;
    ctx c;
    memset(&c, 0, sizeof c);
    mw_init(&c.w, SIZE, STEPS);
    /* steps of 1 ms: the disk keeps up under load, so async stores on disk
     * (a state every other step) and the reverse sweep reads from it */
    c.w.spin_s = 1e-3;
    c.corrupt_at = me_bad ? d->corrupt_at : -1;
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = SIZE;
    o.forward = mw_forward;
    o.reverse = corrupting_reverse;
    o.user = &c;
    o.steps = STEPS;
    o.config = &cfg;
    o.strategy = d->strategy;
    ebb_status st = ebb_mpi_run_create(&o, MPI_COMM_WORLD, &c.run);
    if (st != EBB_OK) {
        mw_fail("%s: create: %s", d->name, ebb_last_error());
        ebb_config_dispose(&cfg);
        return;
    }
    ebb_pool *disk = ebb_run_debug_pool(c.run, EBB_TIER_DISK);
    if (!disk)
        mw_fail("%s: the run has no disk pool", d->name);
    else if (me_bad && d->enospc) {
        /* Before any request: the engine reads it after the first enqueue's lock. */
        disk->fault.io_nth = d->io_nth;
        disk->fault.io_errno = ENOSPC;
    }
    st = mw_sweeps(c.run, &c.w, (uint64_t)rank);
    const char *msg = mw_check_failure(d->name, st, d->expect, bad, 1, d->message);
    if (me_bad && d->corrupt_at >= 0 && !c.corrupted)
        mw_fail("%s: reverse step %lld never came", d->name, (long long)d->corrupt_at);
    if (rank == 0)
        printf("%-22s every rank: %s\n", d->name, msg);
    /* stopped: the pools are released at the failure, before destroy */
    if (ebb_run_debug_pool(c.run, EBB_TIER_DISK))
        mw_fail("%s: the disk pool outlived the failure", d->name);
    if (mw_files(dir) != 0)
        mw_fail("%s: %d files left in %s after the failure", d->name, mw_files(dir), dir);
    mw_end_case(c.run, &cfg, d->name, dir);
}

int main(int argc, char **argv)
{
    char dir[4096];
    int ranks = mw_start(&argc, &argv, dir, sizeof dir);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        one_case(&cases[i], dir, mw_rank, ranks);
    rmdir(dir);
    return mw_finish();
}
