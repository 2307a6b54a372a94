/* No tier allocates per operation: after the pools are created, hundreds of
 * moves, puts, gets, tests and waits (on the calling thread and on ebb's I/O
 * threads) call malloc and friends zero times. Counted by interposing the
 * allocator (ASan builds: the sanitizer's allocation hooks). Criterion's own
 * threads (its event reporting through nanomsg) are not counted: they
 * allocate when they please. ebb's threads are told by their names
 * ("ebb-uring", "ebb-io"). */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/prctl.h>

#include "storage/codec_trace.h"
#include "storage/helpers.h"

static _Atomic int counting;
static _Atomic long allocations;
static pthread_t test_thread;

/* The calling thread is the test's or one of ebb's. PR_GET_NAME reads the
 * caller's own name without allocating. */
static int ours(void)
{
    if (pthread_equal(pthread_self(), test_thread))
        return 1;
    char name[16] = "";
    if (prctl(PR_GET_NAME, name, 0, 0, 0) != 0)
        return 1;
    return strncmp(name, "ebb-", 4) == 0;
}

#if defined(__SANITIZE_ADDRESS__)
/* From <sanitizer/allocator_interface.h>, which not every compiler ships. */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));
static void on_malloc(const volatile void *ptr, size_t size)
{
    (void)ptr;
    (void)size;
    if (atomic_load(&counting) && ours())
        atomic_fetch_add(&allocations, 1);
}
static void on_free(const volatile void *ptr)
{
    (void)ptr;
}
static void install(void)
{
    __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
}
#else
/* glibc: the executable's definitions interpose on every library's calls. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static void count(void)
{
    if (atomic_load_explicit(&counting, memory_order_relaxed) && ours())
        atomic_fetch_add(&allocations, 1);
}
void *malloc(size_t n);
void *calloc(size_t a, size_t b);
void *realloc(void *p, size_t n);
void free(void *p);
int posix_memalign(void **out, size_t align, size_t n);
void *aligned_alloc(size_t align, size_t n);

void *malloc(size_t n)
{
    count();
    return __libc_malloc(n);
}
void *calloc(size_t a, size_t b)
{
    count();
    return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n)
{
    count();
    return __libc_realloc(p, n);
}
void free(void *p)
{
    __libc_free(p);
}
int posix_memalign(void **out, size_t align, size_t n)
{
    count();
    void *p = __libc_memalign(align, n);
    if (!p)
        return 12; /* ENOMEM */
    *out = p;
    return 0;
}
void *aligned_alloc(size_t align, size_t n)
{
    count();
    return __libc_memalign(align, n);
}
static void install(void) {}
#endif

static void steady_state(ebb_disk_backend backend, int checksum)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir, dir};
    test_thread = pthread_self();
    install();
    const size_t size = 256 * KiB + 100;
    ebb_pool *h = host_pool(size, 8);
    ebb_pool_options o;
    disk_options(&o, dirs, 2, size, 8, backend);
    o.block = 64 * KiB;
    o.queue_depth = 8;
    o.checksum = checksum;
    o.staging = h;
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create(&o, &d), EBB_OK, "%s", ebb_last_error());
    unsigned char *user = malloc(size);
    fill_random(user, size, 9);
    ebb_ticket t[8];
    /* Warm-up round (first use of each path). */
    for (int32_t s = 0; s < 8; s++)
        cr_assert_eq(ebb_move(d, s, h, s, &t[s]), EBB_OK);
    cr_assert_eq(ebb_ticket_wait_all(t, 8), EBB_OK);

    atomic_store(&allocations, 0);
    atomic_store(&counting, 1);
    ebb_status bad = EBB_OK;
    for (int round = 0; round < 25 && bad == EBB_OK; round++) {
        for (int32_t s = 0; s < 8 && bad == EBB_OK; s++)
            bad = ebb_pool_put(h, s, user, &t[s]);
        for (int32_t s = 0; s < 8 && bad == EBB_OK; s++)
            bad = ebb_move(d, s, h, s, &t[s]);
        int done = 0;
        if (bad == EBB_OK)
            bad = ebb_ticket_test(&t[0], &done);
        if (bad == EBB_OK)
            bad = ebb_ticket_wait_all(t, 8);
        for (int32_t s = 0; s < 8 && bad == EBB_OK; s++)
            bad = ebb_move(h, 7 - s, d, s, &t[s]);
        if (bad == EBB_OK)
            bad = ebb_ticket_wait_all(t, 8);
        if (bad == EBB_OK)
            bad = ebb_pool_get(h, 3, user, &t[0]);
        ebb_pool_stats st;
        ebb_pool_stats_get(d, &st);
    }
    atomic_store(&counting, 0);
    long n = atomic_load(&allocations);
    cr_assert_eq(bad, EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(n, 0, "%ld allocations during 400 operations (backend %s)", n,
                 ebb_disk_backend_name(backend));
    free(user);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(no_per_op_alloc, io_uring)
{
    steady_state(EBB_DISK_BACKEND_AUTO, 0);
}

Test(no_per_op_alloc, io_uring_checksums)
{
    steady_state(EBB_DISK_BACKEND_AUTO, 1);
}

Test(no_per_op_alloc, threads)
{
    steady_state(EBB_DISK_BACKEND_THREADS, 1);
}

/* A timeline's codec spans: recording one (what a codec thread does after
 * each run of the codec; the codec libraries' own allocations aside) and
 * taking them allocate nothing once recording started, full rings and
 * drops included. */
Test(no_per_op_alloc, codec_spans_recorded_and_taken)
{
    test_thread = pthread_self();
    install();
    ebb_codec_options co;
    ebb_codec_options_init(&co);
    co.mode = EBB_COMPRESSION_FIXED_RATE;
    co.element = EBB_ELEMENT_FLOAT64;
    co.rate = 16;
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_HOST);
    o.slot_size = 4096;
    o.slots = 4;
    o.compression = &co;
    o.codec_threads = 2;
    ebb_pool *h = NULL;
    cr_assert_eq(ebb_pool_create(&o, &h), EBB_OK, "%s", ebb_last_error());
    int32_t threads = 0;
    cr_assert_eq(ebb_pool_codec_trace_start(h, 4, &threads), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(threads, 2);
    ebb_codec_span taken[4];
    int32_t n = 0;
    uint64_t dropped = 0, spans = 0, lost = 0;
    atomic_store(&allocations, 0);
    atomic_store(&counting, 1);
    for (uint32_t k = 0; k < 1000; k++) {
        ebb_codec_span sp = {k, k + 1, 4096, 1024, (int32_t)(k % 4), k, 1, 0, 0};
        ebb_codec_trace_record(h, (int32_t)(k % 2), &sp);
        if (k % 13 == 0) {
            for (int32_t i = 0; i < 2; i++) {
                (void)ebb_pool_codec_spans(h, i, taken, 4, &n, &dropped);
                spans += (uint64_t)n;
                lost += dropped;
            }
        }
    }
    atomic_store(&counting, 0);
    cr_assert_eq(atomic_load(&allocations), 0, "%ld allocations recording 1000 codec spans",
                 atomic_load(&allocations));
    for (int32_t i = 0; i < 2; i++) {
        cr_assert_eq(ebb_pool_codec_spans(h, i, taken, 4, &n, &dropped), EBB_OK);
        spans += (uint64_t)n;
        lost += dropped;
    }
    cr_assert_eq(spans + lost, 1000);
    cr_assert_gt(lost, 0, "the rings of 4 filled between takes");
    ebb_pool_destroy(h);
}

/* The counter works: an allocation while counting is seen. */
Test(no_per_op_alloc, the_counter_counts)
{
    test_thread = pthread_self();
    install();
    atomic_store(&allocations, 0);
    atomic_store(&counting, 1);
    void *volatile p = malloc(1000);
    atomic_store(&counting, 0);
    free(p);
    cr_assert_geq(atomic_load(&allocations), 1);
}

static void *alloc_on_named_thread(void *name)
{
    (void)prctl(PR_SET_NAME, name, 0, 0, 0);
    void *volatile p = malloc(1000);
    free(p);
    return NULL;
}

static long allocations_on_thread(const char *name)
{
    pthread_t th;
    atomic_store(&allocations, 0);
    atomic_store(&counting, 1);
    cr_assert_eq(pthread_create(&th, NULL, alloc_on_named_thread, (void *)name), 0);
    cr_assert_eq(pthread_join(th, NULL), 0);
    atomic_store(&counting, 0);
    return atomic_load(&allocations);
}

/* A thread named like ebb's I/O threads is counted; another one is not. */
Test(no_per_op_alloc, counts_ebb_threads_only)
{
    test_thread = pthread_self();
    install();
    cr_assert_geq(allocations_on_thread("ebb-io"), 1);
    /* pthread_create itself may allocate on the test thread: count a thread
     * that is neither the test's nor ebb's against that baseline. */
    long base = allocations_on_thread("ebb-io") - 1;
    cr_assert_leq(allocations_on_thread("criterion-like"), base,
                  "a foreign thread's allocation was counted");
}
