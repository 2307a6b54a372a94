/* Internal to the configuration: the flat view of a TOML document that the one
 * C++ translation unit (config_toml.cpp, toml++) hands to the C side. */
#ifndef EBB_RUNTIME_CONFIG_INTERNAL_H
#define EBB_RUNTIME_CONFIG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

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

/* Frees what *doc holds (C side, config.c). */
void ebb_toml_doc_free(ebb_toml_doc *doc);

#ifdef __cplusplus
}
#endif

#endif
