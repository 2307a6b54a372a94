/* The disk pacer's rule, the one that the real pacer (disk_pace.c) and the
 * planner's simulated one (planner/sim_io.c) both follow: a request that
 * goes at `now` while the pacer's clock says `next` is charged from
 * ebb_disk_pace_from(next, now), then its bytes / rate move the clock on.
 * Lateness of up to the slack is made up for; longer idle earns nothing.
 * Times in any one unit, `per_second` of them a second (1 for seconds, 1e9
 * for ns: exact for ns below 2^53). */
#ifndef EBB_STORAGE_DISK_PACE_RULE_H
#define EBB_STORAGE_DISK_PACE_RULE_H

/* Lateness that is made up for, in seconds. */
#define EBB_DISK_PACE_SLACK_S 0.001

static inline double ebb_disk_pace_from(double next, double now, double per_second)
{
    double slack = EBB_DISK_PACE_SLACK_S * per_second;
    return now - next > slack ? now - slack : next;
}

#endif
