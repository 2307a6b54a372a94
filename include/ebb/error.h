/*
 * ebb — error model.
 *
 * Every public function returns an ebb_status (EBB_OK on success) unless its
 * comment says why not. On failure the library records a message on the
 * calling thread that says what was wrong and what to do (file, key, path,
 * errno text); ebb_last_error() returns it. The message is per thread, like
 * errno, so threads never see each other's errors and no lock is taken.
 */
#ifndef EBB_ERROR_H
#define EBB_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(EBB_BUILDING_LIBRARY)
#define EBB_API __attribute__((visibility("default")))
#else
#define EBB_API
#endif

typedef enum ebb_status {
    EBB_OK = 0,
    EBB_ERR_INVALID_ARG = 1,  /* an argument is out of range or inconsistent */
    EBB_ERR_NO_MEMORY = 2,    /* an allocation failed, or a budget is too small */
    EBB_ERR_IO = 3,           /* a read, write or open failed (errno text in the message) */
    EBB_ERR_NO_SPACE = 4,     /* a file system lacks the space for a budget */
    EBB_ERR_CONFIG = 5,       /* a configuration file or value is wrong */
    EBB_ERR_UNSUPPORTED = 6,  /* a feature is not available here (no GPU, no io_uring) */
    EBB_ERR_CALLBACK = 7,     /* a user callback reported failure */
    EBB_ERR_CHECKSUM = 8,     /* stored data did not match its checksum */
    EBB_ERR_SCHEDULE = 9,     /* an action stream broke a rule (validator) */
    EBB_ERR_STATE = 10,       /* a call came at the wrong time (e.g. after END) */
    EBB_ERR_INTERNAL = 11     /* a bug in ebb: please report it with the message */
} ebb_status;

/* The message of the last failure on this thread, or "" if none. Never NULL.
 * Valid until the next failing ebb call on this thread. */
EBB_API const char *ebb_last_error(void);

/* A short constant name for a status ("EBB_ERR_IO"). Never NULL. */
EBB_API const char *ebb_status_name(ebb_status status);

/* Forget the last message on this thread. Returns nothing: it cannot fail. */
EBB_API void ebb_clear_error(void);

#ifdef __cplusplus
}
#endif

#endif
