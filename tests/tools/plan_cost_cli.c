/* `ebb plan --json` reports each strategy's cost under --write-cost,
 * --read-cost and --reverse-cost: forward steps + B x reverse steps + W x
 * disk writes (stores and transfers in) + R x disk reads (restores and
 * transfers out), recomputed here from the printed counts; h-revolve's is
 * the programme's optimum and no other strategy's is lower. */
#include <stdlib.h>

#include "ebb/ebb.h"
#include "schedules/h_revolve.h"
#include "support/cli_run.h"

/* The number after "key": within the object "object" (NULL: top level); 0
 * when the object does not list the key (a tier with no slots). */
static double number(const char *json, const char *object, const char *key)
{
    const char *from = json, *end = json + strlen(json);
    if (object) {
        from = json_find(json, object, NULL);
        cr_assert(from && *from == '{', "no object %s in %s", object, json);
        end = strchr(from, '}');
    }
    const char *p = json_find(from, key, NULL);
    if (!p || p > end) {
        cr_assert(object, "no key %s in %s", key, json);
        return 0;
    }
    return strtod(p, NULL);
}

static uint64_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* Runs `ebb plan` for one strategy; returns 0 if it refused the options
 * (store-all or periodic without the slots, disk-revolve's periods beyond
 * D), else its cost after checking the sum. */
static int plan_cost(const char *strategy, int64_t n, int c, int d, double w, double r, double b,
                     double *cost)
{
    char line[512];
    snprintf(line, sizeof line,
             "plan --steps %lld --slots %d --disk-slots %d --strategy %s --write-cost %g "
             "--read-cost %g --reverse-cost %g --json",
             (long long)n, c, d, strategy, w, r, b);
    cli_result res = cli_run_line(line);
    if (res.status == 2) {
        cli_free(&res);
        return 0;
    }
    cr_assert_eq(res.status, 0, "%s: %s", line, res.err);
    const char *j = res.out;
    double want = number(j, NULL, "forward_steps") + b * number(j, NULL, "reverse_steps") +
                  w * (number(j, "stores", "disk") + number(j, "transfers_in", "disk")) +
                  r * (number(j, "restores", "disk") + number(j, "transfers_out", "disk"));
    *cost = number(j, NULL, "cost");
    cr_assert_eq(*cost, want, "%s: cost %g, the counts make %g: %s", line, *cost, want, j);
    cli_free(&res);
    return 1;
}

Test(plan_cost_cli, every_strategy_reports_its_cost_and_h_revolve_is_least, .timeout = 300)
{
    static const char *const others[] = {"store-all", "periodic",   "revolve",
                                          "online",    "multistage", "disk-revolve"};
    uint64_t seed = 9;
    int compared[6] = {0};
    for (int k = 0; k < 30; k++) {
        int64_t n = 1 + (int64_t)(next(&seed) % (k % 3 == 0 ? 8 : 400));
        int c = 1 + (int)(next(&seed) % 5);
        int d = (int)(next(&seed) % 12);
        double w = (double)(next(&seed) % 40) / 4.0, r = (double)(next(&seed) % 40) / 4.0;
        double b = (double)(next(&seed) % 12) / 4.0;
        double best = 0, other = 0;
        cr_assert(plan_cost("h-revolve", n, c, d, w, r, b, &best));
        /* The optimum as the library's programme has it. */
        ebb_schedule_options o;
        ebb_schedule_options_init(&o);
        o.strategy = EBB_STRATEGY_H_REVOLVE;
        o.steps = n;
        o.slots = c;
        o.disk_slots = d;
        o.write_cost = w;
        o.read_cost = r;
        o.reverse_cost = b;
        ebb_schedule *s = NULL;
        cr_assert_eq(ebb_schedule_create(&o, &s), EBB_OK, "%s", ebb_last_error());
        double optimum = ebb_h_revolve_predicted_cost(s);
        ebb_schedule_destroy(s);
        cr_assert_eq(best, optimum, "n=%lld C=%d D=%d W=%g R=%g B=%g: plan %g, optimum %g",
                     (long long)n, c, d, w, r, b, best, optimum);
        for (int i = 0; i < 6; i++) {
            if (!plan_cost(others[i], n, c, d, w, r, b, &other))
                continue;
            compared[i]++;
            cr_assert(best <= other, "n=%lld C=%d D=%d W=%g R=%g B=%g: h-revolve %g > %s %g",
                      (long long)n, c, d, w, r, b, best, others[i], other);
        }
    }
    for (int i = 0; i < 6; i++)
        cr_assert(compared[i] >= 5, "only %d cases compared with %s", compared[i], others[i]);
}

Test(plan_cost_cli, text_output_has_the_cost)
{
    cli_result res = cli_run_line("plan --steps 1000 --slots 3 --disk-slots 5 --strategy h-revolve "
                                  "--write-cost 5 --read-cost 1");
    cr_assert_eq(res.status, 0, "%s", res.err);
    /* firedrake checkpoint_schedules' optimum for this case is 5584 (+ 1 for
     * the step to x_n; tests/schedules/h_revolve_reference.c says how). */
    cr_assert(strstr(res.out, "cost            5585 (forward 1, reverse 1, disk write 5, read 1)"),
              "%s", res.out);
    cli_free(&res);
    res = cli_run_line("plan --steps 10 --slots 3 --strategy h-revolve");
    cr_assert_eq(res.status, 2);
    cr_assert(strstr(res.err, "--disk-slots D"), "%s", res.err);
    cli_free(&res);
    res = cli_run_line("plan --steps 10 --slots 3 --disk-slots 2 --strategy h-revolve "
                       "--write-cost -1");
    cr_assert_eq(res.status, 2);
    cr_assert(strstr(res.err, "--write-cost must be a number >= 0"), "%s", res.err);
    cli_free(&res);
}
