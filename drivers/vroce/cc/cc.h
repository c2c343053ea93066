/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Congestion control in the data path: a device's settings (cc/ in sysfs),
 * and each RC QP's notification point (CE mark in, CNP out) and reaction
 * point (CNP in, an algorithm's rate, pacer out).  The algorithms sit
 * behind struct vroce_cc_algo (cc/vroce_cc.h, cc/algo.c, cc/flow.c);
 * DCQCN's arithmetic is dcqcn.c's, its clock dcqcn_algo.c's.
 *
 * Priorities: a QP's priority is the port's (qos.c: trust mode and DSCP
 * map, by default DSCP / 8 as on a ConnectX in trust dscp).
 */
#ifndef VROCE_CC_CC_H
#define VROCE_CC_CC_H

#include <linux/hrtimer.h>
#include <linux/kobject.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "cc/dcqcn.h"
#include "cc/timely.h"
#include "cc/vroce_cc.h"
#include "pkt.h"

struct vroce_dev;
struct vroce_qp;

#define VROCE_CC_NR_PRIOS	8
/* DCQCN's maximum rate on a port without a line rate: 400 Gb/s, in kb/s. */
#define VROCE_CC_UNLIMITED_KBPS	400000000U
/* ecn/, ecn/roce_np/, ecn/roce_np/enable/, ecn/roce_rp/, ecn/roce_rp/enable/ */
#define VROCE_CC_NR_DIRS	5
/* Largest CNP generation delay, us. */
#define VROCE_CC_CNP_DELAY_MAX	1000000U

/**
 * struct vroce_cc_dev - a device's congestion-control settings
 * @lock: protects the fields below against sysfs writers; the data path
 *	reads @np_enable and @rp_enable with READ_ONCE() and copies @cfg
 *	under @lock (vroce_cc_cfg()) when it runs the algorithm
 * @cfg: flavour, line rate (kb/s; VROCE_CC_UNLIMITED_KBPS without one)
 *	and the knobs; always valid (vroce_dcqcn_params_validate())
 * @line_rate_mbps: the port's emulated line rate in Mb/s, 0 for none: the
 *	maximum rate of DCQCN, and the pace of every QP that is a reaction
 *	point (QPs without congestion control are never paced)
 * @line_rate_shapes: @line_rate_mbps was written, not taken from the
 *	netdev's speed: the port's shaper holds the device's total to it
 *	(portq.c)
 * @np_enable: bit per priority: CE-marked packets make CNPs
 * @rp_enable: bit per priority: CNPs cut the rate; data packets ECT(0)
 * @cnp_delay_us: vroce's own: CNPs leave this long after the CE mark
 * @timely: TIMELY's knobs (cc/timely_*), always valid
 * @rate_advice: rate advice is honoured (cc/advice.c); READ_ONCE()
 * @algo: per priority, the algorithm new flows start with (cc/algo); the
 *	device holds a reference on each one's module
 * @algo_start: every @algo's start_events; READ_ONCE() in the data path
 * @algo_gen: per priority, bumped when its @algo changes: running flows
 *	of that priority start over
 * @dirs: ecn/ under the netdev and its subdirectories (cc/sysfs.c),
 *	children after their parents; NULL where absent
 * @ecn_gone: vroce_cc_sysfs_cleanup() ran: ecn/ is not (re)created
 */
struct vroce_cc_dev {
	spinlock_t lock; /* see above */
	struct vroce_dcqcn_cfg cfg;
	u32 line_rate_mbps;
	bool line_rate_shapes;
	u8 np_enable;
	u8 rp_enable;
	u32 cnp_delay_us;
	struct vroce_timely_params timely;
	u8 rate_advice;
	const struct vroce_cc_algo *algo[VROCE_CC_NR_PRIOS];
	u32 algo_start;
	u32 algo_gen[VROCE_CC_NR_PRIOS];
	struct kobject *dirs[VROCE_CC_NR_DIRS];
	bool ecn_gone;
};

/**
 * struct vroce_cc_qp - one RC QP's notification and reaction points
 * @lock: protects everything below; taken with bottom halves off
 * @rp_active: the reaction point's flow runs: @algo holds its rate
 * @algo: the flow's algorithm while @rp_active (a module reference held)
 * @algo_gen: the device's algo_gen of the flow's priority when it started
 * @wants: @algo's events while the flow runs, else 0; READ_ONCE() in
 *	the data path's check before it builds an event
 * @flow: what the algorithm reads about the flow
 * @out: the algorithm's last answer; its timer_ns is what @algo_timer is
 *	armed for (0: not armed)
 * @priv: the algorithm's per-flow area
 * @pace_kbps: rate packets leave at, 0 for no pacing; READ_ONCE() in
 *	the data path's fast check
 * @advice_kbps: rate advice's cap (cc/advice.c), 0 for none; READ_ONCE()
 *	in the data path's fast check
 * @advice_until_ns: when the cap expires (ktime_get_ns())
 * @next_tx_ns: pacer: when the next packet may leave
 * @resp_waiting: pacer: the responder's READ job waits for it
 * @pace_timer: runs the QP (and the waiting READ job) when the pacer lets
 *	the next packet go
 * @algo_timer: the algorithm's timer (cc/flow.c)
 * @last_cnp_ns: notification point: when the last CNP left
 * @np_timer: notification point: sends a CNP after cnp_delay_us
 * @np_pending: a delayed CNP waits in @np_timer
 * @np_av: where the delayed CNP goes
 * @np_entropy: its UDP source port entropy
 * @dead: the QP is being destroyed: no timer is armed any more
 * @qp: the QP, for the timers
 */
struct vroce_cc_qp {
	spinlock_t lock; /* see above */
	bool rp_active;
	const struct vroce_cc_algo *algo;
	u32 algo_gen;
	u32 wants;
	struct vroce_cc_flow flow;
	struct vroce_cc_out out;
	u64 priv[VROCE_CC_PRIV_SIZE / sizeof(u64)];
	u32 pace_kbps;
	u32 advice_kbps;
	u64 advice_until_ns;
	u64 next_tx_ns;
	bool resp_waiting;
	struct hrtimer pace_timer;
	struct hrtimer algo_timer;
	u64 last_cnp_ns;
	struct hrtimer np_timer;
	bool np_pending;
	struct vroce_av np_av;
	u32 np_entropy;
	bool dead;
	struct vroce_qp *qp;
};

/* device settings (cc/dev.c) */
void vroce_cc_dev_init(struct vroce_dev *vdev);
void vroce_cc_cfg(struct vroce_dev *vdev, struct vroce_dcqcn_cfg *cfg);
int vroce_cc_set_line_rate(struct vroce_dev *vdev, u32 mbps);
void vroce_cc_tx_wait(struct vroce_qp *qp, u64 ns, bool resp);
bool vroce_cc_port_speed(struct vroce_dev *vdev, u16 *speed, u8 *width);

/* sysfs (cc/sysfs.c): cc/ is ib_device_ops.device_group */
extern const struct attribute_group vroce_cc_attr_group;
void vroce_cc_sysfs_module_init(void);
int vroce_cc_sysfs_init(struct vroce_dev *vdev);
void vroce_cc_sysfs_cleanup(struct vroce_dev *vdev);
/* a sysfs directory that knows its device (also qos.c's) */
struct kobject *vroce_sysfs_dir_add(struct vroce_dev *vdev,
				    struct kobject *parent, const char *name,
				    const struct attribute_group *grp);
struct vroce_dev *vroce_sysfs_dir_vdev(struct kobject *kobj);
void vroce_sysfs_dirs_del(struct kobject **dirs, unsigned int n);
bool vroce_sysfs_has_child(struct kobject *kobj, const char *name);

/* per QP (cc/qp.c) */
void vroce_cc_qp_init(struct vroce_qp *qp);
void vroce_cc_qp_reset(struct vroce_qp *qp);
void vroce_cc_qp_cleanup(struct vroce_qp *qp);
u8 vroce_cc_qp_prio(const struct vroce_qp *qp);
bool vroce_cc_qp_rp_on(const struct vroce_qp *qp);
bool vroce_cc_qp_paced(const struct vroce_qp *qp);
int vroce_cc_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
void vroce_cc_ect(const struct vroce_qp *qp, struct vroce_av *av);

/* notification point (cc/np.c) */
void vroce_cc_ce_rcv(struct vroce_qp *qp, const struct vroce_pkt *pkt);
enum hrtimer_restart vroce_cc_np_fire(struct hrtimer *t);

/* reaction point (cc/rp.c) */
void vroce_cc_cnp_rcv(struct vroce_pkt *pkt);

/**
 * struct vroce_cc_advice - rate advice that passed the format's checks
 * @all: for every QP whose peer sent it, not only the one it names
 * @kbps: the cap
 * @until_ns: when it expires (ktime_get_ns())
 */
struct vroce_cc_advice {
	bool all;
	u32 kbps;
	u64 until_ns;
};

/* rate advice (cc/advice.c) */
int vroce_cc_advice_parse(const struct vroce_pkt *pkt,
			  struct vroce_cc_advice *adv);
void vroce_cc_advice_apply(struct vroce_qp *qp,
			   const struct vroce_cc_advice *adv);
u32 vroce_cc_advice_kbps(struct vroce_cc_qp *cc, u64 now);
void vroce_cc_advice_clear(struct vroce_cc_qp *cc);

/* algorithms (cc/algo.c), DCQCN and none (cc/dcqcn_algo.c), TIMELY */
extern struct vroce_cc_algo vroce_cc_dcqcn_algo;
extern struct vroce_cc_algo vroce_cc_none_algo;
extern struct vroce_cc_algo vroce_cc_timely_algo;
void vroce_cc_timely_params(struct vroce_dev *vdev,
			    struct vroce_timely_params *p);
void vroce_cc_algo_module_init(void);
void vroce_cc_algo_module_exit(void);
void vroce_cc_algo_dev_init(struct vroce_dev *vdev);
void vroce_cc_algo_dev_cleanup(struct vroce_dev *vdev);
int vroce_cc_algo_set(struct vroce_dev *vdev, const char *names);
ssize_t vroce_cc_algo_show(struct vroce_dev *vdev, char *buf);
ssize_t vroce_cc_algos_show(char *buf);

/* a reaction point's flow (cc/flow.c) */
void __vroce_cc_flow_event(struct vroce_cc_qp *cc,
			   const struct vroce_cc_event *ev);
void vroce_cc_flow_event(struct vroce_qp *qp, const struct vroce_cc_event *ev);
void vroce_cc_flow_end(struct vroce_cc_qp *cc);
enum hrtimer_restart vroce_cc_algo_fire(struct hrtimer *t);
void vroce_cc_ack(struct vroce_qp *qp, u32 psn);
void vroce_cc_nack(struct vroce_qp *qp, enum vroce_cc_nack_kind kind, u32 psn);
void vroce_cc_rtt(struct vroce_qp *qp, u32 psn, u64 sent_ns, u64 received_ns);
int vroce_cc_flow_fill_res(struct vroce_cc_qp *cc, struct sk_buff *msg);

/* pacer (cc/pace.c) */
bool vroce_cc_tx_admit(struct vroce_qp *qp, u32 bytes, bool resp);
enum hrtimer_restart vroce_cc_pace_fire(struct hrtimer *t);

#endif /* VROCE_CC_CC_H */
