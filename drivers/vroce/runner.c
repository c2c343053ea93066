// SPDX-License-Identifier: GPL-2.0
/*
 * The runner: the one place a QP's send side moves.  It processes the
 * responses the receive path queued (comp.c), takes new WQEs in and
 * checks them (sq.c), sends what the window allows (req.c), executes local
 * operations, completes, and flushes in SQE and ERR.
 *
 * It never sleeps, and whoever has work for it runs it: the doorbell
 * system call, modify_qp, the receive path (an ACK, a READ response, a
 * receive whose event must follow earlier responses), the retransmit
 * timer, and a work item.  The run state of a QP:
 *
 *   IDLE     run_lock free, VROCE_RUN_AGAIN clear
 *   RUNNING  run_lock held by the caller that found it IDLE
 *   AGAIN    RUNNING, and someone asked for a run meanwhile: the holder
 *            makes one more pass before it lets go
 *
 * vroce_qp_run() sets AGAIN and then tries the lock: either it runs, or
 * the holder is bound to see AGAIN (the holder tests it again after
 * unlocking).  A caller never waits for a runner, so the receive path of
 * a loopback packet can ask for a run of the very QP whose runner sent
 * it.  A run is budgeted: past VROCE_RUN_BUDGET steps the work goes on
 * in the QP's work item (or, from process context, after a
 * cond_resched()), so neither softirq nor one system call runs unbounded.
 *
 * Kernel QPs: post_send and modify_qp hand the run to the work item, so
 * that no completion handler of a ULP is called from inside its own post
 * or modify (a ULP may hold its own lock around both).  The receive path
 * and the timer run it in place, as a NIC's interrupt would.
 */
#include "vroce.h"

/* Steps (responses, WQEs taken in, sent, completed, flushed) per run. */
#define VROCE_RUN_BUDGET	256

/* Runs a process-context caller makes before it hands over to the work. */
#define VROCE_RUN_TASK_ROUNDS	8

/*
 * One pass over what the QP's state asks.  Return: false when the budget
 * ran out with work left.
 */
static bool vroce_qp_run_pass(struct vroce_qp *qp, int *budget)
{
	enum ib_qp_state state;

	lockdep_assert_held(&qp->run_lock);

	state = vroce_qp_state(qp);
	if (state == IB_QPS_RTS || state == IB_QPS_SQD) {
		vroce_comp_run(qp, budget);
		vroce_sq_intake(qp, true, budget);
		if (state == IB_QPS_RTS)
			vroce_sq_exec(qp, budget);
		else if (vroce_req_rest(qp))
			vroce_sq_drain_check(qp);
		/* a failed WQE moved the QP to ERR */
		state = vroce_qp_state(qp);
	}
	if (state == IB_QPS_SQE || state == IB_QPS_ERR)
		vroce_sq_flush(qp, budget);
	if (state == IB_QPS_ERR)
		vroce_qp_run_err(qp, budget);
	return *budget > 0;
}

/* RUNNING: passes while someone asks.  Return: true when work is left. */
static bool vroce_qp_run_locked(struct vroce_qp *qp)
{
	int budget = VROCE_RUN_BUDGET;

	lockdep_assert_held(&qp->run_lock);
	while (test_and_clear_bit(VROCE_RUN_AGAIN, &qp->run_flags)) {
		if (!vroce_qp_run_pass(qp, &budget)) {
			set_bit(VROCE_RUN_AGAIN, &qp->run_flags);
			return true;
		}
	}
	return false;
}

/* After a run: the receive event the responder left to it (resp.c). */
static void vroce_qp_run_signal(struct vroce_qp *qp)
{
	if (atomic_xchg(&qp->req.recv_event, 0))
		vroce_cq_signal(to_vroce_cq(qp->ibqp.recv_cq));
}

/**
 * vroce_qp_run() - run the QP's runner now, or make its holder run again
 * @qp: the QP
 * @may_sleep: the caller is in process context and may sleep: past the
 *	budget it goes on itself for a while before handing over
 *
 * Callable from any context; never waits for another runner.
 */
void vroce_qp_run(struct vroce_qp *qp, bool may_sleep)
{
	int rounds = may_sleep ? VROCE_RUN_TASK_ROUNDS : 1;
	bool more;

	set_bit(VROCE_RUN_AGAIN, &qp->run_flags);
	/* pairs with the barrier after the holder's unlock */
	smp_mb__after_atomic();
	while (spin_trylock_bh(&qp->run_lock)) {
		more = vroce_qp_run_locked(qp);
		spin_unlock_bh(&qp->run_lock);
		vroce_qp_run_signal(qp);
		if (more) {
			if (--rounds <= 0) {
				vroce_qp_schedule(qp);
				return;
			}
			cond_resched();
			continue;
		}
		/* an ask that found the lock taken is ours to run */
		smp_mb();
		if (!test_bit(VROCE_RUN_AGAIN, &qp->run_flags))
			return;
	}
}

/**
 * vroce_run_lock() - hold the runner off (modify_qp, reset, destroy)
 * @qp: the QP
 *
 * Process context.  Waits for a run in progress to end its pass.
 */
void vroce_run_lock(struct vroce_qp *qp)
	__acquires(&qp->run_lock)
{
	spin_lock_bh(&qp->run_lock);
}

/**
 * vroce_run_unlock() - let the runner go again
 * @qp: the QP
 *
 * A run asked for while the lock was held goes to the work item.
 */
void vroce_run_unlock(struct vroce_qp *qp)
	__releases(&qp->run_lock)
{
	spin_unlock_bh(&qp->run_lock);
	/* an ask that found the lock taken is ours to hand on */
	smp_mb();
	if (test_bit(VROCE_RUN_AGAIN, &qp->run_flags) &&
	    !READ_ONCE(qp->req.dying))
		vroce_qp_schedule(qp);
}

static void vroce_qp_run_work(struct work_struct *work)
{
	struct vroce_qp *qp = container_of(to_delayed_work(work),
					   struct vroce_qp, run_work);

	vroce_qp_run(qp, true);
}

/**
 * vroce_run_init() - set up a new QP's run state
 * @qp: the QP being created
 */
void vroce_run_init(struct vroce_qp *qp)
{
	spin_lock_init(&qp->run_lock);
	qp->run_flags = 0;
	INIT_DELAYED_WORK(&qp->run_work, vroce_qp_run_work);
}

/**
 * vroce_qp_schedule() - run the runner soon, from its work item
 * @qp: the QP
 *
 * Callable from any context.
 */
void vroce_qp_schedule(struct vroce_qp *qp)
{
	mod_delayed_work(system_unbound_wq, &qp->run_work, 0);
}

/**
 * vroce_req_kick() - wake the requester
 * @qp: the QP
 *
 * The single place the send path is woken (see qp.h): in place for a user
 * QP (the doorbell or modify_qp system call), from the work item for a
 * kernel QP.
 */
void vroce_req_kick(struct vroce_qp *qp)
{
	if (qp->is_user) {
		might_sleep();
		vroce_qp_run(qp, true);
	} else {
		vroce_qp_schedule(qp);
	}
}
