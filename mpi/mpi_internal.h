/*
 * The MPI part's internals (mpi/):
 *   collective.c  one message shape for every collective, the failure
 *                 protocol;
 *   decide.c  the asynchronous strategy's store decisions, agreed (the rule is
 *             written there), over collective.c;
 *   agree.c   the agreement hooks of runtime/agree.h, over both;
 *   create.c  ebb_mpi_run_create;
 *   stats.c   ebb_mpi_stats_reduce.
 *
 * Every collective ebb makes on the run's communicator (a duplicate of the
 * user's) is an MPI_Iallreduce of int64[11] with MPI_MAX: slot 0 carries a
 * failure (the failing rank + 1, else 0), slots 1 and 2 what the collective
 * is for (its tag, and the tag negated), slots 3..10 the payload (a
 * least value is sent negated; 8 values, one per strategy auto predicts).
 * So a failing rank's message matches whatever collective the others are
 * in, by order. After a failure is agreed, one
 * MPI_Bcast from the failing rank carries its status and message, and then
 * ebb makes no more collectives on that run. Ranks whose tags differ (one
 * ended its forward sweep while another still decides) all see it in the
 * same reduced message, and all stop with an error naming two of them.
 */
#ifndef EBB_MPI_INTERNAL_H
#define EBB_MPI_INTERNAL_H

#include <mpi.h>
#include <stdint.h>

#include "runtime/agree.h"

enum { MPI_MSG = 11, MSG_TAG = 1, MSG_DATA = 3, MSG_PAYLOAD = 8 };

/* What a collective is for (MSG_TAG). */
typedef enum mpi_tag {
    TAG_SETUP = 1,   /* n, tiers, slots */
    TAG_PREDICT,     /* auto's predictions */
    TAG_STRATEGY,
    TAG_CREATED,     /* the end of ebb_mpi_run_create */
    TAG_DECIDE,      /* an asynchronous store decision */
    TAG_FORWARD_END, /* n at the end of the forward sweep */
    TAG_REVERSE_END,
    TAG_STATS,
    TAG_COSTS,       /* measure_costs: the forward steps' times, the largest */
    TAG_WHO          /* which ranks hold the largest and the least value */
} mpi_tag;

typedef enum mpi_decision { DEC_NONE, DEC_POSTED, DEC_AGREED } mpi_decision;

typedef struct mpi_agree {
    rt_agree ops;           /* first: the runtime holds &ops */
    MPI_Comm comm;          /* the duplicate */
    int rank, size;
    int node_ranks;         /* ranks sharing this rank's node */
    int node_ranks_max;     /* the most over the nodes */
    int done;               /* a failure or a disagreement was agreed: no more collectives */
    MPI_Request req;        /* the one collective in flight (DEC_POSTED) */
    int64_t send[MPI_MSG], recv[MPI_MSG];
    mpi_decision decision;  /* the current store decision's agreement */
    int64_t agreed_step;    /* DEC_AGREED: S, the largest step any rank posted */
    int64_t agreements;     /* decision collectives posted */
    double store_time;      /* when the last agreed store was made (0: none yet) */
    int64_t store_step;     /* ... at this step */
    double busy_s;          /* how long a transfer down takes, as seen (decide.c) */
} mpi_agree;

/* collective.c */
/* Posts a collective of v's payload (v[MSG_DATA ..]) for `tag`. */
ebb_status mpi_post(mpi_agree *m, mpi_tag tag, const int64_t v[MPI_MSG]);
/* Completes it into out; a failure anywhere: that rank's status and
 * message; ranks at different collectives: an error naming two. */
ebb_status mpi_complete(mpi_agree *m, int64_t out[MPI_MSG]);
/* Both: one blocking agreement. */
ebb_status mpi_collective(mpi_agree *m, mpi_tag tag, int64_t v[MPI_MSG]);
/* An MPI call failed (code): no more collectives, an error saying which. */
ebb_status mpi_error(mpi_agree *m, int code, const char *call);
/* Which ranks hold the largest and the least of a disagreeing value (a
 * collective); the disagreement is then every rank's error. */
ebb_status mpi_who(mpi_agree *m, int64_t mine, int64_t max, int64_t min, int *rank_max,
                   int *rank_min);
/* This rank failed with st: the failure agreed with the others (the hook
 * rt_agree.fail). */
ebb_status mpi_fail(rt_agree *a, ebb_status st);
/* Non-negative doubles compare as their bits do. */
int64_t mpi_double_bits(double v);
double mpi_bits_double(int64_t bits);

/* agree.c: the runtime's hooks. */
void mpi_agree_init_ops(mpi_agree *m);

/* decide.c */
ebb_status mpi_decide_idle(rt_agree *a, rt_async_idle_fn local, void *local_ctx, int mask,
                           int64_t step, int *idle);
/* The forward ended: the decision in progress is settled so that every rank
 * made as many collectives. */
ebb_status mpi_decide_settle(mpi_agree *m);

#endif
