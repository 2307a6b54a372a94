/*
 * ebb — configuration: tier budgets, disk paths and the strategy.
 *
 * A configuration is a plain C struct, ebb_config. It starts from the
 * embedded default (ebb_config_init_default), may be overridden by a TOML file
 * (ebb_config_load_file, ebb_config_load_string; keys in docs/configuration.md)
 * and by the program, which sets fields directly (and the disk paths with
 * ebb_config_set_disk_paths, since the struct owns them). ebb_config_check
 * then says whether the configuration can hold states of a given size on this
 * machine. Every error message names the file, the line and the key, and says
 * what was expected.
 *
 *     ebb_config cfg;
 *     ebb_config_init_default(&cfg);
 *     if (ebb_config_load_file("ebb.toml", &cfg) != EBB_OK ||
 *         ebb_config_check(&cfg, state_bytes) != EBB_OK)
 *         fprintf(stderr, "ebb: %s\n", ebb_last_error());
 *     ...
 *     ebb_config_dispose(&cfg);
 */
#ifndef EBB_CONFIG_H
#define EBB_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ebb/error.h"
#include "ebb/schedule.h"
#include "ebb/storage.h" /* ebb_disk_backend, ebb_disk_backend_name */

#ifdef __cplusplus
extern "C" {
#endif

/* A budget of EBB_BUDGET_AUTO bytes (TOML: budget = "auto") is sized from the
 * machine when it is used; ebb_config_budget says how. */
#define EBB_BUDGET_AUTO UINT64_C(0)

/* The most tier.host.staging = "auto" gives the transfers to and from the
 * disk tier: 256 MiB of host memory (but always at least two states). */
#define EBB_STAGING_AUTO_MAX (256ull << 20)

/* The largest rate (ebb_parse_rate, tier.disk.max_bandwidth): 1 EB/s. */
#define EBB_RATE_MAX UINT64_C(1000000000000000000)

/* The most states run.error_samples (ebb_run_options.error_samples) keeps. */
#define EBB_ERROR_SAMPLES_MAX 65536

/* tier.host.numa = "auto": the node nearest the GPU (or the first thread's). */
#define EBB_NUMA_AUTO (-1)

/* [run] strategy is an ebb_strategy (ebb/schedule.h: the seven schedules,
 * "async" and "auto"). These names are the same values, kept for code
 * written against them. */
typedef ebb_strategy ebb_config_strategy;
#define EBB_CONFIG_STRATEGY_STORE_ALL EBB_STRATEGY_STORE_ALL
#define EBB_CONFIG_STRATEGY_PERIODIC EBB_STRATEGY_PERIODIC
#define EBB_CONFIG_STRATEGY_REVOLVE EBB_STRATEGY_REVOLVE
#define EBB_CONFIG_STRATEGY_ONLINE EBB_STRATEGY_ONLINE
#define EBB_CONFIG_STRATEGY_MULTISTAGE EBB_STRATEGY_MULTISTAGE
#define EBB_CONFIG_STRATEGY_DISK_REVOLVE EBB_STRATEGY_DISK_REVOLVE
#define EBB_CONFIG_STRATEGY_H_REVOLVE EBB_STRATEGY_H_REVOLVE
#define EBB_CONFIG_STRATEGY_ASYNC EBB_STRATEGY_ASYNC
#define EBB_CONFIG_STRATEGY_AUTO EBB_STRATEGY_AUTO
#define EBB_CONFIG_STRATEGY_COUNT EBB_STRATEGY_ALL

/* Every key a configuration file may hold, in the order ebb_config_format
 * writes them. ebb_config_key_name gives the dotted name ("tier.host.budget"). */
typedef enum ebb_config_key {
    EBB_KEY_RUN_STRATEGY = 0,
    EBB_KEY_RUN_AUDIT,
    EBB_KEY_RUN_ERROR_SAMPLES,
    EBB_KEY_GPU_ENABLED,
    EBB_KEY_GPU_BUDGET,
    EBB_KEY_GPU_DEVICE,
    EBB_KEY_GPU_CHUNK_SIZE,
    EBB_KEY_HOST_ENABLED,
    EBB_KEY_HOST_BUDGET,
    EBB_KEY_HOST_NUMA,
    EBB_KEY_HOST_PIN,
    EBB_KEY_HOST_PREFAULT,
    EBB_KEY_HOST_STAGING,
    EBB_KEY_HOST_COMPRESSION,
    EBB_KEY_HOST_ELEMENT,
    EBB_KEY_HOST_RATE,
    EBB_KEY_HOST_CODEC_THREADS,
    EBB_KEY_HOST_COMPRESS_RATE,
    EBB_KEY_HOST_DECOMPRESS_RATE,
    EBB_KEY_DISK_ENABLED,
    EBB_KEY_DISK_PATH,
    EBB_KEY_DISK_BUDGET,
    EBB_KEY_DISK_BLOCK_SIZE,
    EBB_KEY_DISK_QUEUE_DEPTH,
    EBB_KEY_DISK_THREADS,
    EBB_KEY_DISK_BACKEND,
    EBB_KEY_DISK_CHECKSUM,
    EBB_KEY_DISK_DIRECT,
    EBB_KEY_DISK_MAX_BANDWIDTH,
    EBB_KEY_DISK_COMPRESSION,
    EBB_KEY_DISK_CODEC,
    EBB_KEY_DISK_LEVEL,
    EBB_KEY_DISK_SHUFFLE,
    EBB_KEY_DISK_ELEMENT,
    EBB_KEY_DISK_RATE,
    EBB_KEY_DISK_PRECISION,
    EBB_KEY_DISK_ACCURACY,
    EBB_KEY_DISK_CODEC_THREADS,
    EBB_KEY_DISK_CODEC_RATIO,
    EBB_KEY_DISK_COMPRESS_RATE,
    EBB_KEY_DISK_DECOMPRESS_RATE,
    EBB_CONFIG_KEY_COUNT
} ebb_config_key;

typedef struct ebb_config_gpu {
    int enabled;     /* tier.gpu.enabled: 1 if this tier is used */
    uint64_t budget; /* tier.gpu.budget: bytes of device memory, or EBB_BUDGET_AUTO */
    int32_t device;  /* tier.gpu.device: CUDA device ordinal, >= 0 */
    uint64_t chunk_size; /* tier.gpu.chunk_size: bytes per CUDA copy, 1 byte .. 1 GiB */
} ebb_config_gpu;

typedef struct ebb_config_host {
    int enabled;     /* tier.host.enabled */
    uint64_t budget; /* tier.host.budget: bytes of pinned host memory, or EBB_BUDGET_AUTO */
    int32_t numa;    /* tier.host.numa: NUMA node, or EBB_NUMA_AUTO */
    int pin;         /* tier.host.pin: 1 = cudaHostRegister the slots when a GPU exists */
    int prefault;    /* tier.host.prefault: 1 = touch every page when the pool is created */
    uint64_t staging; /* tier.host.staging: bytes of host memory for the transfers to and
                         from the disk tier, beyond the schedule's slots, or
                         EBB_BUDGET_AUTO (the free budget, at most EBB_STAGING_AUTO_MAX) */
    ebb_codec_options compression; /* tier.host.compression (off or fixed-rate), .element,
                                      .rate (ebb/codec.h; dims and shape come from
                                      ebb_run_options): the schedule's host slots hold
                                      compressed states, budget / fixed size of them */
    int32_t codec_threads;    /* tier.host.codec_threads: 1 .. EBB_CODEC_THREADS_MAX */
    /* The planner's figures for the compressed slots (a fixed rate's ratio
     * is known): one codec thread's compress and decompress rates in bytes
     * per second (0: not known, taken as no time; decompress then taken as
     * compress), as the disk tier's below */
    uint64_t compress_rate;   /* tier.host.compress_rate */
    uint64_t decompress_rate; /* tier.host.decompress_rate */
} ebb_config_host;

typedef struct ebb_config_disk {
    int enabled;              /* tier.disk.enabled */
    char **paths;             /* tier.disk.path: one directory per drive; owned:
                                 change with ebb_config_set_disk_paths */
    size_t path_count;        /* >= 1 */
    uint64_t budget;          /* tier.disk.budget: bytes over all paths, or EBB_BUDGET_AUTO */
    uint64_t block_size;      /* tier.disk.block_size: bytes per I/O request, multiple of 4 KiB */
    int32_t queue_depth;      /* tier.disk.queue_depth: requests in flight, 1..4096 */
    int32_t threads;          /* tier.disk.threads: workers of the thread backend,
                                 0 = as many as queue_depth, 0..1024 */
    ebb_disk_backend backend; /* tier.disk.backend (enum in ebb/storage.h) */
    int checksum;             /* tier.disk.checksum: 1 = XXH3-64 of every block, verified
                                 on every read */
    int direct;               /* tier.disk.direct: 1 = O_DIRECT (buffered where refused) */
    uint64_t max_bandwidth;   /* tier.disk.max_bandwidth: bytes per second, reads and
                                 writes together; 0 = no limit ("none"), at most
                                 EBB_RATE_MAX */
    ebb_codec_options compression; /* tier.disk.compression, .codec, .level, .shuffle,
                                      .element, .rate, .precision, .accuracy (ebb/codec.h;
                                      dims and shape come from ebb_run_options) */
    int32_t codec_threads;    /* tier.disk.codec_threads: 1 .. EBB_CODEC_THREADS_MAX */
    /* The planner's figures for the compressed channel, which a run cannot
     * measure before it starts (auto's pick; docs/compression.md, *The
     * channel*): state bytes over stored bytes (0: not known, the disk is
     * planned raw), one codec thread's compress and decompress rates in
     * bytes per second (0: not known; decompress then taken as compress) */
    double codec_ratio;       /* tier.disk.codec_ratio: 0, or 1 .. 1e6 */
    uint64_t compress_rate;   /* tier.disk.compress_rate */
    uint64_t decompress_rate; /* tier.disk.decompress_rate */
} ebb_config_disk;

typedef struct ebb_config {
    ebb_config_strategy strategy; /* run.strategy */
    int audit;                    /* run.audit: an ebb_audit of ebb/runtime.h
                                     (0 off, 1 replay, 2 hash); default 0 */
    int32_t error_samples;        /* run.error_samples: exact copies of states kept for
                                     the lossy error estimate (ebb_run_options.error_samples);
                                     0 (default): off */
    ebb_config_gpu gpu;
    ebb_config_host host;
    ebb_config_disk disk;

    /* Where the values came from, for messages: the file name given to the
     * last successful load (owned; NULL before any), and for each key the
     * line of that file that set it (0: not set by a file). */
    char *source;
    int32_t line[EBB_CONFIG_KEY_COUNT];

    /* Fault injection for tests; leave it 0. When nonzero, creating the probe
     * file in a disk path (the "is it writable" test) fails with this errno. */
    int fault_write_errno;
} ebb_config;

/* The embedded default (docs/configuration.md): strategy "auto"; audit
 * "off"; the GPU tier enabled when this build has CUDA and a device is found;
 * host and disk tiers enabled with budget "auto" (and host staging "auto");
 * the disk tier in $TMPDIR (if set and absolute) or /tmp. Overwrites *cfg without freeing it: call
 * ebb_config_dispose first on a configuration in use. EBB_ERR_NO_MEMORY if
 * the path cannot be copied. */
EBB_API ebb_status ebb_config_init_default(ebb_config *cfg);

/* Frees what *cfg owns and zeroes it. NULL is allowed. Cannot fail. */
EBB_API void ebb_config_dispose(ebb_config *cfg);

/* Deep copy of `src` into *dst (which is overwritten, not freed). */
EBB_API ebb_status ebb_config_copy(const ebb_config *src, ebb_config *dst);

/* Reads a TOML file and applies it over *cfg, which must be initialized
 * (ebb_config_init_default). Keys the file does not set keep their values.
 * The whole file is validated: syntax, unknown keys (with the closest known
 * key suggested), types, sizes, ranges, the disk paths (exist, are
 * directories, are writable, have the space for the budget) when the file
 * sets tier.disk.path or tier.disk.budget, and the NUMA node. Relative disk
 * paths are taken from the file's directory. On failure *cfg is unchanged:
 * EBB_ERR_IO if the file cannot be read, EBB_ERR_CONFIG for its contents,
 * EBB_ERR_NO_SPACE when a disk path lacks the space for the budget. */
EBB_API ebb_status ebb_config_load_file(const char *path, ebb_config *cfg);

/* As ebb_config_load_file, for TOML text; `name` stands for the file name in
 * messages (NULL: "<string>"). Relative disk paths stay relative to the
 * current directory. */
EBB_API ebb_status ebb_config_load_string(const char *toml, const char *name, ebb_config *cfg);

/* Whether *cfg can run states of `state_bytes` bytes here (0: size unknown,
 * skip those checks): at least one tier enabled; each enabled tier's budget
 * (auto resolved now) holds at least one state (the disk tier: one state
 * rounded up to 4 KiB); the GPU device exists; the host budget is below the
 * physical memory; every disk path exists, is a writable directory and has
 * the space for its share of the budget. Errors name the key and, when a file
 * set it, the file and line. EBB_ERR_CONFIG, EBB_ERR_NO_SPACE,
 * EBB_ERR_UNSUPPORTED (GPU tier without a device), EBB_ERR_NO_MEMORY
 * (budget smaller than a state). */
EBB_API ebb_status ebb_config_check(const ebb_config *cfg, size_t state_bytes);

/* The first enabled tier (gpu, host, disk) whose compression is lossy
 * (ebb_compression_lossy) into *tier, -1 when none is: states stored there
 * come back changed. EBB_ERR_INVALID_ARG for a NULL argument. */
EBB_API ebb_status ebb_config_lossy_tier(const ebb_config *cfg, int *tier);

/* The budget of `tier` in bytes, EBB_BUDGET_AUTO resolved from the machine
 * now: GPU half of the device's free memory, host half of MemAvailable
 * (capped by the cgroup's memory limit), disk half of the free space (every
 * path an equal share); rounded down to 4 KiB. 0 for a disabled tier.
 * EBB_ERR_UNSUPPORTED when the GPU tier is asked for and there is no device. */
EBB_API ebb_status ebb_config_budget(const ebb_config *cfg, ebb_tier tier, uint64_t *bytes);

/* Fills *out with the options of a pool for `tier` that holds states of
 * `state_bytes` bytes, as the configuration describes it. *out starts from
 * ebb_pool_options_init(out, tier); then:
 *   slot_size    state_bytes
 *   slots        how many slots the tier's budget holds (ebb_config_budget,
 *                "auto" resolved now), each slot rounded up as the pool
 *                rounds it: host to the page size (at least 4 KiB), gpu to
 *                256 bytes, disk to 4 KiB (with several paths each path
 *                takes an equal share of the budget and of the slots; with
 *                tier.disk.compression = "fixed-rate" and a float element,
 *                a disk slot holds the compressed size when it is smaller;
 *                with tier.host.compression = "fixed-rate" and a float
 *                element, a host slot is the compressed size rounded up to
 *                EBB_HOST_PACKED_ALIGN);
 *                capped at INT32_MAX
 *   numa_node, pin, prefault                  tier.host.numa, .pin, .prefault
 *   device                                    tier.gpu.device
 *   paths, path_count, backend, queue_depth, threads, direct, checksum,
 *   max_bandwidth                             tier.disk.*
 *   block        tier.gpu.chunk_size for the gpu tier, tier.disk.block_size
 *                otherwise
 *   staging      NULL: link the disk pool to its host pool yourself.
 *   compression, codec_threads   the disk tier: &cfg->disk.compression when
 *                tier.disk.compression is not "off" (else NULL), and
 *                tier.disk.codec_threads; the host tier: the same of
 *                tier.host.*
 * The pool so created may use slightly more than slots * state_bytes bytes
 * (the rounding above) but at most the budget, except on a disk file system
 * whose direct-I/O alignment exceeds 4 KiB, to which the disk pool rounds
 * each slot instead. `paths` is borrowed, not copied: it points into
 * cfg->disk.paths and stays valid while *cfg is unchanged (no load, no
 * ebb_config_set_disk_paths, no ebb_config_dispose); so is `compression`.
 * Override any field before ebb_pool_create (a command line's --depth, say).
 * The device, the disk directories and their free space are not checked
 * here (ebb_config_check and ebb_pool_create do): for the gpu tier with a
 * set tier.gpu.budget the options are filled even where there is no GPU, and
 * ebb_pool_create is what fails (EBB_ERR_UNSUPPORTED); with budget "auto"
 * there is no budget without a device: EBB_ERR_UNSUPPORTED here.
 * Errors (*out is written only on success): EBB_ERR_INVALID_ARG for NULL cfg
 * or out, state_bytes 0, or a tier that is none; EBB_ERR_CONFIG when the
 * tier is disabled (naming tier.<t>.enabled) or a value is out of range (as
 * ebb_config_check says); EBB_ERR_NO_MEMORY, as ebb_config_check and
 * ebb_run_create, when the budget holds no slot (naming tier.<t>.budget,
 * with the budget, the state size and the budget needed);
 * the errors of ebb_config_budget. Each names the file and line that set
 * the key, when a file did. */
EBB_API ebb_status ebb_config_pool_options(const ebb_config *cfg, ebb_tier tier, size_t state_bytes,
                                           ebb_pool_options *out);

/* Replaces the disk paths with copies of paths[0 .. count-1] (count >= 1,
 * none NULL or empty). They are checked by ebb_config_check. */
EBB_API ebb_status ebb_config_set_disk_paths(ebb_config *cfg, const char *const *paths,
                                             size_t count);

/* Writes *cfg as a TOML file that loads back to the same values (sizes as
 * exact units, "auto" where auto). Snprintf-like: at most `size` bytes,
 * NUL included, go to `buf` (NULL allowed when size is 0); *length (may be
 * NULL) receives the full length without the NUL, so a caller can size a
 * buffer and call again. EBB_ERR_INVALID_ARG for NULL cfg. */
EBB_API ebb_status ebb_config_format(const ebb_config *cfg, char *buf, size_t size,
                                     size_t *length);

/* As ebb_config_format, onto a stream. EBB_ERR_IO if writing fails. */
EBB_API ebb_status ebb_config_write(const ebb_config *cfg, FILE *stream);

/* "run.strategy", "tier.host.budget", ...; "?" for anything else. Never NULL. */
EBB_API const char *ebb_config_key_name(ebb_config_key key);

/* ebb_strategy_name's names: "store-all", "periodic", "revolve", "online",
 * "multistage", "disk-revolve", "h-revolve", "async", "auto"; "?" for
 * anything else. Never NULL. */
EBB_API const char *ebb_config_strategy_name(ebb_config_strategy strategy);

/* Parses a strategy name. EBB_ERR_INVALID_ARG for an unknown name; the
 * message lists the known ones and suggests the closest. */
EBB_API ebb_status ebb_config_strategy_from_name(const char *name, ebb_config_strategy *out);

/* A schedule of ebb/schedule.h: the strategy itself when it is one;
 * EBB_ERR_UNSUPPORTED for "auto" and "async", which are not single
 * schedules (the planner and the runtime decide). */
EBB_API ebb_status ebb_config_strategy_schedule(ebb_config_strategy strategy, ebb_strategy *out);

/* Parses a size: a whole number of bytes ("4096") or a number and a unit
 * ("64 GiB", "512MiB", "1.5 GB", "0.5TiB"). Units, case-insensitive: B;
 * KiB MiB GiB TiB PiB (powers of 1024); kB MB GB TB PB (powers of 1000).
 * A unit with no B ("64G") is refused as ambiguous. A fraction needs a unit
 * and is rounded down to whole bytes. Spaces around the number and the unit
 * are allowed. EBB_ERR_INVALID_ARG, with the reason, for anything else
 * (negative, empty, unknown unit, more than 2^64 - 1 bytes). 0 is accepted. */
EBB_API ebb_status ebb_parse_size(const char *text, uint64_t *bytes);

/* Writes `bytes` as the shortest exact size ebb_parse_size reads back
 * ("64 GiB", "1.5 GB", "12345") into buf. Snprintf-like return. */
EBB_API int ebb_format_size(uint64_t bytes, char *buf, size_t size);

/* Parses a rate in bytes per second: a size as ebb_parse_size reads it
 * followed by "/s" ("500 MB/s", "2 GiB/s", "1.5GB/s", "4096 B/s"), or a
 * bare whole number of bytes per second ("1000000", "1000000/s"); "none"
 * gives 0, no limit. "/s" is required after a unit ("500 MB" is refused),
 * and a unit ending in a lowercase b ("Mb/s", "Gbit") is refused as bits.
 * EBB_ERR_INVALID_ARG, with the reason, for anything else (0, more than
 * EBB_RATE_MAX, a bad size, "MBps", "/sec"). */
EBB_API ebb_status ebb_parse_rate(const char *text, uint64_t *bytes_per_second);

/* Writes a rate as ebb_parse_rate reads it back ("500 MB/s", "1 GiB/s",
 * "12345 B/s"; "none" for 0). Snprintf-like return. */
EBB_API int ebb_format_rate(uint64_t bytes_per_second, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
