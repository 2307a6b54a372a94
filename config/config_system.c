/* Machine facts for the configuration: memory, NUMA, GPUs, directories. */
#include "config/config_system.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#if defined(EBB_HAVE_CUDA) && EBB_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

/* Reads one unsigned number from a file ("max" or unreadable: 0). */
static uint64_t read_u64_file(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    char buf[64] = "";
    uint64_t v = 0;
    if (fgets(buf, sizeof buf, f) && buf[0] >= '0' && buf[0] <= '9')
        v = strtoull(buf, NULL, 10);
    fclose(f);
    return v;
}

/* The memory limit and usage of this process's cgroup (0, 0 if none). */
static void cgroup_memory(uint64_t *limit, uint64_t *usage)
{
    *limit = 0;
    *usage = 0;
    char rel[1024] = "";
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (f) {
        char line[1024];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "0::", 3) == 0) {
                memcpy(rel, line + 3, strnlen(line + 3, sizeof rel - 1) + 1);
                rel[strcspn(rel, "\n")] = '\0';
            }
        }
        fclose(f);
    }
    char path[sizeof rel + 64];
    /* cgroup v2: our own cgroup, then the namespace root. */
    const char *v2[2] = {rel, ""};
    for (int i = 0; i < 2; i++) {
        if (i == 0 && (rel[0] == '\0' || strcmp(rel, "/") == 0))
            continue;
        snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", v2[i]);
        uint64_t lim = read_u64_file(path);
        if (lim != 0) {
            *limit = lim;
            snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.current", v2[i]);
            *usage = read_u64_file(path);
            return;
        }
    }
    /* cgroup v1 (as a container sees it). "No limit" is a huge number. */
    uint64_t lim = read_u64_file("/sys/fs/cgroup/memory/memory.limit_in_bytes");
    if (lim != 0 && lim < (UINT64_C(1) << 60)) {
        *limit = lim;
        *usage = read_u64_file("/sys/fs/cgroup/memory/memory.usage_in_bytes");
    }
}

void ebb_sys_memory(uint64_t *available, uint64_t *total)
{
    uint64_t avail = 0, tot = 0;
    FILE *f = fopen("/proc/meminfo", "re");
    if (f) {
        char line[256];
        unsigned long long kb;
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
                avail = (uint64_t)kb * 1024;
            else if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
                tot = (uint64_t)kb * 1024;
        }
        fclose(f);
    }
    long page = sysconf(_SC_PAGESIZE);
    if (avail == 0) {
        long pages = sysconf(_SC_AVPHYS_PAGES);
        if (pages > 0 && page > 0)
            avail = (uint64_t)pages * (uint64_t)page;
    }
    if (tot == 0) {
        long pages = sysconf(_SC_PHYS_PAGES);
        if (pages > 0 && page > 0)
            tot = (uint64_t)pages * (uint64_t)page;
    }
    uint64_t limit, usage;
    cgroup_memory(&limit, &usage);
    if (limit != 0) {
        uint64_t left = limit > usage ? limit - usage : 0;
        if (left < avail)
            avail = left;
        if (limit < tot)
            tot = limit;
    }
    *available = avail;
    *total = tot;
}

int ebb_sys_numa_node_exists(int node, int *nodes)
{
    struct stat st;
    if (stat("/sys/devices/system/node", &st) != 0) {
        /* No NUMA information: one node, 0. */
        *nodes = 1;
        return node == 0;
    }
    int count = 0;
    char path[128];
    for (int i = 0; i < 4096; i++) {
        snprintf(path, sizeof path, "/sys/devices/system/node/node%d", i);
        if (stat(path, &st) == 0)
            count = i + 1;
        else if (i >= 64 && i >= count + 64)
            break;
    }
    *nodes = count;
    snprintf(path, sizeof path, "/sys/devices/system/node/node%d", node);
    return node >= 0 && stat(path, &st) == 0;
}

int ebb_sys_gpu_count(void)
{
#if defined(EBB_HAVE_CUDA) && EBB_HAVE_CUDA
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError(); /* no driver or no device: not sticky */
        return 0;
    }
    return n;
#else
    return 0;
#endif
}

uint64_t ebb_sys_gpu_free(int device)
{
#if defined(EBB_HAVE_CUDA) && EBB_HAVE_CUDA
    int old = 0;
    if (device < 0 || device >= ebb_sys_gpu_count() || cudaGetDevice(&old) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    size_t free_b = 0, total_b = 0;
    int ok = cudaSetDevice(device) == cudaSuccess && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess;
    (void)cudaGetLastError();
    (void)cudaSetDevice(old);
    return ok ? (uint64_t)free_b : 0;
#else
    (void)device;
    return 0;
#endif
}

void ebb_sys_dir_space(const char *path, ebb_dir_info *info)
{
    memset(info, 0, sizeof *info);
    struct stat st;
    if (stat(path, &st) != 0) {
        info->error = errno;
        info->step = EBB_DIR_STAT;
        return;
    }
    if (!S_ISDIR(st.st_mode)) {
        info->error = ENOTDIR;
        info->step = EBB_DIR_NOT_DIR;
        return;
    }
    info->dev = st.st_dev;
    info->ino = st.st_ino;
    struct statvfs vfs;
    if (statvfs(path, &vfs) != 0) {
        info->error = errno;
        info->step = EBB_DIR_STATVFS;
        return;
    }
    info->free_bytes = (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize;
}

uint32_t ebb_sys_local_ranks(void)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *v = getenv(names[i]);
        if (!v || !*v)
            continue;
        char *end = NULL;
        errno = 0;
        unsigned long n = strtoul(v, &end, 10);
        if (errno == 0 && *end == '\0' && v[0] != '-' && n >= 1 && n <= 1000000)
            return (uint32_t)n;
    }
    return 1;
}

/* Creates and removes a file in `path`; 0 or an errno. */
static int try_write(const char *path)
{
    int fd = open(path, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    int err = errno;
    /* Refused for the file system (no O_TMPFILE support), not for us: try a
     * named file. EACCES, EROFS, EPERM, ENOSPC, EDQUOT are real answers. */
    if (err != EOPNOTSUPP && err != EISDIR && err != EINVAL && err != ENOENT)
        return err;
    size_t len = strlen(path);
    char *name = malloc(len + 32);
    if (!name)
        return ENOMEM;
    snprintf(name, len + 32, "%s/.ebb-probe-XXXXXX", path);
    fd = mkstemp(name);
    if (fd < 0) {
        err = errno;
        free(name);
        return err;
    }
    unlink(name);
    close(fd);
    free(name);
    return 0;
}

void ebb_sys_probe_dir(const char *path, int fault_errno, ebb_dir_info *info)
{
    ebb_sys_dir_space(path, info);
    if (info->error != 0 && info->step != EBB_DIR_STATVFS)
        return;
    int statvfs_error = info->error;
    int err = fault_errno != 0 ? fault_errno : try_write(path);
    if (err != 0) {
        info->error = err;
        info->step = EBB_DIR_WRITE;
        return;
    }
    if (statvfs_error != 0) {
        info->error = statvfs_error;
        info->step = EBB_DIR_STATVFS;
    }
}
