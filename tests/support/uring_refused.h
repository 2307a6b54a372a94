/* Whether a failure says that the kernel refuses io_uring here (seccomp,
 * kernel.io_uring_disabled, a kernel without it): the tests that need
 * io_uring skip then instead of failing. One definition for the library's
 * message (a disk pool that asked for the io_uring backend) and the plain
 * io_uring loop's (ebb bench --baseline, benchmarks/uring_loop.c). */
#ifndef EBB_TESTS_SUPPORT_URING_REFUSED_H
#define EBB_TESTS_SUPPORT_URING_REFUSED_H

int uring_refused(const char *message);

#endif
