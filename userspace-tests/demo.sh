#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What "make demo" runs inside the VM: create a vroce device on eth0 and
# show the stock rdma-core tools driving it: device info, a perftest
# bandwidth run and an rdma_cm ping, server and client on the one device.
set -eu

step() { printf '\n$ %s\n' "$*"; "$@"; }
ip4=$(ip -4 -o addr show dev eth0 | awk '!done {split($4, a, "/"); print a[1]; done = 1}')

modprobe rdma_ucm
step rdma link add vroce0 type vroce netdev eth0
step rdma link show
step ibv_devices
step ibv_devinfo -v -d vroce0
step cat /sys/class/infiniband/vroce0/ports/1/gids/3 \
	/sys/class/infiniband/vroce0/ports/1/gid_attrs/types/3
step ls /sys/class/infiniband/vroce0/device/net/

ib_write_bw -d vroce0 -x 3 -s 65536 -n 500 >/dev/null 2>&1 &
sleep 2
step ib_write_bw -d vroce0 -x 3 -s 65536 -n 500 "$ip4"
wait

rping -s -a "$ip4" -C 5 >/dev/null 2>&1 &
sleep 2
step rping -c -a "$ip4" -C 5 -v
wait

step rdma statistic show link vroce0/1
step rdma link delete vroce0
