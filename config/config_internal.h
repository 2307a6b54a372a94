/* Internal to the configuration: the flat view of a TOML document that the one
 * C++ translation unit (config_toml.cpp, toml++) hands to the C side, and what
 * the config*.c files share (names, limits, checks). */
#ifndef EBB_CONFIG_CONFIG_INTERNAL_H
#define EBB_CONFIG_CONFIG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ebb/config.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ebb_toml_kind {
    EBB_TOML_TABLE = 0,
    EBB_TOML_ARRAY,
    EBB_TOML_STRING,
    EBB_TOML_INTEGER,
    EBB_TOML_FLOAT,
    EBB_TOML_BOOLEAN,
    EBB_TOML_DATE,
    EBB_TOML_TIME,
    EBB_TOML_DATETIME
} ebb_toml_kind;

/* One node of the document. Top-level entries are every table (explicit,
 * implicit or inline) and every value, each with its dotted key path; array
 * elements are not entries of their own but `elements` of their array. */
typedef struct ebb_toml_entry {
    char *key;        /* dotted path from the root; components that are not
                         bare keys are quoted as TOML writes them. NULL in elements */
    int kind;         /* ebb_toml_kind */
    int32_t line;     /* 1-based position of the key (elements: of the value); 0 unknown */
    int32_t column;
    int64_t integer;  /* EBB_TOML_INTEGER */
    double number;    /* EBB_TOML_FLOAT */
    int boolean;      /* EBB_TOML_BOOLEAN */
    char *string;     /* EBB_TOML_STRING (owned, NUL-terminated; may hold NULs: see length) */
    size_t length;    /* EBB_TOML_STRING: bytes in string */
    struct ebb_toml_entry *elements; /* EBB_TOML_ARRAY: its elements (not deeper) */
    size_t count;     /* EBB_TOML_ARRAY: number of elements */
} ebb_toml_entry;

typedef struct ebb_toml_doc {
    ebb_toml_entry *entries;
    size_t count;
    size_t capacity;
    /* EBB_TOML_SYNTAX: where and what */
    int32_t error_line;
    int32_t error_column;
    char error[512];
} ebb_toml_doc;

enum {
    EBB_TOML_OK = 0,
    EBB_TOML_SYNTAX = 1,    /* error_* filled */
    EBB_TOML_NO_MEMORY = 2,
    EBB_TOML_INTERNAL = 3   /* any other exception; error filled */
};

/* Parses `len` bytes of TOML into *doc (zeroed first). Never throws. On
 * failure *doc holds no entries. Implemented in config_toml.cpp. */
int ebb_toml_parse(const char *text, size_t len, ebb_toml_doc *doc);

/* Frees what *doc holds. In config_toml.cpp, beside the parser that
 * allocates it. */
void ebb_toml_doc_free(ebb_toml_doc *doc);

/* What ebb_toml_parse may be given (docs/configuration.md, Limits): the
 * parser recurses once per dotted key part and nesting level. */
enum {
    EBB_CONFIG_MAX_TEXT_BYTES = 16 << 20,
    EBB_CONFIG_MAX_LINE_BYTES = 64 << 10,
    EBB_CONFIG_MAX_KEY_PARTS = 64,
    EBB_CONFIG_MAX_NESTING = 16
};

/* EBB_OK, or EBB_ERR_CONFIG naming `name`, the line and the limit when the
 * text is past one of the limits above (config_bounds.c). */
ebb_status ebb_config_check_bounds(const char *text, size_t len, const char *name);

/* ---- limits (config_check.c and config_load.c) ---------------------------- */

enum {
    EBB_CONFIG_MAX_QUEUE_DEPTH = 4096,
    EBB_CONFIG_MAX_GPU_DEVICE = 1023,
    EBB_CONFIG_DIO_ALIGN = 4096,
    /* tier.disk.threads: what ebb_pool_create accepts (storage/disk.c) */
    EBB_CONFIG_MAX_DISK_THREADS = 1024
};
/* tier.disk.block_size and tier.gpu.chunk_size: at most 1 GiB */
#define EBB_CONFIG_MAX_BLOCK_SIZE (UINT64_C(1) << 30)

/* ---- names (config_names.c) ----------------------------------------------- */

enum { EBB_CONFIG_BACKEND_COUNT = 3, EBB_CONFIG_AUDIT_COUNT = 3 };

/* The names of run.strategy, indexed by ebb_config_strategy. */
extern const char *const ebb_config_strategy_names[EBB_CONFIG_STRATEGY_COUNT];
/* The names of tier.disk.backend, indexed by ebb_disk_backend. */
extern const char *const ebb_config_backend_names[EBB_CONFIG_BACKEND_COUNT];
/* The names of run.audit, indexed by ebb_audit (ebb/runtime.h). */
extern const char *const ebb_config_audit_names[EBB_CONFIG_AUDIT_COUNT];
/* (The compression keys' names are the codecs' own: common/codec_names.h.) */

/* The name of a disk backend as a file spells it; "?" for anything else. */
const char *ebb_config_backend_name(ebb_disk_backend backend);
/* The closest of `names` to `word`, or NULL when none is close. */
const char *ebb_config_closest(const char *word, const char *const *names, size_t count);
/* "a", "b" or "c": names[0 .. count-1] quoted, into buf. */
void ebb_config_list_quoted(const char *const *names, size_t count, char *buf, size_t size);
/* The index of `name` in `names`, or -1. */
int ebb_config_find_name(const char *name, const char *const *names, size_t count);

/* ---- key names (config_key_names.c) ------------------------------------------ */

/* The closest known key or table to an unknown dotted path, into buf;
 * 0 when none is close. */
int ebb_config_suggest_key(const char *path, char *buf, size_t size);
/* "enabled, budget, numa": the names directly under table `parent` ("" = root). */
void ebb_config_list_children(const char *parent, char *buf, size_t size);

/* ---- lifetime (config.c) --------------------------------------------------- */

/* Frees paths[0 .. count-1] and the array; NULL allowed. */
void ebb_config_free_paths(char **paths, size_t count);

/* Computed defaults (ebb_config_key_init): the GPU tier is on when a
 * device is found; the disk tier lives in $TMPDIR if absolute, else /tmp. */
ebb_status ebb_config_default_gpu_enabled(ebb_config *cfg);
ebb_status ebb_config_default_disk_path(ebb_config *cfg);

/* ---- checks (config_check.c), also run on load ------------------------------ */

/* "f.toml:7: key 'tier.disk.budget'" or "key 'tier.disk.budget' (default or
 * set by the program)": where the value of `key` came from, with `suffix`
 * ("[1]") after the key name. */
void ebb_config_where(const ebb_config *cfg, ebb_config_key key, const char *suffix, char *buf,
                      size_t size);
/* Every field a program may have set is in range (a file's are checked as
 * read); EBB_ERR_CONFIG naming the key otherwise. */
ebb_status ebb_config_check_values(const ebb_config *cfg);

/* The NUMA node exists (when the host tier is on and the node is not auto). */
ebb_status ebb_config_check_numa(const ebb_config *cfg);
/* tier.host.numa is "auto" (-1) or a node number: its ebb_config_key_checks `check`. */
ebb_status ebb_config_check_numa_value(const ebb_config *cfg);
/* Every disk path is an existing, writable directory, listed once; with
 * `budget` != 0, each file system has the space for its paths' shares. */
ebb_status ebb_config_check_disk(const ebb_config *cfg, uint64_t budget);
/* ebb_config_check_disk with the configured budget, when the tier is on:
 * what a file that sets tier.disk.path or tier.disk.budget is checked for. */
ebb_status ebb_config_verify_disk(const ebb_config *cfg);
/* The compression keys together, each tier's: a fixed rate or precision
 * fits the element type when one is set (a lossy mode without one is
 * refused where the run can give none: ebb_run_create), and the host tier's
 * mode is off or fixed-rate. Also tier.*.compression's range check. */
ebb_status ebb_config_check_compression(const ebb_config *cfg);
/* Strategies that keep states on disk have the disk tier enabled. */
ebb_status ebb_config_check_strategy_tiers(const ebb_config *cfg);

#ifdef __cplusplus
}
#endif

#endif
