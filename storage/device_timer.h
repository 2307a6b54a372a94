/* A GPU state's steps timed on the device (the runtime's measured step
 * times, through its io seam), on the caller's thread with `device`
 * current for each call: create: `n` events that keep their time (waits
 * sleep); destroy: NULL entries skipped (an event whose work still runs is
 * released when it completes); record: one recorded on `stream`; elapsed:
 * the seconds from `start` to `end` once both ran, waiting (sleeping) for
 * `end`. 0, or -1 with why (none left by a failed create). Stubs that fail
 * without CUDA at build time (storage/cuda.c). */
#ifndef EBB_STORAGE_DEVICE_TIMER_H
#define EBB_STORAGE_DEVICE_TIMER_H

#include <stddef.h>
#include <stdint.h>

int ebb_cuda_timing_events_create(int device, void **events, int32_t n, char *why,
                                  size_t why_len);
void ebb_cuda_timing_events_destroy(int device, void **events, int32_t n);
int ebb_cuda_timing_record(int device, void *event, void *stream, char *why, size_t why_len);
int ebb_cuda_elapsed(void *start, void *end, double *seconds, char *why, size_t why_len);

#endif
