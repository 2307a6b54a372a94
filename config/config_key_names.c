/* The names the key table makes: each key's, the tables the keys form and
 * what is under each, and the "did you mean" for an unknown key. Above the
 * table (it reads it), apart from the value names the table itself points
 * at (config_names.c). */
#include "ebb/config.h"

#include <stdio.h>
#include <string.h>

#include "config/config_internal.h"
#include "config/config_keys.h"

const char *ebb_config_key_name(ebb_config_key key)
{
    return (unsigned)key < EBB_CONFIG_KEY_COUNT ? ebb_config_keys[key].name : "?";
}

static const char *leaf_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot ? dot + 1 : path;
}

static int find_table(const ebb_config_table_list *t, const char *name, size_t len)
{
    for (int i = 0; i < t->count; i++)
        if (strlen(t->name[i]) == len && strncmp(t->name[i], name, len) == 0)
            return i;
    return -1;
}

void ebb_config_list_tables(ebb_config_table_list *out)
{
    out->count = 0;
    for (int k = 0; k < EBB_CONFIG_KEY_COUNT; k++) {
        const char *name = ebb_config_keys[k].name;
        for (const char *dot = strchr(name, '.'); dot; dot = strchr(dot + 1, '.')) {
            size_t len = (size_t)(dot - name);
            /* Too many or too long: tests/config/docs_match_table.c fails. */
            if (find_table(out, name, len) >= 0 || out->count == EBB_CONFIG_MAX_TABLES ||
                len >= EBB_CONFIG_MAX_TABLE_NAME)
                continue;
            memcpy(out->name[out->count], name, len);
            out->name[out->count][len] = '\0';
            out->enabled_key[out->count++] = -1;
        }
    }
    for (int k = 0; k < EBB_CONFIG_KEY_COUNT; k++) {
        const char *name = ebb_config_keys[k].name, *leaf = strrchr(name, '.');
        if (leaf && strcmp(leaf, ".enabled") == 0 && ebb_config_keys[k].type == EBB_KEY_TYPE_BOOL) {
            int t = find_table(out, name, (size_t)(leaf - name));
            if (t >= 0)
                out->enabled_key[t] = k;
        }
    }
}

/* The closest known key or table to an unknown dotted path, into buf. */
int ebb_config_suggest_key(const char *path, char *buf, size_t size)
{
    ebb_config_table_list tables;
    ebb_config_list_tables(&tables);
    const char *names[EBB_CONFIG_KEY_COUNT + EBB_CONFIG_MAX_TABLES];
    size_t n = 0;
    for (int i = 0; i < EBB_CONFIG_KEY_COUNT; i++)
        names[n++] = ebb_config_keys[i].name;
    for (int i = 0; i < tables.count; i++)
        names[n++] = tables.name[i];
    const char *best = ebb_config_closest(path, names, n);
    /* Else the right name in the wrong table ("strategy" at the top). */
    const char *leaf = leaf_of(path);
    for (size_t i = 0; i < n && !best; i++)
        if (strcmp(leaf_of(names[i]), leaf) == 0)
            best = names[i];
    if (best)
        snprintf(buf, size, "%s", best);
    return best != NULL;
}

/* "enabled, budget, numa": the names directly under table `parent` ("" = root). */
void ebb_config_list_children(const char *parent, char *buf, size_t size)
{
    size_t plen = strlen(parent), used = 0;
    buf[0] = '\0';
    ebb_config_table_list tables;
    ebb_config_list_tables(&tables);
    const char *names[EBB_CONFIG_KEY_COUNT + EBB_CONFIG_MAX_TABLES];
    size_t n = 0;
    for (int i = 0; i < tables.count; i++)
        names[n++] = tables.name[i];
    for (int i = 0; i < EBB_CONFIG_KEY_COUNT; i++)
        names[n++] = ebb_config_keys[i].name;
    for (size_t i = 0; i < n; i++) {
        const char *rest = names[i];
        if (plen > 0) {
            if (strncmp(rest, parent, plen) != 0 || rest[plen] != '.')
                continue;
            rest += plen + 1;
        }
        if (strchr(rest, '.'))
            continue;
        int w = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", rest);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
    }
}

