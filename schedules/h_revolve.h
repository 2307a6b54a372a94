/*
 * H-Revolve (Herrmann & Pallez, "H-Revolve: a framework for adjoint
 * computation on synchronous hierarchical platforms", ACM TOMS 46(2), 2020):
 * the schedule of least total cost over two storage levels, memory (C slots,
 * o->fast_tier) and disk (D slots, o->slow_tier), each with a write and a
 * read cost, plus the cost of one reverse step; one forward step costs 1.
 * Transfers are synchronous: every cost sits on the critical path.
 *
 * The dynamic programme (h_revolve_dp.c) fills a table of (C + D) x n values
 * once; the generator (h_revolve.c) then walks it lazily with a stack of
 * O(C + D) frames.
 */
#ifndef EBB_SCHEDULES_H_REVOLVE_H
#define EBB_SCHEDULES_H_REVOLVE_H

#include <stdint.h>

#include "ebb/schedule.h"

/* Costs in units of one forward step. Level 0 is memory, level 1 disk. */
typedef struct ebb_h_revolve_costs {
    double write[2];   /* storing a state at the level */
    double read[2];    /* restoring a state from the level */
    double reverse;    /* one reverse step */
} ebb_h_revolve_costs;

/* Largest table the programme fills: (C + D) * (n + 1) entries of 12 bytes. */
#define EBB_H_REVOLVE_MAX_ENTRIES ((int64_t)1 << 24)

typedef struct ebb_h_revolve_dp ebb_h_revolve_dp;

/* Fills the table for n steps, C memory and D disk slots. Both searches
 * find the optimum: exact = 1 tries every split (O(n^2 (C + D)), for tests),
 * 0 prunes ranges of splits by a lower bound (what the schedule uses). */
ebb_status ebb_h_revolve_dp_create(int64_t steps, int32_t memory_slots, int32_t disk_slots,
                                   const ebb_h_revolve_costs *costs, int exact,
                                   ebb_h_revolve_dp **out);
void ebb_h_revolve_dp_destroy(ebb_h_revolve_dp *dp);

/* The optimal cost of the whole schedule as ebb counts it (first sweep of n
 * forward steps included). */
double ebb_h_revolve_dp_cost(const ebb_h_revolve_dp *dp);

/* Table access for the generator. For level k (0 memory, 1 disk), m slots
 * left at that level and a sub-chain of l steps starting at a state already
 * stored at the level: the split j (first forward run, 1 .. l-1) or 0 for
 * the fallback (memory: re-run from the stored state every time; disk:
 * solve the sub-chain in memory). */
int32_t ebb_h_revolve_dp_split(const ebb_h_revolve_dp *dp, int level, int32_t m, int64_t l);
/* For a sub-chain of l steps whose first state is not stored: 1 when storing
 * it on disk (m slots left there) beats solving it in memory. */
int ebb_h_revolve_dp_use_disk(const ebb_h_revolve_dp *dp, int32_t m, int64_t l);

/* The H-Revolve schedule for o->steps, o->slots memory and o->disk_slots
 * (>= 0) disk slots; write_cost, read_cost: one disk write and read,
 * reverse_cost: one reverse step, all in forward steps; memory is free.
 * Registered as a strategy by the dispatcher; until then callers build it
 * here and drive it with ebb_schedule_next / ebb_schedule_next_batch. */
ebb_status ebb_h_revolve_create(const ebb_schedule_options *o, double write_cost,
                                double read_cost, double reverse_cost, ebb_schedule **out);

/* As ebb_h_revolve_create, with memory write and read costs as well. */
ebb_status ebb_h_revolve_create_costs(const ebb_schedule_options *o,
                                      const ebb_h_revolve_costs *costs, ebb_schedule **out);

/* The optimum the schedule reaches (the programme's value); s must come
 * from ebb_h_revolve_create or ebb_h_revolve_create_costs. */
double ebb_h_revolve_predicted_cost(const ebb_schedule *s);

#endif
