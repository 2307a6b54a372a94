/* Every pair of tiers present, in both directions: ebb_move either moves a
 * state bitwise or refuses with EBB_ERR_UNSUPPORTED and a message naming the
 * pair and the way through a host slot; ebb_move_via likewise for every
 * triple. Which pairs move is what include/ebb/storage.h promises (below),
 * so a path added, lost or crossed in storage/pool.c's `moves` table fails
 * here. The gpu pairs run where a GPU is (gpu_mock/storage_move_table). */
#include "storage/helpers.h"

static const size_t SIZE = 1 * MiB + 4321;

/* ebb_move's direct paths: host <-> disk, host <-> gpu, gpu <-> gpu, host <-> host. */
static const int direct[EBB_TIER_COUNT][EBB_TIER_COUNT] = {
    [EBB_TIER_GPU][EBB_TIER_GPU] = 1,  [EBB_TIER_GPU][EBB_TIER_HOST] = 1,
    [EBB_TIER_HOST][EBB_TIER_GPU] = 1, [EBB_TIER_HOST][EBB_TIER_HOST] = 1,
    [EBB_TIER_HOST][EBB_TIER_DISK] = 1, [EBB_TIER_DISK][EBB_TIER_HOST] = 1,
};
/* ebb_move_via's: gpu -> host -> disk and disk -> host -> gpu. */
static const int chained[EBB_TIER_COUNT][EBB_TIER_COUNT] = {
    [EBB_TIER_GPU][EBB_TIER_DISK] = 1,
    [EBB_TIER_DISK][EBB_TIER_GPU] = 1,
};

/* One pool per tier present (slots: 0 a source, 1 a destination, 2 the
 * host slot between), and a pinned host pool `ref` whose slot 0 fills and
 * reads the others. */
typedef struct tiers {
    ebb_pool *pool[EBB_TIER_COUNT];
    ebb_pool *ref;
    char dir[256];
} tiers;

static void tiers_create(tiers *t)
{
    memset(t, 0, sizeof *t);
    t->ref = host_pool(SIZE, 1);
    t->pool[EBB_TIER_HOST] = host_pool(SIZE, 3);
    if (ebb_gpu_count() > 0)
        t->pool[EBB_TIER_GPU] = gpu_pool(0, 3, SIZE, 256 * KiB);
    make_tmpdir(t->dir, sizeof t->dir);
    const char *dirs[] = {t->dir};
    ebb_pool_options o;
    disk_options(&o, dirs, 1, SIZE, 3, EBB_DISK_BACKEND_AUTO);
    o.block = 256 * KiB;
    cr_assert_eq(ebb_pool_create(&o, &t->pool[EBB_TIER_DISK]), EBB_OK, "%s", ebb_last_error());
}

static void tiers_destroy(tiers *t)
{
    for (int k = 0; k < EBB_TIER_COUNT; k++)
        ebb_pool_destroy(t->pool[k]);
    ebb_pool_destroy(t->ref);
    rm_tmpdir(t->dir);
}

static void wait_ok(ebb_ticket *ticket, const char *what)
{
    cr_assert_eq(ebb_ticket_wait(ticket), EBB_OK, "%s: %s", what, ebb_last_error());
}

/* ref slot 0 -> `slot` of tier k's pool (put, or the host -> disk move). */
static void fill(tiers *t, int k, int32_t slot)
{
    ebb_pool *p = t->pool[k];
    ebb_ticket tk;
    if (k == EBB_TIER_HOST)
        memcpy(slot_ptr(p, slot), slot_ptr(t->ref, 0), SIZE);
    else if (k == EBB_TIER_GPU)
        cr_assert_eq(ebb_pool_put(p, slot, slot_ptr(t->ref, 0), &tk), EBB_OK, "%s",
                     ebb_last_error());
    else
        cr_assert_eq(ebb_move(p, slot, t->ref, 0, &tk), EBB_OK, "%s", ebb_last_error());
    if (k != EBB_TIER_HOST)
        wait_ok(&tk, "filling the source");
}

/* `slot` of tier k's pool -> ref slot 0 (cleared first). */
static void read_back(tiers *t, int k, int32_t slot)
{
    ebb_pool *p = t->pool[k];
    ebb_ticket tk;
    memset(slot_ptr(t->ref, 0), 0, SIZE);
    if (k == EBB_TIER_HOST)
        memcpy(slot_ptr(t->ref, 0), slot_ptr(p, slot), SIZE);
    else if (k == EBB_TIER_GPU)
        cr_assert_eq(ebb_pool_get(p, slot, slot_ptr(t->ref, 0), &tk), EBB_OK, "%s",
                     ebb_last_error());
    else
        cr_assert_eq(ebb_move(t->ref, 0, p, slot, &tk), EBB_OK, "%s", ebb_last_error());
    if (k != EBB_TIER_HOST)
        wait_ok(&tk, "reading the destination");
}

static void expect_in_message(const char *what)
{
    cr_expect(strstr(ebb_last_error(), what) != NULL, "'%s' not in: %s", what, ebb_last_error());
}

Test(move_table, every_pair_moves_bitwise_or_is_refused)
{
    tiers t;
    tiers_create(&t);
    unsigned char *want = malloc(SIZE);
    cr_assert_not_null(want);
    int moved = 0, refused = 0;
    for (int a = 0; a < EBB_TIER_COUNT; a++)
        for (int b = 0; b < EBB_TIER_COUNT; b++) {
            if (!t.pool[a] || !t.pool[b])
                continue;
            const char *from = ebb_tier_name((ebb_tier)a), *to = ebb_tier_name((ebb_tier)b);
            fill_random(slot_ptr(t.ref, 0), SIZE, (uint64_t)(a * EBB_TIER_COUNT + b + 1));
            memcpy(want, slot_ptr(t.ref, 0), SIZE);
            fill(&t, a, 0);
            ebb_ticket tk;
            ebb_status s = ebb_move(t.pool[b], 1, t.pool[a], 0, &tk);
            if (!direct[a][b]) {
                cr_assert_eq(s, EBB_ERR_UNSUPPORTED, "ebb_move %s -> %s: %s (%s)", from, to,
                             ebb_status_name(s), ebb_last_error());
                char pair[64];
                snprintf(pair, sizeof pair, "ebb_move %s -> %s is not a direct path", from, to);
                expect_in_message(pair);
                snprintf(pair, sizeof pair, "(%s -> host -> %s", from, to);
                expect_in_message(pair);
                if (chained[a][b])
                    expect_in_message("ebb_move_via does it in one call");
                else
                    cr_expect(strstr(ebb_last_error(), "ebb_move_via") == NULL, "%s",
                              ebb_last_error());
                refused++;
                continue;
            }
            cr_assert_eq(s, EBB_OK, "ebb_move %s -> %s: %s", from, to, ebb_last_error());
            wait_ok(&tk, "the move");
            read_back(&t, b, 1);
            cr_assert(memcmp(slot_ptr(t.ref, 0), want, SIZE) == 0,
                      "ebb_move %s -> %s changed the state", from, to);
            moved++;
        }
    cr_assert_gt(moved, 0);
    cr_assert_gt(refused, 0);
    free(want);
    tiers_destroy(&t);
}

Test(move_table, every_triple_chains_bitwise_or_is_refused)
{
    tiers t;
    tiers_create(&t);
    unsigned char *want = malloc(SIZE);
    cr_assert_not_null(want);
    for (int a = 0; a < EBB_TIER_COUNT; a++)
        for (int v = 0; v < EBB_TIER_COUNT; v++)
            for (int b = 0; b < EBB_TIER_COUNT; b++) {
                if (!t.pool[a] || !t.pool[v] || !t.pool[b])
                    continue;
                const char *from = ebb_tier_name((ebb_tier)a), *to = ebb_tier_name((ebb_tier)b);
                ebb_ticket tk[2];
                if (!chained[a][b] || v != EBB_TIER_HOST) {
                    ebb_status s =
                        ebb_move_via(t.pool[b], 1, t.pool[v], 2, t.pool[a], 0, tk);
                    cr_assert_eq(s, EBB_ERR_UNSUPPORTED, "ebb_move_via %s -> %s -> %s: %s", from,
                                 ebb_tier_name((ebb_tier)v), to, ebb_last_error());
                    char triple[64];
                    snprintf(triple, sizeof triple, "ebb_move_via %s -> %s -> %s is not supported",
                             from, ebb_tier_name((ebb_tier)v), to);
                    expect_in_message(triple);
                    expect_in_message("it chains gpu -> host -> disk or disk -> host -> gpu; move "
                                      "other paths with ebb_move");
                    continue;
                }
                fill_random(slot_ptr(t.ref, 0), SIZE, (uint64_t)(100 + a * EBB_TIER_COUNT + b));
                memcpy(want, slot_ptr(t.ref, 0), SIZE);
                fill(&t, a, 0);
                cr_assert_eq(ebb_move_via(t.pool[b], 1, t.pool[v], 2, t.pool[a], 0, tk), EBB_OK,
                             "ebb_move_via %s -> host -> %s: %s", from, to, ebb_last_error());
                wait_ok(&tk[0], "the first leg");
                wait_ok(&tk[1], "the second leg");
                read_back(&t, b, 1);
                cr_assert(memcmp(slot_ptr(t.ref, 0), want, SIZE) == 0,
                          "ebb_move_via %s -> host -> %s changed the state", from, to);
            }
    free(want);
    tiers_destroy(&t);
}
