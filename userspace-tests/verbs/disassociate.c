// SPDX-License-Identifier: GPL-2.0
/*
 * disassociate: a process that keeps a device open, with RC traffic in
 * flight, while the device is removed under it (the scenario runs `rdma
 * link delete` or deletes the netdev once the ready file exists).
 *
 * The traffic: an RC QP connected to itself, 16 RDMA WRITEs of 64 KiB in
 * flight, each completion posting the next.  Once 100 have completed
 * successfully the ready file is written.  The removal must then show
 * (IBV_EVENT_DEVICE_FATAL on the async fd, or a verbs call failing with
 * EIO) within -t seconds, and afterwards:
 *  - posting fails with EIO, creating a CQ and querying the port fail
 *    with EIO;
 *  - ib_core destroys the objects (EIO and the event come then) before it
 *    asks vroce to revoke the mappings: completions still in the CQ ring
 *    are real ones (WRITEs this program posted, done or flushed), and
 *    within 20 s the CQ mapping reads as a revoked ring (its header's
 *    index_mask, written by the kernel at creation, reads 0);
 *  - then the CQ polls empty, 1000 times (no stale or bogus completions);
 *  - every ring mapping still reads (no SIGBUS), and the CQ ring's
 *    header says empty;
 *  - (the program then holds everything until the -x file exists, so the
 *    scenario can see that the removal did not wait for it);
 *  - destroying the QP, CQ, MR and PD and closing the device succeed
 *    (ib_core destroyed them already: libibverbs takes EIO as done).
 * Exit 0 when every check passed (vt_summary()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define MSG		(64 * 1024)
#define INFLIGHT	16
#define READY_AFTER	100
#define FIRST_ID	1000	/* a zeroed CQE (wr_id 0) is not one of ours */

static struct vt_dev D;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static struct ibv_cq *cq;
static struct ibv_qp *qp;
static uint8_t *buf;
static uint64_t next_id = FIRST_ID;	/* the wr_id the next WRITE gets */
static struct vt_map maps[8];
static int nmaps;

/* Post one WRITE from the first half of buf to the second; 0 or errno. */
static int post_write(uint64_t id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = MSG, .lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)buf + MSG,
			     .rkey = mr->rkey },
	}, *bad;

	return vt_rc(ibv_post_send(qp, &wr, &bad));
}

/* An async event waiting on the (non-blocking) async fd: 1 if FATAL. */
static int device_fatal(void)
{
	struct ibv_async_event ev;
	int fatal = 0;

	while (!ibv_get_async_event(D.ctx, &ev)) {
		if (ev.event_type == IBV_EVENT_DEVICE_FATAL)
			fatal = 1;
		else
			vt_info("async event %s", vt_eventname(ev.event_type));
		ibv_ack_async_event(&ev);
	}
	return fatal;
}

static void setup(void)
{
	struct vt_snap before;
	int flags;

	pd = ibv_alloc_pd(D.ctx);
	buf = vt_alloc(2 * MSG);
	if (!pd || !buf)
		exit(vt_summary("disassociate"));
	mr = ibv_reg_mr(pd, buf, 2 * MSG, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE);
	vt_snap_take(&before);
	cq = ibv_create_cq(D.ctx, 4 * INFLIGHT, NULL, NULL, 0);
	qp = mr && cq ? vt_rc_rts(&D, pd, cq) : NULL;
	if (!qp) {
		vt_failf("setup", "MR, CQ or RC QP: %s", vt_errname(errno));
		exit(vt_summary("disassociate"));
	}
	nmaps = vt_snap_new(&before, maps, 8);
	flags = fcntl(D.ctx->async_fd, F_GETFL);
	if (nmaps < 3 ||
	    fcntl(D.ctx->async_fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		vt_failf("setup", "%d ring mappings (want CQ, SQ, RQ), or no non-blocking async fd",
			 nmaps);
		exit(vt_summary("disassociate"));
	}
}

/*
 * Traffic until the device goes.  Returns how the removal showed, or
 * NULL after @limit_ms without it.
 */
static const char *run(const char *ready, int limit_ms)
{
	uint64_t ok = 0, last = vt_now_ms(), end;
	struct ibv_wc wc[INFLIGHT];
	bool armed = false;
	int i, n, err;

	for (i = 0; i < INFLIGHT; i++) {
		err = post_write(next_id++);
		if (err) {
			vt_failf("traffic", "post before removal: %s",
				 vt_errname(err));
			return NULL;
		}
	}
	end = vt_now_ms() + (uint64_t)limit_ms;
	while (vt_now_ms() < end) {
		if (device_fatal())
			return "IBV_EVENT_DEVICE_FATAL";
		n = ibv_poll_cq(cq, INFLIGHT, wc);
		if (n < 0)
			return "poll_cq failing";
		for (i = 0; i < n; i++) {
			if (!armed && wc[i].status != IBV_WC_SUCCESS) {
				vt_failf("traffic", "WRITE completed with %s before the removal",
					 vt_wcname(wc[i].status));
				return NULL;
			}
			if (wc[i].status == IBV_WC_SUCCESS)
				ok++;
			err = post_write(next_id++);
			if (err == EIO)
				return "post_send EIO";
		}
		if (n)
			last = vt_now_ms();
		if (!armed && ok >= READY_AFTER) {
			int fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (fd < 0) {
				vt_failf("traffic", "ready file %s: %s", ready,
					 strerror(errno));
				return NULL;
			}
			close(fd);
			armed = true;
			vt_ok("traffic", "%llu WRITEs of %d KiB completed, removal may start",
			      (unsigned long long)ok, MSG / 1024);
		}
		/* nothing completes once the QP is gone: knock */
		if (armed && vt_now_ms() - last > 500) {
			err = post_write(next_id++);
			if (err == EIO)
				return "post_send EIO";
			last = vt_now_ms();
		}
	}
	return NULL;
}

/*
 * Poll what the CQ still holds until its mapping is revoked; each
 * completion must be one of this program's WRITEs, done or flushed.
 */
static void drain_until_revoked(void)
{
	const volatile struct rxe_queue_buf *q = vt_map_q(&maps[0]);
	uint64_t end = vt_now_ms() + 20000;
	int n = 0, bad = 0, got;
	struct ibv_wc wc;

	while (q->index_mask && vt_now_ms() < end) {
		got = ibv_poll_cq(cq, 1, &wc);
		if (got <= 0) {
			usleep(1000);
			continue;
		}
		n++;
		if (wc.wr_id < FIRST_ID || wc.wr_id >= next_id ||
		    wc.opcode != IBV_WC_RDMA_WRITE ||
		    (wc.status != IBV_WC_SUCCESS &&
		     wc.status != IBV_WC_WR_FLUSH_ERR)) {
			if (!bad++)
				vt_info("bad completion: wr_id %llu opcode %d status %s",
					(unsigned long long)wc.wr_id,
					wc.opcode, vt_wcname(wc.status));
		}
	}
	if (q->index_mask)
		vt_failf("after.revoked", "the CQ mapping is not revoked after 20 s");
	else
		vt_ok("after.revoked", "the CQ mapping reads as revoked");
	if (bad)
		vt_failf("after.drain", "%d of %d completions before the revoke are not this program's WRITEs",
			 bad, n);
	else
		vt_ok("after.drain", "%d completions before the revoke, all of this program's WRITEs",
		      n);
}

/* Hold the device open until @done exists (at most 60 s). */
static void hold(const char *done)
{
	uint64_t end = vt_now_ms() + 60000;

	while (access(done, F_OK) && vt_now_ms() < end)
		usleep(100000);
	if (access(done, F_OK))
		vt_failf("hold", "%s did not appear within 60 s", done);
}

static void after(const char *done)
{
	struct ibv_port_attr pa;
	struct ibv_wc wc;
	const struct rxe_queue_buf *cqring;
	volatile const uint8_t *p;
	unsigned long sum = 0;
	int i, n = 0, err;
	struct ibv_cq *cq2;

	err = post_write(next_id++);
	vt_expect_rc("after.post_send", err, EIO);
	cq2 = ibv_create_cq(D.ctx, 8, NULL, NULL, 0);
	vt_expect_null("after.create_cq", cq2, errno, EIO, vt_destroy_cq);
	vt_expect_rc("after.query_port", vt_rc(ibv_query_port(D.ctx, 1, &pa)),
		     EIO);

	drain_until_revoked();
	for (i = 0; i < 1000; i++)
		n += ibv_poll_cq(cq, 1, &wc) != 0;
	if (n)
		vt_failf("after.poll_cq", "%d of 1000 polls returned something",
			 n);
	else
		vt_ok("after.poll_cq", "1000 polls: empty");

	for (i = 0; i < nmaps; i++)
		for (p = (const uint8_t *)maps[i].start;
		     p < (const uint8_t *)maps[i].end; p += 64)
			sum += *p;
	vt_ok("after.rings_read", "%d ring mappings read whole (byte sum %lu)",
	      nmaps, sum);
	/* the CQ was the first object with a ring */
	cqring = vt_map_q(&maps[0]);
	if (cqring->producer_index == cqring->consumer_index)
		vt_ok("after.cq_ring", "the CQ ring's header reads empty");
	else
		vt_failf("after.cq_ring", "CQ ring producer %u consumer %u",
			 cqring->producer_index, cqring->consumer_index);

	hold(done);

	vt_expect_rc("after.destroy_qp", vt_rc(ibv_destroy_qp(qp)), 0);
	vt_expect_rc("after.destroy_cq", vt_rc(ibv_destroy_cq(cq)), 0);
	vt_expect_rc("after.dereg_mr", vt_rc(ibv_dereg_mr(mr)), 0);
	vt_expect_rc("after.dealloc_pd", vt_rc(ibv_dealloc_pd(pd)), 0);
	vt_expect_rc("after.close_device", vt_rc(ibv_close_device(D.ctx)), 0);
}

static void usage(void)
{
	fprintf(stderr, "usage: disassociate -d DEV -r READY_FILE -x DONE_FILE [-t SECONDS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *ready = NULL, *done = NULL, *how;
	int opt, limit_s = 60;
	uint64_t t0;

	while ((opt = getopt(argc, argv, "d:r:t:x:")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'r':
			ready = optarg;
			break;
		case 't':
			limit_s = atoi(optarg);
			break;
		case 'x':
			done = optarg;
			break;
		default:
			usage();
		}
	}
	if (!ready || !done || limit_s <= 0)
		usage();
	if (vt_open(dev, -1, &D))
		return 1;
	setup();
	t0 = vt_now_ms();
	how = run(ready, limit_s * 1000);
	if (!how) {
		vt_failf("removal", "not seen within %d s", limit_s);
		return vt_summary("disassociate");
	}
	vt_ok("removal", "seen as %s, %llu ms after the traffic started", how,
	      (unsigned long long)(vt_now_ms() - t0));
	after(done);
	return vt_summary("disassociate");
}
