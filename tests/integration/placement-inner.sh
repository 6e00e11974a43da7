#!/bin/sh
# Runs inside `ci/rxe-lab --numa` (see host-host.test and placement-checks.sh): a VM with two NUMA
# nodes (CPU 0 and CPU 1) whose rxe2 sits on a PCI NIC on node 1. Each
# case is a server and a client on rxe2 (rxe loops back to its own
# address); JSON, outputs and exit codes go to $1.
# Arguments: OUT BENCH CUDASIM
out=$1 bench=$2 cudasim=$3
dev=${GDR_LAB_NUMA_DEV:-rxe2}
addr=${GDR_LAB_NUMA_ADDR:-198.18.2.1}
port=19100
lap_file=$out/times
. "$(dirname "$0")/../lab-times.sh"
{
    echo "online $(cat /sys/devices/system/node/online)"
    echo "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
    echo "nic $(readlink -f /sys/class/net/eth0/device)"
} >"$out/topology.txt" 2>&1

# pair NAME TOOL ENV -- SERVER_ARGS -- CLIENT_ARGS
pair() {
    name=$1 tool=$2 env=$3
    shift 4
    sargs=""
    while [ "$1" != "--" ]; do sargs="$sargs $1"; shift; done
    shift
    port=$((port + 1))
    lap_start
    # shellcheck disable=SC2086 # the argument lists' words
    envx $env "$bench/$tool" -d "$dev" -p $port --timeout=30 $sargs \
        --json="$out/$name.server.json" >"$out/$name.server.out" 2>&1 &
    spid=$!
    # shellcheck disable=SC2086
    (envx $env "$bench/$tool" -d "$dev" -p $port --timeout=30 "$@" \
        --json="$out/$name.client.json" "$addr") >"$out/$name.client.out" 2>&1
    echo $? >"$out/$name.client.rc"
    wait $spid
    echo $? >"$out/$name.server.rc"
    lap_end "placement.$name"
}

small="-s 64K -n 32 --validate"
# shellcheck disable=SC2086 # $small is a list of options
{
    pair default gdr_write_bw "" -- $small -- $small
    pair numa0 gdr_write_bw "" -- --numa=0 $small -- --numa=0 $small
    pair nobind gdr_write_bw "" -- --no-bind $small -- --disable_numa $small
    pair lat gdr_read_lat "" -- -s 8 -n 200 -- -s 8 -n 200
    pair lat_numa0 gdr_read_lat "" -- --numa_node=0 -s 8 -n 200 -- --numa_node=0 -s 8 -n 200
    pair lat_cpu0 gdr_read_lat "" -- --cpu=0 -s 8 -n 200 -- --pin_cores=0 -s 8 -n 200
    # A staged GPU end (the strict CUDA test double): its bounce ring on node 1.
    pair staged gdr_write_bw "LD_PRELOAD=$cudasim/libcuda.so.1 LD_LIBRARY_PATH=$cudasim" -- \
        $small -- --mem=cuda --gdr=off $small
}
# Bad input: one line, exit 2, before any peer is waited for.
bad() {
    name=$1
    shift
    "$bench/gdr_write_bw" -d "$dev" --timeout=5 "$@" >"$out/$name.out" 2>&1
    echo $? >"$out/$name.rc"
}
bad bad_cpu --cpu=5
bad bad_numa --numa=3
bad bad_disagree --cpu=0 --numa=1
exit 0
