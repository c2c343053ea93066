// SPDX-License-Identifier: GPL-2.0
/*
 * Completer: ACKs, read responses and atomic ACKs for our requests.  Not
 * written yet: responses are counted and dropped.
 */
#include "pkt.h"
#include "vroce.h"

/**
 * vroce_comp_rcv() - a response packet for one of our QPs
 * @pkt: parsed packet; its skb is consumed
 */
void vroce_comp_rcv(struct vroce_pkt *pkt)
{
	vroce_counter_inc(pkt->vdev, VROCE_CNT_RX_NO_QP);
	kfree_skb(pkt->skb);
}
