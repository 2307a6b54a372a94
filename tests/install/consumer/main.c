/* A consumer of an installed ebb: plans a Revolve schedule and checks it. */
#include <ebb/ebb.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    if (strcmp(ebb_version(), EBB_VERSION_STRING) != 0) {
        fprintf(stderr, "header %s, library %s\n", EBB_VERSION_STRING, ebb_version());
        return 1;
    }
    ebb_schedule_options o;
    ebb_schedule_options_init(&o);
    o.steps = 100;
    o.slots = 5;
    ebb_schedule_stats st;
    if (ebb_schedule_validate(&o, &st) != EBB_OK) {
        fprintf(stderr, "validate: %s\n", ebb_last_error());
        return 1;
    }
    int64_t expect = 0;
    if (ebb_revolve_forward_count(100, 5, &expect) != EBB_OK || st.forward_steps != expect) {
        fprintf(stderr, "forward steps %lld, expected %lld\n", (long long)st.forward_steps,
                (long long)expect);
        return 1;
    }
    printf("consumer ok: ebb %s, %lld forward steps\n", ebb_version(), (long long)st.forward_steps);
    return 0;
}
