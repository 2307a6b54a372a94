/* ebb_move_via refuses bad input with a clear error and starts nothing: no
 * copy queued, no disk operation, every slot still free afterwards. */
#include "gpu_mock/chain_helpers.h"

static const size_t SIZE = 48 * KiB;

typedef chain_pools fixture;

static void setup(fixture *f)
{
    chain_open(f, SIZE, 2, 2, 0, 2, 16 * KiB, EBB_DISK_BACKEND_AUTO, 0, NULL);
}

static void teardown(fixture *f) { chain_close(f); }

static void refused(ebb_status s, ebb_status want, const char *text, const char *what)
{
    cr_assert_eq(s, want, "%s: got %d (%s)", what, (int)s, s == EBB_OK ? "accepted" : ebb_last_error());
    cr_assert(strstr(ebb_last_error(), text) != NULL, "%s: '%s' lacks '%s'", what,
              ebb_last_error(), text);
}

/* Nothing was started: no copy queued, and a plain round trip through the
 * same slots works. */
static void nothing_started(fixture *f, const char *what)
{
    cr_assert_eq(cuda_mock_pending(), 0, "%s: a copy was queued", what);
    ebb_ticket t[2];
    cr_assert_eq(ebb_move_via(f->d, 0, f->h, 0, f->g, 0, t), EBB_OK, "%s: slots not free: %s",
                 what, ebb_last_error());
    mock_wait_ok(&t[1], what);
}

Test(chain_wrong_arguments, refused_before_anything_starts)
{
    fixture f;
    setup(&f);
    ebb_ticket t[2];
    refused(ebb_move_via(NULL, 0, f.h, 0, f.g, 0, t), EBB_ERR_INVALID_ARG, "NULL argument", "NULL");
    refused(ebb_move_via(f.d, 0, f.h, 0, f.g, 0, NULL), EBB_ERR_INVALID_ARG, "NULL argument",
            "NULL tickets");
    refused(ebb_move_via(f.d, 0, f.h, 0, f.h, 1, t), EBB_ERR_UNSUPPORTED,
            "host -> host -> disk is not supported", "host source");
    refused(ebb_move_via(f.g, 0, f.h, 0, f.g, 1, t), EBB_ERR_UNSUPPORTED,
            "gpu -> host -> gpu is not supported", "gpu to gpu");
    refused(ebb_move_via(f.d, 2, f.h, 0, f.g, 0, t), EBB_ERR_INVALID_ARG,
            "ebb_move_via (disk slot): slot 2 is out of range", "disk slot");
    refused(ebb_move_via(f.d, 0, f.h, -1, f.g, 0, t), EBB_ERR_INVALID_ARG,
            "ebb_move_via (host slot between): slot -1 is out of range", "host slot");
    refused(ebb_move_via(f.g, 5, f.h, 0, f.d, 0, t), EBB_ERR_INVALID_ARG,
            "ebb_move_via (gpu slot): slot 5 is out of range", "gpu slot");
    nothing_started(&f, "argument checks");

    /* sizes differ */
    ebb_pool *g2 = gpu_pool(0, 1, SIZE + 1, 0);
    refused(ebb_move_via(f.d, 0, f.h, 0, g2, 0, t), EBB_ERR_INVALID_ARG,
            "the slots are 49153 (gpu), 49152 (host) and 49152 (disk) bytes", "sizes");
    ebb_pool_destroy(g2);

    /* a host pool that is not pinned */
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_HOST);
    o.slot_size = SIZE;
    o.slots = 1;
    o.pin = 0;
    ebb_pool *plain = NULL;
    cr_assert_eq(ebb_pool_create(&o, &plain), EBB_OK);
    refused(ebb_move_via(f.d, 0, plain, 0, f.g, 0, t), EBB_ERR_INVALID_ARG,
            "the host pool is not pinned", "pageable host");
    ebb_pool_destroy(plain);

    /* a disk slot never written cannot be read */
    refused(ebb_move_via(f.g, 1, f.h, 1, f.d, 1, t), EBB_ERR_STATE, "disk slot 1 holds no data",
            "empty disk slot");
    nothing_started(&f, "after an empty disk slot");
    teardown(&f);
}

Test(chain_wrong_arguments, busy_slots_refused_and_untouched)
{
    fixture f;
    setup(&f);
    ebb_ticket t[2], u;
    cuda_mock_hold_all();
    /* the gpu slot busy (a put in flight): the disk slot stays free */
    cr_assert_eq(ebb_pool_put(f.g, 0, slot_ptr(f.h, 1), &u), EBB_OK, "%s", ebb_last_error());
    refused(ebb_move_via(f.d, 0, f.h, 0, f.g, 0, t), EBB_ERR_STATE, "gpu slot 0 is busy",
            "gpu slot busy");
    cuda_mock_release_all();
    mock_wait_ok(&u, "put");
    nothing_started(&f, "after a busy gpu slot");

    /* the disk slot busy (a write held): no gpu copy is queued */
    cr_assert_eq(ebb_disk_debug_hold(f.d, 1), EBB_OK);
    cr_assert_eq(ebb_move(f.d, 1, f.h, 1, &u), EBB_OK, "%s", ebb_last_error());
    refused(ebb_move_via(f.d, 1, f.h, 0, f.g, 1, t), EBB_ERR_STATE, "disk slot 1 is busy",
            "disk slot busy");
    cr_assert_eq(cuda_mock_pending(), 0, "a gpu copy was queued for a refused chain");
    /* the host slot read by that write cannot be filled */
    refused(ebb_move_via(f.d, 0, f.h, 1, f.g, 0, t), EBB_ERR_STATE,
            "host slot 1 is being written to disk", "host slot busy");
    cr_assert_eq(ebb_disk_debug_hold(f.d, 0), EBB_OK);
    mock_wait_ok(&u, "disk write");
    nothing_started(&f, "after busy disk and host slots");
    teardown(&f);
}
