/*
 * The replay driver: generates a schedule's stream batch by batch and checks
 * every action with the validator (ebb_schedule_validate, `ebb plan`), handing
 * each checked batch to an optional visitor.
 *
 * A long stream is generated on a second thread while this one validates
 * (generation is about a third of the work, validation the rest), through a
 * ring of batches; a short one, an online one (whose generator learns n from
 * what the validator saw) or one whose thread cannot start runs in turn.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/error_internal.h"
#include "schedules/schedule_base.h"

enum {
    VALIDATE_BATCH = 4096,
    RING = 8,                     /* batches in flight between the two threads */
};
/* below this many steps a thread costs more than it saves */
#define PIPELINE_MIN_STEPS ((int64_t)1 << 16)

typedef struct pipe_ring {
    ebb_schedule *s;
    ebb_action *buf[RING];
    size_t len[RING];
    size_t head, tail;            /* batches produced, consumed */
    int done, stop;               /* producer finished; consumer gave up */
    ebb_status st;                /* the producer's failure */
    char msg[1024];               /* its message (ebb_last_error is per thread) */
    pthread_mutex_t mu;
    pthread_cond_t cv;
} pipe_ring;

static void *produce(void *arg)
{
    pipe_ring *r = arg;
    for (;;) {
        pthread_mutex_lock(&r->mu);
        while (r->head - r->tail == RING && !r->stop)
            pthread_cond_wait(&r->cv, &r->mu);
        int stop = r->stop;
        size_t k = r->head % RING;
        pthread_mutex_unlock(&r->mu);
        if (stop)
            return NULL;
        size_t n = 0;
        ebb_status st = ebb_schedule_next_batch(r->s, r->buf[k], VALIDATE_BATCH, &n);
        pthread_mutex_lock(&r->mu);
        if (st != EBB_OK) {
            r->st = st;
            snprintf(r->msg, sizeof r->msg, "%s", ebb_last_error());
            r->done = 1;
        } else {
            r->len[k] = n;
            r->head++;
            if (r->buf[k][n - 1].kind == EBB_ACT_END)
                r->done = 1;
        }
        int finished = r->done;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        if (finished)
            return NULL;
    }
}

/* Validates what the producer thread generates. 1 in *ran when it ran. */
static ebb_status replay_pipelined(ebb_schedule *s, ebb_validator *v, ebb_action_visitor visit,
                                   void *user, int *ran)
{
    pipe_ring *r = calloc(1, sizeof *r);
    *ran = 0;
    if (!r)
        return EBB_OK;
    int k = 0;
    for (; k < RING; k++)
        if (!(r->buf[k] = malloc(VALIDATE_BATCH * sizeof *r->buf[k])))
            break;
    pthread_t th;
    int started = 0;
    if (k == RING && pthread_mutex_init(&r->mu, NULL) == 0) {
        if (pthread_cond_init(&r->cv, NULL) == 0) {
            r->s = s;
            started = pthread_create(&th, NULL, produce, r) == 0;
            if (!started)
                pthread_cond_destroy(&r->cv);
        }
        if (!started)
            pthread_mutex_destroy(&r->mu);
    }
    ebb_status st = EBB_OK;
    if (started) {
        *ran = 1;
        for (;;) {
            pthread_mutex_lock(&r->mu);
            while (r->head == r->tail && !r->done)
                pthread_cond_wait(&r->cv, &r->mu);
            if (r->head == r->tail) {
                /* done with nothing left: END was consumed, or the producer failed */
                if (r->st != EBB_OK)
                    st = ebb_fail(r->st, "%s", r->msg);
                pthread_mutex_unlock(&r->mu);
                break;
            }
            size_t i = r->tail % RING, n = r->len[i];
            pthread_mutex_unlock(&r->mu);
            st = ebb_validator_check(v, r->buf[i], n);
            if (st == EBB_OK && visit)
                st = visit(user, r->buf[i], n);
            int end = r->buf[i][n - 1].kind == EBB_ACT_END;
            pthread_mutex_lock(&r->mu);
            r->tail++;
            if (st != EBB_OK)
                r->stop = 1;
            pthread_cond_broadcast(&r->cv);
            pthread_mutex_unlock(&r->mu);
            if (st != EBB_OK || end)
                break;
        }
        pthread_join(th, NULL);
        pthread_cond_destroy(&r->cv);
        pthread_mutex_destroy(&r->mu);
    }
    for (int j = 0; j < k; j++)
        free(r->buf[j]);
    free(r);
    return st;
}

ebb_status ebb_schedule_validate(const ebb_schedule_options *o, ebb_schedule_stats *stats)
{
    return ebb_schedule_replay(o, stats, NULL, NULL);
}

ebb_status ebb_schedule_replay(const ebb_schedule_options *o, ebb_schedule_stats *stats,
                               ebb_action_visitor visit, void *user)
{
    ebb_schedule *s = NULL;
    ebb_status st = ebb_schedule_create(o, &s);
    if (st != EBB_OK)
        return st;
    st = ebb_schedule_replay_own(s, o->steps, stats, visit, user);
    ebb_schedule_destroy(s);
    return st;
}

ebb_status ebb_schedule_replay_own(ebb_schedule *s, int64_t steps, ebb_schedule_stats *stats,
                                   ebb_action_visitor visit, void *user)
{
    ebb_validator *v = NULL;
    ebb_action *buf = NULL;
    ebb_status st = EBB_OK;
    int online = s->options.strategy == EBB_STRATEGY_ONLINE;
    if (online && steps < 1) {
        st = ebb_fail(EBB_ERR_INVALID_ARG,
                      "validating an online schedule needs the steps at which to stop (>= 1)");
        goto out;
    }
    st = ebb_validator_create(online ? 0 : s->options.steps, s->tier_slots, &v);
    if (st != EBB_OK)
        goto out;
    if (!online && s->options.steps >= PIPELINE_MIN_STEPS) {
        int ran = 0;
        st = replay_pipelined(s, v, visit, user, &ran);
        if (ran) {
            if (st == EBB_OK)
                st = ebb_validator_finish(v);
            goto out;
        }
    }
    buf = malloc(VALIDATE_BATCH * sizeof *buf);
    if (!buf) {
        st = ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the validation buffer");
        goto out;
    }
    for (;;) {
        size_t n = 0;
        st = ebb_schedule_next_batch(s, buf, VALIDATE_BATCH, &n);
        if (st != EBB_OK)
            goto out;
        st = ebb_validator_check(v, buf, n);
        if (st == EBB_OK && visit)
            st = visit(user, buf, n);
        if (st != EBB_OK)
            goto out;
        const ebb_action *last = &buf[n - 1];
        if (last->kind == EBB_ACT_END)
            break;
        if (online && last->kind == EBB_ACT_ADVANCE && last->to == steps) {
            st = ebb_schedule_set_steps(s, steps);
            if (st != EBB_OK)
                goto out;
        }
    }
    st = ebb_validator_finish(v);
out:
    if (stats && v) {
        /* Partial counts on failure too: they say how far the stream got. */
        ebb_status keep = st;
        ebb_validator_stats(v, stats);
        st = keep;
    }
    free(buf);
    ebb_validator_destroy(v);
    return st;
}
