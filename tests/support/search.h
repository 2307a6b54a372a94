/* The exhaustive searches' shortest-path machinery (code in search.c):
 * Dijkstra over situations numbered 0 .. keys-1, a distance for each and a
 * binary heap of the ones reached. The tests that compare a schedule with
 * every schedule (tests/schedules/chain_*.c) each number their own
 * situations and moves; this is what they share. */
#ifndef EBB_TESTS_SEARCH_H
#define EBB_TESTS_SEARCH_H

#include <stddef.h>
#include <stdint.h>

typedef struct search_node {
    double d;
    uint32_t key;
} search_node;

typedef struct search {
    size_t keys;
    double *dist;
    search_node *heap;
    size_t len, cap;
} search;

/* A search over `keys` situations (fails the test if it cannot allocate). */
search search_make(size_t keys);
void search_free(search *s);

/* Every distance unknown, then `key` reached at 0. */
void search_start(search *s, uint32_t key);

/* `key` reached at d: kept where it is the shortest so far. */
void search_relax(search *s, double d, uint32_t key);

/* The nearest situation not taken yet (stale heap entries skipped): 1 and
 * *d, *key; 0 when none is left. */
int search_next(search *s, double *d, uint32_t *key);

#endif
