/* A value of the wrong type names the key, what was expected and what was
 * found. */
#include "config/helpers.h"

Test(wrong_types, strategy)
{
    expect_load_error("[run]\nstrategy = 3\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'run.strategy': expected one of \"store-all\", \"periodic\", "
                      "\"revolve\", \"online\", \"multistage\", \"disk-revolve\", \"h-revolve\", "
                      "\"async\" or \"auto\", got the integer 3", NULL);
    expect_load_error("[run]\nstrategy = \"revolv\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'run.strategy'", "got the string \"revolv\" (did you mean \"revolve\"?)",
                      NULL);
}

Test(wrong_types, booleans)
{
    expect_load_error("[tier.disk]\nchecksum = \"yes\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.disk.checksum': expected true or false, got the string \"yes\"",
                      NULL);
    expect_load_error("[tier.disk]\ndirect = 1\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.disk.direct': expected true or false, got the integer 1", NULL);
    expect_load_error("[tier.gpu]\nenabled = 0\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.gpu.enabled': expected true or false, got the integer 0", NULL);
}

Test(wrong_types, integers)
{
    expect_load_error("[tier.disk]\nqueue_depth = \"32\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.disk.queue_depth': expected an integer from 1 to 4096, got "
                      "the string \"32\"", NULL);
    expect_load_error("[tier.disk]\nqueue_depth = 0\n", EBB_ERR_CONFIG,
                      "key 'tier.disk.queue_depth': expected an integer from 1 to 4096, got the integer 0",
                      NULL);
    expect_load_error("[tier.disk]\nqueue_depth = 4.5\n", EBB_ERR_CONFIG,
                      "key 'tier.disk.queue_depth': expected an integer from 1 to 4096, got the float 4.5",
                      NULL);
    expect_load_error("[tier.gpu]\ndevice = -1\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.gpu.device': expected a CUDA device number from 0 to 1023, "
                      "got the integer -1", NULL);
}

Test(wrong_types, numa)
{
    expect_load_error("[tier.host]\nnuma = \"near\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.host.numa': expected \"auto\" or a NUMA node number (0, 1, "
                      "...), got the string \"near\"", NULL);
    expect_load_error("[tier.host]\nnuma = -2\n", EBB_ERR_CONFIG, "key 'tier.host.numa'",
                      "got the integer -2", NULL);
}

Test(wrong_types, backend)
{
    expect_load_error("[tier.disk]\nbackend = \"thread\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.disk.backend': expected one of \"auto\", \"uring\" or "
                      "\"threads\", got the string \"thread\" (did you mean \"threads\"?)", NULL);
    expect_load_error("[tier.disk]\nbackend = true\n", EBB_ERR_CONFIG,
                      "key 'tier.disk.backend'", "got the boolean true", NULL);
}

Test(wrong_types, sizes)
{
    expect_load_error("[tier.host]\nbudget = 1.5\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.host.budget': expected a size: an integer number of bytes or "
                      "a string such as \"64 GiB\", or \"auto\", got the float 1.5", NULL);
    expect_load_error("[tier.disk]\nblock_size = [4096]\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.disk.block_size': expected a size", "got an array", NULL);
}

Test(wrong_types, paths)
{
    expect_load_error("[tier.disk]\npath = 5\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.disk.path': expected a directory (a string) or a list of "
                      "directories, one per drive, got the integer 5", NULL);
    expect_load_error("[tier.disk]\npath = [\"/tmp\",\n  5]\n", EBB_ERR_CONFIG,
                      "t.toml:3: key 'tier.disk.path[1]': expected a directory (a string), got the "
                      "integer 5", NULL);
    expect_load_error("[tier.disk]\npath = []\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.disk.path': expected a directory", "got an empty list", NULL);
    expect_load_error("[tier.disk]\npath = \"\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.disk.path': expected a directory, got an empty string", NULL);
}

Test(wrong_types, tables_and_values_swapped)
{
    expect_load_error("tier = 5\n", EBB_ERR_CONFIG, "t.toml:1: key 'tier': expected a table, got the integer 5",
                      NULL);
    expect_load_error("[tier]\nhost = \"big\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.host': expected a table, got the string \"big\"", NULL);
    expect_load_error("[run.strategy]\nname = \"auto\"\n", EBB_ERR_CONFIG,
                      "t.toml:1: key 'run.strategy': expected one of", "got a table", NULL);
    expect_load_error("[tier.gpu]\nbudget = 2024-01-01\n", EBB_ERR_CONFIG,
                      "key 'tier.gpu.budget'", "got a date", NULL);
}

/* The keys that map to ebb_pool_options fields: tier.host.pin and
 * tier.host.prefault (booleans), tier.disk.threads (an integer with its range),
 * tier.gpu.chunk_size (a size; bad sizes are in bad_sizes.c). */
Test(wrong_types, pool_booleans)
{
    expect_load_error("[tier.host]\npin = \"yes\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.host.pin': expected true or false, got the string \"yes\"",
                      NULL);
    expect_load_error("[tier.host]\n\npin = 1\n", EBB_ERR_CONFIG,
                      "t.toml:3: key 'tier.host.pin': expected true or false, got the integer 1", NULL);
    expect_load_error("[tier.host]\nprefault = 0\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.host.prefault': expected true or false, got the integer 0",
                      NULL);
    expect_load_error("tier.host.prefault = \"false\"\n", EBB_ERR_CONFIG,
                      "t.toml:1: key 'tier.host.prefault': expected true or false, got the string "
                      "\"false\"", NULL);
}

Test(wrong_types, disk_threads)
{
    expect_load_error("[tier.disk]\nthreads = \"8\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.disk.threads': expected an integer from 0 to 1024 (0: as "
                      "many as queue_depth), got the string \"8\"", NULL);
    expect_load_error("[tier.disk]\nthreads = 2.5\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.disk.threads': expected an integer from 0 to 1024",
                      "got the float 2.5", NULL);
    expect_load_error("[tier.disk]\nthreads = true\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.disk.threads'", "got the boolean true", NULL);
    /* Out of range: negative, and above what a disk pool accepts. */
    expect_load_error("[tier.disk]\nthreads = -1\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.disk.threads': expected an integer from 0 to 1024 (0: as "
                      "many as queue_depth), got the integer -1", NULL);
    expect_load_error("\n[tier.disk]\nthreads = 1025\n", EBB_ERR_CONFIG,
                      "t.toml:3: key 'tier.disk.threads': expected an integer from 0 to 1024 (0: as "
                      "many as queue_depth), got the integer 1025", NULL);
}

Test(wrong_types, gpu_chunk_size)
{
    expect_load_error("[tier.gpu]\nchunk_size = 1.5\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.gpu.chunk_size': expected a size: an integer number of "
                      "bytes or a string such as \"8 MiB\", got the float 1.5", NULL);
    expect_load_error("[tier.gpu]\nchunk_size = true\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.gpu.chunk_size': expected a size", "got the boolean true",
                      NULL);
    expect_load_error("[tier.gpu]\nchunk_size = [1]\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.gpu.chunk_size': expected a size", "got an array", NULL);
}
