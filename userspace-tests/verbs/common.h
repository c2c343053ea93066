/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the vroce verbs test programs: result lines, device
 * set-up, QP state transitions, polling with a deadline, async events,
 * the rings librxe maps, and the two write() commands librxe does not
 * expose (POST_SEND doorbell, REREG_MR).
 *
 * Every check prints exactly one line:
 *   "ok   NAME: detail"     the check passed
 *   "FAIL NAME: detail"     it failed (got ..., want ...)
 *   "skip NAME: reason"     it cannot run here (and does not fail)
 * and vt_summary() ends a program with "PROG: N ok, N failed, N skipped"
 * and the exit status (1 if anything failed).
 */
#ifndef VT_COMMON_H
#define VT_COMMON_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_user_rxe.h>

#define VT_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

extern int vt_n_ok, vt_n_fail, vt_n_skip;
extern int vt_verbose;

__attribute__((format(printf, 2, 3)))
void vt_ok(const char *name, const char *fmt, ...);
__attribute__((format(printf, 2, 3)))
void vt_failf(const char *name, const char *fmt, ...);
__attribute__((format(printf, 2, 3)))
void vt_skipf(const char *name, const char *fmt, ...);
__attribute__((format(printf, 1, 2)))
void vt_info(const char *fmt, ...);
/* Print "PROG: N ok, N failed, N skipped"; return the exit status. */
int vt_summary(const char *prog);

/* "EINVAL" etc. (errno 0 is "0"). */
const char *vt_errname(int err);
const char *vt_wcname(enum ibv_wc_status st);
const char *vt_qpsname(enum ibv_qp_state st);
const char *vt_eventname(enum ibv_event_type ev);

/*
 * vt_expect_rc(): a verb returning 0 / errno (ibv_modify_qp style, where
 * some verbs return -1 and set errno: pass the result through vt_rc()).
 * want == 0 expects success.  Returns true on match.
 */
bool vt_expect_rc(const char *name, int got, int want);
/* Normalise "ret < 0 with errno" and "ret > 0 errno" to a positive errno. */
static inline int vt_rc(int ret)
{
	if (ret < 0)
		return errno ? errno : EIO;
	return ret;
}

/*
 * vt_expect_null(): a creation verb that must fail with @want.  @obj is
 * what it returned, @err the errno right after the call.  When it
 * unexpectedly succeeded, @destroy (may be NULL) releases @obj.
 */
bool vt_expect_null(const char *name, void *obj, int err, int want,
		    void (*destroy)(void *));
void vt_destroy_cq(void *p);
void vt_destroy_qp(void *p);
void vt_destroy_srq(void *p);
void vt_destroy_ah(void *p);
void vt_dereg_mr(void *p);
void vt_destroy_pd(void *p);

/* -------------------------------------------------------------- device */

struct vt_dev {
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	int gid_index;			/* the IPv4-mapped RoCE v2 GID (3) */
	union ibv_gid gid;
	int gid6_index;			/* a non-link-local IPv6 GID or -1 */
	union ibv_gid gid6;
	int gid_ll_index;		/* the link-local GID or -1 */
	union ibv_gid gid_ll;
	int empty_gid_index;		/* an unused GID table slot or -1 */
};

/*
 * Open device @name (NULL: $VROCE_DEV, else the first device), query it
 * and scan its GID table: @gid_index is the IPv4-mapped RoCE v2 GID to
 * use, -1 for the first one found (index 3 on vroce, as on ConnectX; 1 on
 * rdma_rxe).  Returns 0 or -1 after printing why.
 */
int vt_open(const char *name, int gid_index, struct vt_dev *d);
void vt_close(struct vt_dev *d);

/* -------------------------------------------------------------- QPs */

struct ibv_qp *vt_create_qp(struct vt_dev *d, struct ibv_pd *pd,
			    enum ibv_qp_type type, struct ibv_cq *scq,
			    struct ibv_cq *rcq, struct ibv_srq *srq,
			    uint32_t max_wr, uint32_t max_sge, int sig_all);

/*
 * Move @qp RESET -> INIT -> RTR -> RTS with the required attributes:
 * RC/UC connect to @dest_qpn at the device's own GID (loopback).
 * Returns 0 or the errno of the failing step (printed when verbose).
 */
int vt_qp_init(struct vt_dev *d, struct ibv_qp *qp);
int vt_qp_rtr(struct vt_dev *d, struct ibv_qp *qp, uint32_t dest_qpn);
int vt_qp_rts(struct vt_dev *d, struct ibv_qp *qp);
int vt_qp_to_rts(struct vt_dev *d, struct ibv_qp *qp, uint32_t dest_qpn);
int vt_qp_set_state(struct ibv_qp *qp, enum ibv_qp_state st);
enum ibv_qp_state vt_qp_state(struct ibv_qp *qp);

/* RC QP (own CQ for both queues) in RTS connected to itself. */
struct ibv_qp *vt_rc_rts(struct vt_dev *d, struct ibv_pd *pd,
			 struct ibv_cq *cq);

/* ---------------------------------------------------------- completions */

/* Poll until @n completions arrived or @ms passed; returns how many. */
int vt_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n, int ms);

/*
 * Post one signaled send WR and wait for its completion (@ms).  Returns 1
 * with *wc filled, 0 on timeout, or -errno when posting failed.
 */
int vt_post_wait(struct ibv_qp *qp, struct ibv_cq *cq, struct ibv_send_wr *wr,
		 struct ibv_wc *wc, int ms);

/*
 * Wait for async event @type (ms); other events are acked and, when
 * verbose, printed.  Returns 1 if it came (and *out holds a copy), else 0.
 */
int vt_wait_async(struct ibv_context *ctx, enum ibv_event_type type, int ms,
		  struct ibv_async_event *out);
/* Drop all pending async events. */
void vt_drain_async(struct ibv_context *ctx);

/* Wait for a completion channel event (ms); 1 with *cq set, else 0. */
int vt_wait_cq_event(struct ibv_comp_channel *ch, int ms, struct ibv_cq **cq);

uint64_t vt_now_ms(void);

/* ------------------------------------------------------------- rings */

/*
 * The rings librxe maps from the uverbs file: found by comparing
 * /proc/self/maps before and after creating an object.
 */
struct vt_map {
	uintptr_t start;
	uintptr_t end;
	unsigned long long offset;	/* mmap offset on the uverbs fd */
};

#define VT_MAX_MAPS 512

struct vt_snap {
	int n;
	struct vt_map m[VT_MAX_MAPS];
};

void vt_snap_take(struct vt_snap *s);
/* Mappings present now and not in @before; returns how many (<= max). */
int vt_snap_new(const struct vt_snap *before, struct vt_map *out, int max);

static inline struct rxe_queue_buf *vt_map_q(const struct vt_map *m)
{
	return (struct rxe_queue_buf *)m->start;
}

/*
 * Is @m (one of the mappings a QP's creation added) its send queue?  The
 * SQ's slots hold a struct rxe_send_wqe, the RQ's a smaller rxe_recv_wqe.
 */
static inline bool vt_map_is_sq(const struct vt_map *m)
{
	return ((size_t)1 << vt_map_q(m)->log2_elem_size) >=
	       sizeof(struct rxe_send_wqe);
}

/*
 * Map the ring of @m a second time, at its offset of the uverbs file
 * @fd: a mapping of the caller's own, which outlives librxe's.  Returns
 * it, or NULL with errno set.
 */
struct rxe_queue_buf *vt_map_again(int fd, const struct vt_map *m);

static inline uint32_t vt_q_count(const struct rxe_queue_buf *q)
{
	const volatile struct rxe_queue_buf *v = q;

	return (v->producer_index - v->consumer_index) & v->index_mask;
}

/* ------------------------------------------------- raw uverbs commands */

/* The doorbell librxe rings: POST_SEND with zero work requests. */
int vt_cmd_post_send_db(struct ibv_qp *qp);

/*
 * REREG_MR (librxe has no rereg_mr op).  @flags: IBV_REREG_MR_CHANGE_*.
 * On success updates mr->lkey / rkey / pd / addr / length.
 * Returns 0 or a positive errno.
 */
int vt_cmd_rereg_mr(struct ibv_mr *mr, uint32_t flags, void *addr,
		    size_t len, uint64_t iova, struct ibv_pd *pd, int access);

/* -------------------------------------------------------------- misc */

/* Deterministic PRNG (xorshift64*), so a failing seed can be replayed. */
static inline uint64_t vt_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* Page-aligned zeroed buffer of @len bytes (never freed by the tests). */
void *vt_alloc(size_t len);

#endif /* VT_COMMON_H */
