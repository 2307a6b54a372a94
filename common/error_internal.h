/* Internal helpers that record an error message and return its status. */
#ifndef EBB_COMMON_ERROR_INTERNAL_H
#define EBB_COMMON_ERROR_INTERNAL_H

#include "ebb/error.h"

/* Records a printf-style message on this thread and returns status. */
ebb_status ebb_fail(ebb_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* As ebb_fail, and appends ": <strerror(errnum)>". */
ebb_status ebb_fail_errno(ebb_status status, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prefixes the current message with more context ("while X: <old>"). */
ebb_status ebb_fail_context(ebb_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
