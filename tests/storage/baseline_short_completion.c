/* The plain io_uring loop of `ebb bench --baseline` (benchmarks/loops/uring_loop.c)
 * finishes a request that completes short and counts all of its bytes, not
 * only its last piece: with short completions it still ends, and reports
 * the retries.
 *
 * The loop is compiled into this test with its io_uring_prep_* calls
 * wrapped so that some requests ask the kernel for only half their bytes:
 * the kernel then really completes them short (res < the request's
 * length), which is what the loop must handle. */
#include <liburing.h>

#include "storage/helpers.h"

typedef struct cutter {
    unsigned calls; /* prep calls so far */
    unsigned cut;   /* requests cut in half */
} cutter;
static cutter cut_state;

/* Every third request for the first 30, cut to half (4 KiB aligned). */
static unsigned cut_len(unsigned n)
{
    cut_state.calls++;
    if (cut_state.calls <= 30 && cut_state.calls % 3 == 1 && n >= 8192) {
        cut_state.cut++;
        return n / 2 / 4096 * 4096;
    }
    return n;
}

static inline void cut_prep_write(struct io_uring_sqe *sqe, int fd, const void *buf,
                                  unsigned n, __u64 off)
{
    io_uring_prep_write(sqe, fd, buf, cut_len(n), off);
}
static inline void cut_prep_read(struct io_uring_sqe *sqe, int fd, void *buf, unsigned n,
                                 __u64 off)
{
    io_uring_prep_read(sqe, fd, buf, cut_len(n), off);
}
static inline void cut_prep_write_fixed(struct io_uring_sqe *sqe, int fd, const void *buf,
                                        unsigned n, __u64 off, int index)
{
    io_uring_prep_write_fixed(sqe, fd, buf, cut_len(n), off, index);
}
static inline void cut_prep_read_fixed(struct io_uring_sqe *sqe, int fd, void *buf, unsigned n,
                                       __u64 off, int index)
{
    io_uring_prep_read_fixed(sqe, fd, buf, cut_len(n), off, index);
}
#define io_uring_prep_write cut_prep_write
#define io_uring_prep_read cut_prep_read
#define io_uring_prep_write_fixed cut_prep_write_fixed
#define io_uring_prep_read_fixed cut_prep_read_fixed

#include "benchmarks/loops/uring_loop.c"

static void run(int registered)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    memset(&cut_state, 0, sizeof cut_state);
    bl_uring_options o;
    bl_uring_options_init(&o);
    o.dir = dir;
    o.bytes = 8 * MiB;
    o.block = 1 * MiB;
    o.depth = 4;
    o.register_buffers = registered;
    bl_uring_result r;
    int rc = bl_uring_run(&o, &r);
    if (rc != 0 && uring_refused(r.error)) {
        rm_tmpdir(dir);
        cr_skip_test("io_uring is refused here: %s", r.error);
    }
    cr_assert_eq(rc, 0, "the loop failed: %s", r.error);
    cr_assert_gt(cut_state.cut, 0, "no request was cut short");
    cr_assert_geq(r.retries, cut_state.cut, "%u requests completed short, %llu retried",
                  cut_state.cut, (unsigned long long)r.retries);
    cr_assert_eq(r.bytes, 8 * (uint64_t)MiB);
    cr_assert_gt(r.write_s, 0);
    cr_assert_gt(r.read_s, 0);
    rm_tmpdir(dir);
}

/* A loop that lost count would wait for a completion that never comes:
 * the timeout turns that hang into a failure. */
Test(baseline_short_completion, unregistered_buffers_finish, .timeout = 60)
{
    run(0);
}

Test(baseline_short_completion, registered_buffers_finish, .timeout = 60)
{
    run(1);
}
