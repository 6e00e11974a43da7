#!/bin/sh
# Runs inside the soft-RoCE lab (see gpu-matrix.test), with the CUDA driver
# test double on LD_LIBRARY_PATH: every benchmark x placement (client-server)
# H-D, D-H, D-D x --gdr auto and off, validated, then the GPU error paths.
out=$1
bench=$2
cudasim=$3
dev=${GDR_LAB_DEV:-rxe0}
addr=${GDR_LAB_ADDR:-198.18.0.1}
port=18700
# Strict ABI: the plain legacy names (cuMemAlloc) must not be what we call.
export GDR_CUDASIM_STRICT_ABI=1
common="-d $dev --sizes=4K:64K:16 -n 16 --warmup=2 --validate --timeout=30"

mem_of() {  # LETTER GDR
    if [ "$1" = H ]; then echo "--mem=host"; else echo "--mem=cuda:0 --gdr=$2"; fi
}

for t in write_bw send_bw read_lat; do
    for pl in H-D D-H D-D; do
        for g in auto off; do
            name=$t.$pl.$g
            port=$((port + 1))
            # shellcheck disable=SC2046,SC2086
            LD_LIBRARY_PATH=$cudasim "$bench/gdr_$t" -p $port $common $(mem_of "${pl#*-}" $g) \
                >"$out/$name.server.out" 2>&1 &
            spid=$!
            # shellcheck disable=SC2046,SC2086
            LD_LIBRARY_PATH=$cudasim "$bench/gdr_$t" -p $port $common $(mem_of "${pl%-*}" $g) \
                --json="$out/$name.client.json" "$addr" >"$out/$name.client.out" 2>&1
            echo $? >"$out/$name.client.rc"
            wait $spid
            echo $? >"$out/$name.server.rc"
        done
    done
done

# The staged path's window against the direct path's (issue 12): -t 16
# -q 2 keeps 32 messages in flight; 64 KiB slots put 1K and 16K below a
# slot (several messages a slot) and 256K above it (cut into units).
win="-d $dev --sizes=1K:256K:16 -t 16 -q 2 -n 48 --warmup=2 --stage-slot=64K --validate --timeout=30"
pair_run() {  # NAME TOOL "SERVER ARGS" "CLIENT ARGS"
    port=$((port + 1))
    # shellcheck disable=SC2086
    LD_LIBRARY_PATH=$cudasim "$bench/$2" -p $port $3 >"$out/$1.server.out" 2>&1 &
    spid=$!
    # shellcheck disable=SC2086
    LD_LIBRARY_PATH=$cudasim "$bench/$2" -p $port $4 --json="$out/$1.client.json" "$addr" \
        >"$out/$1.client.out" 2>&1
    echo $? >"$out/$1.client.rc"
    wait $spid
    echo $? >"$out/$1.server.rc"
}
for t in write_bw send_bw; do
    for pl in H-D D-H D-D; do
        for g in auto off; do
            pair_run "win.$t.$pl.$g" "gdr_$t" "$win $(mem_of "${pl#*-}" $g)" \
                "$win $(mem_of "${pl%-*}" $g)"
        done
    done
done
# A ring smaller than the window: bounded by it, and a notice says so.
pair_run win.cap gdr_write_bw "$win --mem=cuda:0 --gdr=off --stage-slots=8" \
    "$win --mem=cuda:0 --gdr=off --stage-slots=8"
# Bidirectional (-b), validated both ways, staged and direct.
for t in write_bw send_bw; do
    for pl in D-D H-D; do
        for g in auto off; do
            pair_run "bidi.$t.$pl.$g" "gdr_$t" "-b $common $(mem_of "${pl#*-}" $g)" \
                "-b $common $(mem_of "${pl%-*}" $g)"
        done
    done
done

# Error paths (server side: the buffer is set up before any peer is
# awaited): each must be one clear line and the documented exit code.
one() {  # NAME "VAR=VALUE..." "ARGS"
    # shellcheck disable=SC2086
    env $2 "$bench/gdr_write_bw" -d "$dev" -s 4096 -n 4 --timeout=5 $3 >"$out/err.$1.out" 2>&1
    echo $? >"$out/err.$1.rc"
}
one nodriver "LD_LIBRARY_PATH=/nonexistent" "--mem=cuda"
one nodevice "LD_LIBRARY_PATH=$cudasim GDR_CUDASIM_NO_DEVICE=1" "--mem=cuda"
one badindex "LD_LIBRARY_PATH=$cudasim" "--mem=cuda:7"
one allocfail "LD_LIBRARY_PATH=$cudasim GDR_CUDASIM_FAIL=cuMemAlloc" "--mem=cuda"
one dmabuf "LD_LIBRARY_PATH=$cudasim" "--mem=cuda --gdr=dmabuf"
one noreg "LD_LIBRARY_PATH=$cudasim GDR_CUDASIM_FAIL=cuPointerSetAttribute" "--mem=cuda"
exit 0
