/* The exhaustive searches' Dijkstra (search.h). */
#include "support/search.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

search search_make(size_t keys)
{
    search s = {.keys = keys, .dist = malloc(keys * sizeof(double))};
    cr_assert_not_null(s.dist, "cannot allocate a search over %zu situations", keys);
    return s;
}

void search_free(search *s)
{
    free(s->dist);
    free(s->heap);
    *s = (search){0};
}

static void push(search *s, double d, uint32_t key)
{
    if (s->len == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->heap = realloc(s->heap, s->cap * sizeof *s->heap);
        cr_assert_not_null(s->heap);
    }
    size_t i = s->len++;
    while (i > 0 && s->heap[(i - 1) / 2].d > d) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->heap[i] = (search_node){d, key};
}

static search_node pop(search *s)
{
    search_node top = s->heap[0], last = s->heap[--s->len];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, m = l + 1, b = i;
        double bd = last.d;
        if (l < s->len && s->heap[l].d < bd)
            b = l, bd = s->heap[l].d;
        if (m < s->len && s->heap[m].d < bd)
            b = m;
        if (b == i)
            break;
        s->heap[i] = s->heap[b];
        i = b;
    }
    if (s->len > 0)
        s->heap[i] = last;
    return top;
}

void search_start(search *s, uint32_t key)
{
    for (size_t i = 0; i < s->keys; i++)
        s->dist[i] = HUGE_VAL;
    s->len = 0;
    search_relax(s, 0, key);
}

void search_relax(search *s, double d, uint32_t key)
{
    if (d < s->dist[key]) {
        s->dist[key] = d;
        push(s, d, key);
    }
}

int search_next(search *s, double *d, uint32_t *key)
{
    while (s->len > 0) {
        search_node top = pop(s);
        if (top.d > s->dist[top.key])
            continue;
        *d = top.d;
        *key = top.key;
        return 1;
    }
    return 0;
}
