/* A typo is never ignored: unknown keys are errors that suggest the
 * closest known key and list those of the table. */
#include "config/helpers.h"

Test(unknown_keys, typo_in_a_key)
{
    expect_load_error("[tier.host]\nbudjet = \"1 GiB\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: unknown key 'tier.host.budjet'; did you mean 'tier.host.budget'?",
                      "(the keys of [tier.host] are enabled, budget, numa, pin, prefault, staging, compression, element, rate, codec_threads, compress_rate, decompress_rate)",
                      NULL);
}

Test(unknown_keys, transposed_letters)
{
    expect_load_error("[tier.disk]\nqueue_dpeth = 3\n", EBB_ERR_CONFIG,
                      "t.toml:2: unknown key 'tier.disk.queue_dpeth'; did you mean 'tier.disk.queue_depth'?",
                      NULL);
}

Test(unknown_keys, missing_underscore)
{
    expect_load_error("\n[tier.disk]\nblocksize = \"1 MiB\"\n", EBB_ERR_CONFIG,
                      "t.toml:3: unknown key 'tier.disk.blocksize'; did you mean 'tier.disk.block_size'?",
                      NULL);
}

Test(unknown_keys, typo_in_a_table)
{
    expect_load_error("[run]\n\n[tier.hots]\nbudget = 1\n", EBB_ERR_CONFIG,
                      "t.toml:3: unknown key 'tier.hots'; did you mean 'tier.host'?",
                      "the keys of [tier] are gpu, host, disk", NULL);
}

Test(unknown_keys, typo_in_a_top_level_table)
{
    expect_load_error("[runn]\nstrategy = \"auto\"\n", EBB_ERR_CONFIG,
                      "t.toml:1: unknown key 'runn'; did you mean 'run'?", NULL);
}

Test(unknown_keys, key_in_the_wrong_table)
{
    expect_load_error("strategy = \"revolve\"\n", EBB_ERR_CONFIG,
                      "t.toml:1: unknown key 'strategy'; did you mean 'run.strategy'?", NULL);
    expect_load_error("[tier.host]\nqueue_depth = 4\n", EBB_ERR_CONFIG,
                      "t.toml:2: unknown key 'tier.host.queue_depth'; did you mean 'tier.disk.queue_depth'?",
                      NULL);
}

Test(unknown_keys, nothing_close)
{
    expect_load_error("[tier.disk]\nencryption = \"aes\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: unknown key 'tier.disk.encryption'; expected a known key",
                      "the keys of [tier.disk] are enabled, path, budget, block_size, queue_depth, "
                      "threads, backend, checksum, direct", NULL);
}

Test(unknown_keys, dotted_and_quoted_keys)
{
    expect_load_error("\n\ntier.disk.pathh = \"/tmp\"\n", EBB_ERR_CONFIG,
                      "t.toml:3: unknown key 'tier.disk.pathh'; did you mean 'tier.disk.path'?", NULL);
    /* A quoted key with a dot is one key, not two. */
    expect_load_error("[tier]\n\"host.budget\" = 5\n", EBB_ERR_CONFIG,
                      "t.toml:2: unknown key 'tier.\"host.budget\"'", NULL);
}

Test(unknown_keys, first_in_the_file_is_reported)
{
    expect_load_error("[tier.disk]\nzzz = 1\n[run]\naaa = 2\n", EBB_ERR_CONFIG,
                      "t.toml:2: unknown key 'tier.disk.zzz'", NULL);
}

Test(unknown_keys, inline_table)
{
    expect_load_error("tier.host = { budget = \"1 GiB\", numa = 0, hugepages = true }\n", EBB_ERR_CONFIG,
                      "t.toml:1: unknown key 'tier.host.hugepages'", NULL);
}

/* The keys added for the pool options are in the names table, so typos in
 * them are caught and suggested like the others. */
Test(unknown_keys, typos_in_the_pool_keys)
{
    expect_load_error("[tier.host]\nprefualt = false\n", EBB_ERR_CONFIG,
                      "t.toml:2: unknown key 'tier.host.prefualt'; did you mean 'tier.host.prefault'?",
                      "(the keys of [tier.host] are enabled, budget, numa, pin, prefault, staging, compression, element, rate, codec_threads, compress_rate, decompress_rate)",
                      NULL);
    expect_load_error("[tier.host]\npinned = false\n", EBB_ERR_CONFIG,
                      "t.toml:2: unknown key 'tier.host.pinned'; did you mean 'tier.host.pin'?", NULL);
    expect_load_error("\n[tier.gpu]\nchunksize = \"1 MiB\"\n", EBB_ERR_CONFIG,
                      "t.toml:3: unknown key 'tier.gpu.chunksize'; did you mean 'tier.gpu.chunk_size'?",
                      "the keys of [tier.gpu] are enabled, budget, device, chunk_size", NULL);
    expect_load_error("[tier.disk]\nthread = 4\n", EBB_ERR_CONFIG,
                      "t.toml:2: unknown key 'tier.disk.thread'; did you mean 'tier.disk.threads'?", NULL);
    /* The right name in the wrong table. */
    expect_load_error("[tier.disk]\nchunk_size = \"1 MiB\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: unknown key 'tier.disk.chunk_size'; did you mean 'tier.gpu.chunk_size'?",
                      NULL);
    expect_load_error("[tier.gpu]\nthreads = 4\n", EBB_ERR_CONFIG,
                      "t.toml:2: unknown key 'tier.gpu.threads'; did you mean 'tier.disk.threads'?",
                      NULL);
}
