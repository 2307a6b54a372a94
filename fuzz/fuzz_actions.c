/* Fuzz target: the action-stream reader and the replay validator behind
 * `ebb validate` (tools/validate.c's replay_stream: lines cut with their
 * bound, ebb_action_parse, ebb_validator_check/finish), and the escaping of
 * its messages. The first 4 bytes choose the steps and the host, disk and
 * gpu slots (small); the rest is the stream. A stream found valid must have
 * reversed every step and ended with END; a message shown must hold no
 * control byte. */
#include "tools/validate.c"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* validate's messages (a read error) go nowhere; the sanitizers and
     * libFuzzer write to the descriptor, not through this stream */
    FILE *null = fopen("/dev/null", "w");
    if (null)
        stderr = null;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    int64_t steps = data[0] % 65; /* 0: unknown, learnt at TURN */
    int32_t slots[EBB_TIER_COUNT] = {0};
    slots[EBB_TIER_HOST] = data[1] % 9;
    slots[EBB_TIER_DISK] = data[2] % 9;
    slots[EBB_TIER_GPU] = data[3] % 5;
    data += 4;
    size -= 4;
    /* fmemopen refuses an empty buffer: read an empty stream from /dev/null */
    FILE *in = size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "r");
    if (!in)
        abort();
    replay *r = calloc(1, sizeof *r);
    if (!r)
        abort();
    if (ebb_validator_create(steps, slots, &r->v) != EBB_OK) {
        /* refused counts are the only reason (no host slot at all, ...) */
        fclose(in);
        free(r);
        return 0;
    }
    int rc = replay_stream(in, "fuzz", r);
    fclose(in);
    if (rc != 0)
        abort(); /* a memory stream cannot fail to read */
    ebb_schedule_stats st;
    ebb_validator_stats(r->v, &st);
    if (r->bad_line == 0 && (!st.complete || st.reverse_steps != st.steps || st.steps < 1)) {
        fprintf(stdout, "a stream found valid: complete %d, %lld of %lld steps reversed\n",
                st.complete, (long long)st.reverse_steps, (long long)st.steps);
        abort();
    }
    if (r->bad_line) {
        char shown[4 * sizeof r->error];
        escape_bytes(r->error, shown, sizeof shown);
        for (const unsigned char *c = (const unsigned char *)shown; *c; c++)
            if (*c < 0x20 || *c >= 0x7f)
                abort();
    }
    ebb_validator_destroy(r->v);
    free(r);
    return 0;
}
