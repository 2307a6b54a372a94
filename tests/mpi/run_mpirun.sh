#!/usr/bin/env bash
# Runs Open MPI's mpirun for the MPI tests: loopback only (shared memory and
# self), several ranks on few cores, as root when the tests run as root, and
# never longer than EBB_MPI_TIMEOUT seconds (120): a hang fails the test.
# Each run keeps its session directory under a base of its own: mpiruns
# started side by side (ctest -j) share /tmp/ompi.HOST.UID otherwise, and
# one that ends removes it while another creates its own inside it
# ("A call to mkdir was unable to create the desired directory").
# Usage: run_mpirun.sh MPIRUN ARGS... (ARGS as mpirun takes them: -np 2 prog : ...)
set -u
mpirun=$1
shift
export OMPI_MCA_btl=self,vader
export OMPI_MCA_btl_vader_single_copy_mechanism=none # containers often refuse ptrace (CMA)
export OMPI_MCA_oob_tcp_if_include=lo
export OMPI_MCA_rmaps_base_oversubscribe=1
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
session=$(mktemp -d "${TMPDIR:-/tmp}/ebb-mpirun.XXXXXX") || exit 1
trap 'rm -rf "$session"' EXIT
export OMPI_MCA_orte_tmpdir_base=$session
timeout "${EBB_MPI_TIMEOUT:-120}" "$mpirun" --oversubscribe "$@"
