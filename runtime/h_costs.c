/*
 * h-revolve's costs from the step times and the channels (h_costs.h).
 */
#include "runtime/h_costs.h"

double rt_disk_bps(const ebb_plan_problem *p, int write)
{
    double bw = p->channel[write ? EBB_PLAN_HOST_TO_DISK : EBB_PLAN_DISK_TO_HOST].bandwidth;
    if (p->disk_pace > 0 && (!(bw > 0) || p->disk_pace < bw))
        bw = p->disk_pace;
    return bw > 0 ? bw : 0.0;
}

int rt_disk_compressed(const ebb_plan_problem *p)
{
    if (!(p->codec.ratio > 0))
        return 0;
    return p->codec_fixed || ebb_codec_pays(&p->codec, rt_disk_bps(p, 1), rt_disk_bps(p, 0));
}

/* One hop's time for a state: over the channel, a disk hop paced (and
 * through the codec when states go compressed). */
static double hop_seconds(const ebb_plan_problem *p, ebb_plan_channel_id c)
{
    const ebb_plan_channel *ch = &p->channel[c];
    double size = (double)p->state_size;
    double t = ch->bandwidth > 0 ? size / ch->bandwidth : 0.0;
    int disk = c == EBB_PLAN_HOST_TO_DISK || c == EBB_PLAN_DISK_TO_HOST;
    if (disk) {
        int write = c == EBB_PLAN_HOST_TO_DISK;
        double bps = rt_disk_bps(p, write);
        if (rt_disk_compressed(p))
            t = ebb_codec_state_seconds(&p->codec, size, bps, write);
        else
            t = bps > 0 ? size / bps : 0.0;
    }
    return t + ch->latency;
}

/* A move from tier `fast` to tier `slow` (write) or back (read). gpu <->
 * disk crosses both hops pipelined by the disk's blocks (ebb_move_via): the
 * slower hop, plus the faster one's share of one block. */
static double move_seconds(const ebb_plan_problem *p, int fast, int slow, int write)
{
    double link = 0.0, disk = 0.0;
    int has_link = fast <= EBB_TIER_GPU && slow >= EBB_TIER_HOST;
    int has_disk = fast <= EBB_TIER_HOST && slow >= EBB_TIER_DISK;
    if (has_link)
        link = hop_seconds(p, write ? EBB_PLAN_GPU_TO_HOST : EBB_PLAN_HOST_TO_GPU);
    if (has_disk)
        disk = hop_seconds(p, write ? EBB_PLAN_HOST_TO_DISK : EBB_PLAN_DISK_TO_HOST);
    if (!has_link || !has_disk)
        return link + disk;
    size_t block = p->disk_block > 0 ? p->disk_block : (size_t)8 << 20;
    double blocks = (double)((p->state_size + block - 1) / block);
    return link > disk ? link + disk / blocks : disk + link / blocks;
}

void rt_h_costs_of(const ebb_plan_problem *p, int fast, int slow, int known, rt_h_costs *out)
{
    *out = (rt_h_costs){.write = 1.0, .read = 1.0, .reverse = 1.0, .source = RT_H_NO_TIMES};
    if (!(p->forward_s > 0))
        return;
    out->reverse = p->reverse_s / p->forward_s;
    out->source = RT_H_NO_BANDWIDTH;
    if (!known)
        return;
    out->write = move_seconds(p, fast, slow, 1) / p->forward_s;
    out->read = move_seconds(p, fast, slow, 0) / p->forward_s;
    out->source = RT_H_MEASURED;
}

int32_t rt_h_budget_disk_slots(int64_t n, int32_t c, int32_t d)
{
    if (n < 1)
        return 0;
    int64_t room = RT_H_BUDGET_ENTRIES / n - c;
    int64_t out = d < n ? d : n;
    if (out > room)
        out = room;
    return out > 0 ? (int32_t)out : 0;
}

const char *rt_h_source_text(rt_h_source source)
{
    switch (source) {
    case RT_H_NO_TIMES:
        return "no step times given: 1 each";
    case RT_H_NO_BANDWIDTH:
        return "B from the step times; the disk's bandwidth unknown: W = R = 1";
    case RT_H_MEASURED:
        break;
    }
    return "from the step times and the disk's bandwidth";
}
