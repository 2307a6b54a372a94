/* Topology answers "unknown" (-1) where it cannot tell, and errors only for a
 * path that does not exist. */
#include "storage/helpers.h"

Test(topology, path_node_known_or_unknown)
{
    int node = -7;
    cr_assert_eq(ebb_topology_path_node("/tmp", &node), EBB_OK, "%s", ebb_last_error());
    cr_assert_geq(node, -1);
    node = -7;
    cr_assert_eq(ebb_topology_path_node("/dev/shm", &node), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(node, -1, "a tmpfs has no block device");
    cr_assert_eq(ebb_topology_path_node("/nonexistent/ebb", &node), EBB_ERR_IO);
    cr_assert(strstr(ebb_last_error(), "cannot stat '/nonexistent/ebb'") != NULL, "%s",
              ebb_last_error());
    cr_assert(strstr(ebb_last_error(), "No such file or directory") != NULL, "%s",
              ebb_last_error());
    cr_assert_eq(ebb_topology_path_node(NULL, &node), EBB_ERR_INVALID_ARG);
}

Test(topology, gpu_node_and_count)
{
    int n = ebb_gpu_count();
    cr_assert_geq(n, 0);
    int node = -7;
    cr_assert_eq(ebb_topology_gpu_node(n, &node), EBB_OK); /* one past the last device */
    cr_assert_eq(node, -1);
    cr_assert_eq(ebb_topology_gpu_node(0, NULL), EBB_ERR_INVALID_ARG);
}
