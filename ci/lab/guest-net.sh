# shellcheck shell=bash
# The 2-4 node network of the rxe-lab, sourced by guest-run.sh (which
# defines node, fail and log). Every node has one NIC, eth0, on a wire
# (2 nodes) or a switch (3-4 nodes); nodeK is 198.18.0.K. The node list is
# $LABDIR/nodes, written by ci/rxe-lab.

# lab_net_up: eth0 up with this node's address; sets addr, peer, peer_addr
# (node1's peer is node2, everybody else's node1) and hosts (node1,node2,..).
lab_net_up() {
    [ -d /sys/module/virtio_net ] || modprobe virtio_net || fail "modprobe virtio_net failed"
    local i=0
    while [ ! -e /sys/class/net/eth0 ]; do
        i=$((i + 1)); [ $i -gt 50 ] && fail "no eth0 in the VM"; sleep 0.1
    done
    # shellcheck disable=SC2154 # node: set by guest-run.sh, which sources this
    addr=198.18.0.${node#node}
    if [ "$node" = node1 ]; then peer=node2; else peer=node1; fi
    # shellcheck disable=SC2034 # peer_addr, hosts: guest-run.sh's, for the command
    peer_addr=198.18.0.${peer#node}
    # shellcheck disable=SC2034 # as above
    hosts=$(paste -sd, "$LABDIR/nodes")
    printf 'addr add %s/24 dev eth0\nlink set eth0 up\n' "$addr" | ip -batch - || fail "cannot configure eth0"
}

# lab_numa_nic (--numa, one node): the virtio NIC behind the PCI expander
# bridge on NUMA node 1 is eth0; 198.18.2.1/24 on it and rxe2 over it. It
# has no wire: rxe2 talks to its own address (rxe loops back internally).
lab_numa_nic() {
    local i=0 dev
    [ -d /sys/module/virtio_net ] || modprobe virtio_net || fail "--numa: modprobe virtio_net failed"
    until [ -e /sys/class/net/eth0 ]; do
        i=$((i + 1))
        if [ $i -gt 50 ]; then fail "--numa: no eth0 in the VM"; fi
        sleep 0.1
    done
    dev=$(readlink -f /sys/class/net/eth0/device/..)
    [ "$(cat "$dev/numa_node" 2>/dev/null)" = 1 ] ||
        fail "--numa: eth0 ($dev) is on NUMA node $(cat "$dev/numa_node" 2>/dev/null), not 1"
    printf 'addr add 198.18.2.1/24 dev eth0\nlink set eth0 up\n' | ip -batch - || fail "--numa: cannot configure eth0"
    rdma link add rxe2 type rxe netdev eth0 || fail "--numa: rdma link add rxe2 failed"
}

# lab_slow_link: if --slow-link names this node, shape eth0 to its rate both
# ways: outgoing with netem on eth0, incoming by redirecting eth0's ingress to
# an ifb device with the same netem. rxe is UDP over eth0, so RDMA traffic
# (and ssh) obeys it. netem's rate with a long queue never drops: a drop
# makes rxe retransmit, and a tbf on the ingress side made rxe fail writes
# with "remote invalid request" (Debian 6.1 guest: 4 of 5 runs from the node).
lab_slow_link() {
    local s rate shape
    for s in ${LAB_SLOW:-}; do
        [ "${s%%:*}" = "$node" ] || continue
        rate=${s#*:}
        shape="netem rate $rate limit 100000"
        modprobe -a sch_netem sch_ingress cls_matchall act_mirred &&
            modprobe ifb numifbs=0 || fail "--slow-link: cannot load the tc modules"
        # shellcheck disable=SC2086 # shape's words
        { ip link add gdrifb0 type ifb && ip link set gdrifb0 up &&
          tc qdisc add dev eth0 root $shape &&
          tc qdisc add dev eth0 handle ffff: ingress &&
          tc filter add dev eth0 parent ffff: matchall action mirred egress redirect dev gdrifb0 &&
          tc qdisc add dev gdrifb0 root $shape; } || fail "--slow-link: tc failed on $node"
        log "$node: eth0 shaped to $rate both ways"
    done
}

# lab_plain_shell: ssh runs every command through root's bash, which reads
# ~/.bashrc; the host's (pyenv, cargo, ...) costs seconds per command under
# TCG and is not the lab's business. An empty one is mounted over it.
lab_plain_shell() {
    local rc
    rc=$(getent passwd root | cut -d: -f6)/.bashrc
    [ -f "$rc" ] || return 0
    : >"$LABDIR/empty-bashrc"
    mount --bind "$LABDIR/empty-bashrc" "$rc" || fail "cannot mount an empty $rc"
}

# lab_wait_nodes: node1 waits (180 s at most) until every node (itself too)
# answers ssh; the connections stay open for the ssh commands that follow
# (ControlPersist in the lab's ssh_config).
lab_wait_nodes() {
    local n end=$((SECONDS + 180))
    # shellcheck disable=SC2013 # one node name a line (no spaces); ssh must not eat a read loop's input
    for n in $(cat "$LABDIR/nodes"); do
        until ssh -o ConnectTimeout=3 "$n" true 2>/dev/null; do
            [ $SECONDS -lt $end ] || fail "$n did not come up (ssh $n true failed for 180 s)"
            sleep 1
        done
    done
}
