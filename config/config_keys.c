/* The table of keys (config_keys.h): one entry per ebb_config_key, in the
 * order files are written. Adding a plain key: an entry here, its field in
 * struct ebb_config and its value in enum ebb_config_key (ebb/config.h),
 * and its line in docs/configuration.md (tests/config/docs_match_table.c
 * says where it is missing). */
#include "config/config_keys.h"

#include <stddef.h>
#include <stdint.h>

#include "config/config_internal.h"
#include "common/codec_names.h"

/* offsetof(ebb_config, m), refused at compile time (an array of size -1) when
 * the field is not the size of the type the key's type stores. */
#define AT(m, t)                                                                            \
    .offset = offsetof(ebb_config, m) +                                                     \
              0 * sizeof(char[sizeof(((ebb_config *)0)->m) == sizeof(t) ? 1 : -1]),         \
    .field = "cfg." #m

#define ENUM(m) .type = EBB_KEY_TYPE_ENUM, AT(m, int)
#define BOOL(m) .type = EBB_KEY_TYPE_BOOL, AT(m, int)
#define SIZE(m) .type = EBB_KEY_TYPE_SIZE, AT(m, uint64_t), .unit = "bytes"
#define INT(m) .type = EBB_KEY_TYPE_INT, AT(m, int32_t)
#define RATE(m) .type = EBB_KEY_TYPE_RATE, AT(m, uint64_t), .unit = "bytes per second"
#define DOUBLE(m) .type = EBB_KEY_TYPE_DOUBLE, AT(m, double)

/* Where a compression key applies. */
#define LOSSLESS_ONLY " Used with compression = \"lossless\"."

/* The compression keys the host and disk tiers share (t: host or disk),
 * each defined once; the text a tier adds to a key's doc after it. */
#define COMPRESSION_KEY(t, modes)                                                          \
    .name = "tier." #t ".compression", ENUM(t.compression.mode),                           \
    .names = ebb_codec_mode_names, .name_count = EBB_COMPRESSION_COUNT,                    \
    .c_type = "ebb_compression", .dflt = EBB_COMPRESSION_OFF, .doc = modes
#define ELEMENT_KEY(t, more)                                                               \
    .name = "tier." #t ".element", ENUM(t.compression.element),                            \
    .names = ebb_codec_element_names, .name_count = EBB_ELEMENT_COUNT,                     \
    .c_type = "ebb_element", .dflt = EBB_ELEMENT_BYTES,                                    \
    .doc = "What a state is an array of: \"bytes\" (unknown), \"float32\" or "             \
           "\"float64\". " more " ebb_run_options.element, when set, wins."
#define RATE_KEY(t)                                                                        \
    .name = "tier." #t ".rate", DOUBLE(t.compression.rate), .dmin = 1, .dmax = 64,         \
    .ddflt = 16, .what = "bits per value",                                                 \
    .doc = "Fixed-rate compression: bits per value (at most the element's: 32 for "       \
           "float32, 64 for float64); every state then takes rate / element bits of "     \
           "its size."
#define CODEC_THREADS_KEY(t, role)                                                         \
    .name = "tier." #t ".codec_threads", INT(t.codec_threads), .min = 1,                   \
    .max = EBB_CODEC_THREADS_MAX, .what = "an integer", .unit = "threads",                 \
    .dflt = EBB_CODEC_THREADS_DEFAULT,                                                      \
    .doc = "Threads of the " #t " tier that compress and decompress states, " role         \
           " (never the compute thread)."

/* The planner's codec rates of a tier (docs/compression.md, *The channel*). */
#define COMPRESS_RATE_KEY(t)                                                               \
    .name = "tier." #t ".compress_rate", RATE(t.compress_rate), .dflt = 0,                 \
    .doc = "For the planner (auto): one codec thread's compression, state bytes a second " \
           "(\"1.9 GB/s\"); \"none\" (default): not known, taken as no time."
#define DECOMPRESS_RATE_KEY(t)                                                             \
    .name = "tier." #t ".decompress_rate", RATE(t.decompress_rate), .dflt = 0,             \
    .doc = "For the planner (auto): one codec thread's decompression; \"none\" "           \
           "(default): taken as compress_rate."

/* What a budget of 0 means to say. */
#define TIER_OFF " (to turn the tier off, write enabled = false)"

#define MiB(n) ((int64_t)(n) << 20)
#define GiB(n) ((int64_t)(n) << 30)

const ebb_key_def ebb_config_keys[EBB_CONFIG_KEY_COUNT] = {
    [EBB_KEY_RUN_STRATEGY] = {
        .name = "run.strategy", ENUM(strategy),
        .names = ebb_config_strategy_names, .name_count = EBB_CONFIG_STRATEGY_COUNT,
        .c_type = "ebb_config_strategy", .dflt = EBB_CONFIG_STRATEGY_AUTO,
        .doc = "How states are kept: \"store-all\" every state, \"periodic\" every k-th, "
               "\"revolve\" binomial Revolve, \"online\" for a sweep of unknown length, "
               "\"multistage\", \"disk-revolve\" and \"h-revolve\" with slots on disk (they "
               "need the disk tier), \"async\" the runtime's adaptive schedule, \"auto\" the "
               "fastest the planner predicts.",
    },
    [EBB_KEY_RUN_AUDIT] = {
        .name = "run.audit", ENUM(audit),
        .names = ebb_config_audit_names, .name_count = EBB_CONFIG_AUDIT_COUNT,
        .c_type = "ebb_audit", .dflt = 0,
        .doc = "replay: every action is checked by the replay validator as the runtime "
               "executes it; hash: replay, and every state is hashed (XXH3) when first "
               "computed and checked whenever it is recomputed or restored, 8 bytes of "
               "memory per step; a forward step that is not deterministic is named. The "
               "environment variable EBB_AUDIT (off|replay|hash) overrides this key.",
    },
    [EBB_KEY_RUN_ERROR_SAMPLES] = {
        .name = "run.error_samples", INT(error_samples), .min = 0, .max = EBB_ERROR_SAMPLES_MAX,
        .what = "an integer", .unit = "states", .dflt = 0,
        .doc = "The lossy error estimate: the first forward sweep keeps exact copies of this "
               "many states spread over the sweep (this many states of host memory), and the "
               "reverse sweep compares each sampled state it hands out with its copy "
               "(ebb_run_stats.state_rel_error_max, state_rel_error_rms). 0: off. The "
               "environment variable EBB_ERROR_SAMPLES overrides this key and "
               "ebb_run_options.error_samples, which (when >= 0) overrides the key.",
    },
    [EBB_KEY_GPU_ENABLED] = {
        .name = "tier.gpu.enabled", BOOL(gpu.enabled),
        .default_doc = "`true` if this build has CUDA and a device is found, else `false`",
        .doc = "Use GPU memory for states. Without CUDA support in the build or without a "
               "device, ebb_config_check refuses an enabled GPU tier.",
    },
    [EBB_KEY_GPU_BUDGET] = {
        .name = "tier.gpu.budget", SIZE(gpu.budget), .has_auto = 1, .dflt = 0,
        .zero_note = TIER_OFF,
        .doc = "Bytes of device memory for states; \"auto\" is half of the device's free "
               "memory when the budget is asked for, rounded down to 4 KiB.",
    },
    [EBB_KEY_GPU_DEVICE] = {
        .name = "tier.gpu.device", INT(gpu.device), .min = 0, .max = EBB_CONFIG_MAX_GPU_DEVICE,
        .what = "a CUDA device number", .dflt = 0,
        .doc = "The CUDA device ordinal, as cudaSetDevice takes it (CUDA_VISIBLE_DEVICES "
               "applies).",
    },
    [EBB_KEY_GPU_CHUNK_SIZE] = {
        .name = "tier.gpu.chunk_size", SIZE(gpu.chunk_size), .min = 1,
        .max = EBB_CONFIG_MAX_BLOCK_SIZE, .note = " (bytes per CUDA copy)", .dflt = MiB(64),
        .doc = "Bytes per CUDA copy: a state moves to or from the GPU tier as "
               "cudaMemcpyAsync calls of at most this size.",
    },
    [EBB_KEY_HOST_ENABLED] = {
        .name = "tier.host.enabled", BOOL(host.enabled), .dflt = 1,
        .doc = "Use host memory for states.",
    },
    [EBB_KEY_HOST_BUDGET] = {
        .name = "tier.host.budget", SIZE(host.budget), .has_auto = 1, .dflt = 0,
        .zero_note = TIER_OFF,
        .doc = "Bytes of page-locked host memory; \"auto\" is half of MemAvailable, capped by "
               "the memory cgroup, rounded down to 4 KiB. More than the machine's memory is "
               "refused.",
    },
    [EBB_KEY_HOST_NUMA] = {
        .name = "tier.host.numa", INT(host.numa), .min = 0, .max = 4095, .has_auto = 1,
        .auto_value = EBB_NUMA_AUTO, .expected = "\"auto\" or a NUMA node number (0, 1, ...)",
        .dflt = EBB_NUMA_AUTO,
        .doc = "The NUMA node to allocate on; \"auto\" is the node nearest the GPU. A node "
               "that does not exist is an error when the file is loaded.",
    },
    [EBB_KEY_HOST_PIN] = {
        .name = "tier.host.pin", BOOL(host.pin), .dflt = 1,
        .doc = "Page-lock the tier's memory for the GPU (cudaHostRegister) when a GPU "
               "exists, so that copies between the host and GPU tiers run by DMA.",
    },
    [EBB_KEY_HOST_PREFAULT] = {
        .name = "tier.host.prefault", BOOL(host.prefault), .dflt = 1,
        .doc = "Fault every page of the tier in when it is created, so that a shortage of "
               "memory shows then, not in the middle of the forward sweep.",
    },
    [EBB_KEY_HOST_STAGING] = {
        .name = "tier.host.staging", SIZE(host.staging), .has_auto = 1, .dflt = 0,
        .zero_note = " (write \"auto\" for the default)",
        .doc = "Host memory for the transfers to and from the disk tier (states written "
               "behind the forward sweep, and read ahead of the reverse sweep), beyond the "
               "schedule's slots. \"auto\" is what the host budget leaves free after the "
               "schedule's slots and the two working buffers, at most 256 MiB "
               "(EBB_STAGING_AUTO_MAX), and at least two states. A size is that many bytes' "
               "worth of states, rounded down, at least two; it may exceed what the budget "
               "leaves free (it is working memory, reported in ebb_run_info.buffers and "
               ".bytes). ebb_run_options.staging, a count of buffers, wins when above 0. Used "
               "only when the run uses the disk tier.",
    },
    [EBB_KEY_HOST_COMPRESSION] = {
        COMPRESSION_KEY(host,
                        "The schedule's host slots hold compressed states (docs/compression.md, "
                        "*The host tier*): \"off\", or \"fixed-rate\" (zfp, lossy: it needs "
                        "element = \"float32\" or \"float64\"), each state then taking a slot of "
                        "its fixed size, so the budget holds that many more. The other modes are "
                        "refused: the size of their compressed states is not known before."),
    },
    [EBB_KEY_HOST_ELEMENT] = {
        ELEMENT_KEY(host, "Fixed-rate needs a float type."),
    },
    [EBB_KEY_HOST_RATE] = {
        RATE_KEY(host),
    },
    [EBB_KEY_HOST_CODEC_THREADS] = {
        CODEC_THREADS_KEY(host, "as states are stored into the tier and restored out of it"),
    },
    [EBB_KEY_HOST_COMPRESS_RATE] = {
        COMPRESS_RATE_KEY(host),
    },
    [EBB_KEY_HOST_DECOMPRESS_RATE] = {
        DECOMPRESS_RATE_KEY(host),
    },
    [EBB_KEY_DISK_ENABLED] = {
        .name = "tier.disk.enabled", BOOL(disk.enabled), .dflt = 1,
        .doc = "Use the disk tier.",
    },
    [EBB_KEY_DISK_PATH] = {
        .name = "tier.disk.path", .type = EBB_KEY_TYPE_PATHS, AT(disk.paths, char **),
        .count_offset = offsetof(ebb_config, disk.path_count),
        .default_doc = "`$TMPDIR` if set and absolute, else `/tmp`",
        .doc = "The directory for the tier's file, or one directory per drive (slots are "
               "striped across them). Each must exist, be a directory and be writable; a "
               "relative path is taken from the file's directory.",
    },
    [EBB_KEY_DISK_BUDGET] = {
        .name = "tier.disk.budget", SIZE(disk.budget), .has_auto = 1, .dflt = 0,
        .zero_note = TIER_OFF,
        .doc = "Bytes over all the paths, shared equally among them; \"auto\" is a quarter of "
               "the free space divided by the processes on the node. A budget the file systems "
               "cannot hold is an error at load.",
    },
    [EBB_KEY_DISK_BLOCK_SIZE] = {
        .name = "tier.disk.block_size", SIZE(disk.block_size), .min = EBB_CONFIG_DIO_ALIGN,
        .max = EBB_CONFIG_MAX_BLOCK_SIZE, .align = EBB_CONFIG_DIO_ALIGN,
        .note = " (O_DIRECT alignment)", .dflt = MiB(8),
        .doc = "Bytes per I/O request; a state is moved as several requests of this size in "
               "flight.",
    },
    [EBB_KEY_DISK_QUEUE_DEPTH] = {
        .name = "tier.disk.queue_depth", INT(disk.queue_depth), .min = 1,
        .max = EBB_CONFIG_MAX_QUEUE_DEPTH, .what = "an integer", .unit = "requests", .dflt = 16,
        .doc = "Requests in flight (io_uring submission depth, or the workers of the thread "
               "backend unless threads says otherwise).",
    },
    [EBB_KEY_DISK_THREADS] = {
        .name = "tier.disk.threads", INT(disk.threads), .min = 0,
        .max = EBB_CONFIG_MAX_DISK_THREADS, .what = "an integer",
        .note = " (0: as many as queue_depth)", .unit = "workers", .dflt = 0,
        .doc = "Workers of the thread backend, each running one pread or pwrite at a time; "
               "0 is as many as queue_depth. io_uring ignores it.",
    },
    [EBB_KEY_DISK_BACKEND] = {
        .name = "tier.disk.backend", ENUM(disk.backend),
        .names = ebb_config_backend_names, .name_count = EBB_CONFIG_BACKEND_COUNT,
        .alias = "io_uring", .alias_value = EBB_DISK_BACKEND_URING, /* as storage prints it */
        .c_type = "ebb_disk_backend", .dflt = EBB_DISK_BACKEND_AUTO,
        .doc = "\"auto\" uses io_uring and falls back to a thread pool where io_uring is "
               "refused; \"uring\" makes that refusal an error; \"threads\" always uses the "
               "thread pool.",
    },
    [EBB_KEY_DISK_CHECKSUM] = {
        .name = "tier.disk.checksum", BOOL(disk.checksum), .dflt = 0,
        .doc = "An xxHash checksum of every stored slot, verified on every read.",
    },
    [EBB_KEY_DISK_DIRECT] = {
        .name = "tier.disk.direct", BOOL(disk.direct), .dflt = 1,
        .doc = "O_DIRECT I/O that bypasses the page cache (buffered, with a warning, where "
               "the file system refuses it).",
    },
    [EBB_KEY_DISK_MAX_BANDWIDTH] = {
        .name = "tier.disk.max_bandwidth", RATE(disk.max_bandwidth), .dflt = 0,
        .doc = "The most the tier may move, reads and writes together: \"500 MB/s\", "
               "\"2 GiB/s\", or bytes per second; \"none\" is no limit. Requests are paced "
               "one block at a time, so that over any interval at most the rate times its "
               "length plus one block (and 1 ms at the rate) is sent.",
    },
    [EBB_KEY_DISK_COMPRESSION] = {
        COMPRESSION_KEY(disk,
                        "States compressed on their way to the disk and decompressed on their "
                        "way back (docs/compression.md): \"off\"; \"lossless\" (c-blosc: every "
                        "byte back); \"fixed-rate\", \"fixed-precision\" or \"fixed-accuracy\" "
                        "(zfp, lossy: they need element = \"float32\" or \"float64\")."),
    },
    [EBB_KEY_DISK_CODEC] = {
        .name = "tier.disk.codec", ENUM(disk.compression.codec),
        .names = ebb_codec_names, .name_count = EBB_CODEC_COUNT,
        .c_type = "ebb_codec_name", .dflt = EBB_CODEC_LZ4,
        .doc = "c-blosc's compressor: \"lz4\", \"lz4hc\", \"zstd\", \"zlib\" or "
               "\"blosclz\"." LOSSLESS_ONLY,
    },
    [EBB_KEY_DISK_LEVEL] = {
        .name = "tier.disk.level", INT(disk.compression.level), .min = 1, .max = 9,
        .what = "an integer", .note = " (1 fastest, 9 smallest)", .dflt = 5,
        .doc = "c-blosc's compression level." LOSSLESS_ONLY,
    },
    [EBB_KEY_DISK_SHUFFLE] = {
        .name = "tier.disk.shuffle", ENUM(disk.compression.shuffle),
        .names = ebb_codec_shuffle_names, .name_count = EBB_SHUFFLE_COUNT,
        .c_type = "ebb_shuffle", .dflt = EBB_SHUFFLE_BYTE,
        .doc = "c-blosc's shuffle of each value's bytes (\"byte\") or bits (\"bit\") "
               "before compressing, over values of the element's size; \"none\"."
               LOSSLESS_ONLY,
    },
    [EBB_KEY_DISK_ELEMENT] = {
        ELEMENT_KEY(disk, "The lossy modes need a float type; lossless shuffles values of its "
                          "size."),
    },
    [EBB_KEY_DISK_RATE] = {
        RATE_KEY(disk),
    },
    [EBB_KEY_DISK_PRECISION] = {
        .name = "tier.disk.precision", INT(disk.compression.precision), .min = 1, .max = 64,
        .what = "an integer", .note = " (bit planes)", .dflt = 32,
        .doc = "Fixed-precision compression: bit planes kept per value (at most the "
               "element's bits).",
    },
    [EBB_KEY_DISK_ACCURACY] = {
        .name = "tier.disk.accuracy", DOUBLE(disk.compression.accuracy), .dmin = 0,
        .dmin_open = 1, .dmax = 1e300, .ddflt = 1e-6, .what = "an absolute error",
        .doc = "Fixed-accuracy compression: the largest absolute error of any value.",
    },
    [EBB_KEY_DISK_CODEC_THREADS] = {
        CODEC_THREADS_KEY(disk, "beside its I/O threads"),
    },
    [EBB_KEY_DISK_CODEC_RATIO] = {
        .name = "tier.disk.codec_ratio", DOUBLE(disk.codec_ratio), .dmin = 0, .dmax = 1e6,
        .ddflt = 0, .what = "a number",
        .doc = "For the planner (auto): the compression ratio of the states, as 'ebb run' "
               "measured it or 'ebb bench --compression' on the same data; 0, the default: "
               "not known, the disk is planned raw (a fixed rate's is known).",
    },
    [EBB_KEY_DISK_COMPRESS_RATE] = {
        COMPRESS_RATE_KEY(disk),
    },
    [EBB_KEY_DISK_DECOMPRESS_RATE] = {
        DECOMPRESS_RATE_KEY(disk),
    },
};

/* The ENUM and BOOL keys store through an int. */
_Static_assert(sizeof(ebb_config_strategy) == sizeof(int), "run.strategy is stored as an int");
_Static_assert(sizeof(ebb_disk_backend) == sizeof(int), "tier.disk.backend is stored as an int");
_Static_assert(sizeof(ebb_compression) == sizeof(int) && sizeof(ebb_codec_name) == sizeof(int) &&
                   sizeof(ebb_shuffle) == sizeof(int) && sizeof(ebb_element) == sizeof(int),
               "the compression keys are stored as ints");
