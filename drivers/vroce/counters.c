// SPDX-License-Identifier: GPL-2.0
/*
 * hw counters behind `rdma statistic show link vroce0/1`.
 *
 * Counters are per CPU so the data path never shares a cache line; ib_core
 * asks for a snapshot at most once per lifespan and vroce sums the CPUs.
 */
#include <linux/percpu.h>

#include "vroce.h"

static const struct rdma_stat_desc vroce_counter_descs[VROCE_CNT_COUNT] = {
	[VROCE_CNT_RX_PACKETS].name = "rx_packets",
	[VROCE_CNT_TX_PACKETS].name = "tx_packets",
	[VROCE_CNT_RX_ICRC_ERR].name = "rx_icrc_encapsulated",
	[VROCE_CNT_RX_HDR_ERR].name = "rx_header_errors",
	[VROCE_CNT_RX_NO_QP].name = "rx_no_qp",
	[VROCE_CNT_RX_LOOPBACK].name = "rx_loopback",
	[VROCE_CNT_TX_ERR].name = "tx_errors",
	[VROCE_CNT_OUT_OF_SEQUENCE].name = "out_of_sequence",
	[VROCE_CNT_RX_RESEQUENCED].name = "rx_resequenced",
	[VROCE_CNT_DUPLICATE_REQUEST].name = "duplicate_request",
	[VROCE_CNT_OUT_OF_BUFFER].name = "out_of_buffer",
	[VROCE_CNT_RX_READ_REQUESTS].name = "rx_read_requests",
	[VROCE_CNT_RX_WRITE_REQUESTS].name = "rx_write_requests",
	[VROCE_CNT_RX_ATOMIC_REQUESTS].name = "rx_atomic_requests",
	[VROCE_CNT_RESP_LOCAL_LENGTH_ERROR].name = "resp_local_length_error",
	[VROCE_CNT_RESP_REMOTE_ACCESS_ERRORS].name = "resp_remote_access_errors",
	[VROCE_CNT_RESP_INVALID_REQUEST].name = "resp_invalid_request",
	[VROCE_CNT_RX_QKEY_VIOLATION].name = "rx_qkey_violation",
	[VROCE_CNT_LOCAL_ACK_TIMEOUT_ERR].name = "local_ack_timeout_err",
	[VROCE_CNT_PACKET_SEQ_ERR].name = "packet_seq_err",
	[VROCE_CNT_RNR_NAK_RECEIVED].name = "rnr_nak_received",
	[VROCE_CNT_IMPLIED_NAK_SEQ_ERR].name = "implied_nak_seq_err",
	[VROCE_CNT_RX_ADDR_MISMATCH].name = "rx_addr_mismatch",
	[VROCE_CNT_NP_ECN_MARKED].name = "np_ecn_marked_roce_packets",
	[VROCE_CNT_NP_CNP_SENT].name = "np_cnp_sent",
	[VROCE_CNT_RP_CNP_HANDLED].name = "rp_cnp_handled",
	[VROCE_CNT_RP_CNP_IGNORED].name = "rp_cnp_ignored",
	[VROCE_CNT_RP_RATE_ADVICE_HANDLED].name = "rp_rate_advice_handled",
	[VROCE_CNT_RP_RATE_ADVICE_IGNORED].name = "rp_rate_advice_ignored",
	[VROCE_CNT_RX_PRIO0_PAUSE + 0].name = "rx_prio0_pause",
	[VROCE_CNT_RX_PRIO0_PAUSE + 1].name = "rx_prio1_pause",
	[VROCE_CNT_RX_PRIO0_PAUSE + 2].name = "rx_prio2_pause",
	[VROCE_CNT_RX_PRIO0_PAUSE + 3].name = "rx_prio3_pause",
	[VROCE_CNT_RX_PRIO0_PAUSE + 4].name = "rx_prio4_pause",
	[VROCE_CNT_RX_PRIO0_PAUSE + 5].name = "rx_prio5_pause",
	[VROCE_CNT_RX_PRIO0_PAUSE + 6].name = "rx_prio6_pause",
	[VROCE_CNT_RX_PRIO0_PAUSE + 7].name = "rx_prio7_pause",
	[VROCE_CNT_RX_PRIO0_PAUSE_DURATION + 0].name = "rx_prio0_pause_duration",
	[VROCE_CNT_RX_PRIO0_PAUSE_DURATION + 1].name = "rx_prio1_pause_duration",
	[VROCE_CNT_RX_PRIO0_PAUSE_DURATION + 2].name = "rx_prio2_pause_duration",
	[VROCE_CNT_RX_PRIO0_PAUSE_DURATION + 3].name = "rx_prio3_pause_duration",
	[VROCE_CNT_RX_PRIO0_PAUSE_DURATION + 4].name = "rx_prio4_pause_duration",
	[VROCE_CNT_RX_PRIO0_PAUSE_DURATION + 5].name = "rx_prio5_pause_duration",
	[VROCE_CNT_RX_PRIO0_PAUSE_DURATION + 6].name = "rx_prio6_pause_duration",
	[VROCE_CNT_RX_PRIO0_PAUSE_DURATION + 7].name = "rx_prio7_pause_duration",
	[VROCE_CNT_TX_PRIO0_PAUSE + 0].name = "tx_prio0_pause",
	[VROCE_CNT_TX_PRIO0_PAUSE + 1].name = "tx_prio1_pause",
	[VROCE_CNT_TX_PRIO0_PAUSE + 2].name = "tx_prio2_pause",
	[VROCE_CNT_TX_PRIO0_PAUSE + 3].name = "tx_prio3_pause",
	[VROCE_CNT_TX_PRIO0_PAUSE + 4].name = "tx_prio4_pause",
	[VROCE_CNT_TX_PRIO0_PAUSE + 5].name = "tx_prio5_pause",
	[VROCE_CNT_TX_PRIO0_PAUSE + 6].name = "tx_prio6_pause",
	[VROCE_CNT_TX_PRIO0_PAUSE + 7].name = "tx_prio7_pause",
	[VROCE_CNT_RX_PAUSE_IGNORED].name = "rx_pause_ignored",
	[VROCE_CNT_PFC_WATCHDOG_EVENTS].name = "pfc_watchdog_events",
	[VROCE_CNT_PFC_WATCHDOG_DISCARDS].name = "pfc_watchdog_discards",
};

/**
 * vroce_counters_init() - allocate a device's counters
 * @vdev: device being created
 *
 * Return: 0 or -ENOMEM.
 */
int vroce_counters_init(struct vroce_dev *vdev)
{
	vdev->counters = alloc_percpu(struct vroce_counters);
	return vdev->counters ? 0 : -ENOMEM;
}

/**
 * vroce_counters_free() - free a device's counters
 * @vdev: device being freed
 */
void vroce_counters_free(struct vroce_dev *vdev)
{
	free_percpu(vdev->counters);
	vdev->counters = NULL;
}

/**
 * vroce_counter_inc() - count one event; any context
 * @vdev: the device
 * @c: the counter
 */
void vroce_counter_inc(struct vroce_dev *vdev, enum vroce_counter c)
{
	this_cpu_inc(vdev->counters->cnt[c]);
}

/**
 * vroce_counter_add() - count @n events; any context
 * @vdev: the device
 * @c: the counter
 * @n: how many
 */
void vroce_counter_add(struct vroce_dev *vdev, enum vroce_counter c, u64 n)
{
	this_cpu_add(vdev->counters->cnt[c], n);
}

/**
 * vroce_counter_read() - current total of one counter
 * @vdev: the device
 * @c: the counter
 *
 * Return: the sum over all CPUs.
 */
u64 vroce_counter_read(struct vroce_dev *vdev, enum vroce_counter c)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(vdev->counters, cpu)->cnt[c];
	return sum;
}

static struct rdma_hw_stats *vroce_alloc_hw_port_stats(struct ib_device *ibdev,
						       u32 port_num)
{
	return rdma_alloc_hw_stats_struct(vroce_counter_descs,
					  ARRAY_SIZE(vroce_counter_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int vroce_get_hw_stats(struct ib_device *ibdev,
			      struct rdma_hw_stats *stats, u32 port, int index)
{
	struct vroce_dev *vdev = to_vroce_dev(ibdev);
	int i;

	/* a pause still running counts up to now */
	vroce_pfc_port_settle(vdev);
	for (i = 0; i < VROCE_CNT_COUNT; i++)
		stats->value[i] = vroce_counter_read(vdev, i);
	/* kept in ns, so that many short pauses add up; shown in us */
	for (i = 0; i < VROCE_PFC_NR_PRIOS; i++)
		do_div(stats->value[VROCE_CNT_RX_PRIO0_PAUSE_DURATION + i],
		       NSEC_PER_USEC);
	return VROCE_CNT_COUNT;
}

const struct ib_device_ops vroce_counters_ops = {
	.alloc_hw_port_stats = vroce_alloc_hw_port_stats,
	.get_hw_stats = vroce_get_hw_stats,
};
