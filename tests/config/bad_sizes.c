/* Sizes in the file: zero, negative, ambiguous or malformed values. */
#include "config/helpers.h"

Test(bad_sizes, zero)
{
    expect_load_error("[tier.host]\nbudget = 0\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.host.budget': expected a positive size, got 0 (to turn the "
                      "tier off, write enabled = false)", NULL);
    expect_load_error("[tier.gpu]\nbudget = \"0 GiB\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.gpu.budget': expected a positive size, got the string \"0 GiB\"",
                      NULL);
}

Test(bad_sizes, negative)
{
    expect_load_error("[tier.disk]\nbudget = -5\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.disk.budget': expected a positive size, got the integer -5", NULL);
    expect_load_error("[tier.host]\nbudget = \"-1 GiB\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.host.budget'", "got the string \"-1 GiB\": a size cannot be negative",
                      NULL);
}

Test(bad_sizes, ambiguous_unit)
{
    expect_load_error("[tier.host]\nbudget = \"64G\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.host.budget'", "got the string \"64G\": unknown unit 'G'",
                      "ambiguous", NULL);
}

Test(bad_sizes, unknown_unit)
{
    expect_load_error("\n[tier.host]\nbudget = \"64 gigs\"\n", EBB_ERR_CONFIG,
                      "t.toml:3: key 'tier.host.budget'", "unknown unit 'gigs'",
                      "expected B, KiB, MiB, GiB, TiB, PiB, kB, MB, GB, TB or PB", NULL);
}

Test(bad_sizes, fraction_without_unit)
{
    expect_load_error("[tier.host]\nbudget = \"1.5\"\n", EBB_ERR_CONFIG, "t.toml:2: key 'tier.host.budget'",
                      "a fraction needs a unit", NULL);
}

Test(bad_sizes, too_large)
{
    expect_load_error("[tier.host]\nbudget = \"20000 PiB\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.host.budget'", "more than 2^64 - 1 bytes", NULL);
}

Test(bad_sizes, block_size_alignment_and_range)
{
    expect_load_error("[tier.disk]\nblock_size = \"1000 kB\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.disk.block_size': expected a multiple of 4 KiB from 4 KiB to "
                      "1 GiB (O_DIRECT alignment), got 1 MB", NULL);
    expect_load_error("[tier.disk]\nblock_size = \"2 GiB\"\n", EBB_ERR_CONFIG,
                      "key 'tier.disk.block_size'", "got 2 GiB", NULL);
    expect_load_error("[tier.disk]\nblock_size = \"auto\"\n", EBB_ERR_CONFIG,
                      "key 'tier.disk.block_size'", "does not start with a number", NULL);
}

Test(bad_sizes, gpu_chunk_size_range)
{
    expect_load_error("[tier.gpu]\nchunk_size = 0\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.gpu.chunk_size': expected a positive size, got 0", NULL);
    expect_load_error("[tier.gpu]\nchunk_size = \"0 MiB\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.gpu.chunk_size': expected a positive size, got the string "
                      "\"0 MiB\"", NULL);
    expect_load_error("[tier.gpu]\nchunk_size = -4096\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.gpu.chunk_size': expected a positive size, got the integer "
                      "-4096", NULL);
    expect_load_error("\n[tier.gpu]\nchunk_size = \"2 GiB\"\n", EBB_ERR_CONFIG,
                      "t.toml:3: key 'tier.gpu.chunk_size': expected a size from 1 byte to 1 GiB "
                      "(bytes per CUDA copy), got 2 GiB", NULL);
    expect_load_error("[tier.gpu]\nchunk_size = 1073741825\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.gpu.chunk_size': expected a size from 1 byte to 1 GiB",
                      "got 1.0 GiB (1073741825 bytes)", NULL);
    expect_load_error("[tier.gpu]\nchunk_size = \"64M\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.gpu.chunk_size'", "got the string \"64M\": unknown unit 'M'",
                      NULL);
    expect_load_error("[tier.gpu]\nchunk_size = \"auto\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.gpu.chunk_size'", "does not start with a number", NULL);
}
