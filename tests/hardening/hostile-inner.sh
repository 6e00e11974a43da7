#!/bin/sh
# Runs inside the soft-RoCE lab (see hostile-peers.test): hostile, broken,
# dead and stalled peers against real servers and clients on rxe0. Records
# for each case NAME.rc (exit status), NAME.s (seconds it took), NAME.out
# (stdout) and NAME.err (stderr) under $1; the .test file judges them.
out=$1
bench=$2
poke=$3
dev=${GDR_LAB_DEV:-rxe0}
addr=${GDR_LAB_ADDR:-198.18.0.1}
port=18700
now() { date +%s.%N; }
took() { echo "$(now) $1" | awk '{printf "%.1f\n", $1 - $2}'; }

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
    poke wrong_version "hdr:1:2:2"
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
