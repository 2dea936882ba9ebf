#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/ubfab/shmem_mpi.sh - libubshmem's ranks started by Open MPI's
# mpirun: the bootstrap over PMIx and the placement of UBSHMEM_PLACEMENT.
# Runs shmem_prog_mpi (shmem_prog linked with libubshmem.so) under mpirun
# and prints KTAP; shmem_prog itself (static) must be refused. It runs in
# the test VM in the host's root file system (make check-mpi:
# tools/vm/ubvm -R, the module loaded with 4 nodes of 16 NPU dies), from
# the checkout; it skips only when mpirun is missing.

set -u

dyn=build/selftests/ubfab/shmem_prog_mpi
static=build/selftests/ubfab/shmem_prog
out=$(mktemp)
trap 'rm -f "$out"' EXIT
export LD_LIBRARY_PATH=$PWD/build/comm:$PWD/build/lib
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# as shmem_test: a die's 64 MiB holds a heap of 16 MiB and the staging
# buffer (not the default 64 MiB heap)
export UBSHMEM_HEAP_SIZE=16M

if ! command -v mpirun >/dev/null; then
	echo "TAP version 13"
	echo "1..0 # SKIP no mpirun (Debian's openmpi-bin: tools/deps.sh)"
	echo "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:1 error:0"
	exit 0
fi
# shellcheck source=tools/common/ktap.sh
. tools/common/ktap.sh
# mpirun's PMIx server listens on TCP: the VM's loopback must be up
ip link set lo up || echo "# ip link set lo up failed (iproute2)"

# Runs mpirun -n N PROG with the placement P (empty: the default) and the
# program's arguments, its output in $out; sets $rc and says how long
# (KTAP comments, before the results). Arguments: PROG N P ARG...
job() {
	local prog=$1 np=$2 placement=$3 t0

	shift 3
	t0=$(date +%s)
	# one host, more ranks than its CPUs; the ranks use no MPI transport
	timeout 240 env ${placement:+UBSHMEM_PLACEMENT=$placement} \
		mpirun -n "$np" --oversubscribe --bind-to none \
		--mca btl self "$prog" "$@" >"$out" 2>&1
	rc=$?
	echo "# mpirun -n $np ${placement:+(UBSHMEM_PLACEMENT=$placement) }${prog##*/} $*: exit $rc in $(($(date +%s) - t0)) s"
}

# Records test $2 by the status $1 of its check, showing the job's output
# if it failed.
result() {
	[ "$1" -eq 0 ] || sed 's/^/# /' "$out"
	check "$1" "$2"
}

# Every rank r of a job of N ranks checked every call and ended with
# "ok r of N on ENTITY, I of K on its node", ENTITY and I of K as the
# placement says: pack, or spread over 4 nodes of 16 dies.
check_calls() {
	local np=$1 placement=$2 r node die idx size

	[ "$rc" -eq 0 ] || return 1
	for ((r = 0; r < np; r++)); do
		if [ "$placement" = spread ]; then
			node=$((r % 4)) die=$((r / 4)) idx=$((r / 4))
			size=$(((np - node + 3) / 4))
		else
			node=$((r / 16)) die=$((r % 16)) idx=$((r % 16))
			size=$((np - node * 16 < 16 ? np - node * 16 : 16))
		fi
		grep -qx "ok $r of $np on npu$((node * 16 + die)), $idx of $size on its node" \
			"$out" || { echo "# rank $r: no line for npu$((node * 16 + die))"; return 1; }
	done
	! grep -q FAIL "$out"
}

job "$dyn" 4 "" all
check_calls 4 pack
result $? calls_4_pack

job "$dyn" 5 spread all
check_calls 5 spread
result $? calls_5_spread

job "$dyn" 5 spread coll
check_calls 5 spread
result $? coll_5_spread

# a placement that names an unknown entity: every rank's init fails
job "$dyn" 2 npu1,nope all
[ "$rc" -ne 0 ] && grep -q "UBSHMEM_PLACEMENT: placement: no entity nope" "$out" &&
	grep -q "ubshmem_init: Invalid argument" "$out"
result $? bad_placement

# the static shmem_prog of shmem_test: libubshmem refuses to load libpmix
# (glibc's static dlopen of it crashes)
job "$static" 2 "" all
[ "$rc" -ne 0 ] && grep -q "Operation not supported" "$out" &&
	grep -q "statically linked program cannot load libpmix.so.2" "$out"
result $? static_refused

# rank 1 exits 3 after init while the others wait in a barrier: mpirun
# ends the job with that status
job "$dyn" 3 "" fail 1
[ "$rc" -eq 3 ]
result $? rank_fails

ktap_report
