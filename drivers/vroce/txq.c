// SPDX-License-Identifier: GPL-2.0
/*
 * Per-flow transmit order: every packet of one flow leaves from one CPU.
 *
 * A QP's runner, its responder and its timers run on whichever CPU asks
 * for them, and the netdev below keeps order only per CPU: veth queues a
 * packet on the sending CPU's backlog, a multi-queue NIC picks its transmit
 * queue by the sending CPU (XPS).  Two packets of one QP sent from two
 * CPUs may overtake each other, which a NIC never does and which RC's
 * go-back-N pays for with a NAK and a resend each time.
 *
 * So a flow (its UDP source port entropy, one per QP pair) can have a home
 * CPU, chosen by a hash, where its packets enter the IP stack in the order
 * they were built.  Which flows do is the module parameter tx_flow_cpu:
 * by default the paced requesters' (congestion control), whose pace timer
 * fires on any CPU and which reordered by the thousand; with 2 every
 * unicast flow's.  Not all by default: in an emulated guest, whose vCPUs
 * take turns on one host thread, handing each packet to another CPU cost
 * an unpaced QP 30-70 % of its bandwidth (68-tx-order), more than the
 * go-back-N an unpaced QP's rarer reordering costs there.  Running the
 * whole QP on its home CPU would avoid the hand-over (the data path's
 * next step).  A packet built on its home CPU goes out at once
 * when nothing of that CPU's queue is waiting; else it joins the home
 * CPU's queue, which a tasklet there drains (woken by an IPI from another
 * CPU).  Like a NIC's send queue, the queue is bounded: a packet that finds
 * it full is not sent and the caller hears -ENOBUFS, as from a full
 * backlog.  Multicast keeps its socket and goes out at once (UD: no order).
 *
 * The drain of one CPU's queue has one owner at a time (VROCE_TXQ_DRAINING):
 * the tasklet, or a sender on that CPU that found packets queued before its
 * own.  Both run with bottom halves off.  A queued packet holds a
 * reference on its device, so unregistering the device waits until it has
 * gone out; a device already on its way out sends in place.
 */
#include <linux/hash.h>
#include <linux/interrupt.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/smp.h>

#include "vroce.h"

/*
 * Packets a CPU's queue holds for senders that hear -ENOBUFS and send
 * again later (an RC requester); past it they are refused.  Answers (ACKs,
 * READ responses, CNPs) have no second chance short of the peer's
 * timeout: they may fill the queue up to four times that.
 */
#define VROCE_TXQ_LEN		256
#define VROCE_TXQ_LEN_ANSWERS	(4 * VROCE_TXQ_LEN)
/*
 * Packets one drain sends before it lets the CPU's other softirqs run,
 * the receive of what it sent among them (a veth backlog holds 1000).
 */
#define VROCE_TXQ_BUDGET	64

/* vroce_txq.flags */
#define VROCE_TXQ_DRAINING	0

/**
 * struct vroce_txq - one CPU's queue of packets whose flows live there
 * @q: the packets, in the order their senders queued them; its lock
 * @flags: VROCE_TXQ_DRAINING
 * @kick: the IPI that wakes @drain from another CPU
 * @drain: sends @q on this CPU
 */
struct vroce_txq {
	struct sk_buff_head q;
	unsigned long flags;
	call_single_data_t kick;
	struct tasklet_struct drain;
};

/* What a queued packet carries in skb->cb until it is sent. */
struct vroce_txq_cb {
	struct vroce_dev *vdev;
	bool ipv6;
};

static DEFINE_PER_CPU(struct vroce_txq, vroce_txqs);

/* Which flows leave from their home CPU (module parameter tx_flow_cpu). */
enum vroce_txq_mode {
	VROCE_TXQ_OFF,		/* none: each packet from the CPU that built it */
	VROCE_TXQ_PACED,	/* the paced senders' (congestion control) */
	VROCE_TXQ_ALL,		/* every unicast flow's */
};

static unsigned int vroce_tx_flow_cpu = VROCE_TXQ_PACED;

static int vroce_txq_mode_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, VROCE_TXQ_OFF, VROCE_TXQ_ALL);
}

static const struct kernel_param_ops vroce_txq_mode_ops = {
	.set = vroce_txq_mode_set,
	.get = param_get_uint,
};

module_param_cb(tx_flow_cpu, &vroce_txq_mode_ops, &vroce_tx_flow_cpu, 0644);
MODULE_PARM_DESC(tx_flow_cpu,
		 "flows whose packets leave from one CPU, in order: 0 none, 1 paced ones (default), 2 all");

static struct vroce_txq_cb *vroce_txq_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct vroce_txq_cb) > sizeof(skb->cb));
	return (struct vroce_txq_cb *)skb->cb;
}

/* The home CPU of the flow with @entropy. */
static unsigned int vroce_txq_cpu(u32 entropy)
{
	unsigned int cpu = reciprocal_scale(hash_32(entropy, 32), nr_cpu_ids);

	/* CPU hot-plug: order holds again once the flow's home is back */
	return cpu_online(cpu) ? cpu : smp_processor_id();
}

/**
 * vroce_txq_backlog_full() - is this CPU's receive backlog half full?
 *
 * A veth or loopback netdev queues what this CPU sends there, and drops
 * past its limit; a sender that sends in place hears of that (-ENOBUFS)
 * and sends less, but the sender of a queued packet is gone.  So a drain
 * waits, as a NIC's send engine waits for the wire, and lets the receive
 * softirq empty it.
 *
 * Return: true while it is.
 */
bool vroce_txq_backlog_full(void)
{
	struct softnet_data *sd = this_cpu_ptr(&softnet_data);

	return skb_queue_len_lockless(&sd->input_pkt_queue) >=
	       vroce_max_backlog() / 2;
}

/* Put @skb and @list back at the head of @txq, in their order. */
static void vroce_txq_putback(struct vroce_txq *txq, struct sk_buff *skb,
			      struct sk_buff_head *list)
{
	__skb_queue_head(list, skb);
	spin_lock(&txq->q.lock);
	skb_queue_splice(list, &txq->q);
	spin_unlock(&txq->q.lock);
	__skb_queue_head_init(list);
}

/* Send the packets of @txq, at most a budget; the rest on the next run. */
static void vroce_txq_run(struct vroce_txq *txq)
{
	struct sk_buff_head list;
	struct vroce_txq_cb cb;
	struct sk_buff *skb;
	int budget = VROCE_TXQ_BUDGET;

again:
	if (test_and_set_bit(VROCE_TXQ_DRAINING, &txq->flags))
		return;
	__skb_queue_head_init(&list);
	while (budget > 0) {
		spin_lock(&txq->q.lock);
		while (budget > 0 && (skb = __skb_dequeue(&txq->q))) {
			__skb_queue_tail(&list, skb);
			budget--;
		}
		spin_unlock(&txq->q.lock);
		if (skb_queue_empty(&list))
			break;
		while ((skb = __skb_dequeue(&list))) {
			if (vroce_txq_backlog_full()) {
				vroce_txq_putback(txq, skb, &list);
				budget = 0;
				break;
			}
			cb = *vroce_txq_cb(skb);
			vroce_pkt_out(cb.vdev, NULL, skb, cb.ipv6);
			ib_device_put(&cb.vdev->ibdev);
		}
	}
	clear_bit_unlock(VROCE_TXQ_DRAINING, &txq->flags);
	if (skb_queue_empty_lockless(&txq->q))
		return;
	if (budget > 0)
		/* queued after our last look, by a sender that saw us drain */
		goto again;
	tasklet_schedule(&txq->drain);
}

static void vroce_txq_tasklet(struct tasklet_struct *t)
{
	struct vroce_txq *txq = from_tasklet(txq, t, drain);

	vroce_txq_run(txq);
}

/* The IPI: runs on the queue's CPU. */
static void vroce_txq_noop(void *info)
{
}

static void vroce_txq_kicked(void *info)
{
	struct vroce_txq *txq = info;

	tasklet_schedule(&txq->drain);
}

/**
 * vroce_txq_xmit() - send a unicast packet from its flow's home CPU
 * @vdev: sending device
 * @skb: the packet, IP header on, its route set; consumed
 * @entropy: the flow's UDP source port entropy
 * @ipv6: @skb is IPv6
 * @ordered: a paced sender's packet (tx_flow_cpu 1 orders only these)
 * @can_retry: the sender sends a refused packet again (-ENOBUFS): it gets
 *	the smaller share of a full queue
 *
 * Callable from any context but hard interrupts.
 *
 * Return: 0 (sent or queued: a queued packet that later fails is
 * counted as a transmit error), or -ENOBUFS: the home CPU's queue or the
 * netdev's backlog was full, the packet dropped and counted.
 */
int vroce_txq_xmit(struct vroce_dev *vdev, struct sk_buff *skb, u32 entropy,
		   bool ipv6, bool ordered, bool can_retry)
{
	unsigned int limit = can_retry ? VROCE_TXQ_LEN : VROCE_TXQ_LEN_ANSWERS;
	unsigned int mode = READ_ONCE(vroce_tx_flow_cpu);
	struct vroce_txq *txq;
	unsigned int cpu, qlen;
	int err;

	if (mode == VROCE_TXQ_OFF || (mode == VROCE_TXQ_PACED && !ordered) ||
	    nr_cpu_ids == 1)
		return vroce_pkt_out(vdev, NULL, skb, ipv6);

	local_bh_disable();
	cpu = vroce_txq_cpu(entropy);
	txq = per_cpu_ptr(&vroce_txqs, cpu);
	/*
	 * In place: on the home CPU with nothing of it waiting (nothing to
	 * overtake), or for a device being unregistered (nothing of it may
	 * be left queued).  Else the queued packet holds the device.
	 */
	if ((cpu == smp_processor_id() && skb_queue_empty_lockless(&txq->q) &&
	     !test_bit(VROCE_TXQ_DRAINING, &txq->flags)) ||
	    !ib_device_try_get(&vdev->ibdev)) {
		err = vroce_pkt_out(vdev, NULL, skb, ipv6);
		local_bh_enable();
		return err;
	}
	vroce_txq_cb(skb)->vdev = vdev;
	vroce_txq_cb(skb)->ipv6 = ipv6;
	spin_lock(&txq->q.lock);
	qlen = skb_queue_len(&txq->q);
	if (qlen < limit)
		__skb_queue_tail(&txq->q, skb);
	spin_unlock(&txq->q.lock);
	if (qlen >= limit) {
		local_bh_enable();
		vroce_counter_inc(vdev, VROCE_CNT_TX_ERR);
		kfree_skb(skb);
		ib_device_put(&vdev->ibdev);
		return -ENOBUFS;
	}

	if (cpu == smp_processor_id())
		vroce_txq_run(txq);
	else if (!qlen)
		/* -EBUSY: a kick on its way will see this packet */
		smp_call_function_single_async(cpu, &txq->kick);
	local_bh_enable();
	return 0;
}

/**
 * vroce_txq_init() - set up every CPU's queue, at module load
 */
void vroce_txq_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct vroce_txq *txq = per_cpu_ptr(&vroce_txqs, cpu);

		skb_queue_head_init(&txq->q);
		txq->flags = 0;
		INIT_CSD(&txq->kick, vroce_txq_kicked, txq);
		tasklet_setup(&txq->drain, vroce_txq_tasklet);
	}
}

/**
 * vroce_txq_exit() - stop the queues, at module unload
 *
 * Every device is gone (ib_unregister_driver()), and its queued packets
 * with it (each held the device); a kick or a drain may still be on its
 * way.
 */
void vroce_txq_exit(void)
{
	unsigned int cpu;

	/*
	 * A CPU runs the IPIs it is sent in order: once this one has run
	 * everywhere, so has every kick, and what they scheduled is killed.
	 */
	on_each_cpu(vroce_txq_noop, NULL, 1);
	for_each_possible_cpu(cpu) {
		struct vroce_txq *txq = per_cpu_ptr(&vroce_txqs, cpu);

		tasklet_kill(&txq->drain);
		skb_queue_purge(&txq->q);
	}
}
