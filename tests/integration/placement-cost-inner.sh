#!/bin/sh
# Runs inside the lab (see host-host.test): does the default placement cost
# a path anything against --no-bind? gdr_write_bw at 1 KiB and 4 KiB, direct
# host-host and staged GPU-GPU (the strict CUDA double, copies without a
# planted delay), the default and --no-bind alternating, REPEATS times, on
# the lab's default device (what the quickstart uses). Each run's client
# document goes to OUT/cost.PATH.MODE.REP.json; placement-cost-judge.sh judges them.
# Arguments: OUT BENCH CUDASIM [REPEATS]
out=$1 bench=$2 cudasim=$3 repeats=${4:-3}
dev=${GDR_LAB_DEV:-rxe0}
addr=${GDR_LAB_ADDR:-198.18.0.1}
port=19300
lap_file=$out/times
. "$(dirname "$0")/../lab-times.sh"
sim="LD_PRELOAD=$cudasim/libcuda.so.1 LD_LIBRARY_PATH=$cudasim GDR_CUDASIM_COPY_DELAY_US=0"
args="--sizes=1K:4K:4 -n 4000 --warmup=200"
# run PATH MODE REP ENV MEM: one server/client pair
run() {
    path=$1 mode=$2 rep=$3 env=$4 mem=$5
    bind=""
    [ "$mode" = nobind ] && bind=--no-bind
    port=$((port + 1))
    lap_start
    # shellcheck disable=SC2086 # the environment's and the options' words
    envx $env "$bench/gdr_write_bw" -d "$dev" -p $port --timeout=30 $args $bind $mem \
        >"$out/cost.$path.$mode.$rep.server.out" 2>&1 &
    spid=$!
    # shellcheck disable=SC2086
    (envx $env "$bench/gdr_write_bw" -d "$dev" -p $port --timeout=30 $args $bind $mem \
        --json="$out/cost.$path.$mode.$rep.json" "$addr") >"$out/cost.$path.$mode.$rep.client.out" 2>&1
    echo $? >"$out/cost.$path.$mode.$rep.rc"
    wait $spid
    lap_end "cost.$path.$mode.$rep"
}
# batch PATHS FIRST LAST: repeats FIRST..LAST of each path. The two modes
# of a path run back to back (a change in the host's load moves both
# alike), and which goes first alternates.
batch() {
    rep=$2
    while [ "$rep" -le "$3" ]; do
        if [ $((rep % 2)) = 1 ]; then modes="default nobind"; else modes="nobind default"; fi
        for path in $1; do
            for mode in $modes; do
                case $path in
                direct) run direct "$mode" "$rep" "" "" ;;
                staged) run staged "$mode" "$rep" "$sim" "--mem=cuda --gdr=off" ;;
                esac
            done
        done
        rep=$((rep + 1))
    done
}
batch "direct staged" 1 "$repeats"
# A path whose first batch fails the judgment runs as many repeats again
# and is judged on all of them: a confirmation, as gdr-cluster retests a
# suspect, so one noisy minute on the host does not fail the suite.
retest=$(sh "$(dirname "$0")/placement-cost-judge.sh" --retest "$bench/../tools/gdr-json" "$out")
if [ -n "$retest" ]; then
    echo "$retest" | tr '\n' ' ' >"$out/cost.retested"
    batch "$retest" $((repeats + 1)) $((repeats * 2))
fi
exit 0
