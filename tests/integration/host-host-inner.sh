#!/bin/sh
# Runs inside the soft-RoCE lab (see host-host.test): every benchmark as
# server and client on rxe0, with --validate, over a sweep of sizes, and the
# cases that must fail cleanly. Writes JSON, outputs, exit codes and the
# seconds the runs took (*.seconds) to $1.
out=$1
bench=$2
verbsim=$3
slowsysfs=$4
dev=${GDR_LAB_DEV:-rxe0}
addr=${GDR_LAB_ADDR:-198.18.0.1}
port=18600
lap_file=$out/times
. "$(dirname "$0")/../lab-times.sh"

# pair NAME SERVER_ARGS -- CLIENT_ARGS: one server/client run; records
# NAME.server.rc, NAME.client.rc and their outputs. Both ends run with the
# environment in $penv, the client with pair_client_env's too (VAR=VALUE
# words; none by default).
penv=
pair_client_env=
pair() {
    name=$1; shift
    server_args=""
    while [ "$1" != "--" ]; do server_args="$server_args $1"; shift; done
    shift
    port=$((port + 1))
    lap_start
    # shellcheck disable=SC2086 # the environment's and the arguments' words
    envx $penv "$bench/$tool" -d "${pair_server_dev:-$dev}" -p $port --timeout=30 $server_args \
        >"$out/$name.server.out" 2>&1 &
    spid=$!
    # shellcheck disable=SC2086 # the environments' words
    (envx $penv $pair_client_env "$bench/$tool" -d "$dev" -p $port --timeout=30 "$@" "$addr") \
        >"$out/$name.client.out" 2>&1
    echo $? >"$out/$name.client.rc"
    wait $spid
    echo $? >"$out/$name.server.rc"
    lap_end "$name"
}

t0=$(date +%s)
# Two warm-up messages a size: the default's (up to 16 MiB a size for
# bandwidth, 100 round trips for latency) moved more bytes than the timed
# runs at the large sizes, which under emulation is most of the lab's time.
sweep="--sizes=1:256K:4 -n 64 --warmup=2 --validate"
for t in write_bw read_lat send_bw write_lat send_lat read_bw; do
    [ "$t" = write_lat ] && family_t0=$(date +%s)
    tool=gdr_$t
    # shellcheck disable=SC2086 # the sweep's words
    pair "$t" $sweep --json="$out/$t.server.json" -- $sweep --json="$out/$t.client.json"
    [ "$t" = read_bw ] && family_s=$(($(date +%s) - family_t0))
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
# One message a size: the receiver times from its go signal, and the
# second QP carries nothing.
pair send_bw_one -q 2 --sizes=64:4K:64 -n 1 --validate --json="$out/send_bw_one.server.json" \
    -- -q 2 --sizes=64:4K:64 -n 1 --validate --json="$out/send_bw_one.client.json"
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
# Both ends see the GID table as ConnectX shows it (the verbs double: a
# RoCEv1 twin of the address listed before its RoCEv2 entry): what they
# record must be the entry rdma_cm connected over.
penv="LD_PRELOAD=$verbsim/libverbsim.so GDR_VERBSIM_GID_TWINS=1"
penv="$penv GDR_VERBSIM_LOG=$out/write_bw_cm_tos.vs.log"
pair write_bw_cm_tos -R --tclass=32 -s 4096 -n 64 --validate \
    -- -R --tclass=32 -s 4096 -n 64 --validate --json="$out/write_bw_cm_tos.client.json"
penv=
pair tclass_mismatch --tclass=32 -n 10 -- --tclass=64 -n 10
family_t0=$(date +%s)
# The family (issue 24): write latency through the CQ on host buffers too,
# read bandwidth over two QPs with the reads in flight lowered by -o.
tool=gdr_write_lat
pair write_lat_imm --write_with_imm --sizes=1:64K:16 -n 32 --validate \
    -- --write_with_imm --sizes=1:64K:16 -n 32 --validate --json="$out/write_lat_imm.client.json"
tool=gdr_read_bw
pair read_bw_outs -o 2 -q 2 -t 16 --sizes=4K:256K:8 -n 64 --validate \
    -- -o 2 -q 2 -t 16 --sizes=4K:256K:8 -n 64 --validate --json="$out/read_bw_outs.client.json"
# rdma_cm negotiates the reads itself; -o above what the devices allow is
# lowered, with a notice.
pair read_bw_cm -R -o 200 -s 4096 -n 64 --validate \
    -- -R -o 200 -s 4096 -n 64 --validate --json="$out/read_bw_cm.client.json"
# Reads in flight as mlx5 keeps them, a power of two (issue 34): -o 3 is
# asked as 2; ends on kernels that round down (server) and up (client)
# then hold the same 2; a responder that holds fewer than the requester
# issues (short: half) is refused before the run, with -R too.
pair read_bw_outs3 -o 3 -s 4096 -n 64 --validate \
    -- -o 3 -s 4096 -n 64 --validate --json="$out/read_bw_outs3.client.json"
penv="LD_PRELOAD=$verbsim/libverbsim.so GDR_VERBSIM_RD_ATOMIC=down"
pair_client_env="GDR_VERBSIM_RD_ATOMIC=up"
pair read_bw_kernels -o 3 -s 4096 -n 64 --validate \
    -- -o 3 -s 4096 -n 64 --validate --json="$out/read_bw_kernels.client.json"
penv="LD_PRELOAD=$verbsim/libverbsim.so GDR_VERBSIM_RD_ATOMIC=short"
pair_client_env="GDR_VERBSIM_RD_ATOMIC=down"
pair read_bw_short -o 2 -s 4096 -n 64 -- -o 2 -s 4096 -n 64
# The same through rdma_cm (-R): librdmacm moves the QPs, the check is ours.
pair read_bw_cm_short -R -o 2 -s 4096 -n 64 -- -R -o 2 -s 4096 -n 64
penv=
pair_client_env=
# wrong_test NAME SERVER_TOOL CLIENT_TOOL: a server of one test, a client of another.
wrong_test() {
    port=$((port + 1))
    lap_start
    "$bench/$2" -d "$dev" -p $port --timeout=20 >"$out/$1.server.out" 2>&1 &
    spid=$!
    "$bench/$3" -d "$dev" -p $port --timeout=20 "$addr" >"$out/$1.client.out" 2>&1
    echo $? >"$out/$1.client.rc"
    wait $spid
    echo $? >"$out/$1.server.rc"
    lap_end "$1"
}
wrong_test wrongtest_lat gdr_write_lat gdr_send_lat
echo $((family_s + $(date +%s) - family_t0)) >"$out/family.seconds"
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
# --qp-timeout=14 (67 ms): a tail drop waits one local ACK timeout, and the
# default 20 (4.3 s, NCCL's, for congested fabrics) makes this run crawl.
pair counters_lossy --sizes=16K:64K:4 -t 16 -n 100 --qp-timeout=14 \
    -- --sizes=16K:64K:4 -t 16 -n 100 --qp-timeout=14 --json="$out/counters_lossy.client.json"
tc qdisc del dev veth1 root 2>>"$out/netem.err"
dev=$dev_saved
pair_server_dev=
# Counter snapshots as slow as mlx5's (firmware commands; slowsysfs) at
# the client of send_bw, whose server counts from the READY it sends: the
# snapshots must not fall inside the server's timed phase.
tool=gdr_send_bw
pair_client_env="LD_PRELOAD=$slowsysfs GDR_SLOW_COUNTERS_MS=1000"
pair counters_slow -s 4096 -n 200 -- -s 4096 -n 200 --json="$out/counters_slow.client.json"
pair_client_env=
wrong_test wrongtest gdr_write_bw gdr_send_bw
echo $(($(date +%s) - t0)) >"$out/all.seconds"
# A device that does not exist.
"$bench/gdr_write_bw" -d nosuchdev0 >"$out/nodev.out" 2>&1
echo $? >"$out/nodev.rc"
exit 0
