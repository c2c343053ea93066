// SPDX-License-Identifier: GPL-2.0
/*
 * The port's shaper: a device whose line rate was set (cc/line_rate)
 * sends no faster than that, all of its traffic together, as a NIC's port
 * does: requests of every QP, with congestion control or without, ACKs,
 * READ responses and CNPs.  DCQCN's per-QP rate sits under it (cc/pace.c).
 * A line rate the device took from its netdev's speed shapes nothing:
 * there the netdev is the port.
 *
 * Two FIFOs per device hold what may not leave yet: a responder's packets
 * (ACKs, READ responses, atomic ACKs) and CNPs, and requests; they take
 * turns.  A responder's packets stay in order among themselves, which its
 * peer's requester needs (an ACK past a READ's PSNs completes the READ),
 * and do not wait behind a whole queue of requests: when the drain is
 * slower than the line rate (the CPU, not the rate, holds it back) the
 * peer's ACKs would come seconds late and its QPs time out.  They drain
 * on one CPU, the device's home CPU, so that what it sends enters the
 * netdev's queue (a veth's backlog is the sending CPU's) in the FIFOs'
 * order: no packet overtakes another of its kind from its QP.  A packet
 * built on the home CPU with nothing waiting and the rate's time come
 * leaves at once; else it joins its FIFO, and an IPI wakes the home
 * CPU's drain (a tasklet), which sends while the rate allows and sets a
 * pinned timer for the next packet.  Like a NIC's send engine waiting for
 * the wire, the drain also waits while the home CPU's receive backlog is
 * half full (a veth puts what this CPU sends there): the FIFO, not the
 * backlog, holds what the receive side cannot take yet.
 *
 * PFC (pfc_port.c) uses the same FIFOs: while it is on for a priority
 * every packet comes here, rate or not.  A packet at the head whose
 * priority the peer paused steps aside into that priority's held FIFO;
 * when the priority resumes, its held packets leave before its others.
 * The bytes a paused priority holds count against that priority's
 * senders only, so the others go on.
 *
 * The rate is a token bucket (tbf.h) over frame bytes, Ethernet header to
 * ICRC, whose catch-up is VROCE_PORTQ_BURST_BYTES: a drain that runs late
 * sends no more than that and one frame back to back.
 *
 * The FIFO is bounded in bytes.  A sender asks before each packet
 * (vroce_portq_wait_ns(): an RC requester, a READ responder) or message
 * (UC, UD) and, past VROCE_PORTQ_BYTES, waits on its QP's pace timer until
 * the FIFO has drained to half.  Answers that cannot wait (ACKs, CNPs),
 * senders that asked at the same time and a UC message longer than the
 * rest may fill it to four times that; past it a packet is dropped and
 * counted, and the caller hears -ENOBUFS.  Loopback between vroce
 * devices of one namespace crosses no wire and is not shaped; multicast
 * is sent at once and takes its bytes from the rate.
 */
#include <linux/if_ether.h>
#include <linux/interrupt.h>
#include <linux/moduleparam.h>
#include <linux/smp.h>

#include "tbf.h"
#include "vroce.h"

/* Catch-up a late drain may send back to back, beyond one frame. */
#define VROCE_PORTQ_BURST_BYTES	(64 * 1024)
/* FIFO bytes past which senders wait; the FIFO holds four times it. */
#define VROCE_PORTQ_BYTES	(256 * 1024)
#define VROCE_PORTQ_BYTES_MAX	(4 * VROCE_PORTQ_BYTES)
/* Packets one drain sends before the CPU's other softirqs run. */
#define VROCE_PORTQ_BUDGET	64
/* How long the drain waits for a half-full receive backlog to empty. */
#define VROCE_PORTQ_BACKLOG_NS	(100 * NSEC_PER_USEC)

/* What a queued packet carries in skb->cb until it is sent. */
struct vroce_portq_cb {
	u32 frame;
	bool ipv6;
};

static struct vroce_portq_cb *vroce_portq_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct vroce_portq_cb) > sizeof(skb->cb));
	return (struct vroce_portq_cb *)skb->cb;
}

/* Set to 0, cc/line_rate only caps DCQCN and the pacer, per QP. */
static bool vroce_port_shaper = true;
module_param_named(port_shaper, vroce_port_shaper, bool, 0644);
MODULE_PARM_DESC(port_shaper,
		 "a written cc/line_rate shapes the device's whole traffic (default: on)");

/* Push the next frame's time on by @bytes at @kbps (tbf.h). */
static void vroce_portq_charge(struct vroce_portq *pq, u64 now, u32 bytes,
			       u32 kbps)
{
	vroce_tbf_charge(&pq->next_ns, now,
			 vroce_tbf_ns(VROCE_PORTQ_BURST_BYTES, kbps),
			 vroce_tbf_ns(bytes, kbps));
}

/* The rate the port shapes to, 0 for none (the FIFO is there for PFC). */
static u32 vroce_portq_kbps(struct vroce_dev *vdev)
{
	if (!READ_ONCE(vroce_port_shaper) ||
	    !READ_ONCE(vdev->cc.line_rate_shapes))
		return 0;
	return READ_ONCE(vdev->cc.line_rate_mbps) * VROCE_DCQCN_KBPS_PER_MBPS;
}

/* The home CPU, or this one while the home is offline (hot-plug). */
static unsigned int vroce_portq_cpu(struct vroce_portq *pq)
{
	return cpu_online(pq->cpu) ? pq->cpu : smp_processor_id();
}

/* Take @skb off @list for good: its bytes leave the FIFO. */
static void vroce_portq_unlink(struct vroce_portq *pq, struct sk_buff *skb,
			       struct sk_buff_head *list)
{
	unsigned int prio = skb->priority % VROCE_PFC_NR_PRIOS;
	u32 frame = vroce_portq_cb(skb)->frame;

	__skb_unlink(skb, list);
	WRITE_ONCE(pq->bytes, pq->bytes - frame);
	WRITE_ONCE(pq->prio_bytes[prio], pq->prio_bytes[prio] - frame);
	if (list == &pq->held[prio])
		WRITE_ONCE(pq->held_bytes, pq->held_bytes - frame);
}

/**
 * vroce_portq_pfc_drop() - drop the packets of priorities the PFC
 *	watchdog took over
 * @vdev: the device
 * @prios: the priorities
 *
 * Context: the port's FIFO lock held.
 */
void vroce_portq_pfc_drop(struct vroce_dev *vdev, u8 prios)
{
	struct vroce_portq *pq = &vdev->portq;
	unsigned int prio;
	struct sk_buff *skb;

	lockdep_assert_held(&pq->q.lock);
	for (prio = 0; prio < VROCE_PFC_NR_PRIOS; prio++) {
		if (!(prios & BIT(prio)))
			continue;
		while ((skb = skb_peek(&pq->held[prio]))) {
			vroce_portq_unlink(pq, skb, &pq->held[prio]);
			vroce_counter_inc(vdev, VROCE_CNT_PFC_WATCHDOG_DISCARDS);
			kfree_skb(skb);
		}
	}
}

/*
 * The next packet to leave, and its FIFO.  Packets that PFC held for
 * their priority go first once it resumes: they are older than that
 * priority's packets in the other FIFOs.  Then answers and requests take
 * turns while both hold packets, so that neither a READ's responses nor a
 * queue of requests keep the other waiting.  A head of line whose
 * priority is paused steps aside into its priority's held FIFO; one the
 * PFC watchdog holds is dropped.
 */
static struct sk_buff *vroce_portq_peek(struct vroce_dev *vdev, u64 now,
					struct sk_buff_head **list)
{
	struct vroce_portq *pq = &vdev->portq;
	struct sk_buff *skb;
	unsigned int prio;
	bool answers;

	for (prio = 0; prio < VROCE_PFC_NR_PRIOS; prio++) {
		if (skb_queue_empty(&pq->held[prio]) ||
		    vroce_pfc_paused(&pq->pfc, prio, now))
			continue;
		*list = &pq->held[prio];
		return skb_peek(*list);
	}
	for (;;) {
		answers = !skb_queue_empty(&pq->aq) &&
			  (skb_queue_empty(&pq->q) || !pq->requests_next);
		*list = answers ? &pq->aq : &pq->q;
		skb = skb_peek(*list);
		if (!skb)
			return NULL;
		prio = skb->priority % VROCE_PFC_NR_PRIOS;
		if (vroce_pfc_storm(&pq->pfc, prio)) {
			vroce_portq_unlink(pq, skb, *list);
			vroce_counter_inc(vdev, VROCE_CNT_PFC_WATCHDOG_DISCARDS);
			kfree_skb(skb);
			continue;
		}
		if (!vroce_pfc_paused(&pq->pfc, prio, now) &&
		    skb_queue_empty(&pq->held[prio]))
			return skb;
		__skb_unlink(skb, *list);
		__skb_queue_tail(&pq->held[prio], skb);
		WRITE_ONCE(pq->held_bytes,
			   pq->held_bytes + vroce_portq_cb(skb)->frame);
	}
}

/* Does any priority hold packets (all of them paused, after a peek)? */
static bool vroce_portq_holds(struct vroce_portq *pq)
{
	unsigned int prio;

	for (prio = 0; prio < VROCE_PFC_NR_PRIOS; prio++)
		if (!skb_queue_empty(&pq->held[prio]))
			return true;
	return false;
}

/* Everything in every FIFO: the device is going. */
static void vroce_portq_purge(struct vroce_portq *pq)
{
	unsigned int prio;

	__skb_queue_purge(&pq->aq);
	__skb_queue_purge(&pq->q);
	for (prio = 0; prio < VROCE_PFC_NR_PRIOS; prio++) {
		__skb_queue_purge(&pq->held[prio]);
		WRITE_ONCE(pq->prio_bytes[prio], 0);
	}
	WRITE_ONCE(pq->bytes, 0);
	WRITE_ONCE(pq->held_bytes, 0);
}

/*
 * Send what the rate allows, on the home CPU with bottom halves off; then
 * arm the timer for the next packet, or leave the drain idle.
 */
static void vroce_portq_run(struct vroce_portq *pq)
{
	struct vroce_dev *vdev = container_of(pq, struct vroce_dev, portq);
	int budget = VROCE_PORTQ_BUDGET;
	struct vroce_portq_cb cb;
	struct sk_buff_head *list;
	struct sk_buff *skb;
	u64 now, next;
	u32 kbps;

	spin_lock(&pq->q.lock);
	for (;;) {
		now = ktime_get_ns();
		vroce_pfc_port_tick(vdev, now);
		skb = vroce_portq_peek(vdev, now, &list);
		if (pq->dead) {
			vroce_portq_purge(pq);
			break;
		}
		if (!skb) {
			if (!vroce_portq_holds(pq))
				break;
			/* paused priorities hold the rest: until one resumes */
			next = vroce_pfc_next_ns(&pq->pfc,
						 vroce_pfc_port_tout_ns(vdev));
			hrtimer_start(&pq->timer, ns_to_ktime(max(next, now)),
				      HRTIMER_MODE_ABS_PINNED_SOFT);
			spin_unlock(&pq->q.lock);
			return;
		}
		kbps = vroce_portq_kbps(vdev);
		if (kbps && pq->next_ns > now) {
			hrtimer_start(&pq->timer, ns_to_ktime(pq->next_ns),
				      HRTIMER_MODE_ABS_PINNED_SOFT);
			spin_unlock(&pq->q.lock);
			return;
		}
		if (vroce_txq_backlog_full()) {
			/* the receive softirq empties the backlog meanwhile */
			hrtimer_start(&pq->timer,
				      ns_to_ktime(now + VROCE_PORTQ_BACKLOG_NS),
				      HRTIMER_MODE_ABS_PINNED_SOFT);
			spin_unlock(&pq->q.lock);
			return;
		}
		if (!budget--) {
			tasklet_schedule(&pq->drain);
			spin_unlock(&pq->q.lock);
			return;
		}
		vroce_portq_unlink(pq, skb, list);
		if (list == &pq->aq || list == &pq->q)
			pq->requests_next = list == &pq->aq;
		cb = *vroce_portq_cb(skb);
		/* line rate set to 0 meanwhile: what waits leaves at once */
		if (kbps)
			vroce_portq_charge(pq, now, cb.frame, kbps);
		spin_unlock(&pq->q.lock);
		vroce_pkt_out(vdev, NULL, skb, cb.ipv6);
		spin_lock(&pq->q.lock);
	}
	pq->busy = false;
	spin_unlock(&pq->q.lock);
}

static void vroce_portq_tasklet(struct tasklet_struct *t)
{
	struct vroce_portq *pq = from_tasklet(pq, t, drain);

	vroce_portq_run(pq);
}

static enum hrtimer_restart vroce_portq_timer(struct hrtimer *t)
{
	vroce_portq_run(container_of(t, struct vroce_portq, timer));
	return HRTIMER_NORESTART;
}

/* The IPI: runs on the home CPU. */
static void vroce_portq_kicked(void *info)
{
	struct vroce_portq *pq = info;

	tasklet_schedule(&pq->drain);
}

static void vroce_portq_noop(void *info)
{
}

/**
 * vroce_portq_shaped() - does the port's FIFO take @vdev's packets?
 * @vdev: the device
 *
 * Return: true when a line rate was set (the shaper) or PFC is on for a
 * priority.
 */
bool vroce_portq_shaped(struct vroce_dev *vdev)
{
	/* PFC pauses a priority's packets here, at any rate */
	return vroce_portq_kbps(vdev) || READ_ONCE(vdev->qos.pfc);
}

/**
 * vroce_portq_xmit() - send a unicast packet at the port's rate
 * @vdev: sending device, vroce_portq_shaped()
 * @skb: the packet, IP header on, its route set; or a whole RoCE v1
 *	frame, Ethernet header on; consumed
 * @ipv6: @skb is IPv6
 * @answer: a responder's packet or a CNP, which leaves before requests
 *
 * Callable from any context but hard interrupts.
 *
 * Return: 0 (sent or queued), or -ENOBUFS: the FIFO or the netdev's
 * backlog was full, the packet dropped and counted.
 */
int vroce_portq_xmit(struct vroce_dev *vdev, struct sk_buff *skb,
		     bool ipv6, bool answer)
{
	struct vroce_portq *pq = &vdev->portq;
	/* the IP stack adds the Ethernet header later; RoCE v1 has it on */
	u32 frame = skb->len +
		    (skb->protocol == htons(ETH_P_IBOE) ? 0 : ETH_HLEN);
	unsigned int prio = skb->priority % VROCE_PFC_NR_PRIOS;
	u32 kbps = vroce_portq_kbps(vdev);
	bool kick = false, queued = false;
	unsigned int cpu;
	u64 now;

	local_bh_disable();
	cpu = vroce_portq_cpu(pq);
	now = ktime_get_ns();
	spin_lock(&pq->q.lock);
	if (cpu == smp_processor_id() && !pq->busy && pq->next_ns <= now &&
	    !vroce_txq_backlog_full() &&
	    !vroce_pfc_paused(&pq->pfc, prio, now) &&
	    !vroce_pfc_storm(&pq->pfc, prio)) {
		/*
		 * On the home CPU, nothing waiting, the rate's time come and
		 * room in the backlog the netdev puts it on: every packet of
		 * the device goes to this CPU's, and what overflows it is lost
		 * to a sender that cannot send again (an ACK).
		 */
		if (kbps)
			vroce_portq_charge(pq, now, frame, kbps);
	} else if (pq->prio_bytes[prio] + frame <= VROCE_PORTQ_BYTES_MAX &&
		   pq->bytes - pq->held_bytes + frame <= VROCE_PORTQ_BYTES_MAX &&
		   !pq->dead) {
		vroce_portq_cb(skb)->frame = frame;
		vroce_portq_cb(skb)->ipv6 = ipv6;
		__skb_queue_tail(answer ? &pq->aq : &pq->q, skb);
		WRITE_ONCE(pq->bytes, pq->bytes + frame);
		WRITE_ONCE(pq->prio_bytes[prio], pq->prio_bytes[prio] + frame);
		kick = !pq->busy;
		pq->busy = true;
		queued = true;
	} else {
		spin_unlock(&pq->q.lock);
		local_bh_enable();
		vroce_counter_inc(vdev, VROCE_CNT_TX_ERR);
		kfree_skb(skb);
		return -ENOBUFS;
	}
	spin_unlock(&pq->q.lock);

	if (!queued) {
		int err = vroce_pkt_out(vdev, NULL, skb, ipv6);

		local_bh_enable();
		return err;
	}
	if (kick) {
		if (cpu == smp_processor_id())
			vroce_portq_run(pq);
		else
			/* -EBUSY: a kick on its way will find this packet */
			smp_call_function_single_async(cpu, &pq->kick);
	}
	local_bh_enable();
	return 0;
}

/**
 * vroce_portq_take() - a packet that does not wait in the FIFO (multicast)
 * @vdev: sending device
 * @bytes: its frame's bytes, taken from the rate
 */
void vroce_portq_take(struct vroce_dev *vdev, u32 bytes)
{
	struct vroce_portq *pq = &vdev->portq;
	u32 kbps = vroce_portq_kbps(vdev);

	if (!kbps || !vroce_portq_shaped(vdev))
		return;
	spin_lock_bh(&pq->q.lock);
	vroce_portq_charge(pq, ktime_get_ns(), bytes, kbps);
	spin_unlock_bh(&pq->q.lock);
}

/**
 * vroce_portq_wait_ns() - may a requester add a packet to the FIFO now?
 * @vdev: the device
 * @prio: the priority of its packets
 *
 * What PFC holds of a paused priority counts against that priority only:
 * the others' senders go on.
 *
 * Return: 0 when it may (or the FIFO takes nothing), else about how long
 * the FIFO takes to drain to half its requesters' share, in ns (> 0);
 * without a line rate, or while @prio is paused, a short poll.
 */
u64 vroce_portq_wait_ns(struct vroce_dev *vdev, u8 prio)
{
	struct vroce_portq *pq = &vdev->portq;
	u32 held = READ_ONCE(pq->held_bytes);
	u32 mine = READ_ONCE(pq->prio_bytes[prio % VROCE_PFC_NR_PRIOS]);
	u32 bytes = READ_ONCE(pq->bytes);
	u64 until, now;
	u32 kbps;

	/* read without the lock: held may have grown past an older total */
	bytes = bytes > held ? bytes - held : 0;

	if ((bytes < VROCE_PORTQ_BYTES && mine < VROCE_PORTQ_BYTES) ||
	    !vroce_portq_shaped(vdev))
		return 0;
	kbps = vroce_portq_kbps(vdev);
	if (kbps && bytes >= VROCE_PORTQ_BYTES)
		return vroce_tbf_ns(bytes - VROCE_PORTQ_BYTES / 2, kbps) + 1;
	/*
	 * A paused priority's senders wait for the pause to end (a frame
	 * may renew it): waking them sooner only burns the CPU the
	 * receiver needs.
	 */
	until = READ_ONCE(pq->pfc.until_ns[prio % VROCE_PFC_NR_PRIOS]);
	now = ktime_get_ns();
	return max_t(u64, until > now ? until - now : 0,
		     VROCE_PORTQ_BACKLOG_NS);
}

/**
 * vroce_portq_kick() - run the drain on the home CPU (a priority resumed)
 * @vdev: the device
 *
 * Context: bottom halves off, no FIFO lock held.
 */
void vroce_portq_kick(struct vroce_dev *vdev)
{
	struct vroce_portq *pq = &vdev->portq;
	unsigned int cpu = vroce_portq_cpu(pq);

	if (cpu == smp_processor_id())
		tasklet_schedule(&pq->drain);
	else
		smp_call_function_single_async(cpu, &pq->kick);
}

/*
 * A new device's home CPU: the online CPUs in turn, so that the devices of
 * one host (two namespaces' on a veth pair) receive on different CPUs.
 */
static unsigned int vroce_portq_home(void)
{
	static atomic_t devices = ATOMIC_INIT(0);
	unsigned int n = atomic_inc_return(&devices), cpu, k = 0;

	n %= max(num_online_cpus(), 1U);
	for_each_online_cpu(cpu)
		if (k++ == n)
			return cpu;
	return cpumask_first(cpu_online_mask);
}

/**
 * vroce_portq_init() - a new device's shaper: idle, empty
 * @vdev: the device, before it sends
 */
void vroce_portq_init(struct vroce_dev *vdev)
{
	struct vroce_portq *pq = &vdev->portq;
	unsigned int prio;

	skb_queue_head_init(&pq->q);
	/* under q's lock too */
	__skb_queue_head_init(&pq->aq);
	for (prio = 0; prio < VROCE_PFC_NR_PRIOS; prio++) {
		__skb_queue_head_init(&pq->held[prio]);
		pq->prio_bytes[prio] = 0;
	}
	memset(&pq->pfc, 0, sizeof(pq->pfc));
	pq->pfc_next_ns = 0;
	pq->requests_next = false;
	pq->bytes = 0;
	pq->held_bytes = 0;
	pq->next_ns = 0;
	pq->busy = false;
	pq->dead = false;
	pq->cpu = vroce_portq_home();
	INIT_CSD(&pq->kick, vroce_portq_kicked, pq);
	tasklet_setup(&pq->drain, vroce_portq_tasklet);
	hrtimer_init(&pq->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_SOFT);
	pq->timer.function = vroce_portq_timer;
}

/**
 * vroce_portq_cleanup() - stop the shaper, drop what waits
 * @vdev: the device, from dealloc_driver: nothing sends any more
 */
void vroce_portq_cleanup(struct vroce_dev *vdev)
{
	struct vroce_portq *pq = &vdev->portq;

	spin_lock_bh(&pq->q.lock);
	pq->dead = true;
	spin_unlock_bh(&pq->q.lock);
	/*
	 * A CPU runs the IPIs sent to it in order: once this one has run, so
	 * has a kick on its way, and what it scheduled is killed below.
	 */
	if (cpu_online(pq->cpu))
		smp_call_function_single(pq->cpu, vroce_portq_noop, NULL, 1);
	hrtimer_cancel(&pq->timer);
	tasklet_kill(&pq->drain);
	spin_lock_bh(&pq->q.lock);
	vroce_portq_purge(pq);
	spin_unlock_bh(&pq->q.lock);
}
