/* ebb_move_via's paths (pool.c's `moves` table reaches them): gpu -> host
 * -> disk and disk -> host -> gpu in one call, pipelined by the disk's
 * blocks. Everything both legs need is checked before either starts.
 * gpu -> host -> disk: the copy is queued cut at the disk's blocks with an
 * event after each (the disk slot's gate events), then the disk write is
 * started gated on them (disk_chain.c).
 * disk -> host -> gpu: the gpu slot is taken (no copy queued yet), then the
 * disk read is started; the engine copies each block on as it arrives and
 * closes the gpu operation when the read ends (disk_chain.c). */
#include <string.h>

#include "common/error_internal.h"
#include "storage/disk.h"

/* gpu, host, disk: the three pools whichever way the move goes. */
static ebb_status check_args(ebb_pool *gpu, int32_t gpu_slot, ebb_pool *host, int32_t host_slot,
                             ebb_pool *disk, int32_t disk_slot)
{
    ebb_pool *pools[3] = {gpu, host, disk};
    for (int i = 0; i < 3; i++)
        if (pools[i]->destroyed)
            return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_move_via: the %s pool was destroyed",
                            ebb_tier_name(pools[i]->tier));
    ebb_status s = ebb_pool_check_slot(gpu, gpu_slot, "ebb_move_via (gpu slot)");
    if (s == EBB_OK)
        s = ebb_pool_check_slot(host, host_slot, "ebb_move_via (host slot between)");
    if (s == EBB_OK)
        s = ebb_pool_check_slot(disk, disk_slot, "ebb_move_via (disk slot)");
    if (s != EBB_OK)
        return s;
    if (gpu->slot_size != host->slot_size || host->slot_size != disk->slot_size)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_move_via: the slots are %zu (gpu), %zu (host) and %zu (disk) bytes; "
                        "pools that exchange states need the same slot_size",
                        gpu->slot_size, host->slot_size, disk->slot_size);
    if (host->hc)
        return ebb_fail(EBB_ERR_UNSUPPORTED,
                        "ebb_move_via: the host pool between holds compressed states "
                        "(ebb_pool_options.compression); chain through an uncompressed host pool");
    if (!host->pinned)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_move_via: the host pool is not pinned (%s); device transfers need "
                        "pinned memory",
                        host->warnings[0] ? host->warnings : "pinning was off");
    /* the host slot is written (by the copy or the read), so nothing may use
     * it; it is made ready (registered) before the copy is queued */
    if ((s = ebb_host_make_ready(host, host_slot)) != EBB_OK)
        return s;
    return ebb_host_slot_check(host, host_slot, 1);
}

ebb_status ebb_chain_gpu_to_disk(ebb_pool *disk, int32_t disk_slot, ebb_pool *host,
                                 int32_t host_slot, ebb_pool *gpu, int32_t gpu_slot,
                                 ebb_ticket tickets[2])
{
    ebb_status s = check_args(gpu, gpu_slot, host, host_slot, disk, disk_slot);
    if (s == EBB_OK)
        s = ebb_disk_move_check(disk, disk_slot, host, host_slot, 1, 0);
    if (s != EBB_OK)
        return s;
    ebb_pool_info gi;
    memset(&gi, 0, sizeof gi);
    ebb_device_info(gpu, &gi);
    /* one event per disk block: the copy records exactly the ones the gate asks */
    ebb_copy_split split = {disk->disk->layout.block, NULL, disk->disk->layout.bps, NULL};
    if ((s = ebb_disk_gate_prepare(disk, disk_slot, gi.device, &split.events)) != EBB_OK)
        return s;
    if ((s = ebb_host_gpu_copy(gpu, gpu_slot, host, host_slot, 0, &split, &tickets[0])) != EBB_OK)
        return s;
    ebb_disk_move_start(disk, disk_slot, host, host_slot, 1, 1, NULL, &tickets[1]);
    return EBB_OK;
}

ebb_status ebb_chain_disk_to_gpu(ebb_pool *gpu, int32_t gpu_slot, ebb_pool *host,
                                 int32_t host_slot, ebb_pool *disk, int32_t disk_slot,
                                 ebb_ticket tickets[2])
{
    ebb_status s = check_args(gpu, gpu_slot, host, host_slot, disk, disk_slot);
    if (s == EBB_OK)
        s = ebb_disk_move_check(disk, disk_slot, host, host_slot, 0, 0);
    if (s != EBB_OK)
        return s;
    ebb_follow follow;
    ebb_copy_split split = {0, NULL, 0, &follow};
    /* takes the gpu slot (after the caller's use of it that
     * ebb_pool_slot_order_after marked), queues nothing */
    s = ebb_device_copy(gpu, gpu_slot, ebb_host_slot_addr(host, host_slot), 1, 0, NULL, NULL,
                        &split, &tickets[1]);
    if (s != EBB_OK)
        return s;
    follow.gpu_op->await_pool = disk;
    follow.gpu_op->await_op = &disk->ops[disk_slot];
    ebb_disk_move_start(disk, disk_slot, host, host_slot, 0, 0, &follow, &tickets[0]);
    return EBB_OK;
}
