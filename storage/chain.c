/* ebb_move_via: gpu -> host -> disk in one call, the disk write following
 * the device -> host copy block by block. Everything both legs need is
 * checked before either starts; then the copy is queued, cut at the disk's
 * blocks with an event after each (the disk slot's gate events), and the
 * disk write is started gated on them (disk_gate.c). */
#include <string.h>

#include "common/error_internal.h"
#include "storage/disk.h"

static const ebb_ticket done_ticket = {NULL, 0, 0};

static ebb_status check_args(ebb_pool *dst, int32_t dst_slot, ebb_pool *via, int32_t via_slot,
                             ebb_pool *src, int32_t src_slot)
{
    ebb_pool *pools[3] = {src, via, dst};
    for (int i = 0; i < 3; i++)
        if (pools[i]->destroyed)
            return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_move_via: the %s pool was destroyed",
                            ebb_tier_name(pools[i]->tier));
    if (src->tier != EBB_TIER_GPU || via->tier != EBB_TIER_HOST || dst->tier != EBB_TIER_DISK)
        return ebb_fail(EBB_ERR_UNSUPPORTED,
                        "ebb_move_via %s -> %s -> %s is not supported: it chains gpu -> host -> "
                        "disk; move other paths with ebb_move",
                        ebb_tier_name(src->tier), ebb_tier_name(via->tier),
                        ebb_tier_name(dst->tier));
    ebb_status s = ebb_pool_check_slot(src, src_slot, "ebb_move_via (source)");
    if (s == EBB_OK)
        s = ebb_pool_check_slot(via, via_slot, "ebb_move_via (host slot between)");
    if (s == EBB_OK)
        s = ebb_pool_check_slot(dst, dst_slot, "ebb_move_via (destination)");
    if (s != EBB_OK)
        return s;
    if (src->slot_size != via->slot_size || via->slot_size != dst->slot_size)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_move_via: the slots are %zu (gpu), %zu (host) and %zu (disk) bytes; "
                        "pools that exchange states need the same slot_size",
                        src->slot_size, via->slot_size, dst->slot_size);
    if (!via->pinned)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_move_via: the host pool is not pinned (%s); device transfers need "
                        "pinned memory",
                        via->warnings[0] ? via->warnings : "pinning was off");
    return EBB_OK;
}

ebb_status ebb_move_via(ebb_pool *dst, int32_t dst_slot, ebb_pool *via, int32_t via_slot,
                        ebb_pool *src, int32_t src_slot, ebb_ticket tickets[2])
{
    if (!dst || !via || !src || !tickets)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_move_via: NULL argument");
    tickets[0] = tickets[1] = done_ticket;
    ebb_status s = check_args(dst, dst_slot, via, via_slot, src, src_slot);
    /* the host slot is written by the copy (so nothing may use it), then
     * read by the disk write, whose own checks come next */
    if (s == EBB_OK)
        s = ebb_host_slot_check(via, via_slot, 1);
    if (s == EBB_OK)
        s = ebb_disk_move_check(dst, dst_slot, via, via_slot, 1, 0);
    if (s != EBB_OK)
        return s;
    ebb_pool_info gi;
    memset(&gi, 0, sizeof gi);
    ebb_device_info(src, &gi);
    ebb_pool_info di;
    memset(&di, 0, sizeof di);
    ebb_disk_info(dst, &di);
    ebb_copy_split split = {di.block, NULL, 0};
    if ((s = ebb_disk_gate_prepare(dst, dst_slot, gi.device, &split.events)) != EBB_OK)
        return s;
    split.count = (uint32_t)((dst->slot_size + di.block - 1) / di.block);
    if ((s = ebb_host_gpu_copy(src, src_slot, via, via_slot, 0, &split, &tickets[0])) != EBB_OK)
        return s;
    ebb_disk_move_start(dst, dst_slot, via, via_slot, 1, 1, &tickets[1]);
    return EBB_OK;
}
