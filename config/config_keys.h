/* The configuration's keys, each described once (name, type, where its value
 * lives in struct ebb_config, range, unit, default, documentation) in one
 * table, ebb_config_keys (config_keys.c). The loader, the checks, the
 * formatter, the key names and docs/configuration.md (checked by
 * tests/config/docs_match_table.c) all follow it, so adding a plain key is
 * one entry there, one field in struct ebb_config and one ebb_config_key.
 * A key with a computed default or checks of its own also has an entry in
 * ebb_config_key_init or ebb_config_key_checks (below). */
#ifndef EBB_CONFIG_CONFIG_KEYS_H
#define EBB_CONFIG_CONFIG_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "ebb/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a key holds, and so how it is read, checked and written. */
typedef enum ebb_key_type {
    EBB_KEY_TYPE_ENUM = 0, /* one of `names` (a string), stored as an int-sized enum */
    EBB_KEY_TYPE_BOOL,     /* true or false, stored as an int (0 or 1) */
    EBB_KEY_TYPE_SIZE,     /* a size (ebb_parse_size), stored as a uint64_t */
    EBB_KEY_TYPE_INT,      /* an integer, stored as an int32_t */
    EBB_KEY_TYPE_PATHS,    /* a directory or a list of them: char ** and a size_t count */
    EBB_KEY_TYPE_RATE,     /* bytes per second (ebb_parse_rate) or "none" (0), as a uint64_t */
    EBB_KEY_TYPE_DOUBLE    /* a number (integer or float) in [dmin, dmax], as a double */
} ebb_key_type;

typedef struct ebb_key_def {
    const char *name;  /* dotted, as in a file: "tier.disk.queue_depth" */
    ebb_key_type type;
    size_t offset;     /* of the value in struct ebb_config */
    const char *field; /* "cfg.disk.queue_depth", for the docs */
    size_t count_offset; /* PATHS: of the size_t count */

    /* Range. INT: min..max. SIZE: min..max and a multiple of align (when
     * max != 0; 0 = any positive size). */
    int64_t min, max;
    uint64_t align;
    /* DOUBLE: the range (dmin_open: above dmin, not at it) and the default. */
    double dmin, dmax;
    int dmin_open;
    double ddflt;
    /* ENUM: the names, indexed by value; `alias` is one more spelling of
     * `alias_value`; `c_type` names the C enum in messages. */
    const char *const *names;
    int name_count;
    const char *alias;
    int alias_value;
    const char *c_type;
    /* "auto" allowed: SIZE stores it as EBB_BUDGET_AUTO, INT as auto_value. */
    int has_auto;
    int32_t auto_value;
    /* Messages: INT says "expected <what> from <min> to <max><note>", or
     * `expected` when set; SIZE appends `note` to its range when loading,
     * and `zero_note` to "expected a positive size, got 0". */
    const char *what;
    const char *note;
    const char *expected;
    const char *zero_note;

    const char *unit;   /* of the value, for the docs ("bytes", "requests") */
    int64_t dflt;       /* the embedded default, in the field's type */
    const char *doc;    /* one paragraph */

    /* A computed default (ebb_config_key_init): how, in markdown. */
    const char *default_doc;
} ebb_key_def;

/* Indexed by ebb_config_key. */
extern const ebb_key_def ebb_config_keys[EBB_CONFIG_KEY_COUNT];

/* Special cases, where a key is not like the others (NULL: none), indexed by
 * ebb_config_key. Not in the table: these functions read it (for the keys'
 * names), and the table names none of them, so that calls only point down
 * to it (scripts/check_layers.py). */
/* The default is computed (config.c); the table has its default_doc. */
extern ebb_status (*const ebb_config_key_init[EBB_CONFIG_KEY_COUNT])(ebb_config *cfg);
typedef struct ebb_key_checks {
    ebb_status (*check)(const ebb_config *cfg);  /* replaces the range check */
    ebb_status (*verify)(const ebb_config *cfg); /* asks the machine; run at load
                                                    when the file set the key */
} ebb_key_checks;
/* In config_check.c. */
extern const ebb_key_checks ebb_config_key_checks[EBB_CONFIG_KEY_COUNT];

/* The value of key `d` in *cfg. */
static inline void *ebb_key_field(ebb_config *cfg, const ebb_key_def *d)
{
    return (char *)cfg + d->offset;
}
static inline const void *ebb_key_cfield(const ebb_config *cfg, const ebb_key_def *d)
{
    return (const char *)cfg + d->offset;
}

/* A DOUBLE key's value within its range (finite). */
static inline int ebb_key_double_in_range(const ebb_key_def *d, double x)
{
    return x <= d->dmax && (d->dmin_open ? x > d->dmin : x >= d->dmin);
}

/* Sets key `d` of *cfg to its table default (not computed defaults). */
void ebb_key_set_default(ebb_config *cfg, const ebb_key_def *d);

/* "an integer from 1 to 4096", "a multiple of 4 KiB from 4 KiB to 1 GiB":
 * the range of an INT or SIZE key, for messages (without the note). */
void ebb_key_range_text(const ebb_key_def *d, char *buf, size_t size);

/* The default of `key` as ebb_config_format writes it ("\"auto\"", "16",
 * "true"), or, where it is computed, how (default_doc). Snprintf-like. */
int ebb_config_key_default_text(ebb_config_key key, char *buf, size_t size);

/* The tables of a file, derived from the key names (config_key_names.c): every proper prefix of
 * one ("run", "tier", "tier.gpu", ...) in the order the keys first name them,
 * each with its "<table>.enabled" key, which a [table] in a file turns on. */
enum { EBB_CONFIG_MAX_TABLES = 16, EBB_CONFIG_MAX_TABLE_NAME = 48 };
typedef struct ebb_config_table_list {
    int count;
    char name[EBB_CONFIG_MAX_TABLES][EBB_CONFIG_MAX_TABLE_NAME];
    int enabled_key[EBB_CONFIG_MAX_TABLES]; /* an ebb_config_key, or -1 */
} ebb_config_table_list;

void ebb_config_list_tables(ebb_config_table_list *out);

#ifdef __cplusplus
}
#endif

#endif
