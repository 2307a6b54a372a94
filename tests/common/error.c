/* The error model: messages are recorded per thread and carry errno text. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "common/error_internal.h"
#include "ebb/ebb.h"

Test(error, message_is_recorded_and_cleared)
{
    ebb_clear_error();
    cr_assert_str_empty(ebb_last_error());
    ebb_status s = ebb_fail(EBB_ERR_CONFIG, "key '%s' is wrong", "tier.host.budget");
    cr_assert_eq(s, EBB_ERR_CONFIG);
    cr_assert_str_eq(ebb_last_error(), "key 'tier.host.budget' is wrong");
    ebb_clear_error();
    cr_assert_str_empty(ebb_last_error());
}

Test(error, errno_text_is_appended)
{
    ebb_fail_errno(EBB_ERR_IO, ENOENT, "cannot open '%s'", "/nonexistent");
    cr_assert_str_eq(ebb_last_error(), "cannot open '/nonexistent': No such file or directory");
}

Test(error, context_prefixes_the_message)
{
    ebb_fail(EBB_ERR_IO, "short read");
    ebb_fail_context(EBB_ERR_IO, "restoring step %d", 7);
    cr_assert_str_eq(ebb_last_error(), "restoring step 7: short read");
}

static void *fail_in_thread(void *arg)
{
    (void)arg;
    ebb_fail(EBB_ERR_IO, "other thread");
    return NULL;
}

Test(error, messages_are_per_thread)
{
    ebb_fail(EBB_ERR_CONFIG, "mine");
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, fail_in_thread, NULL), 0);
    pthread_join(t, NULL);
    cr_assert_str_eq(ebb_last_error(), "mine");
}

Test(error, every_status_has_a_name)
{
    for (int s = EBB_OK; s <= EBB_ERR_INTERNAL; s++)
        cr_assert(strncmp(ebb_status_name((ebb_status)s), "EBB_", 4) == 0, "status %d", s);
    cr_assert_str_eq(ebb_status_name((ebb_status)999), "EBB_ERR_UNKNOWN");
    cr_assert_str_eq(ebb_version(), EBB_VERSION_STRING);
}
