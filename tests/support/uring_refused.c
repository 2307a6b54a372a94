/* uring_refused (uring_refused.h), built once into ebb_test_support. */
#include "support/uring_refused.h"

#include <stddef.h>
#include <string.h>

int uring_refused(const char *message)
{
    static const char *const says[] = {
        "io_uring cannot be used here", /* storage/disk_create.c */
        "io_uring_queue_init: ",        /* benchmarks/uring_loop.c */
    };
    for (size_t i = 0; message && i < sizeof says / sizeof says[0]; i++)
        if (strstr(message, says[i]))
            return 1;
    return 0;
}
