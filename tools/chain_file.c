/*
 * The chain file (tools/chain_file.h): its lines into per-step arrays.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebb/ebb.h"
#include "tools/chain_file.h"

/* A cost >= 0 from tok; 0, or -1 after saying why. */
static int read_cost(const char *path, int line_no, const char *what, const char *tok,
                     double *out)
{
    char *end;
    errno = 0;
    *out = strtod(tok, &end);
    if (*end || errno || !isfinite(*out) || *out < 0) {
        fprintf(stderr, "ebb plan: %s line %d: the %s cost '%s' must be a number >= 0\n",
                path, line_no, what, tok);
        return -1;
    }
    return 0;
}

/* Reads one line's fields into d; 0, or -1 after saying why. */
static int read_line(const char *path, int line_no, char *line, chain_data *d)
{
    char *tok[7];
    int count = 0;
    for (char *save = NULL, *t = strtok_r(line, " \t\r\n", &save); t;
         t = strtok_r(NULL, " \t\r\n", &save)) {
        if (count == 7) {
            count++;
            break;
        }
        tok[count++] = t;
    }
    if (count == 0)
        return 0;
    long long repeat = 1;
    int at = 0;
    if (count >= 5 && strcmp(tok[1], "x") == 0) {
        char *end;
        errno = 0;
        repeat = strtoll(tok[0], &end, 10);
        if (*end || errno || repeat < 1) {
            fprintf(stderr, "ebb plan: %s line %d: the count '%s' must be an integer >= 1\n",
                    path, line_no, tok[0]);
            return -1;
        }
        at = 2;
    }
    int fields = count - at;
    if (fields != 3 && fields != 5) {
        fprintf(stderr, "ebb plan: %s line %d: expected FORWARD REVERSE SIZE [BACKWARD TAPE] "
                "(or COUNT x and those), got %d fields\n", path, line_no, count);
        return -1;
    }
    if (d->tapes >= 0 && d->tapes != (fields == 5)) {
        fprintf(stderr, "ebb plan: %s line %d: %s BACKWARD TAPE where the lines before %s: "
                "give every line the same fields\n", path, line_no,
                fields == 5 ? "has" : "lacks", fields == 5 ? "lack them" : "have them");
        return -1;
    }
    d->tapes = fields == 5;
    double cost[3] = {0, 0, 0};
    if (read_cost(path, line_no, "forward", tok[at], &cost[0]) != 0 ||
        read_cost(path, line_no, "reverse", tok[at + 1], &cost[1]) != 0 ||
        (d->tapes && read_cost(path, line_no, "backward", tok[at + 3], &cost[2]) != 0))
        return -1;
    uint64_t tape = 0;
    if (d->tapes && ebb_parse_size(tok[at + 4], &tape) != EBB_OK) {
        fprintf(stderr, "ebb plan: %s line %d: the tape '%s' must be a size >= 0 bytes "
                "(e.g. 0 or 256KiB)\n", path, line_no, tok[at + 4]);
        return -1;
    }
    uint64_t bytes;
    if (ebb_parse_size(tok[at + 2], &bytes) != EBB_OK || bytes == 0) {
        fprintf(stderr, "ebb plan: %s line %d: the size '%s' must be a size >= 1 byte "
                "(e.g. 4096 or 64KiB)\n", path, line_no, tok[at + 2]);
        return -1;
    }
    if (repeat > EBB_CHAIN_MAX_STEPS - d->n) {
        fprintf(stderr, "ebb plan: %s line %d: the chain has more than %d steps, the most "
                "a chain file holds\n", path, line_no, EBB_CHAIN_MAX_STEPS);
        return -1;
    }
    for (long long i = 0; i < repeat; i++, d->n++) {
        d->f[d->n] = cost[0];
        d->r[d->n] = cost[1];
        d->b[d->n] = bytes;
        d->bw[d->n] = cost[2];
        d->tb[d->n] = tape;
    }
    return 0;
}

int chain_file_read(const char *path, chain_data *d)
{
    FILE *in = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!in) {
        fprintf(stderr, "ebb plan: cannot open the chain file %s: %s\n", path, strerror(errno));
        return -1;
    }
    char line[512];
    int line_no = 0, rc = 0;
    d->n = 0;
    d->tapes = -1;
    while (rc == 0 && fgets(line, sizeof line, in)) {
        line_no++;
        if (!strchr(line, '\n') && !feof(in)) {
            fprintf(stderr, "ebb plan: %s line %d is longer than %zu characters\n", path,
                    line_no, sizeof line - 2);
            rc = -1;
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        rc = read_line(path, line_no, line, d);
    }
    if (rc == 0 && ferror(in)) {
        fprintf(stderr, "ebb plan: cannot read the chain file %s: %s\n", path, strerror(errno));
        rc = -1;
    }
    if (in != stdin)
        fclose(in);
    if (rc == 0 && d->n == 0) {
        fprintf(stderr, "ebb plan: the chain file %s holds no step\n", path);
        rc = -1;
    }
    return rc;
}
