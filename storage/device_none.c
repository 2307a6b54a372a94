/* The device tier without CUDA at build time: creating a gpu pool fails
 * with EBB_ERR_UNSUPPORTED (saying how to get one), and nothing else can be
 * reached without a gpu pool. Built only without CUDA (storage/CMakeLists.txt);
 * with it: device.c. */
#include "common/error_internal.h"
#include "storage/storage_internal.h"

static ebb_status no_cuda(void)
{
    return ebb_fail(EBB_ERR_UNSUPPORTED,
                    "this ebb was built without CUDA, so it has no gpu tier; rebuild with the "
                    "CUDA toolkit (EBB_WITH_CUDA=ON) or run without the gpu tier");
}

ebb_status ebb_device_create(struct ebb_pool *pool, const ebb_pool_options *o)
{
    (void)pool;
    (void)o;
    return no_cuda();
}

void ebb_device_destroy(struct ebb_pool *pool) { (void)pool; }

void ebb_device_read_mark(const struct ebb_pool *pool, int32_t slot, ebb_copy_mark *mark)
{
    (void)pool, (void)slot;
    mark->event = NULL;
    mark->device = -1;
    mark->recorded = 0;
}

ebb_status ebb_device_check_user_ptr(const void *ptr, size_t bytes, const char *what,
                                     int *on_device)
{
    (void)ptr, (void)bytes, (void)what, (void)on_device;
    return no_cuda();
}

ebb_status ebb_device_slot(struct ebb_pool *pool, int32_t slot, unsigned char **mem)
{
    (void)pool, (void)slot, (void)mem;
    return no_cuda();
}

ebb_status ebb_device_copy(struct ebb_pool *pool, int32_t slot, void *mem, int to_device,
                           int mem_on_device, ebb_op *after, ebb_copy_mark *mark,
                           const ebb_copy_split *split, ebb_ticket *ticket)
{
    (void)pool, (void)slot, (void)mem, (void)to_device, (void)mem_on_device, (void)after;
    (void)split, (void)ticket;
    if (mark)
        mark->recorded = 0;
    return no_cuda();
}

ebb_status ebb_device_test(struct ebb_pool *pool, ebb_op *op, int block, int *done)
{
    (void)pool, (void)op, (void)block;
    *done = 1;
    return no_cuda();
}

ebb_status ebb_device_order_after(struct ebb_pool *pool, void *stream)
{
    (void)pool, (void)stream;
    return no_cuda();
}

ebb_status ebb_device_slot_order_after(struct ebb_pool *pool, int32_t slot, void *stream)
{
    (void)pool, (void)slot, (void)stream;
    return no_cuda();
}

ebb_status ebb_device_mark(struct ebb_pool *pool, void *stream)
{
    (void)pool, (void)stream;
    return no_cuda();
}

ebb_status ebb_device_mark_reached(struct ebb_pool *pool, int *reached)
{
    (void)pool;
    *reached = 1;
    return no_cuda();
}

ebb_status ebb_device_stream_wait(struct ebb_pool *pool, ebb_op *op, void *stream)
{
    (void)pool, (void)op, (void)stream;
    return no_cuda();
}

void ebb_device_info(const struct ebb_pool *pool, ebb_pool_info *info)
{
    (void)pool;
    info->backend = "cuda";
}
