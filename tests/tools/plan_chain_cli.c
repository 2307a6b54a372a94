/* `ebb plan --chain FILE --memory SIZE`: the chain's least cost (the
 * library's, for the same figures), the budget kept in bytes, the repeat
 * form, and a clear message for each bad file. */
#include "support/chain_support.h"
#include "support/cli_run.h"

Test(plan_chain_cli, the_files_chain_gets_the_librarys_optimum)
{
    char path[] = "/tmp/ebb_chain_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    cli_write_file(path, "# a stem, six blocks in two sizes, a head\n"
                     "1 2 48KiB\n"
                     "3 x 2 5 16KiB   # three light blocks\n"
                     "3 x 5 9 64KiB\n"
                     "1 1 4KiB\n");
    cli_result r = cli_run("plan", "--chain", path, "--memory", "160KiB", "--json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    test_chain c = {.n = 8, .fwd = {1, 2, 2, 2, 5, 5, 5, 1}, .rev = {2, 5, 5, 5, 9, 9, 9, 1},
                    .bytes = {48 << 10, 16 << 10, 16 << 10, 16 << 10, 64 << 10, 64 << 10,
                              64 << 10, 4 << 10},
                    .budget = 160 << 10};
    chain_replay want = chain_replayed(&c);
    cr_assert_eq(json_figure(r.out, "steps"), 8);
    cr_assert_eq(json_figure(r.out, "cost"), want.cost, "%s", r.out);
    cr_assert_eq(json_figure(r.out, "forward_steps"), (double)want.forward_steps);
    cr_assert_leq(json_figure(r.out, "peak_bytes"), 160 << 10);
    cli_free(&r);
    remove(path);
}

/* BACKWARD TAPE on every line: the library's optimum for the chain with
 * tapes, the tapes it keeps counted from its stream. */
Test(plan_chain_cli, a_file_with_tapes_gets_the_librarys_optimum)
{
    char path[] = "/tmp/ebb_chain_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    cli_write_file(path, "1 3 48KiB 2 96KiB\n"
                     "3 x 2 6 16KiB 4 32KiB\n"
                     "3 x 5 14 64KiB 9 0\n"
                     "1 2 4KiB 1 4KiB\n");
    test_chain c = {.n = 8, .fwd = {1, 2, 2, 2, 5, 5, 5, 1}, .rev = {3, 6, 6, 6, 14, 14, 14, 2},
                    .bytes = {48 << 10, 16 << 10, 16 << 10, 16 << 10, 64 << 10, 64 << 10,
                              64 << 10, 4 << 10},
                    .taped = 1, .bwd = {2, 4, 4, 4, 9, 9, 9, 1},
                    .tape = {96 << 10, 32 << 10, 32 << 10, 32 << 10, 0, 0, 0, 4 << 10}};
    for (uint64_t budget = 64 << 10; budget <= 640 << 10; budget += 64 << 10) {
        c.budget = budget;
        char memory[32];
        snprintf(memory, sizeof memory, "%llu", (unsigned long long)budget);
        cli_result r = cli_run("plan", "--chain", path, "--memory", memory, "--json", NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        chain_replay want = chain_replayed(&c);
        cr_assert_eq(json_figure(r.out, "cost"), want.cost, "budget %llu: %s",
                     (unsigned long long)budget, r.out);
        cr_assert_eq(json_figure(r.out, "tapes"), (double)want.tapes, "%s", r.out);
        cr_assert_eq(json_figure(r.out, "forward_steps"), (double)want.forward_steps);
        cr_assert_leq(json_figure(r.out, "peak_bytes"), (double)budget);
        if (budget == 640 << 10) /* room for all: each step once, every one taped */
            cr_assert_eq(json_figure(r.out, "tapes"), 8, "%s", r.out);
        cli_free(&r);
    }
    remove(path);
}

Test(plan_chain_cli, bad_files_are_named_with_their_line)
{
    char path[] = "/tmp/ebb_chain_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    static const struct {
        const char *text, *message;
    } cases[] = {
        {"1 2\n", "line 1: expected FORWARD REVERSE SIZE"},
        {"1 2 4KiB\n1 -2 4KiB\n", "line 2: the reverse cost '-2' must be a number >= 0"},
        {"1 2 0\n", "line 1: the size '0' must be a size >= 1 byte"},
        {"0 x 1 2 4KiB\n", "line 1: the count '0' must be an integer >= 1"},
        {"100001 x 1 2 4KiB\n", "line 1: the chain has more than 100000 steps"},
        {"# nothing\n\n", "holds no step"},
        {"1 2 4KiB 1 8KiB\n1 2 4KiB\n", "line 2: lacks BACKWARD TAPE where the lines before "
                                         "have them"},
        {"1 2 4KiB\n2 x 1 2 4KiB 1 8KiB\n", "line 2: has BACKWARD TAPE"},
        {"1 2 4KiB -1 8KiB\n", "line 1: the backward cost '-1' must be a number >= 0"},
        {"1 2 4KiB 1 lots\n", "line 1: the tape 'lots' must be a size >= 0 bytes"},
        {"1 2 4KiB 1 8KiB 9\n", "got 6 fields"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cli_write_file(path, cases[i].text);
        cli_result r = cli_run("plan", "--chain", path, "--memory", "1MiB", NULL);
        cr_assert_eq(r.status, 2, "case %zu: %d", i, r.status);
        cr_assert(strstr(r.err, cases[i].message), "case %zu: %s", i, r.err);
        cli_free(&r);
    }
    cli_write_file(path, "2 x 1 1 8KiB\n");
    cli_result r = cli_run("plan", "--chain", path, "--memory", "4KiB", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "does not hold x_0 (8192 bytes)"), "%s", r.err);
    cli_free(&r);
    r = cli_run("plan", "--chain", path, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "--chain FILE and --memory SIZE are required together"), "%s",
              r.err);
    cli_free(&r);
    remove(path);
    r = cli_run("plan", "--chain", path, "--memory", "1MiB", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "cannot open the chain file"), "%s", r.err);
    cli_free(&r);
}
