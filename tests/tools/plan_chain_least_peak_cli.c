/* `ebb plan --chain FILE --least-peak`: on random chains its least peak, in
 * the JSON and the text form, is the library's (ebb_chain_least_peak_create)
 * and its stream reaches exactly that peak at the cost of the library's
 * stream; --memory and --memory-levels beside it are refused, saying why. */
#include "support/cli_run.h"

#include "ebb/ebb.h"

enum { MAX_N = 40 };

/* The figure after `label` at the start of a line of the text form. */
static unsigned long long text_figure(const char *out, const char *label)
{
    const char *p = strstr(out, label);
    cr_assert_not_null(p, "no line '%s' in %s", label, out);
    return strtoull(p + strlen(label), NULL, 10);
}

static uint64_t next(uint64_t *seed)
{
    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
    return *seed >> 33;
}

/* The library's least peak of the chain, and its stream's cost and forward
 * steps. */
static uint64_t library_peak(const ebb_chain *ch, double *cost, int64_t *forward_steps)
{
    ebb_schedule *s = NULL;
    uint64_t peak = 0;
    cr_assert_eq(ebb_chain_least_peak_create(ch, EBB_TIER_HOST, &peak, &s), EBB_OK, "%s",
                 ebb_last_error());
    *cost = 0;
    *forward_steps = 0;
    ebb_action a;
    do {
        cr_assert_eq(ebb_schedule_next(s, &a), EBB_OK);
        if (a.kind == EBB_ACT_ADVANCE)
            for (int64_t k = a.step; k < a.to; k++, ++*forward_steps)
                *cost += ch->forward_cost[k];
        else if (a.kind == EBB_ACT_REVERSE)
            *cost += ch->reverse_cost[a.step];
    } while (a.kind != EBB_ACT_END);
    ebb_schedule_destroy(s);
    return peak;
}

Test(plan_chain_least_peak_cli, prints_the_librarys_least_peak)
{
    char path[] = "/tmp/ebb_chain_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    uint64_t seed = 0x1ea57;
    for (int c = 0; c < 12; c++) {
        int n = c == 0 ? 1 : c == 1 ? 2 : 3 + (int)(next(&seed) % (MAX_N - 2));
        double f[MAX_N], r[MAX_N];
        uint64_t b[MAX_N];
        uint64_t top = c % 3 == 0 ? 4 : c % 3 == 1 ? 100 : 1000000;
        char text[MAX_N * 48] = "# a random chain\n";
        size_t len = strlen(text);
        for (int i = 0; i < n; i++) {
            f[i] = (double)(next(&seed) % 10);
            r[i] = (double)(next(&seed) % 10);
            b[i] = 1 + next(&seed) % top;
            len += (size_t)snprintf(text + len, sizeof text - len, "%g %g %llu\n", f[i], r[i],
                                    (unsigned long long)b[i]);
        }
        cli_write_file(path, text);
        ebb_chain ch = {.steps = n, .forward_cost = f, .reverse_cost = r, .state_bytes = b};
        double cost = 0;
        int64_t forward_steps = 0;
        uint64_t want = library_peak(&ch, &cost, &forward_steps);

        cli_result j = cli_run("plan", "--chain", path, "--least-peak", "--json", NULL);
        cr_assert_eq(j.status, 0, "chain %d: %s", c, j.err);
        cr_assert_eq(json_figure(j.out, "steps"), n);
        cr_assert_eq(json_figure(j.out, "least_peak_bytes"), (double)want, "chain %d: %s", c, j.out);
        cr_assert_eq(json_figure(j.out, "peak_bytes"), (double)want, "chain %d: %s", c, j.out);
        cr_assert_eq(json_figure(j.out, "cost"), cost, "chain %d: %s", c, j.out);
        cr_assert_eq(json_figure(j.out, "forward_steps"), (double)forward_steps, "chain %d", c);
        cli_free(&j);

        cli_result t = cli_run("plan", "--chain", path, "--least-peak", NULL);
        cr_assert_eq(t.status, 0, "chain %d: %s", c, t.err);
        cr_assert_eq(text_figure(t.out, "\nmemory "), want, "chain %d: %s", c, t.out);
        cr_assert(strstr(t.out, "least peak with each step recomputed at most once"), "%s",
                  t.out);
        const char *peak = strstr(t.out, "\npeak");
        cr_assert_not_null(peak, "%s", t.out);
        cr_assert_eq(text_figure(strstr(peak, "states,"), "states,"), want, "chain %d: %s", c,
                     t.out);
        cr_assert(strstr(t.out, "valid           yes"), "%s", t.out);
        cli_free(&t);
    }
    remove(path);
}

Test(plan_chain_least_peak_cli, a_budget_beside_it_is_refused)
{
    char path[] = "/tmp/ebb_chain_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    cli_write_file(path, "3 x 1 2 4KiB\n");
    cli_result r = cli_run("plan", "--chain", path, "--least-peak", "--memory", "1MiB", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "--least-peak finds the least memory itself and takes no --memory"),
              "%s", r.err);
    cli_free(&r);
    r = cli_run("plan", "--chain", path, "--least-peak", "--memory-levels", "64", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "takes no --memory-levels K"), "%s", r.err);
    cli_free(&r);
    r = cli_run("plan", "--least-peak", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "--chain FILE and --least-peak"), "%s", r.err);
    cli_free(&r);
    cli_write_file(path, "1 2 4KiB\n1 1 0\n");
    r = cli_run("plan", "--chain", path, "--least-peak", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "line 2: the size '0' must be a size >= 1 byte"), "%s", r.err);
    cli_free(&r);
    remove(path);
}
