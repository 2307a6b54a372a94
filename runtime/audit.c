/*
 * Audit mode: every action is replayed through the validator before it runs
 * ("replay"), and with "hash" every state is hashed (XXH3-64) when it is first
 * computed and checked whenever it is recomputed or restored, so that a
 * forward step that is not deterministic, or a slot whose data changed, is
 * named instead of turning into a silently wrong gradient.
 *
 * With a lossy tier (tier.disk.compression fixed-rate, -precision or
 * -accuracy; tier.host.compression fixed-rate) a restored state is the
 * round trip of its compressed copy, not the state stored, and the states
 * recomputed from it differ from the first sweep's by design. There the
 * audit checks what can be checked: every forward step against its first
 * computation from the same input (a table keyed by the step and the hash
 * of its input, so recomputations from the same restored copy, or from any
 * copy that gives the same bytes, are checked against each other), and
 * every restore against what its slot gave back before (the round trip is
 * hashed the first time it is restored, on the compute thread, which hashes
 * every restored state anyway: no second decompression on the codec threads;
 * zfp gives the same bytes for the same compressed bytes every time). An
 * exact slot's restore is checked against the state stored there.
 */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "common/error_internal.h"
#include "runtime/runtime_internal.h"

#define UNKNOWN ((int64_t)-1) /* a slot whose restore was never hashed (vslots' empty) */

static ebb_status lossy_init(ebb_run *run)
{
    int any = 0;
    for (int t = 0; t < EBB_TIER_COUNT; t++) {
        run->lossy[t] = rt_tier_lossy(run, t);
        any |= run->lossy[t];
    }
    if (!any)
        return EBB_OK;
    run->audit_lossy = 1;
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        vslots_init(&run->expect[t], run->info.slots[t]);
    run->memo_size = 1024;
    run->memo = malloc(run->memo_size * sizeof *run->memo);
    if (!run->memo)
        return ebb_fail(EBB_ERR_NO_MEMORY, "audit = \"hash\": cannot allocate its step table");
    for (size_t i = 0; i < run->memo_size; i++)
        run->memo[i].step = -1;
    return EBB_OK;
}

ebb_status rt_audit_init(ebb_run *run)
{
    if (run->info.audit == EBB_AUDIT_OFF)
        return EBB_OK;
    /* the slots the strategy may use (run_setup.c) */
    ebb_status st = ebb_validator_create(run->opt.steps, run->info.slots, &run->validator);
    if (st != EBB_OK || run->info.audit != EBB_AUDIT_HASH)
        return st;
    if ((st = lossy_init(run)) != EBB_OK || run->audit_lossy)
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
    free(run->memo);
    run->memo = NULL;
    if (run->audit_lossy)
        for (int t = 0; t < EBB_TIER_COUNT; t++)
            vslots_free(&run->expect[t]);
    run->audit_lossy = 0;
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
static ebb_status hash_of(ebb_run *run, int32_t b, int64_t step, uint64_t *h)
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
    *h = XXH3_64bits(p, rt_state_bytes(run, step));
    return EBB_OK;
}

/* The cell of (step, in) in a table of `size` (a power of two): the one
 * that holds it, else the empty one where it goes. */
static rt_memo_cell *memo_find(rt_memo_cell *memo, size_t size, int64_t step, uint64_t in)
{
    size_t i = (size_t)((in ^ (uint64_t)step * 0x9e3779b97f4a7c15ULL) >> 7) & (size - 1);
    while (memo[i].step >= 0 && (memo[i].step != step || memo[i].in != in))
        i = (i + 1) & (size - 1);
    return &memo[i];
}

static ebb_status memo_grow(ebb_run *run)
{
    size_t size = run->memo_size * 2;
    rt_memo_cell *m = malloc(size * sizeof *m);
    if (!m)
        return ebb_fail(EBB_ERR_NO_MEMORY, "audit = \"hash\": cannot grow its step table to "
                        "%zu entries", size);
    for (size_t i = 0; i < size; i++)
        m[i].step = -1;
    for (size_t i = 0; i < run->memo_size; i++)
        if (run->memo[i].step >= 0)
            *memo_find(m, size, run->memo[i].step, run->memo[i].in) = run->memo[i];
    free(run->memo);
    run->memo = m;
    run->memo_size = size;
    return EBB_OK;
}

/* A lossy tier: x_step (hash h) was made from the live state by forward
 * step step - 1; checked against what that step gave for the same input
 * before, else recorded. */
static ebb_status lossy_computed(ebb_run *run, int64_t step, uint64_t h)
{
    uint64_t in = run->live_hash;
    run->prev_hash = in;
    run->live_hash = h;
    if (step == 0) /* x_0: the caller's */
        return EBB_OK;
    rt_memo_cell *c = memo_find(run->memo, run->memo_size, step - 1, in);
    if (c->step >= 0) {
        if (c->out != h)
            return ebb_fail(EBB_ERR_CALLBACK,
                            "forward step %lld is not deterministic: x_%lld differs from its "
                            "first computation from the same x_%lld (hash %016llx, first "
                            "%016llx); checkpointing needs a forward step that gives the same "
                            "output for the same input",
                            (long long)(step - 1), (long long)step, (long long)(step - 1),
                            (unsigned long long)h, (unsigned long long)c->out);
        return EBB_OK;
    }
    ebb_status st;
    if ((run->memo_used + 1) * 2 > run->memo_size) {
        if ((st = memo_grow(run)) != EBB_OK)
            return st;
        c = memo_find(run->memo, run->memo_size, step - 1, in);
    }
    *c = (rt_memo_cell){.step = step - 1, .in = in, .out = h};
    run->memo_used++;
    return EBB_OK;
}

ebb_status rt_audit_computed(ebb_run *run, int64_t step, int32_t b)
{
    if (!run->hash && !run->audit_lossy)
        return EBB_OK;
    uint64_t h;
    ebb_status st = hash_of(run, b, step, &h);
    if (st != EBB_OK)
        return st;
    if (run->audit_lossy)
        return lossy_computed(run, step, h);
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

/* A lossy tier: the restore of a slot gives what it gave the first time
 * (an exact slot: the state stored there). */
static ebb_status lossy_restored(ebb_run *run, const ebb_action *a, uint64_t h)
{
    int64_t *e = vslots_ref(&run->expect[a->tier], a->slot);
    if (!e)
        return ebb_fail(EBB_ERR_NO_MEMORY, "audit = \"hash\": cannot allocate its slot table");
    run->live_hash = h;
    if (*e == UNKNOWN) {
        *e = (int64_t)h;
        return EBB_OK;
    }
    if ((uint64_t)*e != h)
        return ebb_fail(EBB_ERR_CHECKSUM,
                        "x_%lld restored from %s slot %d differs from %s (hash %016llx, before "
                        "%016llx): the stored copy was changed",
                        (long long)a->step, ebb_tier_name((ebb_tier)a->tier), a->slot,
                        run->lossy[a->tier] ? "what the same compressed copy gave back at its "
                                              "first restore"
                                            : "the state stored there",
                        (unsigned long long)h, (unsigned long long)*e);
    return EBB_OK;
}

ebb_status rt_audit_restored(ebb_run *run, const ebb_action *a, int32_t b)
{
    if (!run->hash && !run->audit_lossy)
        return EBB_OK;
    uint64_t h;
    ebb_status st = hash_of(run, b, a->step, &h);
    if (st != EBB_OK)
        return st;
    if (run->audit_lossy)
        return lossy_restored(run, a, h);
    if (run->hash[a->step] != h)
        return ebb_fail(EBB_ERR_CHECKSUM,
                        "x_%lld restored from %s slot %d differs from its first computation "
                        "(hash %016llx, first %016llx): the stored copy was changed",
                        (long long)a->step, ebb_tier_name((ebb_tier)a->tier), a->slot,
                        (unsigned long long)h, (unsigned long long)run->hash[a->step]);
    return EBB_OK;
}

ebb_status rt_audit_stored(ebb_run *run, const ebb_action *a)
{
    if (!run->audit_lossy)
        return EBB_OK;
    int tier = a->tier, slot = a->slot;
    int64_t v;
    if (a->kind == EBB_ACT_STORE) {
        v = run->lossy[tier] ? UNKNOWN : (int64_t)run->live_hash;
    } else {
        int64_t *src = vslots_ref(&run->expect[tier], slot);
        if (!src)
            return ebb_fail(EBB_ERR_NO_MEMORY, "audit = \"hash\": cannot allocate its slot "
                            "table");
        /* within a tier the copy is moved as it is (compressed host slots:
         * their compressed bytes); into a lossy tier it is compressed again */
        v = tier != a->tier_to && run->lossy[a->tier_to] ? UNKNOWN : *src;
        tier = a->tier_to;
        slot = a->slot_to;
    }
    int64_t *dst = vslots_ref(&run->expect[tier], slot);
    if (!dst)
        return ebb_fail(EBB_ERR_NO_MEMORY, "audit = \"hash\": cannot allocate its slot table");
    *dst = v;
    return EBB_OK;
}

void rt_audit_turned(ebb_run *run)
{
    run->live_hash = run->prev_hash;
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
