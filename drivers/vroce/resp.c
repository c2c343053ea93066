// SPDX-License-Identifier: GPL-2.0
/*
 * Responder: requests arriving at a QP.  Not written yet: requests are
 * counted and dropped, which a reliable requester sees as loss.
 */
#include "pkt.h"
#include "vroce.h"

/**
 * vroce_resp_rcv() - a request packet for one of our QPs
 * @pkt: parsed packet; its skb is consumed
 */
void vroce_resp_rcv(struct vroce_pkt *pkt)
{
	vroce_counter_inc(pkt->vdev, VROCE_CNT_RX_NO_QP);
	kfree_skb(pkt->skb);
}
