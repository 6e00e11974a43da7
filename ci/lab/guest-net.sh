# The 2-4 node network of the rxe-lab, sourced by guest-run.sh (which
# defines node, fail and log). Every node has one NIC, eth0, on a wire
# (2 nodes) or a switch (3-4 nodes); nodeK is 198.18.0.K. The node list is
# $LABDIR/nodes, written by ci/rxe-lab.

# lab_net_up: eth0 up with this node's address; sets addr, peer, peer_addr
# (node1's peer is node2, everybody else's node1) and hosts (node1,node2,..).
lab_net_up() {
    modprobe virtio_net || fail "modprobe virtio_net failed"
    local i=0
    while ! ip link show eth0 >/dev/null 2>&1; do
        i=$((i + 1)); [ $i -gt 50 ] && fail "no eth0 in the VM"; sleep 0.1
    done
    addr=198.18.0.${node#node}
    if [ "$node" = node1 ]; then peer=node2; else peer=node1; fi
    peer_addr=198.18.0.${peer#node}
    hosts=$(paste -sd, "$LABDIR/nodes")
    ip addr add "$addr/24" dev eth0 && ip link set eth0 up || fail "cannot configure eth0"
}

# lab_slow_link: if --slow-link names this node, shape eth0 to its rate both
# ways: outgoing with tbf on eth0, incoming by redirecting eth0's ingress to
# an ifb device that has the same tbf. rxe is UDP over eth0, so RDMA traffic
# (and ssh) obeys it. The queue holds a second of traffic: rxe retransmits
# what tbf drops, and drops cost far more than the wait.
lab_slow_link() {
    local s rate tbf
    for s in ${LAB_SLOW:-}; do
        [ "${s%%:*}" = "$node" ] || continue
        rate=${s#*:}
        tbf="tbf rate $rate burst 32kb latency 1s"
        modprobe -a sch_tbf sch_ingress cls_matchall act_mirred &&
            modprobe ifb numifbs=0 || fail "--slow-link: cannot load the tc modules"
        # shellcheck disable=SC2086 # tbf's words
        { ip link add gdrifb0 type ifb && ip link set gdrifb0 up &&
          tc qdisc add dev eth0 root $tbf &&
          tc qdisc add dev eth0 handle ffff: ingress &&
          tc filter add dev eth0 parent ffff: matchall action mirred egress redirect dev gdrifb0 &&
          tc qdisc add dev gdrifb0 root $tbf; } || fail "--slow-link: tc failed on $node"
        log "$node: eth0 shaped to $rate both ways"
    done
}

# lab_wait_nodes: node1 waits (180 s at most) until every other node answers ssh.
lab_wait_nodes() {
    local n end=$((SECONDS + 180))
    for n in $(cat "$LABDIR/nodes"); do
        [ "$n" = node1 ] && continue
        until ssh -o ConnectTimeout=3 "$n" true 2>/dev/null; do
            [ $SECONDS -lt $end ] || fail "$n did not come up (ssh $n true failed for 180 s)"
            sleep 1
        done
    done
}
