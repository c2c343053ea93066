// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection (netdevsim style): per device, under
 * /sys/kernel/debug/vroce/<ibdev>/, permille knobs for transmit and
 * receive faults, an ECN CE-marking knob, a delay, and fail_alloc_next.
 * Every injected event is counted in counters/.
 *
 * The packet paths test one flag, vroce_dev.fault_on, set while any knob
 * is non-zero.  Delayed and reordered packets wait on a list that a
 * delayed work item sends (transmit) or delivers (receive) when due; the
 * list is bounded, a packet beyond it is dropped and counted.
 *
 * Received packets held there stand for a slow receiver's backlog: they
 * are the port's receive buffer, VROCE_PFC_RX_BUFFER bytes per priority
 * (qos.c's receive priority).  A packet that finds its priority's buffer
 * full is dropped (rx_buffer_drop), as a NIC without flow control drops
 * it; with PFC on the priority, pfc_tx.c asks the peer to pause before.
 */
#include <linux/debugfs.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>

#include "pkt.h"
#include "vroce.h"

/* Packets held for delay or reordering, per device. */
#define VROCE_FAULT_MAX_HELD	4096
/* How long a reordered packet waits: the packets after it overtake it. */
#define VROCE_FAULT_REORDER_MS	1
/* Longest delay a user can set. */
#define VROCE_FAULT_MAX_DELAY_MS 10000

enum vroce_fault_knob_id {
	VROCE_FK_TX_DROP,
	VROCE_FK_TX_DUP,
	VROCE_FK_TX_REORDER,
	VROCE_FK_TX_DELAY,
	VROCE_FK_TX_CORRUPT,
	VROCE_FK_RX_DROP,
	VROCE_FK_RX_DUP,
	VROCE_FK_RX_REORDER,
	VROCE_FK_RX_DELAY,
	VROCE_FK_RX_CORRUPT,
	VROCE_FK_CE_MARK,
	VROCE_FK_DELAY_MS,
	VROCE_FK_FAIL_ALLOC,
	VROCE_FK_COUNT,
};

static const char * const vroce_fault_knob_names[VROCE_FK_COUNT] = {
	[VROCE_FK_TX_DROP] = "tx_drop_permille",
	[VROCE_FK_TX_DUP] = "tx_dup_permille",
	[VROCE_FK_TX_REORDER] = "tx_reorder_permille",
	[VROCE_FK_TX_DELAY] = "tx_delay_permille",
	[VROCE_FK_TX_CORRUPT] = "tx_corrupt_permille",
	[VROCE_FK_RX_DROP] = "rx_drop_permille",
	[VROCE_FK_RX_DUP] = "rx_dup_permille",
	[VROCE_FK_RX_REORDER] = "rx_reorder_permille",
	[VROCE_FK_RX_DELAY] = "rx_delay_permille",
	[VROCE_FK_RX_CORRUPT] = "rx_corrupt_permille",
	[VROCE_FK_CE_MARK] = "ce_mark_permille",
	[VROCE_FK_DELAY_MS] = "delay_ms",
	[VROCE_FK_FAIL_ALLOC] = "fail_alloc_next",
};

/* Events counted; the names of counters/ follow the knobs. */
enum vroce_fault_event {
	VROCE_FE_TX_DROP,
	VROCE_FE_TX_DUP,
	VROCE_FE_TX_REORDER,
	VROCE_FE_TX_DELAY,
	VROCE_FE_TX_CORRUPT,
	VROCE_FE_RX_DROP,
	VROCE_FE_RX_DUP,
	VROCE_FE_RX_REORDER,
	VROCE_FE_RX_DELAY,
	VROCE_FE_RX_CORRUPT,
	VROCE_FE_CE_MARK,
	VROCE_FE_ALLOC_FAIL,
	VROCE_FE_HELD_OVERFLOW,
	VROCE_FE_RX_BUFFER_DROP,
	VROCE_FE_COUNT,
};

static const char * const vroce_fault_event_names[VROCE_FE_COUNT] = {
	[VROCE_FE_TX_DROP] = "tx_drop",
	[VROCE_FE_TX_DUP] = "tx_dup",
	[VROCE_FE_TX_REORDER] = "tx_reorder",
	[VROCE_FE_TX_DELAY] = "tx_delay",
	[VROCE_FE_TX_CORRUPT] = "tx_corrupt",
	[VROCE_FE_RX_DROP] = "rx_drop",
	[VROCE_FE_RX_DUP] = "rx_dup",
	[VROCE_FE_RX_REORDER] = "rx_reorder",
	[VROCE_FE_RX_DELAY] = "rx_delay",
	[VROCE_FE_RX_CORRUPT] = "rx_corrupt",
	[VROCE_FE_CE_MARK] = "ce_mark",
	[VROCE_FE_ALLOC_FAIL] = "alloc_fail",
	[VROCE_FE_HELD_OVERFLOW] = "held_overflow",
	[VROCE_FE_RX_BUFFER_DROP] = "rx_buffer_drop",
};

struct vroce_fault;

/**
 * struct vroce_fault_knob - one knob file
 * @f: its device's fault state
 * @val: the value written (permille, ms or a count)
 */
struct vroce_fault_knob {
	struct vroce_fault *f;
	u32 val;
};

/**
 * struct vroce_fault_held - a packet waiting for its time
 * @list: in vroce_fault.held
 * @skb: the packet
 * @due: jiffies when it goes
 * @tx: transmit (@av, @entropy valid), else receive
 * @prio: receive: the priority whose buffer holds it
 * @av: transmit: destination
 * @entropy: transmit: flow entropy
 */
struct vroce_fault_held {
	struct list_head list;
	struct sk_buff *skb;
	unsigned long due;
	bool tx;
	u8 prio;
	struct vroce_av av;
	u32 entropy;
};

/**
 * struct vroce_fault - a device's fault injection state
 * @vdev: the device
 * @dir: its debugfs directory
 * @knob: the knobs
 * @fail_alloc: creations still to fail (the fail_alloc_next knob's count)
 * @events: injected events, per enum vroce_fault_event
 * @lock: protects @held, @nheld and @rx_bytes; BH-safe
 * @held: delayed and reordered packets, in arrival order
 * @nheld: entries in @held
 * @rx_bytes: per priority, the bytes of received packets in @held
 * @work: sends or delivers what is due
 * @armed: @work is set to run at @next_run (under @lock)
 * @next_run: jiffies when @work runs next, while @armed
 */
struct vroce_fault {
	struct vroce_dev *vdev;
	struct dentry *dir;
	struct vroce_fault_knob knob[VROCE_FK_COUNT];
	atomic_t fail_alloc;
	atomic_t events[VROCE_FE_COUNT];
	spinlock_t lock; /* see above */
	struct list_head held;
	u32 nheld;
	u32 rx_bytes[VROCE_PFC_NR_PRIOS];
	struct delayed_work work;
	bool armed;
	unsigned long next_run;
};

static struct dentry *vroce_fault_root;

static void vroce_fault_event(struct vroce_fault *f, enum vroce_fault_event e)
{
	atomic_inc(&f->events[e]);
}

/* True with probability knob / 1000. */
static bool vroce_fault_hit(struct vroce_fault *f, enum vroce_fault_knob_id k)
{
	u32 p = READ_ONCE(f->knob[k].val);

	return p && get_random_u32() % 1000 < p;
}

static void vroce_fault_update(struct vroce_fault *f)
{
	bool on = false;
	int i;

	for (i = 0; i < VROCE_FK_COUNT; i++)
		if (i != VROCE_FK_DELAY_MS && i != VROCE_FK_FAIL_ALLOC &&
		    READ_ONCE(f->knob[i].val))
			on = true;
	WRITE_ONCE(f->vdev->fault_on, on);
}

static int vroce_fault_knob_get(void *data, u64 *val)
{
	struct vroce_fault_knob *k = data;

	if (k == &k->f->knob[VROCE_FK_FAIL_ALLOC])
		*val = atomic_read(&k->f->fail_alloc);
	else
		*val = READ_ONCE(k->val);
	return 0;
}

static int vroce_fault_knob_set(void *data, u64 val)
{
	struct vroce_fault_knob *k = data;
	struct vroce_fault *f = k->f;

	if (k == &f->knob[VROCE_FK_FAIL_ALLOC]) {
		if (val > INT_MAX)
			return -EINVAL;
		atomic_set(&f->fail_alloc, val);
		return 0;
	}
	if (k == &f->knob[VROCE_FK_DELAY_MS] ?
	    val > VROCE_FAULT_MAX_DELAY_MS : val > 1000)
		return -EINVAL;
	WRITE_ONCE(k->val, val);
	vroce_fault_update(f);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(vroce_fault_knob_fops, vroce_fault_knob_get,
			 vroce_fault_knob_set, "%llu\n");

/*
 * Hold @skb for @ms; false (the caller goes on with it) when the list is
 * full.  A received packet (@av NULL) whose priority's buffer is full is
 * dropped: true, @skb consumed.
 */
static bool vroce_fault_hold(struct vroce_fault *f, struct sk_buff *skb,
			     const struct vroce_av *av, u32 entropy, u32 ms)
{
	struct vroce_fault_held *h;
	unsigned long delay;
	u32 backlog = 0;
	bool tx;
	u8 prio;

	h = kzalloc(sizeof(*h), GFP_ATOMIC);
	if (!h) {
		/* counted: the packet goes on now, ahead of those held */
		vroce_fault_event(f, VROCE_FE_HELD_OVERFLOW);
		return false;
	}
	h->skb = skb;
	h->tx = !!av;
	if (av) {
		h->av = *av;
		h->entropy = entropy;
	} else {
		h->prio = vroce_qos_rx_prio(f->vdev, skb);
	}
	spin_lock_bh(&f->lock);
	if (f->nheld >= VROCE_FAULT_MAX_HELD) {
		spin_unlock_bh(&f->lock);
		kfree(h);
		vroce_fault_event(f, VROCE_FE_HELD_OVERFLOW);
		return false;
	}
	if (!h->tx) {
		backlog = f->rx_bytes[h->prio] + skb->len;
		if (backlog > VROCE_PFC_RX_BUFFER) {
			spin_unlock_bh(&f->lock);
			kfree(h);
			vroce_fault_event(f, VROCE_FE_RX_BUFFER_DROP);
			kfree_skb(skb);
			return true;
		}
		f->rx_bytes[h->prio] = backlog;
	}
	/* under the lock: packets held alike leave in the order they came */
	delay = msecs_to_jiffies(ms);
	h->due = jiffies + delay;
	list_add_tail(&h->list, &f->held);
	f->nheld++;
	/*
	 * The work runs when the first held packet is due, not at every
	 * packet: each run walks the whole list, thousands of entries at
	 * a slow receiver's rates.
	 */
	if (!f->armed || time_before(h->due, f->next_run)) {
		f->armed = true;
		f->next_run = h->due;
		mod_delayed_work(system_wq, &f->work, delay);
	}
	tx = h->tx;
	prio = h->prio;
	spin_unlock_bh(&f->lock);
	if (!tx)
		vroce_pfc_tx_backlog(f->vdev, prio, backlog);
	return true;
}

static void vroce_fault_work(struct work_struct *work)
{
	struct vroce_fault *f = container_of(to_delayed_work(work),
					     struct vroce_fault, work);
	struct vroce_fault_held *h, *tmp;
	unsigned long next = 0, now;
	bool more = false;
	LIST_HEAD(due);
	u32 backlog[VROCE_PFC_NR_PRIOS];
	u8 drained = 0;
	unsigned int prio;

	spin_lock_bh(&f->lock);
	/*
	 * One reading of the clock for the whole list: a tick in the middle
	 * of the walk would let a packet overtake an older one due at the
	 * same time.
	 */
	now = jiffies;
	list_for_each_entry_safe(h, tmp, &f->held, list) {
		if (time_after_eq(now, h->due)) {
			list_move_tail(&h->list, &due);
			f->nheld--;
			if (!h->tx) {
				f->rx_bytes[h->prio] -= h->skb->len;
				drained |= BIT(h->prio);
			}
		} else if (!more || time_before(h->due, next)) {
			next = h->due;
			more = true;
		}
	}
	f->armed = more;
	if (more) {
		f->next_run = next;
		mod_delayed_work(system_wq, &f->work,
				 max_t(long, next - now, 1));
	}
	memcpy(backlog, f->rx_bytes, sizeof(backlog));
	spin_unlock_bh(&f->lock);
	for (prio = 0; prio < VROCE_PFC_NR_PRIOS; prio++)
		if (drained & BIT(prio))
			vroce_pfc_tx_backlog(f->vdev, prio, backlog[prio]);

	list_for_each_entry_safe(h, tmp, &due, list) {
		if (h->tx) {
			__vroce_pkt_send(f->vdev, &h->av, h->skb, h->entropy,
					 false);
		} else {
			local_bh_disable();
			__vroce_rcv(f->vdev, h->skb);
			local_bh_enable();
		}
		kfree(h);
	}
}

/**
 * vroce_fault_corrupt() - flip one random bit of a packet
 * @vdev: the device
 * @skb: the packet
 * @from: first byte (offset from skb->data) that may be changed
 */
void vroce_fault_corrupt(struct vroce_dev *vdev, struct sk_buff *skb,
			 unsigned int from)
{
	unsigned int off;

	if (skb->len <= from)
		return;
	off = from + get_random_u32() % (skb->len - from);
	skb->data[off] ^= 1 << (get_random_u32() % 8);
}

/**
 * vroce_fault_tx() - transmit faults, at the entry of vroce_pkt_send()
 * @vdev: the device (fault_on was seen set)
 * @av: destination
 * @skb: the packet, data = BTH
 * @entropy: flow entropy
 * @corrupt: set when the packet is to be corrupted after its ICRC
 *
 * Return: the packet to send now, or NULL (dropped or held).
 */
struct sk_buff *vroce_fault_tx(struct vroce_dev *vdev,
			       const struct vroce_av *av, struct sk_buff *skb,
			       u32 entropy, bool *corrupt)
{
	struct vroce_fault *f = vdev->fault;
	struct sk_buff *copy;

	if (!f)
		return skb;
	if (vroce_fault_hit(f, VROCE_FK_TX_DROP)) {
		vroce_fault_event(f, VROCE_FE_TX_DROP);
		kfree_skb(skb);
		return NULL;
	}
	if (vroce_fault_hit(f, VROCE_FK_TX_DUP)) {
		copy = skb_copy(skb, GFP_ATOMIC);
		if (copy) {
			vroce_fault_event(f, VROCE_FE_TX_DUP);
			__vroce_pkt_send(vdev, av, copy, entropy, false);
		}
	}
	*corrupt = vroce_fault_hit(f, VROCE_FK_TX_CORRUPT);
	if (*corrupt) {
		vroce_fault_event(f, VROCE_FE_TX_CORRUPT);
		return skb;
	}
	if (vroce_fault_hit(f, VROCE_FK_TX_REORDER) &&
	    vroce_fault_hold(f, skb, av, entropy, VROCE_FAULT_REORDER_MS)) {
		vroce_fault_event(f, VROCE_FE_TX_REORDER);
		return NULL;
	}
	if (vroce_fault_hit(f, VROCE_FK_TX_DELAY) &&
	    vroce_fault_hold(f, skb, av, entropy,
			     READ_ONCE(f->knob[VROCE_FK_DELAY_MS].val))) {
		vroce_fault_event(f, VROCE_FE_TX_DELAY);
		return NULL;
	}
	return skb;
}

/* Set the ECN field of a received packet's IP header to CE. */
static void vroce_fault_ce(struct sk_buff *skb)
{
	if (ip_hdr(skb)->version == 4)
		ipv4_change_dsfield(ip_hdr(skb), (u8)~INET_ECN_MASK,
				    INET_ECN_CE);
	else
		ipv6_change_dsfield(ipv6_hdr(skb), (u8)~INET_ECN_MASK,
				    INET_ECN_CE);
}

/**
 * vroce_fault_rx() - receive faults, at the entry of the receive path
 * @vdev: the device (fault_on was seen set)
 * @skb: the packet, data = BTH, network header set
 *
 * May mark or corrupt @skb in place, or deliver a copy first.
 *
 * Return: true when @skb was consumed (dropped or held).
 */
bool vroce_fault_rx(struct vroce_dev *vdev, struct sk_buff *skb)
{
	struct vroce_fault *f = vdev->fault;
	struct sk_buff *copy;

	if (!f)
		return false;
	if (vroce_fault_hit(f, VROCE_FK_RX_DROP)) {
		vroce_fault_event(f, VROCE_FE_RX_DROP);
		kfree_skb(skb);
		return true;
	}
	if (vroce_fault_hit(f, VROCE_FK_CE_MARK)) {
		vroce_fault_event(f, VROCE_FE_CE_MARK);
		vroce_fault_ce(skb);
	}
	if (vroce_fault_hit(f, VROCE_FK_RX_DUP)) {
		copy = skb_copy(skb, GFP_ATOMIC);
		if (copy) {
			vroce_fault_event(f, VROCE_FE_RX_DUP);
			__vroce_rcv(vdev, copy);
		}
	}
	if (vroce_fault_hit(f, VROCE_FK_RX_CORRUPT)) {
		vroce_fault_event(f, VROCE_FE_RX_CORRUPT);
		vroce_fault_corrupt(vdev, skb, 0);
		return false;
	}
	if (vroce_fault_hit(f, VROCE_FK_RX_REORDER) &&
	    vroce_fault_hold(f, skb, NULL, 0, VROCE_FAULT_REORDER_MS)) {
		vroce_fault_event(f, VROCE_FE_RX_REORDER);
		return true;
	}
	if (vroce_fault_hit(f, VROCE_FK_RX_DELAY) &&
	    vroce_fault_hold(f, skb, NULL, 0,
			     READ_ONCE(f->knob[VROCE_FK_DELAY_MS].val))) {
		vroce_fault_event(f, VROCE_FE_RX_DELAY);
		return true;
	}
	return false;
}

/**
 * vroce_fault_alloc_fail() - should this object creation fail?
 * @vdev: the device
 *
 * Return: true to fail the creation with -ENOMEM (counted).
 */
bool vroce_fault_alloc_fail(struct vroce_dev *vdev)
{
	struct vroce_fault *f = vdev->fault;

	if (likely(!f || !atomic_read(&f->fail_alloc)))
		return false;
	if (!atomic_add_unless(&f->fail_alloc, -1, 0))
		return false;
	vroce_fault_event(f, VROCE_FE_ALLOC_FAIL);
	return true;
}

/**
 * vroce_fault_init() - a device's debugfs directory, after registration
 * @vdev: the registered device
 *
 * Without debugfs or memory the device simply has no fault injection.
 */
void vroce_fault_init(struct vroce_dev *vdev)
{
	struct dentry *cnt;
	struct vroce_fault *f;
	int i;

	if (IS_ERR_OR_NULL(vroce_fault_root))
		return;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return;
	f->vdev = vdev;
	spin_lock_init(&f->lock);
	INIT_LIST_HEAD(&f->held);
	INIT_DELAYED_WORK(&f->work, vroce_fault_work);
	f->dir = debugfs_create_dir(dev_name(&vdev->ibdev.dev),
				    vroce_fault_root);
	for (i = 0; i < VROCE_FK_COUNT; i++) {
		f->knob[i].f = f;
		debugfs_create_file_unsafe(vroce_fault_knob_names[i], 0600,
					   f->dir, &f->knob[i],
					   &vroce_fault_knob_fops);
	}
	cnt = debugfs_create_dir("counters", f->dir);
	for (i = 0; i < VROCE_FE_COUNT; i++)
		debugfs_create_atomic_t(vroce_fault_event_names[i], 0400, cnt,
					&f->events[i]);
	vdev->fault = f;
}

/**
 * vroce_fault_cleanup() - remove a device's fault injection state
 * @vdev: the device, unregistered: no packet path runs any more
 */
void vroce_fault_cleanup(struct vroce_dev *vdev)
{
	struct vroce_fault *f = vdev->fault;
	struct vroce_fault_held *h, *tmp;

	if (!f)
		return;
	debugfs_remove(f->dir);
	WRITE_ONCE(vdev->fault_on, false);
	cancel_delayed_work_sync(&f->work);
	list_for_each_entry_safe(h, tmp, &f->held, list) {
		kfree_skb(h->skb);
		kfree(h);
	}
	vdev->fault = NULL;
	kfree(f);
}

/**
 * vroce_fault_module_init() - the vroce debugfs root, at module load
 */
void vroce_fault_module_init(void)
{
	vroce_fault_root = debugfs_create_dir("vroce", NULL);
}

/**
 * vroce_fault_module_exit() - remove the debugfs root, at module unload
 */
void vroce_fault_module_exit(void)
{
	debugfs_remove(vroce_fault_root);
	vroce_fault_root = NULL;
}
