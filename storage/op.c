/* Operation and ticket records, and warnings (see op.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/error_internal.h"
#include "storage/op.h"

void ebb_op_begin(ebb_op *op, uint32_t blocks)
{
    op->generation++;
    op->blocks = blocks;
    op->next_block = 0;
    atomic_store(&op->remaining, blocks);
    atomic_store(&op->failed, 0);
    op->status = EBB_OK;
    op->reported = 0;
    op->msg[0] = '\0';
    op->gated = 0;
    op->follow.gpu_op = NULL;
    atomic_store(&op->ready_blocks, blocks);
}

void ebb_op_ticket(const ebb_op *op, struct ebb_pool *pool, uint32_t index, ebb_ticket *ticket)
{
    ticket->pool = pool;
    ticket->index = index;
    ticket->generation = op->generation;
}

ebb_status ebb_op_lookup(ebb_op *ops, int32_t n, ebb_tier tier, const ebb_ticket *t, ebb_op **op)
{
    *op = NULL;
    if (!ops || t->index >= (uint32_t)n)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ticket does not belong to this %s pool",
                        ebb_tier_name(tier));
    ebb_op *o = &ops[t->index];
    if (o->generation == t->generation)
        *op = o;
    else if (t->generation > o->generation)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ticket (slot %u, generation %u) was never issued",
                        t->index, t->generation);
    return EBB_OK;
}

int ebb_op_fail(ebb_op *op, ebb_status status, const char *fmt, ...)
{
    int expected = 0;
    if (!atomic_compare_exchange_strong(&op->failed, &expected, 1))
        return 0;
    op->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(op->msg, sizeof op->msg, fmt, ap);
    va_end(ap);
    return 1;
}

ebb_status ebb_op_report(ebb_op *op)
{
    if (op->status == EBB_OK)
        return EBB_OK;
    op->reported = 1;
    return ebb_fail(op->status, "%s", op->msg);
}

void ebb_warn_append(char *buf, size_t size, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 3 >= size)
        return;
    if (used) {
        memcpy(buf + used, "; ", 3);
        used += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
}
