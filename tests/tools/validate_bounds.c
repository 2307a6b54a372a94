/* `ebb validate` under hostile input, within 1 GiB of address space: slot
 * counts up to 2^31 - 1 cost memory only as the stream uses slots (they
 * allocated 16 GiB up front); /dev/zero is one endless line, refused at
 * 64 KiB naming the line (it was read until memory ran out and reported as
 * "end of input"); a NUL byte is refused; input bytes in a message are
 * escaped. */
#include <stdint.h>
#include <sys/resource.h>

#include "support/cli_run.h"
#include "support/process_memory.h"

static cli_result r;

/* The sanitizer build cannot run under an address-space limit (ASan
 * reserves terabytes of shadow address space at start): there the bound is
 * the release build's to check, and the behaviour is still tested. */
static void limit_memory(void)
{
    if (EBB_TEST_ASAN)
        return;
    struct rlimit lim = {UINT64_C(1) << 30, UINT64_C(1) << 30};
    cr_assert_eq(setrlimit(RLIMIT_AS, &lim), 0);
}

/* `ebb validate ARGS` (space-separated) with `stream` on standard input. */
static void validate(const char *args, const char *stream, size_t len)
{
    char in[] = "/tmp/ebb-validate-bounds-XXXXXX";
    int fd = mkstemp(in);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, stream, len), (ssize_t)len);
    close(fd);
    char line[512];
    snprintf(line, sizeof line, "%s", args);
    const char *argv[16] = {"validate"};
    int n = 1;
    for (char *tok = strtok(line, " "); tok && n < 15; tok = strtok(NULL, " "))
        argv[n++] = tok;
    argv[n] = NULL;
    r = cli_runv_stdin(EBB_CLI_PATH, argv, in);
    unlink(in);
}

static const char stream3[] = "store 0 host[0]\nadvance 0 -> 1\nstore 1 host[1]\n"
                              "advance 1 -> 3\nturn 3\nreverse 2\nrestore 1 host[1]\n"
                              "reverse 1\nfree 1 host[1]\nrestore 0 host[0]\nreverse 0\n"
                              "free 0 host[0]\nend\n";

Test(validate_bounds, huge_slot_counts, .init = limit_memory)
{
    static const char *const opts[] = {
        "--steps 3 --slots 2147483647",
        "--steps 3 --slots 2 --disk-slots 2147483647",
        "--steps 3 --slots 2 --gpu-slots 2147483647",
        "--steps 3 --slots 2147483647 --disk-slots 2147483647 --gpu-slots 2147483647"};
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
        validate(opts[i], stream3, strlen(stream3));
        cr_expect_eq(r.status, 0, "%s: %d %s", opts[i], r.status, r.err);
        cr_expect(strncmp(r.out, "valid: 13 actions", 17) == 0, "%s: %s", opts[i], r.out);
        cli_free(&r);
    }
}

/* Slot numbers far apart, high and low, in one tier and across tiers. */
Test(validate_bounds, sparse_high_slots, .init = limit_memory)
{
    const char *s = "store 0 host[2147483646]\nadvance 0 -> 1\nstore 1 host[5]\n"
                    "evict 1 host[5] -> disk[2000000000]\nadvance 1 -> 3\nturn 3\nreverse 2\n"
                    "prefetch 1 disk[2000000000] -> host[1999999999]\n"
                    "restore 1 host[1999999999]\nreverse 1\nfree 1 host[1999999999]\n"
                    "free 1 disk[2000000000]\nrestore 0 host[2147483646]\nreverse 0\n"
                    "free 0 host[2147483646]\nend\n";
    validate("--steps 3 --slots 2147483647 --disk-slots 2147483647", s, strlen(s));
    cr_expect_eq(r.status, 0, "%d %s", r.status, r.err);
    cli_free(&r);
    /* A high slot still holds what was stored there, and nothing else. */
    const char *bad = "store 0 host[2000000001]\nrestore 0 host[2000000002]\n";
    validate("--steps 3 --slots 2147483647", bad, strlen(bad));
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "line 2:") && strstr(r.err, "empty"), "%s", r.err);
    cli_free(&r);
}

Test(validate_bounds, endless_line, .init = limit_memory)
{
    const char *argv[] = {"validate", "--steps", "6", "--slots", "2", "/dev/zero", NULL};
    r = cli_runv(argv);
    cr_expect_eq(r.status, 1, "%d %s", r.status, r.err);
    cr_expect(strstr(r.err, "line 1: the line is longer than 64 KiB") != NULL, "%s", r.err);
    cr_expect(strstr(r.err, "end of input") == NULL, "%s", r.err);
    cli_free(&r);
}

Test(validate_bounds, nul_byte)
{
    static const char s[] = "store 0 host[0]\nadvance 0\0 -> 1\nend\n";
    validate("--steps 1 --slots 1", s, sizeof s - 1);
    cr_expect_eq(r.status, 1, "%d %s", r.status, r.err);
    cr_expect(strstr(r.err, "line 2: a NUL byte at column 10") != NULL, "%s", r.err);
    cli_free(&r);
}

Test(validate_bounds, input_bytes_escaped)
{
    static const char s[] = "store 0 host[0]\n\033[2Jwipe\xff\n";
    validate("--steps 1 --slots 1", s, sizeof s - 1);
    cr_expect_eq(r.status, 1);
    cr_expect(strchr(r.err, '\033') == NULL && strchr(r.err, '\xff') == NULL, "%s", r.err);
    cr_expect(strstr(r.err, "\\x1B[2Jwipe\\xFF") != NULL, "%s", r.err);
    cli_free(&r);
    validate("--steps 1 --slots 1 --json", s, sizeof s - 1);
    cr_expect(strchr(r.out, '\033') == NULL && strstr(r.out, "\\\\x1B[2J") != NULL, "%s", r.out);
    cli_free(&r);
}
