#!/bin/sh
# Runs inside the soft-RoCE lab (see host-host.test): every benchmark as
# server and client on rxe0, with --validate, over a sweep of sizes, and the
# cases that must fail cleanly. Writes JSON, outputs and exit codes to $1.
out=$1
bench=$2
verbsim=$3
dev=${GDR_LAB_DEV:-rxe0}
addr=${GDR_LAB_ADDR:-198.18.0.1}
port=18600

# pair NAME SERVER_ARGS -- CLIENT_ARGS: one server/client run; records
# NAME.server.rc, NAME.client.rc and their outputs. Both ends run with the
# environment in $penv (none by default).
penv=
pair() {
    name=$1; shift
    server_args=""
    while [ "$1" != "--" ]; do server_args="$server_args $1"; shift; done
    shift
    port=$((port + 1))
    # shellcheck disable=SC2086 # the environment's and the arguments' words
    env $penv "$bench/$tool" -d "${pair_server_dev:-$dev}" -p $port --timeout=30 $server_args \
        >"$out/$name.server.out" 2>&1 &
    spid=$!
    # shellcheck disable=SC2086 # the environment's words
    env $penv "$bench/$tool" -d "$dev" -p $port --timeout=30 "$@" "$addr" >"$out/$name.client.out" 2>&1
    echo $? >"$out/$name.client.rc"
    wait $spid
    echo $? >"$out/$name.server.rc"
}

sweep="--sizes=1:1M:4 -n 64 --validate"
for t in write_bw read_lat send_bw; do
    tool=gdr_$t
    pair "$t" $sweep --json="$out/$t.server.json" -- $sweep --json="$out/$t.client.json"
done

tool=gdr_write_bw
# Four QPs under the reordering verbs double (tests/verbsim): each QP's
# writes placed out of order, as under adaptive routing.
penv="LD_PRELOAD=$verbsim/libverbsim.so GDR_VERBSIM_REORDER=1 GDR_VERBSIM_SEED=4"
penv="$penv GDR_VERBSIM_LOG=$out/write_bw_qp4.vs.log"
pair write_bw_qp4 -q 4 -t 16 --sizes=4K:256K:4 -n 100 --validate \
    -- -q 4 -t 16 --sizes=4K:256K:4 -n 100 --validate --json="$out/write_bw_qp4.client.json"
penv=
pair write_bw_inline -I 64 --sizes=8:64:2 -n 200 --validate \
    -- -I 64 --sizes=8:64:2 -n 200 --validate --json="$out/write_bw_inline.client.json"
pair write_bw_tps --sizes=64:64K:32 --time-per-size=0.3 \
    -- --sizes=64:64K:32 --time-per-size=0.3 --json="$out/write_bw_tps.client.json"
pair mismatch -n 10 -- -n 20
tool=gdr_send_bw
pair send_bw_qp2 -q 2 -t 8 -s 4096 -n 101 --validate \
    -- -q 2 -t 8 -s 4096 -n 101 --validate --json="$out/send_bw_qp2.client.json"
# Bidirectional (-b): both ends send at once, each direction validated.
for t in write_bw send_bw; do
    tool=gdr_$t
    pair ${t}_bidi -b -q 2 -t 16 --sizes=4K:64K:16 -n 64 --validate \
        -- -b -q 2 -t 16 --sizes=4K:64K:16 -n 64 --validate --json="$out/${t}_bidi.client.json"
done
# Real-NIC settings: the path's traffic class and service level (both ends
# must agree), relaxed ordering off at the client only; then the same
# traffic class through rdma_cm's ToS, and a traffic class that differs.
tool=gdr_write_bw
pair write_bw_qos --tclass=32 -S 1 -s 4096 -n 64 --validate --json="$out/write_bw_qos.server.json" \
    -- --tclass=32 -S 1 --disable_pcie_relaxed -s 4096 -n 64 --validate \
    --json="$out/write_bw_qos.client.json"
pair write_bw_cm_tos -R --tclass=32 -s 4096 -n 64 --validate \
    -- -R --tclass=32 -s 4096 -n 64 --validate --json="$out/write_bw_cm_tos.client.json"
pair tclass_mismatch --tclass=32 -n 10 -- --tclass=64 -n 10
# NIC counters: a small window on rxe0 moves no packet twice (clean);
# then netem drops 2% of what rxe1 sends (veth1 carries rxe1 -> rxe0) and
# rxe retransmits, which both ends' counters show.
tool=gdr_write_bw
pair counters_clean -s 4096 -t 4 -n 200 -- -s 4096 -t 4 -n 200 --json="$out/counters_clean.client.json"
modprobe sch_netem 2>"$out/netem.err" &&
    tc qdisc add dev veth1 root netem loss 2% 2>>"$out/netem.err"
dev_saved=$dev
dev=rxe1
pair_server_dev=rxe0
pair counters_lossy --sizes=16K:64K:4 -t 16 -n 100 \
    -- --sizes=16K:64K:4 -t 16 -n 100 --json="$out/counters_lossy.client.json"
tc qdisc del dev veth1 root 2>>"$out/netem.err"
dev=$dev_saved
pair_server_dev=
# A server of one test and a client of another.
port=$((port + 1))
"$bench/gdr_write_bw" -d "$dev" -p $port --timeout=20 >"$out/wrongtest.server.out" 2>&1 &
spid=$!
"$bench/gdr_send_bw" -d "$dev" -p $port --timeout=20 "$addr" >"$out/wrongtest.client.out" 2>&1
echo $? >"$out/wrongtest.client.rc"
wait $spid
echo $? >"$out/wrongtest.server.rc"
# A device that does not exist.
"$bench/gdr_write_bw" -d nosuchdev0 >"$out/nodev.out" 2>&1
echo $? >"$out/nodev.rc"
exit 0
