#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What "make demo" runs inside the VM: create a vroce device on eth0 and
# show the stock rdma-core tools driving it.
set -eu

step() { printf '\n$ %s\n' "$*"; "$@"; }

step rdma link add vroce0 type vroce netdev eth0
step rdma link show
step ibv_devices
step ibv_devinfo -v -d vroce0
step cat /sys/class/infiniband/vroce0/ports/1/gids/1 \
	/sys/class/infiniband/vroce0/ports/1/gid_attrs/types/1
step ls /sys/class/infiniband/vroce0/device/net/
step rdma link delete vroce0
