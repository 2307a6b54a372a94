/* A minimal streaming JSON writer for the CLI's --json output. */
#ifndef EBB_TOOLS_JSON_H
#define EBB_TOOLS_JSON_H

#include <stdint.h>
#include <stdio.h>

enum { JSON_MAX_DEPTH = 16 };

typedef struct json_writer {
    FILE *out;
    int depth;
    int count[JSON_MAX_DEPTH]; /* members written at each depth */
} json_writer;

void json_begin(json_writer *w, FILE *out);  /* opens the top-level object */
void json_end(json_writer *w);               /* closes it and ends the line */
void json_object(json_writer *w, const char *key);
void json_close(json_writer *w);
void json_int(json_writer *w, const char *key, int64_t v);
void json_double(json_writer *w, const char *key, double v);
void json_bool(json_writer *w, const char *key, int v);
void json_string(json_writer *w, const char *key, const char *v);

#endif
