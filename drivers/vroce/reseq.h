/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RC responder resequencing: requests that arrive ahead of a gap wait a
 * bounded time for it to fill instead of being discarded (reseq.c).
 */
#ifndef VROCE_RESEQ_H
#define VROCE_RESEQ_H

#include <linux/types.h>

struct vroce_qp;
struct vroce_pkt;

bool vroce_reseq_hold(struct vroce_qp *qp, struct vroce_pkt *pkt, s32 ahead);
bool vroce_reseq_next(struct vroce_qp *qp, struct vroce_pkt *pkt);
bool vroce_reseq_take_any(struct vroce_qp *qp, struct vroce_pkt *pkt);
unsigned int vroce_reseq_drop(struct vroce_qp *qp);
void vroce_reseq_cleanup(struct vroce_qp *qp);

#endif /* VROCE_RESEQ_H */
