/*
 * The replay validator: executes an action stream symbolically, tracking
 * which x_i the live state and every slot hold, and refuses the first action
 * that breaks a rule. Used by tests, `ebb plan`, and as the runtime's audit.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "ebb/schedule.h"
#include "schedules/validator_slots.h"

enum { NONE = -1 };

struct ebb_validator {
    int64_t steps;        /* n, 0 while unknown */
    int64_t live;         /* index of the live state, NONE if undefined */
    int64_t prev;         /* x_{to-1} right after an ADVANCE, else NONE */
    int64_t next_reverse; /* the step REVERSE must name next; NONE before the turn
                             and once step 0 is reversed */
    int64_t reached;      /* while n is unknown, the furthest state an ADVANCE
                             produced (kept by check_one; TURN checks it) */
    int turned;
    int ended;
    int failed;
    int32_t capacity[EBB_TIER_COUNT];
    int32_t in_use[EBB_TIER_COUNT];
    vslots slot[EBB_TIER_COUNT]; /* what each slot holds, NONE if empty; memory
                                    as the stream names slots (validator_slots.h) */
    /* Invariant: the live state and every slot are NONE or a state in 0 .. n
     * (0 .. reached while n is unknown): every action's step is checked to be
     * >= 0 (and <= n once n is known) before it is compared with them, so a
     * NONE never matches an action's step. */
    /* Sizes of the states, where set (ebb_validator_set_state_bytes): what
     * each tier's slots hold in bytes, against its budget. */
    uint64_t *bytes;
    int64_t bytes_count;
    int sized[EBB_TIER_COUNT];
    uint64_t bytes_budget[EBB_TIER_COUNT], bytes_held[EBB_TIER_COUNT],
        bytes_peak[EBB_TIER_COUNT];
    /* Tapes (EBB_ACT_TAPE): which steps' tapes are held (n flags, made at
     * the first TAPE; each is taken by its step's reverse), and their sizes in tape_tier's budget
     * where set (ebb_validator_set_tape_bytes). */
    uint8_t *taped;
    uint64_t *tape_bytes;
    int64_t tape_bytes_count;
    int tape_tier;
    ebb_schedule_stats stats;
    char failure[512]; /* repeated if the caller goes on after a failure */
};

ebb_status ebb_validator_create(int64_t steps, const int32_t slots[EBB_TIER_COUNT],
                                ebb_validator **out)
{
    if (!out || !slots)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_validator_create: NULL argument");
    *out = NULL;
    if (steps < 0)
        return ebb_fail(EBB_ERR_INVALID_ARG, "validator steps must be >= 0 (0 = unknown), got %lld",
                        (long long)steps);
    ebb_validator *v = calloc(1, sizeof *v);
    if (!v)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate a validator");
    for (int t = 0; t < EBB_TIER_COUNT; t++) {
        if (slots[t] < 0) {
            ebb_validator_destroy(v);
            return ebb_fail(EBB_ERR_INVALID_ARG, "validator: %s slots must be >= 0, got %d",
                            ebb_tier_name((ebb_tier)t), slots[t]);
        }
        v->capacity[t] = slots[t];
        vslots_init(&v->slot[t], slots[t]);
    }
    v->steps = steps;
    v->live = 0;
    v->prev = NONE;
    v->next_reverse = NONE;
    v->reached = 0;
    v->stats.steps = steps;
    *out = v;
    return EBB_OK;
}

void ebb_validator_destroy(ebb_validator *v)
{
    if (!v)
        return;
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        vslots_free(&v->slot[t]);
    free(v->bytes);
    free(v->taped);
    free(v->tape_bytes);
    free(v);
}

/* Records why action `a` (the idx-th) is refused and returns EBB_ERR_SCHEDULE. */
__attribute__((format(printf, 3, 4))) static ebb_status refuse(ebb_validator *v,
                                                               const ebb_action *a,
                                                               const char *fmt, ...)
{
    char what[128], why[256];
    ebb_action_format(a, what, sizeof what);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(v->failure, sizeof v->failure, "invalid schedule: action %lld (%s): %s",
             (long long)v->stats.actions, what, why);
    v->failed = 1;
    return ebb_fail(EBB_ERR_SCHEDULE, "%s", v->failure);
}

static const char *live_text(int64_t live, char *buf, size_t len)
{
    if (live == NONE)
        snprintf(buf, len, "undefined (after a reverse step)");
    else
        snprintf(buf, len, "x_%lld", (long long)live);
    return buf;
}

/* Checks (tier, slot) names a slot; returns a pointer to what it holds. */
static int64_t *slot_ref(ebb_validator *v, const ebb_action *a, int tier, int32_t slot,
                         ebb_status *st)
{
    if (tier < 0 || tier >= EBB_TIER_COUNT) {
        *st = refuse(v, a, "tier %d does not exist", tier);
        return NULL;
    }
    if (slot < 0 || slot >= v->capacity[tier]) {
        *st = refuse(v, a, "slot %d is outside the %d %s slots", slot, v->capacity[tier],
                     ebb_tier_name((ebb_tier)tier));
        return NULL;
    }
    int64_t *held = vslots_ref(&v->slot[tier], slot);
    if (!held)
        *st = ebb_fail(EBB_ERR_NO_MEMORY, "validator: out of memory for %s slot %d (action %lld)",
                       ebb_tier_name((ebb_tier)tier), slot, (long long)v->stats.actions);
    return held;
}

static void occupy(ebb_validator *v, int tier)
{
    if (++v->in_use[tier] > v->stats.peak_slots[tier])
        v->stats.peak_slots[tier] = v->in_use[tier];
}

static uint64_t state_bytes(const ebb_validator *v, int64_t step)
{
    return step < v->bytes_count ? v->bytes[step] : 0;
}

/* x_step enters a sized tier: refused when it passes the tier's budget. */
static ebb_status take_bytes(ebb_validator *v, const ebb_action *a, int tier, int64_t step)
{
    if (!v->sized[tier])
        return EBB_OK;
    uint64_t b = state_bytes(v, step), held = v->bytes_held[tier];
    if (b > v->bytes_budget[tier] - held)
        return refuse(v, a, "x_%lld (%llu bytes) does not fit: %s holds %llu of its %llu bytes",
                      (long long)step, (unsigned long long)b, ebb_tier_name((ebb_tier)tier),
                      (unsigned long long)held, (unsigned long long)v->bytes_budget[tier]);
    v->bytes_held[tier] = held + b;
    if (v->bytes_held[tier] > v->bytes_peak[tier])
        v->bytes_peak[tier] = v->bytes_held[tier];
    return EBB_OK;
}

static void give_bytes(ebb_validator *v, int tier, int64_t step)
{
    if (v->sized[tier])
        v->bytes_held[tier] -= state_bytes(v, step);
}

static uint64_t tape_size(const ebb_validator *v, int64_t step)
{
    return step < v->tape_bytes_count ? v->tape_bytes[step] : 0;
}

/* Every action but END names a state x_step: it must be one of x_0 .. x_n.
 * While n is unknown (before an online stream's turn) only negative steps are
 * refused here; the turn then checks that nothing went past x_n. */
static ebb_status check_range(ebb_validator *v, const ebb_action *a)
{
    if (a->kind == EBB_ACT_END || a->kind < EBB_ACT_ADVANCE || a->kind > EBB_ACT_TAPE)
        return EBB_OK;
    if (v->steps > 0 && (a->step < 0 || a->step > v->steps))
        return refuse(v, a, "step %lld is outside 0 .. n = %lld: a schedule names only x_0 .. x_n",
                      (long long)a->step, (long long)v->steps);
    if (a->step < 0)
        return refuse(v, a, "step %lld is negative: a schedule names only x_0 .. x_n",
                      (long long)a->step);
    return EBB_OK;
}

/* Checks that the slot holding `held` holds x_step; `slot` names it in the
 * message ("slot", "source slot"), `name_step` adds the step it should hold. */
static ebb_status check_holds(ebb_validator *v, const ebb_action *a, int64_t held,
                              const char *slot, int name_step)
{
    if (held == NONE)
        return refuse(v, a, "the %s is empty", slot);
    if (held != a->step && name_step)
        return refuse(v, a, "the %s holds x_%lld, not x_%lld", slot, (long long)held,
                      (long long)a->step);
    if (held != a->step)
        return refuse(v, a, "the %s holds x_%lld", slot, (long long)held);
    return EBB_OK;
}

/* Checks that the slot holding `held` is empty; `slot` names it. */
static ebb_status check_empty(ebb_validator *v, const ebb_action *a, int64_t held,
                              const char *slot)
{
    if (held != NONE)
        return refuse(v, a, "the %s still holds x_%lld", slot, (long long)held);
    return EBB_OK;
}

/* One function per action kind, called by check_one once the stream has not
 * ended and the step is in range; `prev` is x_{to-1} if the action before
 * was an ADVANCE, else NONE. */
typedef ebb_status (*check_fn)(ebb_validator *v, const ebb_action *a, int64_t prev);

static ebb_status check_advance(ebb_validator *v, const ebb_action *a, int64_t prev)
{
    char buf[64];
    (void)prev;
    if (v->live != a->step)
        return refuse(v, a, "the live state is %s, not x_%lld", live_text(v->live, buf, sizeof buf),
                      (long long)a->step);
    if (a->to <= a->step)
        return refuse(v, a, "an advance must run at least one step");
    if (v->turned && v->next_reverse == NONE)
        return refuse(v, a, "every step is reversed already: no state is needed any more");
    if (v->turned && a->to > v->next_reverse)
        return refuse(v, a, "advances past x_%lld, the state the next reverse step needs",
                      (long long)v->next_reverse);
    if (!v->turned && v->steps > 0 && a->to > v->steps)
        return refuse(v, a, "advances past x_n, n = %lld", (long long)v->steps);
    if (a->to - a->step > INT64_MAX - v->stats.forward_steps)
        return refuse(v, a, "the forward step count overflows 64 bits");
    v->stats.forward_steps += a->to - a->step;
    v->live = a->to;
    v->prev = a->to - 1;
    if (a->to > v->reached)
        v->reached = a->to;
    return EBB_OK;
}

static ebb_status check_turn(ebb_validator *v, const ebb_action *a, int64_t prev)
{
    if (v->turned)
        return refuse(v, a, "the forward sweep already turned");
    if (prev == NONE || v->live != a->step)
        return refuse(v, a, "a turn must follow the advance that reached x_%lld",
                      (long long)a->step);
    if (v->steps > 0 && a->step != v->steps)
        return refuse(v, a, "the forward sweep must end at x_n, n = %lld", (long long)v->steps);
    if (v->reached > a->step)
        return refuse(v, a, "the forward sweep already reached x_%lld, past x_n: a turn ends "
                      "the sweep at the furthest state it reached",
                      (long long)v->reached);
    v->steps = a->step;
    v->stats.steps = a->step;
    v->turned = 1;
    v->live = prev;
    v->next_reverse = a->step - 1;
    return EBB_OK;
}

static ebb_status check_store(ebb_validator *v, const ebb_action *a, int64_t prev)
{
    ebb_status st = EBB_OK;
    char buf[64];
    int64_t *dst;
    (void)prev;
    if (!(dst = slot_ref(v, a, a->tier, a->slot, &st)))
        return st;
    if (v->live != a->step)
        return refuse(v, a, "the live state is %s", live_text(v->live, buf, sizeof buf));
    if ((st = check_empty(v, a, *dst, "slot")) != EBB_OK ||
        (st = take_bytes(v, a, a->tier, a->step)) != EBB_OK)
        return st;
    *dst = a->step;
    occupy(v, a->tier);
    v->stats.stores[a->tier]++;
    return EBB_OK;
}

static ebb_status check_restore(ebb_validator *v, const ebb_action *a, int64_t prev)
{
    ebb_status st = EBB_OK;
    int64_t *src;
    (void)prev;
    if (!(src = slot_ref(v, a, a->tier, a->slot, &st)))
        return st;
    if ((st = check_holds(v, a, *src, "slot", 0)) != EBB_OK)
        return st;
    v->live = a->step;
    v->stats.restores[a->tier]++;
    return EBB_OK;
}

static ebb_status check_free(ebb_validator *v, const ebb_action *a, int64_t prev)
{
    ebb_status st = EBB_OK;
    int64_t *src;
    (void)prev;
    if (!(src = slot_ref(v, a, a->tier, a->slot, &st)))
        return st;
    if ((st = check_holds(v, a, *src, "slot", 1)) != EBB_OK)
        return st;
    *src = NONE;
    v->in_use[a->tier]--;
    give_bytes(v, a->tier, a->step);
    return EBB_OK;
}

/* PREFETCH and EVICT: a copy between slots; EVICT also empties the source. */
static ebb_status check_transfer(ebb_validator *v, const ebb_action *a, int64_t prev)
{
    ebb_status st = EBB_OK;
    int64_t *src, *dst;
    (void)prev;
    /* src again after dst: dst's may have moved the dense array src is in. */
    if (!(src = slot_ref(v, a, a->tier, a->slot, &st)) ||
        !(dst = slot_ref(v, a, a->tier_to, a->slot_to, &st)) ||
        !(src = slot_ref(v, a, a->tier, a->slot, &st)))
        return st;
    if ((st = check_holds(v, a, *src, "source slot", 1)) != EBB_OK ||
        (st = check_empty(v, a, *dst, "destination slot")) != EBB_OK ||
        (st = take_bytes(v, a, a->tier_to, a->step)) != EBB_OK)
        return st;
    *dst = a->step;
    occupy(v, a->tier_to);
    v->stats.transfers_out[a->tier]++;
    v->stats.transfers_in[a->tier_to]++;
    if (a->kind == EBB_ACT_EVICT) {
        *src = NONE;
        v->in_use[a->tier]--;
        give_bytes(v, a->tier, a->step);
    }
    return EBB_OK;
}

/* TAPE: one forward step that keeps its tape until its reverse step. */
static ebb_status check_tape(ebb_validator *v, const ebb_action *a, int64_t prev)
{
    char buf[64];
    (void)prev;
    if (v->steps == 0)
        return refuse(v, a, "a tape needs n known before the turn (an offline stream)");
    if (v->live != a->step)
        return refuse(v, a, "the live state is %s, not x_%lld", live_text(v->live, buf, sizeof buf),
                      (long long)a->step);
    if (a->step >= v->steps)
        return refuse(v, a, "x_n has no step after it to tape");
    if (v->turned && (v->next_reverse == NONE || a->step > v->next_reverse))
        return refuse(v, a, "step %lld is reversed already: its tape would never be used",
                      (long long)a->step);
    if (!v->taped && !(v->taped = calloc((size_t)v->steps, 1)))
        return ebb_fail(EBB_ERR_NO_MEMORY, "validator: out of memory for the tapes of %lld steps",
                        (long long)v->steps);
    if (v->taped[a->step])
        return refuse(v, a, "step %lld's tape is held already", (long long)a->step);
    int tier = v->tape_tier;
    uint64_t b = tape_size(v, a->step), held = v->bytes_held[tier];
    if (v->sized[tier] && b > v->bytes_budget[tier] - held)
        return refuse(v, a, "step %lld's tape (%llu bytes) does not fit: %s holds %llu of its "
                      "%llu bytes", (long long)a->step, (unsigned long long)b,
                      ebb_tier_name((ebb_tier)tier), (unsigned long long)held,
                      (unsigned long long)v->bytes_budget[tier]);
    if (v->sized[tier]) {
        v->bytes_held[tier] = held + b;
        if (v->bytes_held[tier] > v->bytes_peak[tier])
            v->bytes_peak[tier] = v->bytes_held[tier];
    }
    if (v->stats.forward_steps == INT64_MAX)
        return refuse(v, a, "the forward step count overflows 64 bits");
    v->taped[a->step] = 1;
    v->stats.forward_steps++;
    v->live = a->step + 1;
    v->prev = a->step;
    if (v->live > v->reached)
        v->reached = v->live;
    return EBB_OK;
}

static ebb_status check_reverse(ebb_validator *v, const ebb_action *a, int64_t prev)
{
    char buf[64];
    (void)prev;
    if (!v->turned)
        return refuse(v, a, "reverse before the forward sweep turned");
    if (v->next_reverse == NONE)
        return refuse(v, a, "every step is reversed already");
    if (a->step != v->next_reverse)
        return refuse(v, a, "the next step to reverse is %lld", (long long)v->next_reverse);
    if (v->taped && v->taped[a->step]) {
        /* from its tape, whatever the live state */
        v->taped[a->step] = 0;
        if (v->sized[v->tape_tier])
            v->bytes_held[v->tape_tier] -= tape_size(v, a->step);
    } else if (v->live != a->step) {
        return refuse(v, a, "the live state is %s", live_text(v->live, buf, sizeof buf));
    }
    v->stats.reverse_steps++;
    v->next_reverse--;
    v->live = NONE; /* the reverse step may consume the state */
    return EBB_OK;
}

static ebb_status check_end(ebb_validator *v, const ebb_action *a, int64_t prev)
{
    (void)prev;
    if (!v->turned && v->steps == 0)
        return refuse(v, a, "the forward sweep never turned, so no step is reversed yet");
    if (!v->turned || v->next_reverse != NONE)
        return refuse(v, a, "steps %lld .. 0 are not reversed yet",
                      (long long)(v->turned ? v->next_reverse : v->steps - 1));
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        if (v->in_use[t] != 0)
            return refuse(v, a, "%d %s slots still hold states", v->in_use[t],
                          ebb_tier_name((ebb_tier)t));
    v->ended = 1;
    v->stats.complete = 1;
    return EBB_OK;
}

/* Indexed by ebb_action_kind. */
static const check_fn check_kind[EBB_ACT_TAPE + 1] = {
    [EBB_ACT_ADVANCE] = check_advance,   [EBB_ACT_STORE] = check_store,
    [EBB_ACT_RESTORE] = check_restore,   [EBB_ACT_PREFETCH] = check_transfer,
    [EBB_ACT_EVICT] = check_transfer,    [EBB_ACT_FREE] = check_free,
    [EBB_ACT_TURN] = check_turn,         [EBB_ACT_REVERSE] = check_reverse,
    [EBB_ACT_END] = check_end,           [EBB_ACT_TAPE] = check_tape,
};

/* Not inlined: inlined into ebb_validator_check, it cost the fast loop
 * registers, and `ebb plan` 10-20% of its speed (gcc 12, -O3). */
__attribute__((noinline)) static ebb_status check_one(ebb_validator *v, const ebb_action *a)
{
    int64_t prev = v->prev;
    v->prev = NONE;
    if (v->ended)
        return refuse(v, a, "the stream already ended");
    ebb_status st = check_range(v, a);
    if (st != EBB_OK)
        return st;
    if (a->kind < EBB_ACT_ADVANCE || a->kind > EBB_ACT_TAPE)
        return refuse(v, a, "unknown action kind %d", a->kind);
    return check_kind[a->kind](v, a, prev);
}

/* The fast loop's per-tier bookkeeping, in locals: the compiler cannot prove
 * the slot arrays apart from the struct, so counters kept in *v were loaded
 * and stored again around every slot write. The order of the fields is
 * measured (with the alignment in run_fast): another order ran over 20%
 * slower. */
struct tier_locals {
    int32_t in_use[EBB_TIER_COUNT], peak[EBB_TIER_COUNT];
    int64_t *cells[EBB_TIER_COUNT];
    uint32_t cap[EBB_TIER_COUNT];
    int64_t stores[EBB_TIER_COUNT], restores[EBB_TIER_COUNT];
};

static inline __attribute__((always_inline)) void tiers_load(const ebb_validator *v,
                                                             struct tier_locals *l)
{
    for (int t = 0; t < EBB_TIER_COUNT; t++) {
        /* the slots allocated so far: a slot above goes through check_one */
        l->cells[t] = v->slot[t].dense;
        l->cap[t] = (uint32_t)v->slot[t].dense_n;
        l->in_use[t] = v->in_use[t];
        l->peak[t] = v->stats.peak_slots[t];
        l->stores[t] = 0;
        l->restores[t] = 0;
    }
}

static inline __attribute__((always_inline)) void tiers_store(ebb_validator *v,
                                                              const struct tier_locals *l)
{
    for (int t = 0; t < EBB_TIER_COUNT; t++) {
        v->in_use[t] = l->in_use[t];
        v->stats.peak_slots[t] = l->peak[t];
        v->stats.stores[t] += l->stores[t];
        v->stats.restores[t] += l->restores[t];
    }
}

/* The fast loop's STORE and FREE: 1 if accepted (and done), 0 for check_one. */
static inline __attribute__((always_inline)) int fast_store(struct tier_locals *l, unsigned tier,
                                                            uint32_t slot, int64_t step,
                                                            int64_t live)
{
    if (tier >= EBB_TIER_COUNT || slot >= l->cap[tier])
        return 0;
    int64_t *cell = &l->cells[tier][slot];
    if (live != step || step < 0 || *cell != NONE)
        return 0;
    *cell = step;
    if (++l->in_use[tier] > l->peak[tier])
        l->peak[tier] = l->in_use[tier];
    l->stores[tier]++;
    return 1;
}

static inline __attribute__((always_inline)) int fast_free(struct tier_locals *l, unsigned tier,
                                                           uint32_t slot, int64_t step)
{
    if (tier >= EBB_TIER_COUNT || slot >= l->cap[tier])
        return 0;
    int64_t *cell = &l->cells[tier][slot];
    if (step < 0 || *cell != step)
        return 0;
    *cell = NONE;
    l->in_use[tier]--;
    return 1;
}

/* Runs actions [i, count) through the fast loop, with the hot state in locals
 * (the slot arrays could alias the struct's fields, which would force a
 * reload per action), counting nothing per action that can be derived
 * afterwards; writes the state back and returns the index of the first
 * action it did not accept (count if none), which check_one then takes, so
 * that there is one source of truth for messages.
 *
 * ADVANCE may not go past fwd_bound: x_n before the turn, then the state the
 * next reverse step needs (next_reverse itself after the turn; NONE once
 * every step is reversed, which no advance passes). While n is unknown, the
 * furthest state reached so far: an advance beyond it goes through
 * check_one, which records how far the sweep went (TURN checks it).
 *
 * The fast loop must never accept what check_one refuses. It accepts an
 * action only when every one of check_one's conditions for that kind holds:
 * in particular a->step >= 0 (check_range), which is what keeps NONE (-1), the
 * marker of an empty slot and of an undefined live state, from ever matching
 * an action's step. The upper bound, step <= n, follows from the others: the
 * live state and every slot hold states <= n (ADVANCE is bounded by n before
 * the turn and by next_reverse < n after it), and each kind requires its step
 * to equal one of them. A REVERSE passes only after the turn (next_reverse
 * is NONE before it), and nothing passes after END.
 *
 * The loop is sensitive to code layout and register allocation: variants
 * that looked equivalent measured up to 20% apart, and the same machine code
 * 40% apart when the dispatch at the loop's head (from the load of a->kind to
 * the indirect jump, 35 bytes with gcc 12) straddled a 64-byte line (AMD
 * EPYC, 2026-11), hence the alignment below. Measure `ebb plan --steps
 * 100000000 --slots 100` before and after changing it, and check where that
 * head lands (objdump -d: the block ending in the indirect jmp). */
static inline __attribute__((always_inline)) size_t
run_fast(ebb_validator *v, const ebb_action *actions, size_t i, size_t count)
{
    int64_t live = v->live, next_reverse = v->next_reverse;
    int64_t forward = v->stats.forward_steps;
    const int64_t first_reverse = next_reverse;
    const int64_t fwd_bound = v->steps > 0 ? v->steps : v->reached;
    const int turned = v->turned;
    const size_t begin = i;
    struct tier_locals l;
    tiers_load(v, &l);
    if (v->ended)
        goto slow;
    /* Padding here (run once per call) puts the loop's head near the start
     * of a 64-byte line, wherever the linker puts this function: its
     * dispatch straddling a line cost up to 40% (see above). */
    __asm__ volatile(".p2align 6");
    for (; i < count; i++) {
        const ebb_action *a = &actions[i];
        const unsigned tier = (unsigned)a->tier;
        const uint32_t slot = (uint32_t)a->slot;
        const int64_t step = a->step;
        switch (a->kind) {
        case EBB_ACT_ADVANCE: {
            int64_t sum;
            if (live != step || step < 0 || a->to <= step ||
                a->to > (turned ? next_reverse : fwd_bound) ||
                __builtin_add_overflow(forward, a->to - step, &sum))
                goto slow;
            forward = sum;
            live = a->to;
            continue;
        }
        case EBB_ACT_STORE:
            if (!fast_store(&l, tier, slot, step, live))
                goto slow;
            continue;
        case EBB_ACT_RESTORE:
            if (tier >= EBB_TIER_COUNT || slot >= l.cap[tier] || step < 0 ||
                l.cells[tier][slot] != step)
                goto slow;
            live = step;
            l.restores[tier]++;
            continue;
        case EBB_ACT_FREE:
            if (!fast_free(&l, tier, slot, step))
                goto slow;
            continue;
        case EBB_ACT_REVERSE:
            /* Before the turn next_reverse is NONE, which a step >= 0
             * never equals. */
            if (step < 0 || step != next_reverse || live != step)
                goto slow;
            next_reverse--;
            live = NONE;
            continue;
        default:
            goto slow;
        }
    }
slow:
    /* Write back what the fast loop did to actions [begin, i). */
    v->live = live;
    v->next_reverse = next_reverse;
    v->stats.forward_steps = forward;
    v->stats.reverse_steps += first_reverse - next_reverse;
    v->stats.actions += (int64_t)(i - begin);
    tiers_store(v, &l);
    if (i > begin)
        v->prev = actions[i - 1].kind == EBB_ACT_ADVANCE ? actions[i - 1].to - 1 : NONE;
    return i;
}

ebb_status ebb_validator_check(ebb_validator *v, const ebb_action *actions, size_t count)
{
    if (!v || (!actions && count))
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_validator_check: NULL argument");
    if (v->failed)
        return ebb_fail(EBB_ERR_SCHEDULE, "%s", v->failure);
    size_t i = 0;
    /* The fast loop keeps no bytes and no tapes: sized streams, and
     * streams once they tape, take the checked path. */
    while (i < count) {
        if (!v->bytes && !v->taped)
            i = run_fast(v, actions, i, count);
        if (i == count)
            break;
        ebb_status st = check_one(v, &actions[i]);
        v->stats.actions++;
        i++;
        if (st != EBB_OK)
            return st;
    }
    return EBB_OK;
}

ebb_status ebb_validator_finish(const ebb_validator *v)
{
    if (!v)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_validator_finish: validator is NULL");
    if (v->failed)
        return ebb_fail(EBB_ERR_SCHEDULE, "%s", v->failure);
    if (!v->ended && !v->turned && v->steps == 0)
        return ebb_fail(EBB_ERR_SCHEDULE,
                        "invalid schedule: the stream stopped after %lld actions without END "
                        "(the forward sweep never turned, so n is unknown and no step is reversed)",
                        (long long)v->stats.actions);
    if (!v->ended)
        return ebb_fail(EBB_ERR_SCHEDULE,
                        "invalid schedule: the stream stopped after %lld actions without END "
                        "(%lld of %lld steps reversed)",
                        (long long)v->stats.actions, (long long)v->stats.reverse_steps,
                        (long long)v->steps);
    return EBB_OK;
}

ebb_status ebb_validator_stats(const ebb_validator *v, ebb_schedule_stats *stats)
{
    if (!v || !stats)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_validator_stats: NULL argument");
    *stats = v->stats;
    return EBB_OK;
}

/* The arguments ebb_validator_set_state_bytes and _set_tape_bytes share. */
static ebb_status check_sizes(const ebb_validator *v, ebb_tier tier, const uint64_t *bytes,
                              int64_t count, const char *fn)
{
    if (!v || (!bytes && count > 0))
        return ebb_fail(EBB_ERR_INVALID_ARG, "%s: NULL argument", fn);
    if (tier < 0 || tier >= EBB_TIER_COUNT)
        return ebb_fail(EBB_ERR_INVALID_ARG, "%s: tier %d is not a tier", fn, (int)tier);
    if (count < 0)
        return ebb_fail(EBB_ERR_INVALID_ARG, "%s: count must be >= 0, got %lld", fn,
                        (long long)count);
    if (v->stats.actions > 0 || v->failed)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "%s: the validator has seen %lld actions; set the sizes before the "
                        "first", fn, (long long)v->stats.actions);
    return EBB_OK;
}

ebb_status ebb_validator_set_state_bytes(ebb_validator *v, ebb_tier tier, const uint64_t *bytes,
                                         int64_t count, uint64_t budget)
{
    ebb_status st = check_sizes(v, tier, bytes, count, "ebb_validator_set_state_bytes");
    if (st != EBB_OK)
        return st;
    if (!v->bytes || count != v->bytes_count) {
        uint64_t *copy = malloc(sizeof *copy * (size_t)(count > 0 ? count : 1));
        if (!copy)
            return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the sizes of %lld states",
                            (long long)count);
        free(v->bytes);
        v->bytes = copy;
    }
    for (int64_t i = 0; i < count; i++)
        v->bytes[i] = bytes[i];
    v->bytes_count = count;
    v->sized[tier] = 1;
    v->bytes_budget[tier] = budget;
    return EBB_OK;
}

ebb_status ebb_validator_set_tape_bytes(ebb_validator *v, ebb_tier tier, const uint64_t *bytes,
                                        int64_t count)
{
    ebb_status st = check_sizes(v, tier, bytes, count, "ebb_validator_set_tape_bytes");
    if (st != EBB_OK)
        return st;
    uint64_t *copy = malloc(sizeof *copy * (size_t)(count > 0 ? count : 1));
    if (!copy)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the sizes of %lld tapes",
                        (long long)count);
    for (int64_t i = 0; i < count; i++)
        copy[i] = bytes[i];
    free(v->tape_bytes);
    v->tape_bytes = copy;
    v->tape_bytes_count = count;
    v->tape_tier = tier;
    return EBB_OK;
}

ebb_status ebb_validator_peak_bytes(const ebb_validator *v, ebb_tier tier, uint64_t *bytes)
{
    if (!v || !bytes)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_validator_peak_bytes: NULL argument");
    if (tier < 0 || tier >= EBB_TIER_COUNT)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_validator_peak_bytes: tier %d is not a tier",
                        (int)tier);
    *bytes = v->bytes_peak[tier];
    return EBB_OK;
}
