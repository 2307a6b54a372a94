/* Topology: sysfs for "which node is this device on", hwloc for binding.
 * Everything degrades to "unknown" (-1) in containers without sysfs detail. */
#include <errno.h>
#include <hwloc.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/error_internal.h"
#include "ebb/storage.h"
#include "storage/topology.h"

static int read_int_file(const char *path, int *value)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int ok = fscanf(f, "%d", value) == 1;
    fclose(f);
    return ok;
}

int ebb_topo_pci_node(const char *bus_id)
{
    char id[64], path[128];
    size_t n = strlen(bus_id);
    if (n == 0 || n >= sizeof id)
        return -1;
    for (size_t i = 0; i <= n; i++)
        id[i] = (char)((bus_id[i] >= 'A' && bus_id[i] <= 'F') ? bus_id[i] - 'A' + 'a' : bus_id[i]);
    /* CUDA prints an 8-digit domain ("00000000:3B:00.0"); sysfs uses 4. */
    const char *p = id;
    if (n > 12 && strncmp(id, "0000", 4) == 0)
        p = id + (n - 12);
    int node = -1;
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/numa_node", p);
    if (!read_int_file(path, &node))
        return -1;
    return node >= 0 ? node : -1;
}

int ebb_topo_path_node(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -2;
    if (major(st.st_dev) == 0)
        return -1; /* tmpfs, overlay, ...: no block device */
    char link[64], real[PATH_MAX];
    snprintf(link, sizeof link, "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
    if (!realpath(link, real))
        return -1;
    /* Walk up from .../block/nvme0n1/nvme0n1p1 to the first ancestor with a
     * numa_node file (the PCI function). */
    for (;;) {
        char file[PATH_MAX + 32];
        int node;
        snprintf(file, sizeof file, "%s/numa_node", real);
        if (read_int_file(file, &node))
            return node >= 0 ? node : -1;
        snprintf(file, sizeof file, "%s/device/numa_node", real);
        if (read_int_file(file, &node))
            return node >= 0 ? node : -1;
        char *slash = strrchr(real, '/');
        if (!slash || slash == real || strcmp(real, "/sys/devices") == 0)
            return -1;
        *slash = '\0';
    }
}

static int with_node(int node, hwloc_topology_t *topo, hwloc_obj_t *obj)
{
    if (node < 0)
        return 0;
    if (hwloc_topology_init(topo) != 0)
        return 0;
    if (hwloc_topology_load(*topo) != 0) {
        hwloc_topology_destroy(*topo);
        return 0;
    }
    *obj = hwloc_get_numanode_obj_by_os_index(*topo, (unsigned)node);
    if (!*obj) {
        hwloc_topology_destroy(*topo);
        return -1;
    }
    return 1;
}

int ebb_topo_bind_threads(const pthread_t *threads, int count, int node)
{
    hwloc_topology_t topo;
    hwloc_obj_t obj;
    if (with_node(node, &topo, &obj) != 1)
        return 0;
    int bound = 0;
    /* One node: binding would only fight the caller's own cpuset. */
    if (hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE) > 1 && obj->cpuset &&
        !hwloc_bitmap_iszero(obj->cpuset))
        for (int i = 0; i < count; i++)
            bound += hwloc_set_thread_cpubind(topo, threads[i], obj->cpuset, 0) == 0;
    hwloc_topology_destroy(topo);
    return bound;
}

int ebb_topo_bind_memory(void *addr, size_t len, int node)
{
    hwloc_topology_t topo;
    hwloc_obj_t obj;
    int w = with_node(node, &topo, &obj);
    if (w != 1)
        return w;
    int ok = hwloc_set_area_membind(topo, addr, len, obj->nodeset, HWLOC_MEMBIND_BIND,
                                    HWLOC_MEMBIND_BYNODESET) == 0;
    hwloc_topology_destroy(topo);
    return ok;
}

ebb_status ebb_topology_path_node(const char *path, int *node)
{
    if (!path || !node)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_topology_path_node: NULL argument");
    int n = ebb_topo_path_node(path);
    if (n == -2) {
        *node = -1;
        return ebb_fail_errno(EBB_ERR_IO, errno, "cannot stat '%s'", path);
    }
    *node = n;
    return EBB_OK;
}
