#!/bin/bash
# The virtual switch of a 3-4 node rxe-lab: run by ci/rxe-lab under
# `unshare --net`, so everything here lives in a private network namespace.
# One bridge, one tap per VM (gdrtapK for nodeK); qemu opens the taps from
# inside this namespace (nsenter). Writes its pid to LABDIR/switch.pid when
# ready, then holds the namespace until the lab stops it.
# Arguments: LABDIR NODES
set -eu
LABDIR=$1 NODES=$2
ip link set lo up
ip link add gdrbr0 type bridge stp_state 0
ip link set gdrbr0 up
for k in $(seq "$NODES"); do
    ip tuntap add dev "gdrtap$k" mode tap
    ip link set "gdrtap$k" master gdrbr0
    ip link set "gdrtap$k" up
done
echo $$ >"$LABDIR/switch.pid"
exec sleep infinity
