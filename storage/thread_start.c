/* See thread_start.h. */
#include "storage/thread_start.h"

typedef struct start_latch {
    void *(*fn)(void *);
    void *arg;
    const char *name;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int running;
} start_latch;

static void *trampoline(void *p)
{
    start_latch *l = p;
    void *(*fn)(void *) = l->fn;
    void *arg = l->arg;
    (void)pthread_setname_np(pthread_self(), l->name);
    pthread_mutex_lock(&l->mu);
    l->running = 1;
    pthread_cond_signal(&l->cv);
    pthread_mutex_unlock(&l->mu); /* the latch is the creator's again */
    return fn(arg);
}

int ebb_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg, const char *name)
{
    start_latch l = {.fn = fn, .arg = arg, .name = name, .running = 0};
    pthread_mutex_init(&l.mu, NULL);
    pthread_cond_init(&l.cv, NULL);
    int r = pthread_create(thread, NULL, trampoline, &l);
    if (r == 0) {
        pthread_mutex_lock(&l.mu);
        while (!l.running)
            pthread_cond_wait(&l.cv, &l.mu);
        pthread_mutex_unlock(&l.mu);
    }
    pthread_cond_destroy(&l.cv);
    pthread_mutex_destroy(&l.mu);
    return r;
}
