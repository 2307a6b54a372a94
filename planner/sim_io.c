/*
 * The planner's io (runtime/io.h): the engine's transfers on simulated
 * channels and a virtual clock. A ticket is the time its transfer ends;
 * waiting moves the clock there. Each channel (gpu -> host, host -> gpu, the
 * disk shared by reads and writes) serves one transfer at a time, first come
 * first served, at its bandwidth, and adds its latency to each transfer. A
 * disk transfer goes block by block through the disk's pacer (as
 * storage/disk_pace.c: a block starts no earlier than the last one's start
 * plus its bytes at the pace); a chained move (ebb_move_via) sends each disk
 * block once it crossed from the gpu, or copies each block on to the gpu as
 * the disk returns it. With states compressed (problem.codec, where
 * rt_disk_compressed says so, as the disk tier's rule would), a write takes
 * the first free of the codec threads for state_size / compress_bps, then
 * its state_size / ratio bytes go to disk; a read moves those, then takes a
 * codec thread to decompress; a chained move compresses after the whole
 * state crossed from the gpu, and copies it on after decompressing, as the
 * disk tier does. While states queue, the channel so carries
 * min(compress_bps x threads, disk x ratio) state bytes a second. The host
 * tier's compressed slots (problem.host_codec) are the same codec channel
 * on threads of their own, with no device behind it: a store into one ends
 * when a host codec thread has compressed it, a restore out of one when a
 * thread has decompressed it (the engine waits for that ticket).
 *
 * Not modelled: copies on the compute thread (the in-place form, host ->
 * host), gpu -> gpu copies (device bandwidth), the CPU that transfers take
 * from the steps.
 */
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "planner/sim_io.h"
#include "runtime/h_costs.h"
#include "storage/disk_pace_rule.h"

struct rt_pool {
    ebb_tier tier;
    int packed; /* the host tier's compressed slots (given a codec) */
};

static sim_io *S(rt_io *io)
{
    return (sim_io *)(void *)io;
}

/* A chained move's other leg, block by block: a write's block k may go once
 * `ready0` + its end offset / `ready_bw` has passed (it crossed from the
 * gpu); a read's block is copied on to the gpu (`then`) as soon as the disk
 * returned it, and *then_end is when the last copy ends. */
typedef struct chain_leg {
    double ready0, ready_bw; /* write: bytes crossing from the gpu (ready_bw 0: none) */
    int then;                /* read: 1 copies each block on to the gpu */
    double then_end;
} chain_leg;

static double later(double a, double b)
{
    return a > b ? a : b;
}

static double seconds(double bytes, double bandwidth)
{
    return bandwidth > 0 ? bytes / bandwidth : 0.0;
}

/* The device is busy over [start, end): a span the steps beside it are
 * slowed over (joined to the last when they touch; the last one grows when
 * the ring is full). */
static void busy(sim_io *s, double start, double end)
{
    if (!(s->p->step_slowdown > 0) || !(end > start))
        return;
    int last = (s->span_head + s->span_count - 1) % SIM_SPANS;
    if (s->span_count > 0 && (start <= s->span_end[last] || s->span_count == SIM_SPANS)) {
        s->span_end[last] = later(s->span_end[last], end);
        return;
    }
    int k = (s->span_head + s->span_count++) % SIM_SPANS;
    s->span_start[k] = start;
    s->span_end[k] = end;
}

void sim_io_step(sim_io *s, double work)
{
    double k = s->p->step_slowdown, t = s->now;
    while (k > 0 && work > 0 && s->span_count > 0) {
        int h = s->span_head;
        if (s->span_end[h] <= t) { /* over: dropped */
            s->span_head = (h + 1) % SIM_SPANS;
            s->span_count--;
            continue;
        }
        double idle = s->span_start[h] - t;
        if (idle >= work)
            break;
        if (idle > 0) {
            t += idle;
            work -= idle;
        }
        /* beside the disk, the step runs 1 + k times slower */
        double can = (s->span_end[h] - t) / (1.0 + k);
        if (work <= can) {
            t += work * (1.0 + k);
            work = 0;
            break;
        }
        t = s->span_end[h];
        work -= can;
    }
    s->now = t + work;
}

static void codec_init(sim_codec *c, const ebb_codec_rates *rates, int on)
{
    *c = (sim_codec){.rates = rates, .on = on, .threads = rates->threads > 0 ? rates->threads : EBB_CODEC_THREADS_DEFAULT};
}

/* A state compressed (compress = 1) or decompressed on the thread of codec
 * channel c free first, from `from` on; returns when it ends. */
static double codec_run(sim_io *s, sim_codec *c, double from, int compress)
{
    int k = 0;
    for (int i = 1; i < c->threads; i++)
        if (c->free[i] < c->free[k])
            k = i;
    double rate = compress ? c->rates->compress_bps : c->rates->decompress_bps;
    double end = later(c->free[k], from) + seconds((double)s->p->state_size, rate);
    c->free[k] = end;
    return end;
}

/* Bytes a state moves on the disk. */
static double disk_bytes(const sim_io *s)
{
    double size = (double)s->p->state_size;
    return s->disk_codec.on ? size / s->p->codec.ratio : size;
}

/* One disk transfer of `bytes` on channel c starting at `at` (>= now);
 * returns when the device is done. */
static double disk_blocks(sim_io *s, ebb_plan_channel_id c, chain_leg *leg, double at,
                          double bytes)
{
    const ebb_plan_problem *p = s->p;
    double bw = p->channel[c].bandwidth;
    const ebb_plan_channel *h2g = &p->channel[EBB_PLAN_HOST_TO_GPU];
    size_t block = p->disk_block > 0 ? p->disk_block : (size_t)8 << 20;
    double *disk = &s->free_at[EBB_PLAN_HOST_TO_DISK], *up = &s->free_at[EBB_PLAN_HOST_TO_GPU];
    double t = at;
    size_t total = bytes >= 1.0 ? (size_t)(bytes + 0.5) : 1; /* at least one request */
    for (size_t done = 0; done < total; done += block) {
        double len = (double)(total - done < block ? total - done : block);
        double send = t;
        if (leg && leg->ready_bw > 0)
            send = later(send, leg->ready0 + ((double)done + len) / leg->ready_bw);
        if (p->disk_pace > 0) {
            send = later(send, s->pace_next);
            double from = ebb_disk_pace_from(s->pace_next, send, 1);
            s->pace_next = from + len / p->disk_pace;
        }
        double start = later(*disk, send);
        *disk = start + seconds(len, bw);
        busy(s, start, *disk);
        t = send;
        if (leg && leg->then) {
            double got = *disk + p->channel[c].latency;
            *up = later(*up, got) + seconds(len, h2g->bandwidth);
            leg->then_end = *up + h2g->latency;
        }
    }
    return *disk;
}

/* One state on channel c, starting now; the ticket ends with it. */
static rt_ticket submit(sim_io *s, rt_pool *pool, ebb_plan_channel_id c)
{
    const ebb_plan_channel *ch = &s->p->channel[c];
    rt_ticket t = {.pool = pool};
    double size = (double)s->p->state_size;
    if (c == EBB_PLAN_HOST_TO_DISK && s->disk_codec.on) {
        double packed = codec_run(s, &s->disk_codec, s->now, 1);
        t.end = disk_blocks(s, c, NULL, packed, disk_bytes(s)) + ch->latency;
        return t;
    }
    if (c == EBB_PLAN_DISK_TO_HOST && s->disk_codec.on) {
        double in = disk_blocks(s, c, NULL, s->now, disk_bytes(s)) + ch->latency;
        t.end = codec_run(s, &s->disk_codec, in, 0);
        return t;
    }
    if (c == EBB_PLAN_HOST_TO_DISK || c == EBB_PLAN_DISK_TO_HOST) {
        t.end = disk_blocks(s, c, NULL, s->now, size) + ch->latency;
        return t;
    }
    double start = later(s->free_at[c], s->now);
    s->free_at[c] = start + seconds((double)s->p->state_size, ch->bandwidth);
    t.end = s->free_at[c] + ch->latency;
    return t;
}

static double now(rt_io *io)
{
    return S(io)->now;
}

static ebb_status pool_create(rt_io *io, const ebb_pool_options *o, rt_pool *staging,
                              const ebb_storage_fault *fault, rt_pool **out)
{
    (void)io, (void)staging, (void)fault;
    *out = malloc(sizeof **out);
    if (!*out)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the planner's %s pool",
                        ebb_tier_name(o->tier));
    (*out)->tier = o->tier;
    (*out)->packed = o->tier == EBB_TIER_HOST && o->compression != NULL;
    return EBB_OK;
}

static void pool_destroy(rt_io *io, rt_pool *pool)
{
    (void)io;
    free(pool);
}

static ebb_status pool_info(rt_io *io, const rt_pool *pool, uint64_t *bytes, char *warnings,
                            size_t len)
{
    (void)io, (void)pool, (void)len;
    *bytes = 0;
    warnings[0] = '\0';
    return EBB_OK;
}

static ebb_status pool_stats(rt_io *io, const rt_pool *pool, ebb_pool_stats *stats)
{
    (void)io, (void)pool;
    memset(stats, 0, sizeof *stats);
    return EBB_OK;
}

static void *slot_ptr(rt_io *io, rt_pool *pool, int32_t slot)
{
    (void)io, (void)pool, (void)slot;
    return NULL;
}

static ebb_status put(rt_io *io, rt_pool *pool, int32_t slot, const void *src, size_t bytes,
                      rt_ticket *t)
{
    (void)io, (void)pool, (void)slot, (void)src, (void)bytes;
    *t = (rt_ticket){0};
    return EBB_OK;
}

static void copy_now(rt_io *io, rt_pool *dst, int32_t ds, rt_pool *src, int32_t ss, size_t bytes)
{
    (void)io, (void)dst, (void)ds, (void)src, (void)ss, (void)bytes;
}

static ebb_status move(rt_io *io, rt_pool *dst, int32_t ds, rt_pool *src, int32_t ss,
                       rt_ticket *t)
{
    (void)ds, (void)ss;
    sim_io *s = S(io);
    ebb_tier a = src->tier, b = dst->tier;
    *t = (rt_ticket){0};
    if (a == EBB_TIER_HOST && b == EBB_TIER_HOST && src->packed != dst->packed) {
        /* into a compressed slot or out of one: on the host codec channel */
        *t = (rt_ticket){.pool = dst, .end = codec_run(s, &s->host_codec, s->now, dst->packed)};
        return EBB_OK;
    }
    if (a == EBB_TIER_HOST && b == EBB_TIER_HOST)
        return EBB_OK; /* a memcpy (compressed bytes between compressed slots), done on return */
    if (a == EBB_TIER_GPU && b == EBB_TIER_GPU) {
        *t = (rt_ticket){.pool = dst, .end = s->now};
        return EBB_OK;
    }
    static const int channel[EBB_TIER_COUNT][EBB_TIER_COUNT] = {
        [EBB_TIER_GPU][EBB_TIER_HOST] = EBB_PLAN_GPU_TO_HOST + 1,
        [EBB_TIER_HOST][EBB_TIER_GPU] = EBB_PLAN_HOST_TO_GPU + 1,
        [EBB_TIER_HOST][EBB_TIER_DISK] = EBB_PLAN_HOST_TO_DISK + 1,
        [EBB_TIER_DISK][EBB_TIER_HOST] = EBB_PLAN_DISK_TO_HOST + 1,
    };
    int c = channel[a][b] - 1;
    if (c < 0)
        return ebb_fail(EBB_ERR_UNSUPPORTED, "the planner cannot move a state from %s to %s",
                        ebb_tier_name(a), ebb_tier_name(b));
    *t = submit(s, dst, (ebb_plan_channel_id)c);
    return EBB_OK;
}

static ebb_status move_via(rt_io *io, rt_pool *dst, int32_t ds, rt_pool *via, int32_t vs,
                           rt_pool *src, int32_t ss, rt_ticket t[2])
{
    (void)ds, (void)vs, (void)ss;
    sim_io *s = S(io);
    const ebb_plan_channel *ch = s->p->channel;
    double size = (double)s->p->state_size;
    if (s->disk_codec.on && src->tier == EBB_TIER_GPU && dst->tier == EBB_TIER_DISK) {
        /* the whole state crosses, then is compressed, then goes to disk */
        t[0] = submit(s, via, EBB_PLAN_GPU_TO_HOST);
        double packed = codec_run(s, &s->disk_codec, t[0].end, 1);
        double end = disk_blocks(s, EBB_PLAN_HOST_TO_DISK, NULL, packed, disk_bytes(s)) +
                     ch[EBB_PLAN_HOST_TO_DISK].latency;
        t[1] = (rt_ticket){.pool = dst, .end = end};
        return EBB_OK;
    }
    if (s->disk_codec.on && src->tier == EBB_TIER_DISK && dst->tier == EBB_TIER_GPU) {
        /* read, decompressed, then the whole state copied on to the gpu */
        double in = disk_blocks(s, EBB_PLAN_DISK_TO_HOST, NULL, s->now, disk_bytes(s)) +
                    ch[EBB_PLAN_DISK_TO_HOST].latency;
        double unpacked = codec_run(s, &s->disk_codec, in, 0);
        double *up = &s->free_at[EBB_PLAN_HOST_TO_GPU];
        *up = later(*up, unpacked) + seconds(size, ch[EBB_PLAN_HOST_TO_GPU].bandwidth);
        t[0] = (rt_ticket){.pool = via, .end = unpacked};
        t[1] = (rt_ticket){.pool = dst, .end = *up + ch[EBB_PLAN_HOST_TO_GPU].latency};
        return EBB_OK;
    }
    if (src->tier == EBB_TIER_GPU && dst->tier == EBB_TIER_DISK) {
        /* each disk block goes once it crossed; the disk leg ends after the copy */
        double start = later(s->free_at[EBB_PLAN_GPU_TO_HOST], s->now);
        t[0] = submit(s, via, EBB_PLAN_GPU_TO_HOST);
        const ebb_plan_channel *g2h = &ch[EBB_PLAN_GPU_TO_HOST];
        chain_leg leg = {start + g2h->latency, g2h->bandwidth, 0, 0.0};
        double end = disk_blocks(s, EBB_PLAN_HOST_TO_DISK, &leg, s->now, size) +
                     ch[EBB_PLAN_HOST_TO_DISK].latency;
        t[1] = (rt_ticket){.pool = dst, .end = later(end, t[0].end)};
        return EBB_OK;
    }
    if (src->tier == EBB_TIER_DISK && dst->tier == EBB_TIER_GPU) {
        /* each block copied on over host -> gpu as the disk returns it */
        chain_leg leg = {0, 0, 1, s->now};
        double end = disk_blocks(s, EBB_PLAN_DISK_TO_HOST, &leg, s->now, size) +
                     ch[EBB_PLAN_DISK_TO_HOST].latency;
        t[0] = (rt_ticket){.pool = via, .end = end};
        t[1] = (rt_ticket){.pool = dst, .end = later(leg.then_end, end)};
        return EBB_OK;
    }
    return ebb_fail(EBB_ERR_UNSUPPORTED, "the planner chains only gpu <-> disk through the host");
}

static ebb_status test(rt_io *io, const rt_ticket *t, int *done)
{
    *done = !t->pool || t->end <= S(io)->now;
    return EBB_OK;
}

static ebb_status wait(rt_io *io, const rt_ticket *t)
{
    sim_io *s = S(io);
    if (t->pool && t->end > s->now)
        s->now = t->end;
    return EBB_OK;
}

/* The stream is the compute: it is held until the transfer ends. */
static ebb_status stream_wait(rt_io *io, const rt_ticket *t, void *stream, double *held)
{
    (void)stream;
    sim_io *s = S(io);
    double before = s->now;
    wait(io, t);
    *held = s->now - before;
    return EBB_OK;
}

static ebb_status order_after(rt_io *io, rt_pool *pool, void *stream)
{
    (void)io, (void)pool, (void)stream;
    return EBB_OK;
}

static ebb_status slot_order_after(rt_io *io, rt_pool *pool, int32_t slot, void *stream)
{
    (void)io, (void)pool, (void)slot, (void)stream;
    return EBB_OK;
}

static ebb_status mark(rt_io *io, rt_pool *pool, void *stream)
{
    (void)io, (void)pool, (void)stream;
    return EBB_OK;
}

static ebb_status mark_reached(rt_io *io, rt_pool *pool, int *reached)
{
    (void)io, (void)pool;
    *reached = 1;
    return EBB_OK;
}

static ebb_status ready(rt_io *io, rt_pool *pool, int32_t slot)
{
    (void)io, (void)pool, (void)slot;
    return EBB_OK; /* no memory */
}

static const rt_io_ops ops = {
    .now = now,
    .pool_create = pool_create,
    .pool_destroy = pool_destroy,
    .pool_info = pool_info,
    .pool_stats = pool_stats,
    .slot_ptr = slot_ptr,
    .put = put,
    .copy_now = copy_now,
    .move = move,
    .move_via = move_via,
    .test = test,
    .wait = wait,
    .stream_wait = stream_wait,
    .order_after = order_after,
    .slot_order_after = slot_order_after,
    .mark = mark,
    .mark_reached = mark_reached,
    .ready = ready,
    /* no codec threads: no codec_trace, no codec_spans */
};

void sim_io_init(sim_io *s, const ebb_plan_problem *p)
{
    *s = (sim_io){.io = {&ops}, .p = p};
    codec_init(&s->disk_codec, &p->codec, rt_disk_compressed(p));
    codec_init(&s->host_codec, &p->host_codec, p->host_codec.ratio > 0);
}
