#!/bin/sh
# run_rd_mpi.sh RUNNER MPIEXEC EXAMPLE COMPARE STRATEGY [EXAMPLE OPTIONS...]
#
# Runs example_reaction_diffusion_mpi on 1, 2 and 4 ranks under STRATEGY,
# each rank's disk tier in a private directory, and checks with
# rd_mpi_compare that every run's dJ/du0 is the single-process gradient bit
# for bit and its J and dJ/dr within 1e-12 (bitwise on 1 rank); also that
# every rank ran the same actions and that no file is left in the disk
# directory. RUNNER is tests/mpi/run_mpirun.sh: loopback only,
# --oversubscribe (this machine may have fewer cores than ranks), root
# allowed when the tests run as root, and a time limit (60 s here), so that
# a hang fails the test instead of stalling ctest.
# RD_MPI_SLOW=RATE (e.g. 20MB/s): rank 0 gets its own configuration with
# tier.disk.max_bandwidth = RATE (mpirun's MPMD form), the others none.
set -u
runner=$1 mpiexec=$2 example=$3 compare=$4 strategy=$5
shift 5
EBB_MPI_TIMEOUT=60
export EBB_MPI_TIMEOUT
points=${RD_MPI_POINTS:-16384}
steps=${RD_MPI_STEPS:-100}
ranks=${RD_MPI_RANKS:-1 2 4}

work=$(mktemp -d "${TMPDIR:-/tmp}/ebb_rd_mpi.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir "$work/disk"
printf '[tier.disk]\npath = "%s"\n' "$work/disk" > "$work/ebb.toml"
slow=${RD_MPI_SLOW:-}
[ -n "$slow" ] && printf '[tier.disk]\npath = "%s"\nmax_bandwidth = "%s"\n' \
    "$work/disk" "$slow" > "$work/slow.toml"

dumps=""
for np in $ranks; do
    log="$work/np$np.log"
    set -- --points "$points" --steps "$steps" --strategy "$strategy" \
        --dump "$work/np$np.bin" "$@"
    if [ -n "$slow" ] && [ "$np" -gt 1 ]; then
        "$runner" "$mpiexec" -np 1 "$example" "$@" \
            --config "$work/slow.toml" : -np $((np - 1)) "$example" "$@" \
            --config "$work/ebb.toml" > "$log" 2>&1
    else
        cfg="$work/ebb.toml"
        [ -n "$slow" ] && cfg="$work/slow.toml"
        "$runner" "$mpiexec" -np "$np" "$example" "$@" \
            --config "$cfg" > "$log" 2>&1
    fi
    rc=$?
    shift 8 # the options set above; "$@" is the caller's again
    if [ $rc -ne 0 ]; then
        [ $rc -eq 124 ] && echo "FAIL: $np ranks: no end within 60 s (a hang?)"
        echo "FAIL: $np ranks, strategy $strategy: exit status $rc; its output:"
        cat "$log"
        exit 1
    fi
    if ! grep -q "actions agree on every rank: yes" "$log"; then
        echo "FAIL: $np ranks: the ranks' action streams differ"
        cat "$log"
        exit 1
    fi
    grep -E "^run:|forward steps|agreements|stall" "$log" | sed "s/^/[$np ranks] /"
    if [ -n "$(ls -A "$work/disk")" ]; then
        echo "FAIL: $np ranks: files left in the disk directory:"
        ls -la "$work/disk"
        exit 1
    fi
    dumps="$dumps $work/np$np.bin"
done
# shellcheck disable=SC2086
"$compare" --points "$points" --steps "$steps" $dumps
