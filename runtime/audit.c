/*
 * Audit mode: every action is replayed through the validator before it runs
 * ("replay"), and with "hash" every state is hashed (XXH3-64) when it is first
 * computed and checked whenever it is recomputed or restored, so that a
 * forward step that is not deterministic, or a slot whose data changed, is
 * named instead of turning into a silently wrong gradient.
 */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "common/error_internal.h"
#include "runtime/run_internal.h"

ebb_status rt_audit_init(ebb_run *run)
{
    if (run->info.audit == EBB_AUDIT_OFF)
        return EBB_OK;
    /* the slots the strategy may use (run_setup.c) */
    ebb_status st = ebb_validator_create(run->opt.steps, run->info.slots, &run->validator);
    if (st != EBB_OK || run->info.audit != EBB_AUDIT_HASH)
        return st;
    run->hash_cap = run->opt.steps > 0 ? run->opt.steps + 1 : 1024;
    run->hash = malloc((size_t)run->hash_cap * sizeof *run->hash);
    if (!run->hash)
        return ebb_fail(EBB_ERR_NO_MEMORY, "audit = \"hash\": cannot allocate %lld hashes",
                        (long long)run->hash_cap);
    return EBB_OK;
}

void rt_audit_free(ebb_run *run)
{
    ebb_validator_destroy(run->validator);
    run->validator = NULL;
    free(run->hash);
    run->hash = NULL;
}

ebb_status rt_audit_action(ebb_run *run, const ebb_action *a)
{
    if (!run->validator)
        return EBB_OK;
    ebb_status st = ebb_validator_check(run->validator, a, 1);
    if (st != EBB_OK)
        return ebb_fail_context(st, "audit");
    return EBB_OK;
}

/* The hash of buffer b of the live state's memory (a gpu state is copied to
 * the host scratch buffer first). */
static ebb_status hash_of(ebb_run *run, int32_t b, uint64_t *h)
{
    rt_mem *m = run->state;
    const void *p;
    if (m->tier == EBB_TIER_GPU) {
        rt_ticket t;
        ebb_status st = rt_order_after(run, run->gpu.pool);
        if (st == EBB_OK)
            st = rt_settle(run, &run->host, run->scratch);
        if (st == EBB_OK)
            st = rt_settle(run, &run->gpu, b);
        if (st == EBB_OK)
            st = rt_move(run, run->host.pool, run->scratch, run->gpu.pool, b, &t);
        if (st == EBB_OK)
            st = run->io->ops->wait(run->io, &t);
        if (st != EBB_OK)
            return st;
        p = rt_buf_ptr(run, &run->host, run->scratch);
    } else {
        ebb_status st = rt_settle(run, m, b);
        if (st != EBB_OK)
            return st;
        p = rt_buf_ptr(run, m, b);
    }
    *h = XXH3_64bits(p, run->opt.state_size);
    return EBB_OK;
}

ebb_status rt_audit_computed(ebb_run *run, int64_t step, int32_t b)
{
    if (!run->hash)
        return EBB_OK;
    uint64_t h;
    ebb_status st = hash_of(run, b, &h);
    if (st != EBB_OK)
        return st;
    if (step <= run->computed) {
        if (run->hash[step] != h)
            return ebb_fail(EBB_ERR_CALLBACK,
                            "forward step %lld is not deterministic: x_%lld differs from its "
                            "first computation (hash %016llx, first %016llx); checkpointing "
                            "needs a forward step that gives the same output for the same input",
                            (long long)(step - 1), (long long)step, (unsigned long long)h,
                            (unsigned long long)run->hash[step]);
        return EBB_OK;
    }
    if (step >= run->hash_cap) {
        int64_t cap = run->hash_cap * 2;
        uint64_t *grown = realloc(run->hash, (size_t)cap * sizeof *grown);
        if (!grown)
            return ebb_fail(EBB_ERR_NO_MEMORY, "audit = \"hash\": cannot grow to %lld hashes",
                            (long long)cap);
        run->hash = grown;
        run->hash_cap = cap;
    }
    run->hash[step] = h;
    return EBB_OK;
}

ebb_status rt_audit_restored(ebb_run *run, const ebb_action *a, int32_t b)
{
    if (!run->hash)
        return EBB_OK;
    uint64_t h;
    ebb_status st = hash_of(run, b, &h);
    if (st != EBB_OK)
        return st;
    if (run->hash[a->step] != h)
        return ebb_fail(EBB_ERR_CHECKSUM,
                        "x_%lld restored from %s slot %d differs from its first computation "
                        "(hash %016llx, first %016llx): the stored copy was changed",
                        (long long)a->step, ebb_tier_name((ebb_tier)a->tier), a->slot,
                        (unsigned long long)h, (unsigned long long)run->hash[a->step]);
    return EBB_OK;
}

const char *ebb_audit_name(ebb_audit audit)
{
    switch (audit) {
    case EBB_AUDIT_OFF:
        return "off";
    case EBB_AUDIT_REPLAY:
        return "replay";
    case EBB_AUDIT_HASH:
        return "hash";
    }
    return "?";
}

ebb_status ebb_audit_from_name(const char *name, ebb_audit *out)
{
    if (!name || !out)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_audit_from_name: NULL argument");
    for (int a = EBB_AUDIT_OFF; a <= EBB_AUDIT_HASH; a++)
        if (strcmp(name, ebb_audit_name((ebb_audit)a)) == 0) {
            *out = (ebb_audit)a;
            return EBB_OK;
        }
    return ebb_fail(EBB_ERR_INVALID_ARG, "unknown audit mode '%s': expected off, replay or hash",
                    name);
}
