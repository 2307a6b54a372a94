/* The per-thread error message behind ebb_last_error(). */
#include "common/error_internal.h"
#include "ebb/ebb.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { EBB_ERROR_MESSAGE_MAX = 1024 };

static _Thread_local char last_message[EBB_ERROR_MESSAGE_MAX];

const char *ebb_last_error(void) { return last_message; }

void ebb_clear_error(void) { last_message[0] = '\0'; }

const char *ebb_version(void) { return EBB_VERSION_STRING; }

const char *ebb_status_name(ebb_status status)
{
    switch (status) {
    case EBB_OK: return "EBB_OK";
    case EBB_ERR_INVALID_ARG: return "EBB_ERR_INVALID_ARG";
    case EBB_ERR_NO_MEMORY: return "EBB_ERR_NO_MEMORY";
    case EBB_ERR_IO: return "EBB_ERR_IO";
    case EBB_ERR_NO_SPACE: return "EBB_ERR_NO_SPACE";
    case EBB_ERR_CONFIG: return "EBB_ERR_CONFIG";
    case EBB_ERR_UNSUPPORTED: return "EBB_ERR_UNSUPPORTED";
    case EBB_ERR_CALLBACK: return "EBB_ERR_CALLBACK";
    case EBB_ERR_CHECKSUM: return "EBB_ERR_CHECKSUM";
    case EBB_ERR_SCHEDULE: return "EBB_ERR_SCHEDULE";
    case EBB_ERR_STATE: return "EBB_ERR_STATE";
    case EBB_ERR_INTERNAL: return "EBB_ERR_INTERNAL";
    }
    return "EBB_ERR_UNKNOWN";
}

ebb_status ebb_fail(ebb_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_message, sizeof last_message, fmt, ap);
    va_end(ap);
    return status;
}

ebb_status ebb_fail_errno(ebb_status status, int errnum, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(last_message, sizeof last_message, fmt, ap);
    va_end(ap);
    if (len >= 0 && (size_t)len < sizeof last_message) {
        char buf[256];
        /* GNU strerror_r returns the message, possibly not in buf. */
        const char *text = strerror_r(errnum, buf, sizeof buf);
        size_t room = sizeof last_message - (size_t)len;
        if (snprintf(last_message + len, room, ": %s", text) >= (int)room)
            last_message[sizeof last_message - 1] = '\0';
    }
    return status;
}

ebb_status ebb_fail_context(ebb_status status, const char *fmt, ...)
{
    char old[EBB_ERROR_MESSAGE_MAX];
    memcpy(old, last_message, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(last_message, sizeof last_message, fmt, ap);
    va_end(ap);
    if (len >= 0 && (size_t)len < sizeof last_message && old[0] != '\0') {
        /* Keep as much of the old message as fits; truncation is fine here. */
        size_t room = sizeof last_message - (size_t)len;
        if (room > 2) {
            memcpy(last_message + len, ": ", 2);
            size_t keep = strnlen(old, room - 3);
            memcpy(last_message + len + 2, old, keep);
            last_message[(size_t)len + 2 + keep] = '\0';
        }
    }
    return status;
}
