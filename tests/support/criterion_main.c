/* main() of every Criterion test program: Criterion's own, except that a
 * program none of whose tests ran because each skipped itself
 * (cr_skip_test: io_uring refused, no GPU, not root, ...) exits
 * EBB_TEST_SKIP_CODE, the tests' SKIP_RETURN_CODE, so that ctest says
 * Skipped instead of Passed. One where some tests ran passes or fails on
 * those; Criterion prints skips only with --verbose, so their reasons are
 * printed here in either case. */
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <criterion/options.h>
#include <stdbool.h>
#include <stdio.h>

#ifndef EBB_TEST_SKIP_CODE
#error "EBB_TEST_SKIP_CODE must be ctest's SKIP_RETURN_CODE (tests/CMakeLists.txt)"
#endif

static bool none_ran;

/* Criterion counts filtered-out and disabled tests as skipped too; only a
 * test that skipped itself has a message (its reason). */
ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    bool verbose = criterion_options.logging_threshold <= CRITERION_INFO; /* its own [SKIP] */
    size_t own = 0;
    for (struct criterion_suite_stats *s = stats->suites; s; s = s->next)
        for (struct criterion_test_stats *t = s->tests; t; t = t->next)
            if (t->test_status == CR_STATUS_SKIPPED && t->message) {
                if (!verbose)
                    fprintf(stderr, "[SKIP] %s::%s: %s\n", t->test->category, t->test->name,
                            t->message);
                own++;
            }
    none_ran = own > 0 && stats->tests_skipped == stats->nb_tests;
    if (none_ran)
        fprintf(stderr, "[====] Skipped: every test skipped itself (exit %d)\n",
                EBB_TEST_SKIP_CODE);
    else if (own)
        fprintf(stderr, "[====] Skipped: %zu of %zu tests; the others ran\n", own,
                stats->nb_tests);
}

/* Visible: Criterion's workers re-run the program and find main() by its
 * dynamic symbol to divert it (the build hides symbols by default). */
__attribute__((visibility("default"))) int main(int argc, char *argv[])
{
    struct criterion_test_set *tests = criterion_initialize();
    int result = 0;
    if (criterion_handle_args(argc, argv, true))
        result = !criterion_run_all_tests(tests);
    criterion_finalize(tests);
    return result == 0 && none_ran ? EBB_TEST_SKIP_CODE : result;
}
