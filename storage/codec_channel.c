/* The compressed channel's model (ebb/codec.h): one state's seconds through
 * the codec and the disk, the channel's rate while states queue, and the
 * rule that says when compressing pays. The disk tier (disk_codec.c) and
 * the planner (planner/sim_io.c, runtime/h_costs.c) both decide with it. */
#include "ebb/codec.h"

static double secs(double bytes, double bps)
{
    return bps > 0 ? bytes / bps : 0.0;
}

double ebb_codec_state_seconds(const ebb_codec_rates *r, double bytes, double disk_bps, int write)
{
    double ratio = r && r->ratio > 0 ? r->ratio : 1.0;
    double codec = !r ? 0.0 : secs(bytes, write ? r->compress_bps : r->decompress_bps);
    return codec + secs(bytes / ratio, disk_bps);
}

double ebb_codec_channel_bps(const ebb_codec_rates *r, double disk_bps, int write)
{
    double ratio = r && r->ratio > 0 ? r->ratio : 1.0;
    double one = !r ? 0.0 : write ? r->compress_bps : r->decompress_bps;
    double codec = one > 0 ? one * (r->threads > 0 ? r->threads : 2) : 0.0;
    double disk = disk_bps > 0 ? disk_bps * ratio : 0.0;
    if (codec > 0 && disk > 0)
        return codec < disk ? codec : disk;
    return codec > 0 ? codec : disk;
}

int ebb_codec_pays(const ebb_codec_rates *r, double write_bps, double read_bps)
{
    if (!r || !(r->ratio > 1.0) || !(write_bps > 0) || !(read_bps > 0))
        return 0;
    /* per byte of state: 1 / bps raw against the codec's and the smaller share */
    return ebb_codec_state_seconds(r, 1.0, write_bps, 1) < 1.0 / write_bps &&
           ebb_codec_state_seconds(r, 1.0, read_bps, 0) < 1.0 / read_bps;
}
