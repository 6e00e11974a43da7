#!/bin/sh
# Runs on node1 of `ci/rxe-lab --nodes=2 --slurm` (see cluster-slurm.test):
# agent mode on both nodes (one job step, an agent per node, the
# results directory shared), a host-host and a GPU round; then gdr-cluster
# inside a real two-node allocation, so its launcher is srun (the default
# there), a run an end per job step. The GPU round's ends load the strict
# CUDA test double: LD_PRELOAD and LD_LIBRARY_PATH are set here, and
# every srun step inherits them (srun's default --export=ALL).
# A cluster soak in agent mode with node1's link taken down for 4 s comes
# between the two.
# Arguments: OUT (shared with the host) BUILDDIR SRCDIR
out=$1 builddir=$2 srcdir=$3
cudasim=$builddir/tests/cudasim
export GDR_CUDASIM_STRICT_ABI=1
export LD_PRELOAD="$cudasim/libcuda.so.1" LD_LIBRARY_PATH="$cudasim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GDR_JSON="$builddir/tools/gdr-json"
export bench="$builddir/bench" out addr="$GDR_LAB_ADDR"

inner_t0=$(date +%s)
sinfo -h -N -o '%N %t' >"$out/sinfo.txt" 2>&1
# The agents first (one job step; the shared directory is the results
# directory every node writes to): the two nodes' one pair, H-H and D-D
# one way: 2 runs (a third node, with a bye a round, cost 40 % more of
# the test's CPU; cluster-fake.test runs rounds of many agents over a
# simulated srun). A tolerance of 80 %: only a node
# five times slower than the others is low, not the lab's noise. The
# benchmarks' --timeout is 40 s (was 20): the VMs share the host's two
# cores, and in a CI run on a slow host every run of node1 failed in the
# rounds and passed on the retest (the agents took 258 s, 121-142 s in
# passing runs); the log kept no reason, so a deadline missed under load
# is the likeliest cause, not a proven one (the test now prints them).
start=$(date +%s)
timeout -k 5 480 salloc -N2 -J gdr-cluster-agents \
    "$srcdir/scripts/gdr-cluster" --builddir="$builddir" --out="$out/agents" --launch=agents \
        --tools=write_bw --placements=H-H,D-D --gdr=on --one-direction \
        --sizes=64K:64K --iters=32 --extra-args=--warmup=2 --timeout=40 \
        --min-link-pct=0 --tolerance-pct=80 \
    >"$out/agents.out" 2>"$out/agents.err"
echo $? >"$out/agents.rc"
echo $(( $(date +%s) - start )) >"$out/agents.seconds"
# A cluster soak in agent mode (issue 35): the pair's H-H write_bw soaks
# 24 s in 3 s intervals, validated; once the client has written two
# interval lines (the soak under way, whatever the host's speed), node1's
# eth0 goes down for 4 s: the planted flap, its times kept for the host.
# Slurm, ssh and the control channel are TCP over the same wire and wait.
start=$(date +%s)
timeout -k 5 300 salloc -N2 -J gdr-cluster-soak \
    "$srcdir/scripts/gdr-cluster" --builddir="$builddir" --out="$out/soak" --launch=agents \
        --tools=write_bw --placements=H-H --one-direction --sizes=64K:64K \
        --soak=24s --interval=3 --reconnect-timeout=60 --timeout=40 \
        --extra-args="--warmup=2 --validate" --min-link-pct=0 --tolerance-pct=80 \
    >"$out/soak.out" 2>"$out/soak.err" &
soak_pid=$!
k=0
until [ "$(cat "$out"/soak/*.client.jsonl 2>/dev/null | grep -c '"interval"')" -ge 2 ]; do
    k=$((k + 1))
    [ $k -le 1200 ] && kill -0 $soak_pid 2>/dev/null || break
    sleep 0.25
done
date +%s.%N >"$out/soak.down_at"
ip link set eth0 down
sleep 4
date +%s.%N >"$out/soak.up_at"
ip link set eth0 up
wait $soak_pid
echo $? >"$out/soak.rc"
echo $(( $(date +%s) - start )) >"$out/soak.seconds"
# This node's Slurm logs as they were after the soak, for a failure's
# message (a job step that Slurm ended during the flap).
cp /run/gdr-slurm/slurmctld.log "$out/soak-slurm.ctld.log" 2>/dev/null
cp /run/gdr-slurm/slurmd.log "$out/soak-slurm.node1.log" 2>/dev/null

# Small: every job step takes seconds in the emulated VMs, so one direction,
# one size and host memory (one run: the agents above ran the GPU ends over
# srun with the CUDA double). The lab's timings swing under load: a 50 %
# tolerance keeps noise from making suspects; soft-RoCE reports a port rate
# far above what it moves (--min-link-pct=0, docs/cluster.md).
start=$(date +%s)
timeout -k 5 360 salloc -N2 -J gdr-cluster-lab \
    "$srcdir/scripts/gdr-cluster" --builddir="$builddir" --out="$out/run" \
        --tools=write_bw --placements=H-H --one-direction \
        --sizes=64K:64K --iters=32 --extra-args=--warmup=2 --timeout=40 \
        --min-link-pct=0 --tolerance-pct=50 \
    >"$out/cluster.out" 2>"$out/cluster.err"
echo $? >"$out/cluster.rc"
echo $(( $(date +%s) - start )) >"$out/cluster.seconds"

# Two concurrent job steps on node1 (two vCPUs), launched as gdr-cluster
# launches each end: a server and a client of gdr_write_bw on rxe0 (rxe
# loops back to node1's own address). Each must claim its own loop CPU:
# with --cpu=0-1, as two vCPUs leave no room for unasked pinning (the
# default pins where the host has room; placement-checks.sh).
start=$(date +%s)
# shellcheck disable=SC2016 # expanded by the allocation's shell
timeout -k 5 180 salloc -N1 -w node1 --exclusive -J gdr-steps sh -c '
    step() {   # ROLE ARGS...
        role=$1
        shift
        srun -N1 -n1 -w node1 --overlap --cpu-bind=none "$bench/gdr_write_bw" -d rxe0 -p 18900 \
            --cpu=0-1 --timeout=30 -s 64K -n 200 --json="$out/steps.$role.json" "$@" \
            >"$out/steps.$role.out" 2>&1
        echo $? >"$out/steps.$role.rc"
    }
    step server &
    sleep 3
    step client "$addr"
    wait' >"$out/steps.salloc.out" 2>&1
echo $(( $(date +%s) - start )) >"$out/steps.seconds"

# --drain-confirmed against the real scontrol: the host ran gdr-cluster's
# fake drain run (cluster-slurm.test: node2 slow and confirmed) with a
# scontrol that kept each call's arguments; here the real scontrol runs
# them, word for word, and the node's state is read back, then resumed.
# (The fake run itself inside the lab took 93 s quiet and 142 s on a busy
# CI host, for 3 s of work on the host: shell and process starts under TCG.)
start=$(date +%s)
: >"$out/drain-replay.rc"
for call in "$out"/drain-calls/*; do
    [ -f "$call" ] || continue
    timeout 30 xargs -0 scontrol <"$call" >>"$out/drain-replay.out" 2>&1
    echo $? >>"$out/drain-replay.rc"
done
scontrol show node node2 >"$out/drain-node2.txt" 2>&1
sinfo -h -N -o '%N %t' >"$out/drain-sinfo.txt" 2>&1
scontrol update nodename=node2 state=resume >/dev/null 2>&1
echo $(( $(date +%s) - start )) >"$out/drain.seconds"
echo $(( $(date +%s) - inner_t0 )) >"$out/inner.seconds"
