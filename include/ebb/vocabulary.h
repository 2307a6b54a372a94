/* ebb's shared words: the storage tiers and the strategies, with their
 * names. Below both the schedules (ebb/schedule.h) and the storage tiers
 * (ebb/storage.h), so that neither depends on the other for a word;
 * defined in common/vocabulary.c. */
#ifndef EBB_VOCABULARY_H
#define EBB_VOCABULARY_H

#include "ebb/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Storage tiers, fastest first. */
typedef enum ebb_tier {
    EBB_TIER_GPU = 0,
    EBB_TIER_HOST = 1,
    EBB_TIER_DISK = 2,
    EBB_TIER_COUNT = 3
} ebb_tier;

/* "gpu", "host", "disk"; "?" for anything else. Never NULL. */
EBB_API const char *ebb_tier_name(ebb_tier tier);

/* Every strategy, the one list a user reads: the seven schedules this
 * ebb/schedule.h generates (store-all .. h-revolve, values below
 * EBB_STRATEGY_COUNT), and the two the runtime adds (ebb/runtime.h): async,
 * which decides its stores as it runs (each interval between them reversed
 * by revolve), and auto, which picks one. [run] strategy in a configuration
 * takes their names. */
typedef enum ebb_strategy {
    EBB_STRATEGY_FROM_CONFIG = -1, /* ebb_run_options.strategy: run.strategy's */
    EBB_STRATEGY_STORE_ALL = 0,   /* keep every state: n-1 slots, no recomputation */
    EBB_STRATEGY_PERIODIC = 1,    /* keep every k-th state, recompute each interval once */
    EBB_STRATEGY_REVOLVE = 2,     /* binomial Revolve: the optimal offline schedule */
    EBB_STRATEGY_ONLINE = 3,      /* online checkpointing: n learnt when the forward stops */
    EBB_STRATEGY_MULTISTAGE = 4,  /* binomial with C + D slots, the least used D on disk */
    EBB_STRATEGY_DISK_REVOLVE = 5, /* periodic Disk-Revolve (Aupy & Herrmann 2017) */
    EBB_STRATEGY_H_REVOLVE = 6,    /* least total cost over memory and disk (Herrmann & Pallez) */
    EBB_STRATEGY_ASYNC = 7,        /* the runtime's: stores to a slower tier whenever its channel
                                      is free; not a schedule of ebb/schedule.h */
    EBB_STRATEGY_AUTO = 8          /* the runtime's: picks one (ebb_run_info.reason) */
} ebb_strategy;

/* The schedules (ebb_schedule_create), and every strategy. */
enum { EBB_STRATEGY_COUNT = 7, EBB_STRATEGY_ALL = 9 };

/* "store-all", "periodic", "revolve", "online", "multistage", "disk-revolve",
 * "h-revolve", "async", "auto"; "?" otherwise. */
EBB_API const char *ebb_strategy_name(ebb_strategy strategy);

/* Parses a strategy name as ebb_strategy_name prints it. EBB_ERR_INVALID_ARG
 * for an unknown name; the message lists the known ones. */
EBB_API ebb_status ebb_strategy_from_name(const char *name, ebb_strategy *out);

#ifdef __cplusplus
}
#endif

#endif
