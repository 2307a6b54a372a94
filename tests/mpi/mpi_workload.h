/* Shared by the MPI test programs (a header: the *.c files are programs run
 * by mpirun through run_mpirun.sh, not Criterion tests). A deterministic
 * workload: the forward step mixes every word of x_i into x_{i+1}; the
 * reverse step folds x_i into an adjoint hash, so the adjoint depends on
 * every state it was given and on their order. */
#ifndef EBB_TESTS_MPI_WORKLOAD_H
#define EBB_TESTS_MPI_WORKLOAD_H

#include <dirent.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "ebb/ebb.h"
#include "ebb/mpi.h"

typedef struct mw {
    size_t size;
    int64_t n;            /* the steps */
    int unknown;          /* 1: the first sweep's step n-1 returns EBB_STEP_LAST */
    int first_sweep;
    uint64_t adjoint;
    int64_t fail_forward, fail_reverse; /* -1: none */
    double spin_s;        /* busy time per forward step (so transfers overlap compute) */
    int uneven;           /* 1: one step in five spins ten times as long, which steps
                             depending on the rank (each rank measures its own costs) */
    int halo;             /* 1: each forward step exchanges a word with its ring neighbours
                             (MPI_Sendrecv on MPI_COMM_WORLD), as a domain-decomposed
                             solver's halo does: the ranks run in step */
} mw;

static inline void mw_init(mw *w, size_t size, int64_t n)
{
    memset(w, 0, sizeof *w);
    w->size = size;
    w->n = n;
    w->adjoint = 0x5eed;
    w->fail_forward = w->fail_reverse = -1;
}

static inline double mw_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline int mw_forward(void *user, int64_t k, const void *in, void *out)
{
    mw *w = user;
    if (k == w->fail_forward)
        return ebb_callback_fail("synthetic failure in forward step %lld", (long long)k);
    const unsigned char *a = in;
    unsigned char *b = out;
    uint64_t carry = (uint64_t)k * 0x9e3779b97f4a7c15ull;
    for (size_t j = 0; j < w->size; j++) {
        carry = (carry ^ a[j]) * 0xff51afd7ed558ccdull;
        carry ^= carry >> 29;
        b[j] = (unsigned char)(carry >> 17);
    }
    double spin = w->spin_s;
    if (w->uneven) {
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        spin *= (k + rank) % 5 == 0 ? 10 : 1;
    }
    for (double t0 = mw_now(); mw_now() - t0 < spin;)
        ;
    if (w->halo) {
        int rank, ranks;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &ranks);
        int64_t mine = k, theirs = -1;
        MPI_Sendrecv(&mine, 1, MPI_INT64_T, (rank + 1) % ranks, 7, &theirs, 1, MPI_INT64_T,
                     (rank + ranks - 1) % ranks, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (theirs != k)
            return ebb_callback_fail("halo of step %lld from step %lld", (long long)k,
                                     (long long)theirs);
    }
    if (w->unknown && w->first_sweep && k == w->n - 1)
        return EBB_STEP_LAST;
    return EBB_STEP_OK;
}

static inline int mw_reverse(void *user, int64_t k, void *state)
{
    mw *w = user;
    if (k == w->fail_reverse)
        return ebb_callback_fail("synthetic failure in reverse step %lld", (long long)k);
    w->adjoint = XXH3_64bits_withSeed(state, w->size, w->adjoint ^ (uint64_t)k);
    return EBB_STEP_OK;
}

static inline void mw_x0(unsigned char *x, size_t size, uint64_t seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < size; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        x[i] = (unsigned char)(s >> 24);
    }
}

/* Both sweeps; the adjoint in w. */
static inline ebb_status mw_sweeps(ebb_run *run, mw *w, uint64_t seed)
{
    unsigned char *x0 = malloc(w->size);
    if (!x0)
        return EBB_ERR_NO_MEMORY;
    mw_x0(x0, w->size, seed);
    void *xn = NULL;
    w->first_sweep = 1;
    ebb_status st = ebb_run_forward(run, x0, &xn);
    w->first_sweep = 0;
    free(x0);
    if (st == EBB_OK) {
        w->adjoint = XXH3_64bits_withSeed(xn, w->size, 0x1055);
        st = ebb_run_reverse(run);
    }
    return st;
}

/* This rank's own disk directory under base (created). */
static inline void mw_dir(char *out, size_t len, const char *base, int rank)
{
    snprintf(out, len, "%s/rank%d", base, rank);
    mkdir(base, 0700);
    mkdir(out, 0700);
}

/* Entries in dir other than . and .. (-1 if it cannot be read). */
static inline int mw_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int k = 0;
    for (struct dirent *e; (e = readdir(d));)
        k += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return k;
}

/* A failed check: says so and counts it. */
static int mw_failures;
static int mw_rank;
__attribute__((format(printf, 1, 2))) static inline void mw_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "rank %d: FAIL: ", mw_rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    mw_failures++;
}

/* MPI_Init, this rank, the rank count; `dir` = this rank's scratch
 * directory under argv[1]. */
static inline int mw_start(int *argc, char ***argv, char *dir, size_t len)
{
    MPI_Init(argc, argv);
    int ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &mw_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (*argc != 2) {
        fprintf(stderr, "usage: %s SCRATCH_DIR\n", (*argv)[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    mw_dir(dir, len, (*argv)[1], mw_rank);
    return ranks;
}

/* A failed run as every rank must see it: status `expect`, the message
 * starting "rank <bad> failed: " (when names_rank) and saying `says`.
 * Returns the message (static). */
static inline const char *mw_check_failure(const char *name, ebb_status st, ebb_status expect,
                                           int bad, int names_rank, const char *says)
{
    static char msg[2048];
    snprintf(msg, sizeof msg, "%s", ebb_last_error());
    char prefix[64];
    snprintf(prefix, sizeof prefix, "rank %d failed: ", bad);
    if (st != expect)
        mw_fail("%s: status %s, expected %s (%s)", name, ebb_status_name(st),
                ebb_status_name(expect), msg);
    else if (names_rank && strncmp(msg, prefix, strlen(prefix)) != 0)
        mw_fail("%s: the error does not start with '%s': %s", name, prefix, msg);
    else if (!strstr(msg, says))
        mw_fail("%s: the error does not say '%s': %s", name, says, msg);
    return msg;
}

/* The end of a case on every rank: the run destroyed, no file left in this
 * rank's directory, the configuration disposed. */
static inline void mw_end_case(ebb_run *run, ebb_config *cfg, const char *name, const char *dir)
{
    ebb_run_destroy(run);
    if (mw_files(dir) != 0)
        mw_fail("%s: %d files left in %s after destroy", name, mw_files(dir), dir);
    ebb_config_dispose(cfg);
    fflush(stdout);
}

/* Every rank's failure count summed: the exit status of the program. */
static inline int mw_finish(void)
{
    int total = 0;
    MPI_Allreduce(&mw_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (mw_rank == 0)
        printf("%s: %d failed checks over the ranks\n", total ? "FAIL" : "ok", total);
    MPI_Finalize();
    return total ? 1 : 0;
}

#endif
