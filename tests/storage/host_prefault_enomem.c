/* The host tier faults its pages in at creation so that a memory shortage
 * shows there. When MADV_POPULATE_WRITE says there is no memory (ENOMEM, as
 * under a strict NUMA binding or a memory cgroup limit), creation fails with
 * EBB_ERR_NO_MEMORY: it must not touch every page instead, which would be an
 * OOM kill or a SIGBUS. Only a kernel without the advice (EINVAL) gets the
 * touch-every-page fallback. */
#include <errno.h>

#include "storage/helpers.h"

static ebb_status create(int err, ebb_pool **h)
{
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_HOST);
    o.slot_size = 1 * MiB;
    o.slots = 4;
    ebb_storage_fault f = {0};
    f.prefault_errno = err;
    *h = NULL;
    return ebb_pool_create_with_faults(&o, &f, h);
}

Test(host_prefault, enomem_is_no_memory)
{
    ebb_pool *h = NULL;
    cr_assert_eq(create(ENOMEM, &h), EBB_ERR_NO_MEMORY, "%s", ebb_last_error());
    cr_assert_null(h);
    const char *msg = ebb_last_error();
    cr_assert(strstr(msg, "Cannot allocate memory") != NULL, "no errno text: %s", msg);
    cr_assert(strstr(msg, "4194304") != NULL, "no byte count: %s", msg);
    cr_assert(strstr(msg, "host") != NULL, "%s", msg);
}

Test(host_prefault, hardware_poison_is_no_memory)
{
    ebb_pool *h = NULL;
    cr_assert_eq(create(EHWPOISON, &h), EBB_ERR_NO_MEMORY, "%s", ebb_last_error());
    cr_assert_null(h);
}

/* Kernels before 5.14 refuse the advice: every page is touched instead, and
 * the pool works. */
Test(host_prefault, old_kernel_touches_pages)
{
    ebb_pool *h = NULL;
    cr_assert_eq(create(EINVAL, &h), EBB_OK, "%s", ebb_last_error());
    fill_random(slot_ptr(h, 3), 1 * MiB, 4);
    ebb_ticket t;
    cr_assert_eq(ebb_move(h, 0, h, 3, &t), EBB_OK, "%s", ebb_last_error());
    cr_assert(memcmp(slot_ptr(h, 0), slot_ptr(h, 3), 1 * MiB) == 0);
    ebb_pool_destroy(h);
}
