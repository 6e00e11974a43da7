#!/bin/bash
# Stage 2 of the rxe-lab: runs as PID 1 in the VM (after switch_root onto the
# read-only host root), or in a private network namespace in direct mode.
# Sets up the soft-RoCE layout, runs the command, reports its exit status in
# $LABDIR/rc.<node>, then powers the VM off.
# Argument: the lab control dir (the host's temp dir, shared read-write).
LABDIR=$1
# shellcheck source=/dev/null # written by ci/rxe-lab: LAB_MODE LAB_NODES LAB_CWD LAB_VERBOSE
. "$LABDIR/lab.env"
# shellcheck source=ci/lab/guest-net.sh
. "$LABDIR/guest-net.sh"            # the 2-4 node network, the slowed link
node=node1
# shellcheck disable=SC2013 # the kernel command line, word by word
for w in $(cat /proc/cmdline 2>/dev/null); do
    case $w in gdrlab.node=node[1-9]) node=${w#gdrlab.node=} ;; esac
done
[ "$LAB_MODE" = direct ] && node=node1

log() { [ "$LAB_MODE" = vm ] && echo "GDR-LAB: $*" >/dev/console; }
halt_vm() {
    [ "$LAB_MODE" = vm ] || exit "${1:-0}"
    sync
    /bin/busybox poweroff -f
    echo o >/proc/sysrq-trigger
    sleep 10
}
fail() {
    echo "$*" >"$LABDIR/fail.$node"
    log "GDR-LAB-FAIL: $*"
    halt_vm 125
}

if [ "$LAB_MODE" = vm ]; then
    export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
    # /dev/pts, /dev/shm, /dev/fd: guest-init.sh's. Writes, not commands:
    # under TCG each exec over 9p costs 60-150 ms (docs/lab.md).
    echo 1 >/proc/sys/kernel/printk     # keep kernel messages off the console
    echo "$node" >/proc/sys/kernel/hostname
fi
ulimit -l unlimited 2>/dev/null
ulimit -n 65536 2>/dev/null
# sysw KEY=VALUE...: sysctl -w without its exec
sysw() {
    local kv k
    for kv in "$@"; do
        k=${kv%%=*}
        echo "${kv#*=}" >"/proc/sys/${k//.//}" || return 1
    done
}

# A VM has them from its initramfs; direct mode loads them here.
[ -d /sys/module/rdma_rxe ] && [ -d /sys/module/rdma_ucm ] && [ -d /sys/module/ib_umad ] ||
    modprobe -a rdma_rxe rdma_ucm ib_umad 2>"$LABDIR/modprobe.$node" || fail "modprobe rdma_rxe failed: $(cat "$LABDIR/modprobe.$node")"
# libibverbs loads every provider /etc/libibverbs.d names (17 on Debian)
# in each process that opens a device: under emulation that is a large
# part of a benchmark's start. The lab has rxe devices only: name just rxe.
mkdir -p /run/libibverbs.d && echo "driver rxe" >/run/libibverbs.d/rxe.driver &&
    mount --bind /run/libibverbs.d /etc/libibverbs.d || fail "cannot bind /etc/libibverbs.d"
sysw net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.all.disable_ipv6=1 2>/dev/null

if [ "$LAB_NODES" -ge 2 ]; then
    lab_net_up          # sets addr, peer, peer_addr, hosts
    rdma link add rxe0 type rxe netdev eth0 || fail "rdma link add rxe0 failed"
    lab_slow_link       # before sshd: a node that answers ssh is shaped
    devs="rxe0"
else
    addr=198.18.0.1
    # Two local addresses would talk over lo, which rxe does not serve. Route
    # locally generated .2 <-> .1 traffic over the veth wire instead (policy
    # rules ahead of the local table), so rxe1 <-> rxe0 works too. One ip
    # process for all of it (an exec costs 60-150 ms under TCG).
    ip -batch - 2>"$LABDIR/ip.$node" <<'IP' || fail "cannot set up the veth pair and its routes: $(cat "$LABDIR/ip.$node")"
link add veth0 type veth peer name veth1
addr add 198.18.0.1/24 dev veth0
addr add 198.18.0.2/24 dev veth1
link set veth0 up
link set veth1 up
rule add pref 100 lookup local
rule del pref 0 lookup local
rule add pref 10 iif lo from 198.18.0.2 to 198.18.0.1 lookup 10
rule add pref 10 iif lo from 198.18.0.1 to 198.18.0.2 lookup 11
route add 198.18.0.1 dev veth1 src 198.18.0.2 table 10
route add 198.18.0.2 dev veth0 src 198.18.0.1 table 11
IP
    sysw net.ipv4.conf.all.accept_local=1 net.ipv4.conf.all.rp_filter=0 \
        net.ipv4.conf.veth0.accept_local=1 net.ipv4.conf.veth0.rp_filter=0 \
        net.ipv4.conf.veth1.accept_local=1 net.ipv4.conf.veth1.rp_filter=0 ||
        fail "cannot set the veth pair's sysctls"
    rdma link add rxe0 type rxe netdev veth0 || fail "rdma link add rxe0 failed"
    rdma link add rxe1 type rxe netdev veth1 || fail "rdma link add rxe1 failed"
    devs="rxe0 rxe1"
    if [ "${LAB_NUMA:-0}" = 1 ]; then    # ci/rxe-lab --numa: the NIC on node 1
        lab_numa_nic
        devs="$devs rxe2"
    fi
fi

# Wait until the ports are ACTIVE and rxe0 has its IPv4 (RoCEv2) GID.
# The IPv4 address as the GID's last two groups (198.18.0.1 -> c612:0001).
IFS=. read -r o1 o2 o3 o4 <<EOF_ADDR
$addr
EOF_ADDR
hexip=$(printf '%02x%02x:%02x%02x' "$o1" "$o2" "$o3" "$o4")
gid_index=
for _ in {1..100}; do
    ok=1
    for d in $devs; do
        st=
        read -r st <"/sys/class/infiniband/$d/ports/1/state" 2>/dev/null
        [[ $st == *ACTIVE* ]] || ok=0
    done
    for g in /sys/class/infiniband/rxe0/ports/1/gids/*; do
        v=
        read -r v <"$g" 2>/dev/null
        [ "$v" = "0000:0000:0000:0000:0000:ffff:$hexip" ] && gid_index=${g##*/} && break
    done
    [ $ok = 1 ] && [ -n "$gid_index" ] && break
    sleep 0.1
done
[ -n "$gid_index" ] && [ "$ok" = 1 ] || fail "rxe ports did not become ACTIVE / no IPv4 GID on rxe0"

# Environment from the host, then the lab contract on top.
# shellcheck source=/dev/null # written by ci/rxe-lab: the --env variables
. "$LABDIR/env.sh"
export GDR_LAB=1 GDR_LAB_DEV=rxe0 GDR_LAB_ADDR=$addr GDR_LAB_GID_INDEX=$gid_index
export GDR_LAB_NODES=$LAB_NODES GDR_LAB_MODE=$LAB_MODE GDR_LAB_NODE=$node
[ "${LAB_NUMA:-0}" = 1 ] && export GDR_LAB_NUMA=1 GDR_LAB_NUMA_DEV=rxe2 GDR_LAB_NUMA_ADDR=198.18.2.1
if [ "$LAB_NODES" -ge 2 ]; then
    export GDR_LAB_PEER=$peer GDR_LAB_PEER_ADDR=$peer_addr GDR_LAB_SSH=ssh
    export GDR_LAB_HOSTS=$hosts GDR_LAB_DIR=$LABDIR
    mount --bind "$LABDIR/hosts" /etc/hosts || fail "cannot bind /etc/hosts"
    mount --bind "$LABDIR/ssh_config" /etc/ssh/ssh_config || fail "cannot bind /etc/ssh/ssh_config"
    lab_plain_shell
    mkdir -p /run/sshd && chmod 755 /run/sshd
    {
        cat "$LABDIR/sshd_config"
        printf 'ListenAddress %s\n' "$addr"
        printf 'SetEnv'
        for v in PATH GDR_LAB GDR_LAB_DEV GDR_LAB_ADDR GDR_LAB_GID_INDEX GDR_LAB_NODES \
                 GDR_LAB_MODE GDR_LAB_NODE GDR_LAB_PEER GDR_LAB_PEER_ADDR GDR_LAB_SSH \
                 GDR_LAB_HOSTS GDR_LAB_DIR; do
            printf ' "%s=%s"' "$v" "${!v}"
        done
        printf '\n'
    } >"$LABDIR/sshd_config.$node"
    /usr/sbin/sshd -f "$LABDIR/sshd_config.$node" -E "$LABDIR/sshd.$node.log" ||
        fail "sshd failed to start: $(tail -3 "$LABDIR/sshd.$node.log")"
    if [ "${LAB_SLURM:-0}" = 1 ]; then    # ci/rxe-lab --slurm
        . "$LABDIR/slurm-up.sh"
        slurm_start "$node"
    fi
    if [ "$node" != node1 ]; then
        log "GDR-LAB-READY $node"
        while :; do sleep 3600; done   # the host stops this VM when node1 is done
    fi
    lab_wait_nodes      # node1: until every node answers over ssh
    if [ "${LAB_SLURM:-0}" = 1 ]; then
        slurm_wait
        export GDR_LAB_SLURM=1
    fi
fi
log "GDR-LAB-READY $node"

if [ "$LAB_MODE" = vm ]; then
    out=/dev/null err=/dev/null
    for p in /sys/class/virtio-ports/*; do
        case "$(cat "$p/name")" in
            gdrlab.out) out=/dev/${p##*/} ;;
            gdrlab.err) err=/dev/${p##*/} ;;
        esac
    done
    exec 1>"$out" 2>"$err"
fi
cd "$LAB_CWD" || fail "cannot cd to $LAB_CWD inside the lab"
# shellcheck source=/dev/null # written by ci/rxe-lab: defines the LAB_CMD array
. "$LABDIR/cmd.sh"
"${LAB_CMD[@]}" </dev/null
rc=$?
echo $rc >"$LABDIR/rc.$node"
log "GDR-LAB-DONE rc=$rc"
halt_vm $rc
