/* What the configuration asks of the machine: memory, NUMA nodes, GPUs,
 * directories. Plain C, no state. */
#ifndef EBB_CONFIG_CONFIG_SYSTEM_H
#define EBB_CONFIG_CONFIG_SYSTEM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Memory the process may still take (MemAvailable, capped by the cgroup v2
 * or v1 memory limit minus usage) and all it could ever have (MemTotal,
 * capped by the cgroup limit). 0 when unknown. */
void ebb_sys_memory(uint64_t *available, uint64_t *total);

/* Whether NUMA node `node` exists; *nodes is the number of nodes seen. */
int ebb_sys_numa_node_exists(int node, int *nodes);

/* Number of CUDA devices (0 without CUDA support, driver or device). */
int ebb_sys_gpu_count(void);

/* Free memory of CUDA device `device`; 0 when unknown. */
uint64_t ebb_sys_gpu_free(int device);

/* The processes on this node as the MPI launcher says
 * (OMPI_COMM_WORLD_LOCAL_SIZE, MPI_LOCALNRANKS, in that order: a whole
 * number from 1 to 1,000,000); 1 when none says. */
uint32_t ebb_sys_local_ranks(void);

/* A directory's state for the disk tier. */
typedef struct ebb_dir_info {
    int error;          /* 0, or the errno of the first failed step */
    int step;           /* which step failed: EBB_DIR_* */
    dev_t dev;          /* file system (valid when error == 0) */
    ino_t ino;
    uint64_t free_bytes; /* available to unprivileged users (f_bavail) */
} ebb_dir_info;

enum { EBB_DIR_OK = 0, EBB_DIR_STAT, EBB_DIR_NOT_DIR, EBB_DIR_WRITE, EBB_DIR_STATVFS };

/* Stats `path`, checks it is a directory, creates and removes a file in it
 * (O_TMPFILE, else mkstemp + unlink; fault_errno != 0 makes this step fail
 * with it), and reads its free space. */
void ebb_sys_probe_dir(const char *path, int fault_errno, ebb_dir_info *info);

/* Only stat + statvfs (for resolving "auto" without writing). */
void ebb_sys_dir_space(const char *path, ebb_dir_info *info);

#endif
