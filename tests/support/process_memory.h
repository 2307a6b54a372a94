/* What the tests that bound a process's memory share: its peak resident
 * memory and its page faults so far (getrusage), and whether the build runs
 * under AddressSanitizer, whose shadow of every allocation (an eighth of
 * it) is written when the allocation is made, so that a peak says nothing
 * there of what the code touches. */
#ifndef EBB_TESTS_SUPPORT_PROCESS_MEMORY_H
#define EBB_TESTS_SUPPORT_PROCESS_MEMORY_H

#include <criterion/criterion.h>
#include <sys/resource.h>

#if defined(__SANITIZE_ADDRESS__)
#define EBB_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EBB_TEST_ASAN 1
#endif
#endif
#ifndef EBB_TEST_ASAN
#define EBB_TEST_ASAN 0
#endif

/* The most resident memory this process has had, in KiB. */
static inline long ebb_test_peak_kib(void)
{
    struct rusage u;
    cr_assert_eq(getrusage(RUSAGE_SELF, &u), 0);
    return u.ru_maxrss;
}

/* The page faults this process has taken that needed no I/O. */
static inline long ebb_test_minor_faults(void)
{
    struct rusage u;
    cr_assert_eq(getrusage(RUSAGE_SELF, &u), 0);
    return u.ru_minflt;
}

#endif
