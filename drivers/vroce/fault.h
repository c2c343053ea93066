/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection, per device, through debugfs (vroce/<ibdev>/): drop,
 * duplicate, reorder, delay and corrupt packets on transmit and receive,
 * mark received packets ECN CE, and fail the next N object creations.
 * See Documentation/fault-injection.md.
 */
#ifndef VROCE_FAULT_H
#define VROCE_FAULT_H

#include <linux/compiler.h>
#include <linux/skbuff.h>
#include <linux/types.h>

struct vroce_dev;
struct vroce_av;

void vroce_fault_module_init(void);
void vroce_fault_module_exit(void);
void vroce_fault_init(struct vroce_dev *vdev);
void vroce_fault_cleanup(struct vroce_dev *vdev);
struct sk_buff *vroce_fault_tx(struct vroce_dev *vdev,
			       const struct vroce_av *av, struct sk_buff *skb,
			       u32 entropy, bool *corrupt);
bool vroce_fault_rx(struct vroce_dev *vdev, struct sk_buff *skb);
void vroce_fault_corrupt(struct vroce_dev *vdev, struct sk_buff *skb,
			 unsigned int from);
bool __vroce_fault_alloc_fail(struct vroce_dev *vdev);

/* Between net.c and fault.c: the paths below the hooks. */
int __vroce_pkt_send(struct vroce_dev *vdev, const struct vroce_av *av,
		     struct sk_buff *skb, u32 entropy, bool corrupt);
void __vroce_rcv(struct vroce_dev *vdev, struct sk_buff *skb);

/**
 * vroce_fault_alloc_fail() - should this object creation fail?
 * @vdev: the device
 *
 * Create paths call this once before they allocate; true (the
 * fail_alloc_next knob was above 0, now one less) means return -ENOMEM.
 *
 * Return: true to fail the creation.
 */
bool vroce_fault_alloc_fail(struct vroce_dev *vdev);

#endif /* VROCE_FAULT_H */
