#!/bin/busybox sh
# shellcheck shell=dash
# Stage 1 of the rxe-lab VM: runs from the hand-made initramfs (busybox only).
# Loads the virtio/9p modules, mounts the host root read-only over 9p, the lab
# control dir and the --share dirs read-write, then switch_root's into
# guest-run.sh (bash from the host root). Config comes from /lab.conf.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
fail() { echo "GDR-LAB-FAIL: $*"; poweroff -f; sleep 5; }
echo "GDR-LAB-INIT"
case " $(cat /proc/cmdline) " in *" gdrlab.probe=1 "*) poweroff -f; sleep 5 ;; esac
# shellcheck source=/dev/null # written by ci/rxe-lab into the initramfs
. /lab.conf
# The 9p client, then the lab's own (rdma_rxe, rdma_ucm, ib_umad, the NIC's
# driver): from here, not modprobe'd over 9p later, where each exec and file
# costs tens of ms under TCG.
while read -r m; do
    insmod "/modules/$m" || fail "insmod $m"
done </modules.order
o9p="trans=virtio,version=9p2000.L,msize=262144"
mount -t 9p -o "$o9p,ro,cache=loose" hostroot /newroot || fail "cannot mount the host root over 9p"
mount -t tmpfs -o mode=1777 tmpfs /newroot/tmp || fail "tmpfs /tmp"
mount -t tmpfs -o mode=1777 tmpfs /newroot/var/tmp || fail "tmpfs /var/tmp"
mount -t tmpfs -o mode=755 tmpfs /newroot/run || fail "tmpfs /run"
mkdir -p "/newroot$LABDIR" && mount -t 9p -o "$o9p,cache=none" labctl "/newroot$LABDIR" ||
    fail "cannot mount the lab control dir $LABDIR"
i=0
while [ "$i" -lt "$NSHARES" ]; do
    p="" mode=""
    eval "p=\$SHARE_$i; mode=\$SHAREMODE_$i"
    mkdir -p "/newroot$p" && mount -t 9p -o "$o9p,$mode,cache=none" "share$i" "/newroot$p" ||
        fail "cannot mount share $p"
    i=$((i + 1))
done
# /dev's extras here, with busybox (static, fast to start), not in guest-run.sh
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts || fail "devpts"
mount -t tmpfs -o mode=1777 tmpfs /dev/shm || fail "tmpfs /dev/shm"
[ -e /dev/ptmx ] || ln -s pts/ptmx /dev/ptmx
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin; ln -sf /proc/self/fd/1 /dev/stdout; ln -sf /proc/self/fd/2 /dev/stderr
ip link set lo up || fail "lo up"
mount --move /dev /newroot/dev
mount --move /proc /newroot/proc
mount --move /sys /newroot/sys
# shellcheck disable=SC2093 # switch_root replaces this init for good
exec switch_root /newroot /bin/bash "$LABDIR/guest-run.sh" "$LABDIR"
fail "switch_root failed"
