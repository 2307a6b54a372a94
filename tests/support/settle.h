#ifndef EBB_TESTS_SUPPORT_SETTLE_H
#define EBB_TESTS_SUPPORT_SETTLE_H
/* For tests that count this process's descriptors or threads before and
 * after a run: the CUDA runtime opens descriptors (/dev/nvidia*) and starts
 * threads the first time a process touches a device, and keeps them until
 * the process exits. They are the runtime's, not ebb's leak, so such a test
 * takes its baseline after test_settle_process(): one tiny run on the
 * default configuration (whose GPU tier probes the device where there is
 * one). Without a GPU it changes nothing. */
#ifdef __cplusplus
extern "C" {
#endif

void test_settle_process(void);

#ifdef __cplusplus
}
#endif
#endif
