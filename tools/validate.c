/* `ebb validate`: replays an action stream, in the text form `ebb plan
 * --actions` prints, through the replay validator and says whether it is a
 * valid schedule or which line breaks which rule. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebb/ebb.h"
#include "tools/cli.h"
#include "tools/json.h"
#include "tools/options.h"

static const char validate_help[] =
    "usage: ebb validate --steps N --slots C [options] [FILE]\n"
    "\n"
    "Reads an action stream, one action a line as 'ebb plan --actions' prints it\n"
    "(\"store 0 host[0]\", \"advance 0 -> 4\", \"prefetch 3 disk[1] -> host[0]\",\n"
    "\"turn 8\", \"reverse 7\", \"free 6 host[1]\", \"end\"), from FILE or, when FILE is\n"
    "absent or '-', from standard input. Blank lines, lines starting with '#' and\n"
    "text after END that is not an action (the summary 'ebb plan' prints) are\n"
    "ignored. Replays it through the validator: every reverse step must see\n"
    "its state, every slot must hold what an action says, the stream must end\n"
    "with END and every slot freed (docs/schedules.md lists the rules).\n"
    "\n"
    "  --steps N          steps the stream reverses (0: unknown, learnt at its turn)\n"
    "  --slots C          host slots the stream may use\n"
    "  --disk-slots D     disk slots (default 0)\n"
    "  --gpu-slots G      gpu slots (default 0)\n"
    "  --json             print one JSON object\n"
    "\n"
    "Exit status: 0 valid, 1 invalid (the first bad line is named), 2 bad options\n"
    "or an unreadable FILE.\n";

typedef struct {
    int64_t steps;
    int32_t slots[EBB_TIER_COUNT];
    int json;
    const char *path; /* NULL or "-": stdin */
} validate_args;

#define OPT(n, k, f) CLI_OPT(validate_args, n, k, f)
static const cli_option validate_options[] = {
    {OPT("steps", CLI_INT64, steps), .min = 0, .max = INT64_MAX},
    {OPT("slots", CLI_INT32, slots[EBB_TIER_HOST]), .min = 0, .max = INT32_MAX},
    {OPT("disk-slots", CLI_INT32, slots[EBB_TIER_DISK]), .min = 0, .max = INT32_MAX},
    {OPT("gpu-slots", CLI_INT32, slots[EBB_TIER_GPU]), .min = 0, .max = INT32_MAX},
    {OPT("json", CLI_FLAG, json)},
};
#undef OPT
static const cli_command validate_command = {
    "validate", validate_help, validate_options, sizeof validate_options / sizeof *validate_options,
    1, ": give at most one FILE"};

/* Parses the options into a; returns 0, 1 after --help, or 2 after printing why not. */
static int parse(int argc, char **argv, validate_args *a)
{
    cli_parsed parsed;
    int rc = cli_parse(&validate_command, argc, argv, a, &parsed);
    if (rc != CLI_OK)
        return rc;
    if (parsed.first_operand < argc)
        a->path = argv[parsed.first_operand];
    if (!cli_given(&validate_command, &parsed, "steps") ||
        !cli_given(&validate_command, &parsed, "slots")) {
        fprintf(stderr, "ebb validate: --steps N and --slots C are required (0 steps: unknown; "
                        "see 'ebb validate --help')\n");
        return 2;
    }
    return 0;
}

enum {
    BATCH = 4096,
    MAX_LINE = 64 << 10 /* bytes of one line, its end included (docs/schedules.md) */
};

/* The replay: actions are parsed into a batch and checked a batch at a time
 * (the validator's fast path), remembering each one's line for the message. */
typedef struct {
    ebb_validator *v;
    ebb_action actions[BATCH];
    int64_t lines[BATCH];
    size_t pending;
    int64_t checked;  /* actions handed to the validator before this batch */
    int64_t bad_line; /* 0 while the stream is fine */
    int at_end;       /* the stream stopped without END: bad_line is one past the last */
    char error[768];
} replay;

/* Checks the pending actions; on a refusal records its line and message. */
static int flush(replay *r)
{
    if (r->pending == 0)
        return 0;
    ebb_status st = ebb_validator_check(r->v, r->actions, r->pending);
    if (st != EBB_OK) {
        ebb_schedule_stats s;
        ebb_validator_stats(r->v, &s);
        int64_t at = s.actions - 1 - r->checked; /* the refused action counts too */
        if (at < 0 || at >= (int64_t)r->pending)
            at = (int64_t)r->pending - 1;
        r->bad_line = r->lines[at];
        snprintf(r->error, sizeof r->error, "%s", ebb_last_error());
    }
    r->checked += (int64_t)r->pending;
    r->pending = 0;
    return st != EBB_OK;
}

/* The line as it stood, for "cannot parse '...'": no line end, at most 60 characters. */
static void quote_line(const char *line, char *buf, size_t len)
{
    size_t n = strcspn(line, "\r\n");
    if (n > 60)
        snprintf(buf, len, "%.57s...", line);
    else
        snprintf(buf, len, "%.*s", (int)n, line);
}

/* The input in chunks, split into lines with memchr (as fast as getline,
 * which had no bound on a line). */
enum { CHUNK = 1 << 18 };
typedef struct {
    FILE *in;
    char *buf; /* CHUNK + MAX_LINE bytes; the unread part is buf[start .. end) */
    size_t start, end;
    int eof;
} line_reader;

/* Copies the next line (its end included) into line[0 .. MAX_LINE], ended by a
 * NUL: its length, 0 at the end of input (or a read error: see ferror), -1 when
 * it is longer than MAX_LINE bytes. */
static long next_line(line_reader *lr, char *line)
{
    for (;;) {
        char *p = lr->buf + lr->start;
        size_t have = lr->end - lr->start;
        char *nl = memchr(p, '\n', have);
        size_t n = nl ? (size_t)(nl - p) + 1 : have;
        if (n > MAX_LINE)
            return -1;
        if (nl || (lr->eof && have > 0)) {
            memcpy(line, p, n);
            line[n] = '\0';
            lr->start += n;
            return (long)n;
        }
        if (lr->eof)
            return 0;
        memmove(lr->buf, p, have); /* the start of a line, at most MAX_LINE bytes */
        lr->start = 0;
        lr->end = have;
        size_t got = fread(lr->buf + have, 1, CHUNK + MAX_LINE - have, lr->in);
        lr->end += got;
        lr->eof = got == 0;
    }
}

/* Reads and replays the whole stream; returns 0 when it was read (valid or not,
 * see r->bad_line), 2 when it could not be read. */
static int replay_stream(FILE *in, const char *name, replay *r)
{
    char *line = malloc(MAX_LINE + 1);
    line_reader lr = {in, malloc(CHUNK + MAX_LINE), 0, 0, 0};
    int64_t line_no = 0;
    int rc = 0, seen_end = 0;
    long len;
    if (!line || !lr.buf) {
        fprintf(stderr, "ebb validate: cannot allocate a line buffer\n");
        free(line);
        free(lr.buf);
        return 2;
    }
    while ((len = next_line(&lr, line)) != 0) {
        line_no++;
        if (len < 0 || memchr(line, '\0', (size_t)len)) {
            if (flush(r)) /* the actions before this line come first */
                goto out;
            r->bad_line = line_no;
            if (len < 0)
                snprintf(r->error, sizeof r->error, "the line is longer than %d KiB; an action "
                         "stream has one short action a line", MAX_LINE >> 10);
            else
                snprintf(r->error, sizeof r->error, "a NUL byte at column %zu; an action stream "
                         "is text", strlen(line) + 1);
            goto out;
        }
        const char *p = line + strspn(line, " \t");
        if (*p == '#' || p[strspn(p, " \t\r\n")] == '\0')
            continue;
        ebb_action *a = &r->actions[r->pending];
        if (ebb_action_parse(line, a) != EBB_OK) {
            /* After END, text that is not an action (the summary `ebb plan
             * --actions` prints after the stream) is not part of it. An
             * action there is replayed, and refused. */
            if (seen_end)
                continue;
            char msg[512], shown[64];
            snprintf(msg, sizeof msg, "%s", ebb_last_error());
            /* The actions before this line come first. */
            if (flush(r))
                goto out;
            quote_line(line, shown, sizeof shown);
            r->bad_line = line_no;
            snprintf(r->error, sizeof r->error, "cannot parse '%s': %s", shown, msg);
            goto out;
        }
        seen_end |= a->kind == EBB_ACT_END;
        r->lines[r->pending++] = line_no;
        if (r->pending == BATCH && flush(r))
            goto out;
    }
    if (ferror(in)) {
        fprintf(stderr, "ebb validate: cannot read %s: %s\n", name, strerror(errno));
        rc = 2;
        goto out;
    }
    if (flush(r))
        goto out;
    if (ebb_validator_finish(r->v) != EBB_OK) {
        r->bad_line = line_no + 1;
        r->at_end = 1;
        snprintf(r->error, sizeof r->error, "%s", ebb_last_error());
    }
out:
    free(line);
    free(lr.buf);
    return rc;
}

/* `text` with every byte that is not printable ASCII written as \xNN, so
 * that input bytes (terminal escape sequences) reach no terminal. */
static void escape_bytes(const char *text, char *buf, size_t len)
{
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)text; *c && n + 5 < len; c++) {
        if (*c < 0x20 || *c >= 0x7f)
            n += (size_t)snprintf(buf + n, len - n, "\\x%02X", *c);
        else
            buf[n++] = (char)*c;
    }
    buf[n] = '\0';
}

static void print_json(const ebb_schedule_stats *st, const replay *r)
{
    json_writer w;
    json_begin(&w, stdout);
    json_bool(&w, "valid", r->bad_line == 0);
    json_int(&w, "steps", st->steps);
    json_int(&w, "actions", st->actions);
    json_int(&w, "forward_steps", st->forward_steps);
    if (r->bad_line == 0)
        json_int(&w, "recomputed_steps", st->forward_steps - st->steps);
    json_int(&w, "reverse_steps", st->reverse_steps);
    json_object(&w, "peak_slots");
    json_int(&w, "host", st->peak_slots[EBB_TIER_HOST]);
    json_int(&w, "disk", st->peak_slots[EBB_TIER_DISK]);
    json_int(&w, "gpu", st->peak_slots[EBB_TIER_GPU]);
    json_close(&w);
    if (r->bad_line) {
        char shown[4 * sizeof r->error];
        escape_bytes(r->error, shown, sizeof shown);
        json_string(&w, "error", shown);
        json_int(&w, "line", r->bad_line);
    }
    json_end(&w);
}

int ebb_cmd_validate(int argc, char **argv)
{
    validate_args a;
    memset(&a, 0, sizeof a);
    int rc = parse(argc, argv, &a);
    if (rc != 0)
        return rc == 1 ? 0 : rc;

    int from_stdin = !a.path || strcmp(a.path, "-") == 0;
    const char *name = from_stdin ? "standard input" : a.path;
    FILE *in = from_stdin ? stdin : fopen(a.path, "r");
    if (!in) {
        fprintf(stderr, "ebb validate: cannot open '%s': %s\n", a.path, strerror(errno));
        return 2;
    }
    replay *r = calloc(1, sizeof *r);
    if (!r || ebb_validator_create(a.steps, a.slots, &r->v) != EBB_OK) {
        fprintf(stderr, "ebb validate: %s\n",
                r ? ebb_last_error() : "cannot allocate the replay buffers");
        free(r);
        if (!from_stdin)
            fclose(in);
        return 2;
    }
    rc = replay_stream(in, name, r);
    if (!from_stdin)
        fclose(in);
    if (rc == 0) {
        ebb_schedule_stats st;
        ebb_validator_stats(r->v, &st);
        if (a.json)
            print_json(&st, r);
        if (r->bad_line) {
            char shown[4 * sizeof r->error];
            escape_bytes(r->error, shown, sizeof shown);
            fprintf(stderr, "ebb validate: line %lld%s: %s\n", (long long)r->bad_line,
                    r->at_end ? " (end of input)" : "", shown);
            rc = 1;
        } else if (!a.json) {
            printf("valid: %lld actions, %lld forward steps (%lld recomputed), peak slots host %d "
                   "disk %d",
                   (long long)st.actions, (long long)st.forward_steps,
                   (long long)(st.forward_steps - st.steps), st.peak_slots[EBB_TIER_HOST],
                   st.peak_slots[EBB_TIER_DISK]);
            if (a.slots[EBB_TIER_GPU] > 0 || st.peak_slots[EBB_TIER_GPU] > 0)
                printf(" gpu %d", st.peak_slots[EBB_TIER_GPU]);
            printf("\n");
        }
    }
    ebb_validator_destroy(r->v);
    free(r);
    return rc;
}
