#!/bin/sh
# Runs inside the soft-RoCE lab (see gpu-matrix.test), with the CUDA driver
# test double preloaded (strict: the CPU faults on device memory; the NIC
# reaches it through the double's nvidia_peermem): every benchmark (the six) x
# placement (client-server) H-D, D-H, D-D x --gdr auto and off, validated,
# then the GPU error paths, then a planted CPU touch of device memory. The
# staged (--gdr=off) and -b runs also run under the reordering verbs double
# (tests/verbsim: plain writes placed out of order, as under adaptive
# routing), and so do a long staged run per staging placement and the old
# single-word credit scheme (credit_race).
out=$1
bench=$2
cudasim=$3
verbsim=$4
dev=${GDR_LAB_DEV:-rxe0}
addr=${GDR_LAB_ADDR:-198.18.0.1}
port=18700
lap_file=$out/times
. "$(dirname "$0")/../lab-times.sh"
# Strict ABI: the plain legacy names (cuMemAlloc) must not be what we call.
export GDR_CUDASIM_STRICT_ABI=1
# LD_PRELOAD: the double's nvidia_peermem; LD_LIBRARY_PATH: for dlopen.
sim="LD_PRELOAD=$cudasim/libcuda.so.1 LD_LIBRARY_PATH=$cudasim"
# vsim NAME SEED: $sim with the reordering double too, logging to NAME.vs.log.
vsim() {
    echo "LD_PRELOAD=$cudasim/libcuda.so.1:$verbsim/libverbsim.so LD_LIBRARY_PATH=$cudasim" \
        "GDR_VERBSIM_REORDER=1 GDR_VERBSIM_SEED=$2 GDR_VERBSIM_LOG=$out/$1.vs.log"
}
common="-d $dev --sizes=4K:64K:16 -n 16 --warmup=2 --validate --timeout=30"
# The bandwidth runs also show the staged path's window against the
# direct path's (issue 12): -t 16 -q 2 keeps 32 messages in flight; 64 KiB
# slots put 1K and 16K below a slot (several messages a slot) and 256K
# above it (cut into units). Staged write_bw D-D gets a ring of 8 slots,
# smaller than the window from 256K up: bounded by it, with a notice.
win="-d $dev --sizes=1K:256K:16 -t 16 -q 2 -n 48 --warmup=2 --stage-slot=64K --validate --timeout=30"
args_of() {  # TEST PLACEMENT GDR
    case $1.$2.$3 in
    *_lat.*) echo "$common" ;;
    write_bw.D-D.off) echo "$win --stage-slots=8" ;;
    *) echo "$win" ;;
    esac
}

mem_of() {  # LETTER GDR
    if [ "$1" = H ]; then echo "--mem=host"; else echo "--mem=cuda:0 --gdr=$2"; fi
}

main_t0=$(date +%s)
for t in write_bw send_bw read_lat write_lat send_lat read_bw; do
    [ "$t" = write_lat ] && family_t0=$(date +%s)
    for pl in H-D D-H D-D; do
        for g in auto off; do
            name=$t.$pl.$g
            args=$(args_of $t $pl $g)
            port=$((port + 1))
            env=$sim
            [ $g = off ] && env=$(vsim $name $port)
            lap_start
            # shellcheck disable=SC2046,SC2086
            envx $env "$bench/gdr_$t" -p $port $args $(mem_of "${pl#*-}" $g) \
                >"$out/$name.server.out" 2>&1 &
            spid=$!
            # shellcheck disable=SC2046,SC2086
            (envx $env "$bench/gdr_$t" -p $port $args $(mem_of "${pl%-*}" $g) \
                --json="$out/$name.client.json" "$addr") >"$out/$name.client.out" 2>&1
            echo $? >"$out/$name.client.rc"
            wait $spid
            echo $? >"$out/$name.server.rc"
            lap_end "$name"
        done
    done
done

echo $(($(date +%s) - main_t0)) >"$out/main.seconds"
echo $(($(date +%s) - family_t0)) >"$out/family.seconds"
pair_run() {  # NAME TOOL "SERVER ARGS" "CLIENT ARGS": under the reordering double
    port=$((port + 1))
    lap_start
    # shellcheck disable=SC2046,SC2086 # the environment's and the arguments' words
    envx $(vsim "$1" $port) "$bench/$2" -p $port $3 >"$out/$1.server.out" 2>&1 &
    spid=$!
    # shellcheck disable=SC2046,SC2086 # the environment's and the arguments' words
    (envx $(vsim "$1" $port) "$bench/$2" -p $port $4 --json="$out/$1.client.json" "$addr") \
        >"$out/$1.client.out" 2>&1
    echo $? >"$out/$1.client.rc"
    wait $spid
    echo $? >"$out/$1.server.rc"
    lap_end "$1"
}
# Real-GPU behaviour the double can show (docs/hardware.md):
# gpair NAME "SERVER_ENV" "SERVER_ARGS" "CLIENT_ARGS": one write_bw pair, both
# ends writing JSON, the server's environment extended for the double.
gpair() {
    port=$((port + 1))
    lap_start
    # shellcheck disable=SC2086
    envx $sim $2 "$bench/gdr_write_bw" -p $port $common $3 \
        --json="$out/$1.server.json" >"$out/$1.server.out" 2>&1 &
    spid=$!
    # shellcheck disable=SC2086
    (envx $sim "$bench/gdr_write_bw" -p $port $common $4 \
        --json="$out/$1.client.json" "$addr") >"$out/$1.client.out" 2>&1
    echo $? >"$out/$1.client.rc"
    wait $spid
    echo $? >"$out/$1.server.rc"
    lap_end "$1"
}
bidi_t0=$(date +%s)
# Bidirectional (-b), validated both ways, staged and direct.
for t in write_bw send_bw; do
    for pl in D-D H-D; do
        for g in auto off; do
            pair_run "bidi.$t.$pl.$g" "gdr_$t" "-b $common $(mem_of "${pl#*-}" $g)" \
                "-b $common $(mem_of "${pl%-*}" $g)"
        done
    done
done
echo $(($(date +%s) - bidi_t0)) >"$out/bidi.seconds"
# A long staged run under the reordering double for each placement that
# stages, each with its own seeds: 6000 messages of 64 B, two to a group
# (-t 16 over 8 slots), so 3000 groups (375 turns of the ring; twice that
# cost 20 s more of CI's lab time and placed thousands out of order either way) each,
# validated; one QP, so that the two data writes of a group are placed in
# either order before its marker. --events on the H-D run: its destination sleeps on events.
long_t0=$(date +%s)
long="-s 64 -t 16 -q 1 --stage-slots=8 -n 6000 --warmup=0 --validate --timeout=60"
pair_run long.H-D gdr_write_bw "$long -e $(mem_of D off)" "$long $(mem_of H off)"
pair_run long.D-H gdr_write_bw "$long $(mem_of H off)" "$long $(mem_of D off)"
pair_run long.D-D gdr_write_bw "$long $(mem_of D off)" "$long $(mem_of D off)"
echo $(($(date +%s) - long_t0)) >"$out/long.seconds"
race_t0=$(date +%s)
lap_start
# The old credit scheme (one word, several writes in flight), a reused
# local credit word, and the per-slot entries, with and without the double.
for m in word reuse slots; do
    { "$verbsim/credit_race" -d "$dev" -r 20 $m; echo $? >"$out/race.$m.plain.rc"; } \
        >"$out/race.$m.plain.out" 2>&1
    # shellcheck disable=SC2046 # the environment's words
    { (envx $(vsim race.$m 7) "$verbsim/credit_race" -d "$dev" -r 20 $m)
      echo $? >"$out/race.$m.rc"; } >"$out/race.$m.out" 2>&1
done
echo $(($(date +%s) - race_t0)) >"$out/race.seconds"
lap_end credit_race
# Write ordering: flush before the check reads what the NIC wrote (the
# double's default: ordering none, flush supported), not when the device
# orders writes for its owner, and say so when it can do neither.
gpair flush "GDR_CUDASIM_TRACE=1" "--mem=cuda" "--mem=host"
gpair noflush "GDR_CUDASIM_TRACE=1 GDR_CUDASIM_RDMA_WRITES_ORDERING=owner" "--mem=cuda" "--mem=host"
gpair cantflush "GDR_CUDASIM_FLUSH_OPTIONS=0" "--mem=cuda" "--mem=host"
# More bounce slots than send-queue entries: queues sized for staging.
gpair slots256 "" "--mem=cuda --gdr=off --stage-slots=256 --stage-slot=4K -t 16" \
    "--mem=cuda --gdr=off --stage-slots=256 --stage-slot=4K -t 16"
# A staging copy that does not finish: the read responder's wait for it
# obeys --timeout (the double delays each async copy by 6 s).
port=$((port + 1))
lap_start
# shellcheck disable=SC2086 # the preload's words
envx $sim GDR_CUDASIM_COPY_DELAY_US=6000000 "$bench/gdr_read_lat" -p $port \
    -d "$dev" -s 4096 -n 4 --timeout=2 --mem=cuda --gdr=off >"$out/stuckcopy.server.out" 2>&1 &
spid=$!
"$bench/gdr_read_lat" -p $port -d "$dev" -s 4096 -n 4 --timeout=10 "$addr" \
    >"$out/stuckcopy.client.out" 2>&1
echo $? >"$out/stuckcopy.client.rc"
wait $spid
echo $? >"$out/stuckcopy.server.rc"
lap_end stuckcopy

# A staged destination that stops mid-run (SIGSTOP: its socket stays open):
# the source's watchdog fires after --timeout and names the last credit it
# saw and the groups it sent. Stopped once the run is under way (rxe has
# sent 2000 packets more; 30 s at most), not after a fixed 5 s: under load
# the stop once landed before the staged source began, with no credits or
# groups to name.
sent_pkts() { cat "/sys/class/infiniband/$dev/ports/1/hw_counters/sent_pkts" 2>/dev/null || echo 0; }
stall_t0=$(date +%s)
lap_start
port=$((port + 1))
stall="-d $dev -s 4096 -n 1000000 --warmup=0 --timeout=3 --quiet --mem=cuda:0 --gdr=off"
# shellcheck disable=SC2086
envx $sim "$bench/gdr_write_bw" -p $port $stall >"$out/stall.server.out" 2>&1 &
spid=$!
# shellcheck disable=SC2086
envx $sim "$bench/gdr_write_bw" -p $port $stall "$addr" >"$out/stall.client.out" 2>&1 &
cpid=$!
p0=$(sent_pkts) k=0
while [ $(($(sent_pkts) - p0)) -lt 2000 ] && [ $k -lt 300 ] && kill -0 $cpid 2>/dev/null; do
    sleep 0.1; k=$((k + 1))
done
kill -STOP $spid
wait $cpid
echo $? >"$out/stall.client.rc"
kill -KILL $spid
wait $spid 2>/dev/null
echo $(($(date +%s) - stall_t0)) >"$out/stall.seconds"
lap_end stall

# ci/gpu-check's soft-RoCE step, on the double: one slot size, few iterations
# and a two-message warm-up (the default's would move more than the runs).
mkdir -p "$out/gpucheck"
lap_start
# shellcheck disable=SC2086
(envx $sim GDR_GPU_CHECK_SLOTS=65536 GDR_GPU_CHECK_ITERS=4 GDR_GPU_CHECK_LAT_ITERS=20 \
    GDR_GPU_CHECK_WARMUP=2 \
    "$(dirname "$0")/../../ci/gpu-check-staged" "$out/gpucheck" "$bench" "$bench/../tools")
echo $? >"$out/gpucheck.rc"
lap_end gpucheck

# GPU memory as NCCL and GB200 use it (issue 26).
# epair NAME "ENV" "SERVER ARGS" "CLIENT ARGS": one validated write_bw pair,
# ENV (the double and its knobs) on both ends, both writing JSON.
epair() {
    port=$((port + 1))
    lap_start
    # shellcheck disable=SC2086
    envx $2 "$bench/gdr_write_bw" -p $port $common $3 \
        --json="$out/$1.server.json" >"$out/$1.server.out" 2>&1 &
    spid=$!
    # shellcheck disable=SC2086
    (envx $2 "$bench/gdr_write_bw" -p $port $common $4 \
        --json="$out/$1.client.json" "$addr") >"$out/$1.client.out" 2>&1
    echo $? >"$out/$1.client.rc"
    wait $spid
    echo $? >"$out/$1.server.rc"
    lap_end "$1"
}
gpumem_t0=$(date +%s)
vmm="--mem=cuda --gpu-alloc=vmm"
# VMM allocations (cuMemCreate, GPUDirect RDMA capable), D-D and H-D, GDR
# on (the double's dma-buf exports, and its peermem) and off.
epair vmm.D-D.dmabuf "$sim GDR_CUDASIM_DMABUF=1" "$vmm --gdr=dmabuf" "$vmm --gdr=dmabuf"
epair vmm.H-D.peermem "$sim" "$vmm --gdr=peermem" "--mem=host"
epair vmm.D-D.off "$sim" "$vmm --gdr=off" "$vmm --gdr=off"
epair vmm.H-D.off "$sim" "$vmm --gdr=off" "--mem=host"
# The PCIe mapping flag on a C2C GPU: accepted; then a read through the NIC
# before the check (the CUDA flush does nothing for the second path).
epair pcie.accepted "$sim GDR_CUDASIM_C2C=1 GDR_CUDASIM_DMABUF=1" \
    "--mem=cuda --gdr=dmabuf --dmabuf-mapping=pcie" "--mem=host"
# What auto chooses with the NIC under the GPU's switch (not on rxe).
mapping() {  # NAME "ENV" ARGS...
    name=$1 envs=$2
    shift 2
    lap_start
    # shellcheck disable=SC2086
    (envx $sim $envs "$cudasim/dmabuf_mapping" -d "$dev" "$@") >"$out/map.$name.out" 2>&1
    echo $? >"$out/map.$name.rc"
    lap_end "map.$name"
}
c2c="GDR_CUDASIM_C2C=1 GDR_CUDASIM_DMABUF=1"
mapping c2c.near "$c2c" auto near
mapping c2c.near.vmm "$c2c" auto near vmm
mapping c2c.far "$c2c" auto far
mapping pcie.x86 "GDR_CUDASIM_DMABUF=1" auto near
mapping unknown.auto "$c2c GDR_CUDASIM_DMABUF_PCIE=unknown" auto near
mapping unknown.pcie "$c2c GDR_CUDASIM_DMABUF_PCIE=unknown" pcie near
# An old driver (CUDA 11.2: no dma-buf export, no flush): peermem and
# staged still run; dma-buf is refused in one line.
sim_old="LD_PRELOAD=$cudasim/old/libcuda.so.1 LD_LIBRARY_PATH=$cudasim/old"
epair old.peermem "$sim_old" "--mem=cuda --gdr=peermem" "--mem=cuda --gdr=peermem"
epair old.off "$sim_old" "--mem=cuda --gdr=off" "--mem=cuda --gdr=off"
echo $(($(date +%s) - gpumem_t0)) >"$out/gpumem.seconds"

# Error paths (server side: the buffer is set up before any peer is
# awaited): each must be one clear line and the documented exit code.
one() {  # NAME "VAR=VALUE..." "ARGS"
    lap_start
    # shellcheck disable=SC2086
    (envx $2 "$bench/gdr_write_bw" -d "$dev" -s 4096 -n 4 --timeout=5 $3) >"$out/err.$1.out" 2>&1
    echo $? >"$out/err.$1.rc"
    lap_end "err.$1"
}
one nodriver "LD_LIBRARY_PATH=/nonexistent" "--mem=cuda"
one nodevice "$sim GDR_CUDASIM_NO_DEVICE=1" "--mem=cuda"
one badindex "$sim" "--mem=cuda:7"
one allocfail "$sim GDR_CUDASIM_FAIL=cuMemAlloc" "--mem=cuda"
one dmabuf "$sim" "--mem=cuda --gdr=dmabuf"
one noreg "$sim GDR_CUDASIM_FAIL=cuPointerSetAttribute" "--mem=cuda"
# Not preloaded: a host without nvidia_peermem (ibv_reg_mr: EFAULT).
one nopeermem "LD_LIBRARY_PATH=$cudasim" "--mem=cuda --gdr=peermem"
one olddmabuf "$sim_old" "--mem=cuda --gdr=dmabuf"
one vmmnogdr "$sim GDR_CUDASIM_VMM=nogdr" "--mem=cuda --gpu-alloc=vmm"
one vmmoff "$sim GDR_CUDASIM_VMM=off" "--mem=cuda --gpu-alloc=vmm --gdr=off"
one pcierefused "$sim $c2c GDR_CUDASIM_DMABUF_PCIE=unknown" \
    "--mem=cuda --gdr=dmabuf --dmabuf-mapping=pcie"
one ddrxe "$sim" "--mem=cuda --data-direct=on"

# The strict double catches a CPU touch of device memory: an inline post
# from a cuMemAlloc'd buffer (the provider memcpys the payload) must die of
# SIGSEGV; without INLINE the NIC reads it through its registration; with
# GDR_CUDASIM_STRICT=0 the inline post goes through too.
post() {  # NAME "VAR=VALUE..." ARGS
    lap_start
    # shellcheck disable=SC2086
    { (envx $2 "$cudasim/post_from_device" -d "$dev" $3); echo $? >"$out/post.$1.rc"; } >"$out/post.$1.out" 2>&1
    lap_end "post.$1"
}
post inline_send "$sim" "inline send"
post inline_write "$sim" "inline write"
post plain_send "$sim" "plain send"
post plain_write "$sim" "plain write"
post inline_lax "$sim GDR_CUDASIM_STRICT=0" "inline send"
exit 0
