/* ebb_config_load_file reads at most one byte past the 16 MiB bound
 * (docs/configuration.md, Limits): an input that never ends (/dev/zero, a
 * FIFO whose writer goes on) or one over the bound is refused by the read
 * itself, naming the file and the bound, in bounded memory; a file of
 * exactly 16 MiB reaches the parser, as a string of that size does. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>

#include "config/helpers.h"
#include "support/process_memory.h"

#define BOUND ((size_t)16 << 20)

/* What reading up to the bound may add to the peak: the buffer and, where
 * realloc moves it, the one before; under AddressSanitizer every buffer
 * the read doubled through (its quarantine keeps freed ones) and shadow. */
#define MOST_GROWTH (EBB_TEST_ASAN ? (size_t)80 << 20 : (size_t)48 << 20)

/* The most resident memory this process has had, in bytes. */
static size_t peak_rss(void)
{
    return (size_t)ebb_test_peak_kib() * 1024;
}

/* Loads `path`: it must be refused by the read bound, with no more than
 * MOST_GROWTH more memory at the peak. */
static void expect_read_bound(const char *path)
{
    size_t before = peak_rss();
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    ebb_status s = ebb_config_load_file(path, &cfg);
    const char *msg = ebb_last_error();
    cr_assert_eq(s, EBB_ERR_CONFIG, "%s: %s", ebb_status_name(s), msg);
    char want[600];
    snprintf(want, sizeof want, "%s: larger than 16 MiB; a configuration file may be at most 16 MiB",
             path);
    cr_expect(strstr(msg, want) != NULL, "message\n  %s\nlacks\n  %s", msg, want);
    cr_expect(strstr(msg, "bytes") == NULL,
              "the read's bound refuses it, not the size check after it: %s", msg);
    size_t grew = peak_rss() - before;
    cr_log_info("%s: the peak grew by %zu MiB", path, grew >> 20);
    cr_expect_leq(grew, MOST_GROWTH, "the peak grew by %zu MiB", grew >> 20);
    ebb_config_dispose(&cfg);
}

Test(endless_input, dev_zero)
{
    expect_read_bound("/dev/zero");
}

static void *write_forever(void *arg)
{
    int fd = open(arg, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char line[4096];
    memset(line, '#', sizeof line - 1);
    line[sizeof line - 1] = '\n';
    while (write(fd, line, sizeof line) > 0) /* until the reader closes: EPIPE */
        ;
    close(fd);
    return NULL;
}

Test(endless_input, fifo_whose_writer_goes_on, .init = setup_dir, .fini = cleanup_dir)
{
    signal(SIGPIPE, SIG_IGN);
    static char path[512];
    snprintf(path, sizeof path, "%s/endless.toml", test_dir);
    cr_assert_eq(mkfifo(path, 0600), 0, "mkfifo %s", path);
    pthread_t writer;
    cr_assert_eq(pthread_create(&writer, NULL, write_forever, path), 0);
    expect_read_bound(path);
    pthread_join(writer, NULL);
}

/* A regular file of `bytes` newlines. */
static const char *newlines(const char *name, size_t bytes)
{
    const char *path = make_in_dir(name, "");
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    char block[65536];
    memset(block, '\n', sizeof block);
    for (size_t left = bytes; left > 0;) {
        size_t n = left < sizeof block ? left : sizeof block;
        cr_assert_eq(fwrite(block, 1, n, f), n);
        left -= n;
    }
    fclose(f);
    return path;
}

Test(endless_input, one_byte_over_the_bound, .init = setup_dir, .fini = cleanup_dir)
{
    expect_read_bound(newlines("over.toml", BOUND + 1));
}

Test(endless_input, files_at_the_bound_load, .init = setup_dir, .fini = cleanup_dir)
{
    const size_t sizes[] = {BOUND - 1, BOUND};
    for (int i = 0; i < 2; i++) {
        const char *path = newlines("at.toml", sizes[i]);
        ebb_config cfg;
        cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
        cr_assert_eq(ebb_config_load_file(path, &cfg), EBB_OK, "%zu bytes: %s", sizes[i],
                     ebb_last_error());
        ebb_config_dispose(&cfg);
        remove(path);
    }
}
