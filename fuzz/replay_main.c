/* A main for the fuzz targets without libFuzzer: runs LLVMFuzzerTestOneInput
 * once on each file named, or on each file of each folder named (the seed
 * corpus). The test suite builds every target with it in every build (gcc
 * too), so the targets compile and their seeds pass everywhere; the fuzzing
 * itself is the fuzz preset's (clang). Exit 0 after at least one input, 1
 * when none was found or one could not be read. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

/* Runs the target on one file: 0, or 1 when it cannot be read. */
static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t cap = 1 << 16, len = 0, got;
    uint8_t *data = malloc(cap);
    while (data && (got = fread(data + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            uint8_t *more = realloc(data, cap *= 2);
            if (!more)
                free(data);
            data = more;
        }
    }
    int bad = !data || ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stdout, "cannot read %s\n", path);
        free(data);
        return 1;
    }
    LLVMFuzzerTestOneInput(data, len);
    free(data);
    return 0;
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    long inputs = 0;
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
            bad |= run_file(argv[i]);
            inputs++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            bad |= run_file(path);
            inputs++;
        }
        if (d)
            closedir(d);
    }
    fprintf(stdout, "%s: %ld inputs replayed\n", argv[0], inputs);
    return bad || inputs == 0;
}
