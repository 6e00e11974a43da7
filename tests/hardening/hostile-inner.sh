#!/bin/sh
# Runs inside the soft-RoCE lab (see hostile-peers.test): hostile, broken,
# dead and stalled peers against real servers and clients on rxe0. Records
# for each case NAME.rc (exit status), NAME.s (seconds it took), NAME.out
# (stdout) and NAME.err (stderr) under $1; the .test file judges them.
# shellcheck disable=SC2086 # $long, $busy, $bw, $senv, $cenv: lists of words
out=$1
bench=$2
poke=$3
verbsim=$4
cudasim=$5
dev=${GDR_LAB_DEV:-rxe0}
addr=${GDR_LAB_ADDR:-198.18.0.1}
port=18700
. "$(dirname "$0")/../lab-times.sh"
# now: the clock in hundredths of a second; took T0: the seconds since T0,
# to a tenth (the shell's own: lab-times.sh)
now() { lap_now; echo "$lap_cs"; }
took() {
    lap_now
    d=$(((lap_cs - $1 + 5) / 10))
    echo "$((d / 10)).$((d % 10))"
}

# poke NAME ITEM...: a write_bw server (--timeout=4) and oob_poke sending
# the items, in the background; records the server's NAME.{rc,out,err},
# what oob_poke got back in NAME.poke and the seconds from its connection
# to the server's close in NAME.s. With $only set, only the cases it names
# run, one at a time.
only=""
poke() {
    name=$1; shift
    if [ -n "$only" ]; then case " $only " in *" $name "*) ;; *) return 0 ;; esac; fi
    port=$((port + 1))
    (
        "$bench/gdr_write_bw" -d "$dev" -p $port --timeout=4 -n 10 -s 4096 \
            >"$out/$name.out" 2>"$out/$name.err" &
        spid=$!
        "$poke" -w 8 "$addr" $port "$@" >"$out/$name.poke" 2>&1
        wait $spid
        echo $? >"$out/$name.rc"
        sed -n 's/^elapsed //p' "$out/$name.poke" >"$out/$name.s"
    ) &
    [ -z "$only" ] || wait
}

cases() {
    poke garbage "raw:GET / HTTP/1.0
"
    poke short_header "raw:GDRB" shut
    poke truncated_close "hdr:1:100" 'raw:{"tool":"gdr' shut
    poke truncated_stall "hdr:1:100" 'raw:{"tool":"gdr' "sleep:6"
    poke oversized "hdr:1:4294967295"
    poke over_limit "hdr:1:65537"
    poke wrong_version "hdr:1:2:3"
    poke wrong_magic "hdr:1:2:1:GDRX"
    poke unknown_type "hdr:77:2"
    poke bad_json 'msg:1:{"tool":'
    poke not_object 'msg:1:[1,2,3]'
    poke unexpected_type 'msg:3:{}'
    poke no_parameters 'msg:1:{"tool":"gdrbench"}'
    poke wrong_tool 'msg:1:{"tool":"gdrbench","version":"x","parameters":{"test":"read_lat"}}'
    poke newline_tool 'msg:1:{"parameters":{"test":"x\nEVIL\u001b[2J"}}'
    poke peer_error 'msg:9:{"message":"\u001b[31mred\u0007 and a very long reason","exit_code":2}'
    poke silent "sleep:6"
}

cases
wait
# A server that saw no connection within its --timeout never met its case:
# on a loaded machine all sixteen start at once and a poker can come late.
# Those run again, alone.
only=$(grep -l "no client connected within" "$out"/*.err 2>/dev/null |
    sed 's|.*/||; s|\.err$||' | tr '\n' ' ')
[ -z "$only" ] || { echo "# rerun alone (no connection in time): $only" >&2; cases; }
only=""

# start NAME TOOL ARGS...: a benchmark in the background; sets $pid.
start() {
    name=$1 tool=$2; shift 2
    "$bench/$tool" -d "$dev" "$@" >"$out/$name.out" 2>"$out/$name.err" &
    pid=$!
}
# reap NAME PID: wait for it; NAME.rc, and NAME.s counted from $t0.
reap() {
    wait "$2"
    echo $? >"$out/$1.rc"
    took "$t0" >"$out/$1.s"
}
# rows FILE: wait (up to 60 s) until FILE shows a first result row, so
# what follows happens mid-sweep, however slow the lab is today.
rows() {
    i=0
    until grep -Eq '^ +[0-9]+ +[0-9]+ ' "$1" 2>/dev/null || [ $i -ge 600 ]; do
        sleep 0.1; i=$((i + 1))
    done
}
long="--sizes=4K:4M -n 3000 --timeout=5"

# A client killed mid-sweep: the server must give up in time. write_bw's
# server waits on the control channel; send_bw's polls its receive queue.
for t in write_bw send_bw; do
    port=$((port + 1))
    start kill_client_$t.server gdr_$t -p $port $long; s=$pid
    start kill_client_$t.client gdr_$t -p $port $long "$addr"; c=$pid
    rows "$out/kill_client_$t.client.out"; kill -KILL $c; t0=$(now); reap kill_client_$t.client $c
    reap kill_client_$t.server $s
done

# The server killed mid-sweep: the client gives up in time.
port=$((port + 1))
start kill_server.server gdr_write_bw -p $port $long; s=$pid
start kill_server.client gdr_write_bw -p $port $long "$addr"; c=$pid
rows "$out/kill_server.client.out"; kill -KILL $s; wait $s
t0=$(now); reap kill_server.client $c

# A stalled server (SIGSTOP): the client hits --timeout.
port=$((port + 1))
start stall.server gdr_send_bw -p $port $long; s=$pid
start stall.client gdr_send_bw -p $port $long "$addr"; c=$pid
rows "$out/stall.client.out"; kill -STOP $s
t0=$(now); reap stall.client $c
kill -CONT $s; reap stall.server $s

# SIGINT to a client writing JSON: a complete document, status interrupted.
port=$((port + 1))
start sigint.server gdr_write_bw -p $port $long --json="$out/sigint.server.json"; s=$pid
start sigint.client gdr_write_bw -p $port $long --json="$out/sigint.client.json" "$addr"; c=$pid
rows "$out/sigint.client.out"; kill -INT $c
t0=$(now); reap sigint.client $c
reap sigint.server $s
# SIGTERM to a server writing JSON.
port=$((port + 1))
start sigterm.server gdr_write_bw -p $port $long --json="$out/sigterm.server.json"; s=$pid
start sigterm.client gdr_write_bw -p $port $long "$addr"; c=$pid
rows "$out/sigterm.server.out"; kill -TERM $s
t0=$(now); reap sigterm.server $s
reap sigterm.client $c

# Faults from the verbs double (tests/verbsim, fault.c) in one end: an
# error completion at a chosen send request, or an async event. Two
# sizes of 50 warm-up and 3000 timed messages each: the client's send
# request 4050 is message 949 of the second size's timed phase (3050 + 50
# + 950), so the first size's row is complete. NAME.t: the seconds from
# the first end's exit to the second's.
# fault NAME TOOL SIDE FAULT WHEN [ARGS...]: SIDE (client|server) gets the
# double with GDR_VERBSIM_FAULT=FAULT and WHEN (AT=N or AFTER_MS=T), with
# $fault_env's words too; the other end gets $other_env's.
fault() {
    name=$1 tool=$2 side=$3 f=$4 when=$5; shift 5
    port=$((port + 1))
    env="LD_PRELOAD=$preload GDR_VERBSIM_FAULT=$f GDR_VERBSIM_FAULT_$when GDR_VERBSIM_SEED=23"
    env="$env${fault_env:+ $fault_env}"
    senv=${other_env:-} cenv=${other_env:-}
    if [ "$side" = server ]; then senv=$env; else cenv=$env; fi
    t0=$(now)
    envx $senv "GDR_VERBSIM_LOG=$out/$name.server.vlog" "$bench/gdr_$tool" -d "$dev" -p $port \
        --json="$out/$name.server.json" "$@" >"$out/$name.server.out" 2>"$out/$name.server.err" &
    s=$!
    envx $cenv "GDR_VERBSIM_LOG=$out/$name.client.vlog" "$bench/gdr_$tool" -d "$dev" -p $port \
        --json="$out/$name.client.json" "$@" "$addr" >"$out/$name.client.out" 2>"$out/$name.client.err" &
    c=$!
    # Whichever ends first starts the clock of the other.
    first=""
    while [ -z "$first" ]; do
        kill -0 $s 2>/dev/null || first=server
        kill -0 $c 2>/dev/null || first=${first:-client}
        [ -n "$first" ] || sleep 0.05
    done
    t1=$(now)
    wait $s; echo $? >"$out/$name.server.rc"
    wait $c; echo $? >"$out/$name.client.rc"
    took "$t1" >"$out/$name.t"
    took "$t0" >"$out/$name.s"
}
# A sanitizer build's runtime must come first among the preloaded.
asan=$(ldd "$bench/gdr_write_bw" 2>/dev/null | awk '/libasan/ { print $3 }')
preload=${asan:+$asan:}$verbsim
if [ -n "$verbsim" ]; then
    bw="--sizes=4096:65536:16 -n 3000 --warmup=50 --timeout=5"
    fault fault_retry write_bw client IBV_WC_RETRY_EXC_ERR AT=4050 $bw
    fault fault_access send_bw client IBV_WC_REM_ACCESS_ERR AT=4050 --sizes=4096:8192 -n 3000 \
        --warmup=50 --timeout=5
    # read_lat: 1000 timed each; request 1401 is message 300 of size 128.
    fault fault_flush read_lat client IBV_WC_WR_FLUSH_ERR AT=1401 --sizes=64:128 -n 1000 \
        --warmup=50 --timeout=5
    fault fault_port write_bw client IBV_EVENT_PORT_ERR AT=4050 $bw
    fault fault_qp write_bw client IBV_EVENT_QP_FATAL AT=4050 $bw
    # The server of a write test posts nothing: its event comes by time,
    # in the middle of a long sweep.
    fault fault_device write_bw server IBV_EVENT_DEVICE_FATAL AFTER_MS=4000 $long
    # The failure behind a flush: the end's first request runs out of
    # retries and its QP flushes the receives it polls first, a ping-pong's
    # answer and a staged destination's first credit write (the CUDA
    # double's GPU memory behind it, the double's library first).
    fault fault_answer send_lat server IBV_WC_RETRY_EXC_ERR AT=1 -s 64 -n 200 --warmup=0 \
        --timeout=5
    if [ -n "$cudasim" ]; then
        cuda=${asan:+$asan:}$cudasim/libcuda.so.1
        preload=$cuda:$verbsim fault_env="LD_LIBRARY_PATH=$cudasim"
        other_env="LD_PRELOAD=$cuda LD_LIBRARY_PATH=$cudasim"
        fault fault_credit write_bw server IBV_WC_RETRY_EXC_ERR AT=1 -s 4096 -n 200 --warmup=0 \
            --timeout=5 --mem=cuda --gdr=off
        preload=${asan:+$asan:}$verbsim fault_env="" other_env=""
    fi
fi

# The link really down in the middle of a run, then up again: the client
# on rxe1 (veth1), the server on rxe0 (veth0, its veth peer: its carrier
# goes too, as with a pulled cable). The control channel runs over lo.
port=$((port + 1))
start link.server gdr_write_bw -p $port $long --json="$out/link.server.json"; s=$pid
"$bench/gdr_write_bw" -d rxe1 -p $port $long --json="$out/link.client.json" "$addr" \
    >"$out/link.client.out" 2>"$out/link.client.err" &
c=$!
rows "$out/link.client.out"
ip link set veth1 down; t0=$(now)
reap link.client $c
reap link.server $s
sleep 1
ip link set veth1 up
# Routes through veth1 went with it (ci/lab/guest-run.sh made them).
ip route replace 198.18.0.1 dev veth1 src 198.18.0.2 table 10
ip route replace 198.18.0.2 dev veth0 src 198.18.0.1 table 11
i=0
until [ $i -ge 100 ] || { rdma link show rxe1/1 | grep -q 'state ACTIVE' &&
                         rdma link show rxe0/1 | grep -q 'state ACTIVE'; }; do
    sleep 0.1; i=$((i + 1))
done
echo "$((i / 10)).$((i % 10))" >"$out/link_up.s"
port=$((port + 1))
start link_up.server gdr_write_bw -p $port -s 65536 -n 500 --timeout=10; s=$pid
"$bench/gdr_write_bw" -d rxe1 -p $port -s 65536 -n 500 --timeout=10 "$addr" \
    >"$out/link_up.client.out" 2>"$out/link_up.client.err"
echo $? >"$out/link_up.client.rc"
wait $s; echo $? >"$out/link_up.server.rc"

# A second client while the server is busy: refused, the run unharmed.
port=$((port + 1))
busy="--sizes=4K:64K -n 2000 --timeout=10"
start busy.server gdr_write_bw -p $port $busy; s=$pid
start busy.client gdr_write_bw -p $port $busy "$addr"; c=$pid
rows "$out/busy.client.out"
t0=$(now)
"$bench/gdr_write_bw" -d "$dev" -p $port $busy "$addr" >"$out/busy.second.out" 2>"$out/busy.second.err"
echo $? >"$out/busy.second.rc"; took "$t0" >"$out/busy.second.s"
reap busy.client $c
reap busy.server $s
exit 0
