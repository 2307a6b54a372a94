/* The validator's slot table (validator_slots.h). */
#include "schedules/validator_slots.h"

#include <stdlib.h>

enum {
    DENSE_MAX = 1 << 20, /* slots below this live in the dense array (8 MiB at most) */
    BLOCK = 1024         /* sparse cells per block */
};

void vslots_init(vslots *s, int32_t capacity)
{
    *s = (vslots){0};
    s->capacity = capacity;
}

void vslots_free(vslots *s)
{
    free(s->dense);
    for (size_t i = 0; i < s->nblocks; i++)
        free(s->blocks[i]);
    free(s->blocks);
    free(s->table);
    *s = (vslots){0};
}

static int64_t *dense_ref(vslots *s, int32_t slot)
{
    if (slot >= s->dense_n) {
        int32_t limit = s->capacity < DENSE_MAX ? s->capacity : DENSE_MAX;
        int64_t n = (int64_t)s->dense_n * 2;
        if (n < slot + 1)
            n = (int64_t)slot + 1;
        if (n < 64)
            n = 64;
        if (n > limit)
            n = limit;
        int64_t *d = realloc(s->dense, (size_t)n * sizeof *d);
        if (!d)
            return NULL;
        for (int64_t i = s->dense_n; i < n; i++)
            d[i] = -1;
        s->dense = d;
        s->dense_n = (int32_t)n;
    }
    return &s->dense[slot];
}

static vslot_cell *cell(const vslots *s, size_t i) { return &s->blocks[i / BLOCK][i % BLOCK]; }

static size_t hash(int32_t slot, size_t size)
{
    return (size_t)(((uint64_t)(uint32_t)slot * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & (size - 1);
}

/* Doubles the hash table (every cell index placed again): 0, or -1. */
static int rehash(vslots *s)
{
    size_t size = s->table_size ? s->table_size * 2 : 64;
    uint32_t *t = calloc(size, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < s->count; i++) {
        size_t h = hash(cell(s, i)->slot, size);
        while (t[h])
            h = (h + 1) & (size - 1);
        t[h] = (uint32_t)(i + 1);
    }
    free(s->table);
    s->table = t;
    s->table_size = size;
    return 0;
}

static int64_t *sparse_ref(vslots *s, int32_t slot)
{
    if ((s->count + 1) * 2 > s->table_size && rehash(s) != 0)
        return NULL;
    size_t h = hash(slot, s->table_size);
    for (; s->table[h]; h = (h + 1) & (s->table_size - 1))
        if (cell(s, s->table[h] - 1)->slot == slot)
            return &cell(s, s->table[h] - 1)->held;
    if (s->count % BLOCK == 0) { /* a new block */
        vslot_cell **b = realloc(s->blocks, (s->nblocks + 1) * sizeof *b);
        if (!b)
            return NULL;
        s->blocks = b;
        if (!(b[s->nblocks] = malloc(BLOCK * sizeof **b)))
            return NULL;
        s->nblocks++;
    }
    vslot_cell *c = cell(s, s->count);
    *c = (vslot_cell){slot, -1};
    s->table[h] = (uint32_t)(++s->count);
    return &c->held;
}

int64_t *vslots_ref(vslots *s, int32_t slot)
{
    return slot < DENSE_MAX ? dense_ref(s, slot) : sparse_ref(s, slot);
}
