/* Where things are: NUMA nodes near a GPU and near a disk; thread binding. */
#ifndef EBB_STORAGE_TOPOLOGY_H
#define EBB_STORAGE_TOPOLOGY_H

#include <pthread.h>

/* NUMA node (OS index) of the PCI device with this bus id ("0000:3b:00.0"),
 * -1 if unknown. Reads sysfs; no error when it is absent. */
int ebb_topo_pci_node(const char *bus_id);

/* NUMA node of the block device under `path`; -1 if unknown. Sets errno and
 * returns -2 when path cannot be stat()ed. */
int ebb_topo_path_node(const char *path);

/* Binds the threads to the cores of NUMA node `node` (best effort, one
 * topology load for all). Returns how many were bound: 0 when node < 0, the
 * node does not exist, the machine has one node, or binding is refused. */
int ebb_topo_bind_threads(const pthread_t *threads, int count, int node);

/* Binds [addr, addr+len) to NUMA node `node`: 1 when done, 0 when the
 * system refused (errno set), -1 when there is no such node. */
int ebb_topo_bind_memory(void *addr, size_t len, int node);

#endif
