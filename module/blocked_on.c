// SPDX-License-Identifier: GPL-2.0
/*
 * blocked_on: which task waits on which kernel mutex held by whom, chains
 * of any depth, and what each wait was stuck behind (definitions and
 * arithmetic: blocked_on_core.c; docs/blocked_on.md).
 *
 * Events (stock tracepoints, no kernel patch):
 *   contention_begin   with LCB_F_MUTEX (mutex and ww_mutex slow path):
 *                      current waits on the lock; the lock's owner is read
 *                      from its owner word (flags masked). It fires again
 *                      after each wake-up of the wait (spinning, then
 *                      queued): every one refreshes the edge and the owner.
 *   contention_end     the wait is over (0: acquired; -EINTR, -EDEADLK:
 *                      not): a record, its statistics and an event
 *   sched_switch       tracked tasks (waiters, owners) running, runnable
 *                      or sleeping, and on which CPU; a waiter switched
 *                      out asleep has its lock's owner word read again
 *                      (steals, handoffs) and, where the kernel has
 *                      task_struct::blocked_on (a struct mutex *, 6.17+),
 *                      schedlab's edge compared with it
 *   sched_wakeup(_new) runnable, and a waiter's lock owner read again
 *   sched_migrate_task runnable on another CPU
 *   sched_process_exit the task is forgotten
 *
 * Proxy execution (kernels with it built in and on): a waiter stays on its
 * runqueue and lends its scheduling context to the task at the end of its
 * chain, which then runs "as a proxy". At sched_switch the runqueue's
 * donor (rq->donor, BTF) says whether next runs for another task; the
 * lab kernel's series (patches/) adds sched_proxy_decision_tp, which
 * also catches an owner that becomes a proxy while already running (no
 * switch), and says what find_proxy_task() decided: each decision is
 * counted per CPU (stats), and those about a tracked wait (the owner run
 * for it, the waiter migrated to the owner's CPU, the waiter deactivated)
 * in that wait's record. Time an owner spends running as a proxy is its
 * own category, "proxy", where a stock kernel would show "preempted".
 * An owner that goes on running as itself after the donor's wait ended,
 * without a switch, is still counted as a proxy until its next switch.
 *
 * Pointers. Task and lock addresses are kept only as keys: a task is
 * dereferenced only when it is current or an argument of the tracepoint
 * being handled, or when it was just read from a lock's owner word in the
 * same probe (tasks are freed after an RCU grace period and the probes
 * run with preemption disabled); a task's key is dropped at its exit,
 * before it can be freed and its address reused. A lock is dereferenced
 * only by a task that is in its slow path (its owner word then cannot go
 * away), or for a waiter the graph says is still in it.
 *
 * Locking: the graph, the statistics and the counters are under one raw
 * spinlock, bo_lock; work under it is bounded (the graph's tables are
 * sized by max_tasks; an event recomputes only the waits whose chain holds
 * what it changed) and allocates nothing. With no task tracked, the probes
 * return after one read.
 *
 * The scheduler probes (sched_switch, sched_wakeup(_new),
 * sched_migrate_task, sched_proxy_decision_tp) do not take bo_lock per
 * event (but for a waiter sleeping again, below): an event about
 * a tracked task goes into its CPU's queue (one
 * writer, that CPU, irqs off; see "Event queues" below), and whoever takes
 * bo_lock next (a wait beginning or ending, an exit, a report, or a
 * scheduler probe whose queue is half full) applies every queued event to
 * the graph first, in time order across CPUs. The lock is then taken by
 * the lock's own slow paths (contention_begin, contention_end of a tracked
 * wait) and the exit of a tracked task, not by context switches.
 *
 * Lockless filtering: a probe queues an event or takes bo_lock only for
 * an event about a tracked task. The graph keeps, per hash bucket of its tables, a hint
 * written under bo_lock with WRITE_ONCE and read here with READ_ONCE,
 * without the lock: 0 (no key in the bucket), the key if it is the only
 * one, or "many" (blocked_on_core.c, "Lockless hints"). contention_end
 * goes on only if current may be waiting (the hint of waiting tasks) on
 * that lock (the hint of waited-on locks); the scheduler probes only if
 * their task may be tracked. Ordering:
 *  - contention_end of current: whether current waits, and on which lock,
 *    changes only in current's own probes (its contention_begin and
 *    contention_end, its exit). A read returns current's own last write to
 *    that word or a later one (coherence of one location, program order;
 *    a migration is a full barrier), and while current waits on the lock
 *    every later write (other tasks' entries in the same buckets) still
 *    says "current" or "many": no wait of current's is ever missed. A false
 *    "maybe" only costs the lock, as before.
 *  - the waker of a waiter (sched_wakeup): the waiter entered the graph in
 *    contention_begin under the mutex's wait_lock, and the unlocker finds
 *    it to wake under that wait_lock, after it: the waker sees the hint.
 *    A waiter's own sched_switch, sched_process_exit: as contention_end.
 *  - an owner: it becomes tracked by another task's event (a waiter reads
 *    the lock's owner word). Its sched_switch racing with that event may
 *    be missed, as it could be before (the waiter reads the owner's state
 *    before bo_lock); the waiter's own switch and wake-up read the owner's
 *    state again.
 * Per-CPU counters (stats: end_*, sched_*) show what was filtered.
 *
 * Event queues: a CPU's queue is a ring of BO_QLEN events written only by
 * that CPU's scheduler probes (irqs off: no nesting) and read only under
 * bo_lock; head is published with a release store after the event is
 * written, tail after it was read, each read with an acquire load by the
 * other side. Queued events are applied as the locked probes applied them
 * before, so nothing changes in the model; only when:
 *  - order: the drainer merges the CPUs' queues by timestamp. A task's own
 *    events are causally ordered (it is switched in on one CPU only after
 *    its switch out, probe included, completed on another; it is woken
 *    after its switch out), so they are applied in order; the graph's
 *    clock only moves forward, an event a little older than the last one
 *    applied (its probe took its time before publishing) counts from the
 *    graph's clock.
 *  - what an event reads at the lock: a waiter switched out asleep or
 *    woken in its slow path has its lock's owner word read when the event
 *    is applied (the graph still says it waits there, so it is still in
 *    its slow path: the lock is there), and a wake-up is applied before
 *    the waiter's own next event (which drains), so the owner it reads
 *    is the one of that moment or later by what the waiter did not see.
 *    A waiter going to sleep is different: read when applied, perhaps at
 *    the end of its wait, the word would say who owns the lock then
 *    (nobody), from the sleep on. So its probe reads the owner word
 *    itself (and what the owner is doing) and the event carries it: the
 *    lock is found in this CPU's queued_wait, the wait it began in this
 *    slow path. A waiter sleeping again after a wake-up that did not
 *    give it the lock (no new contention_begin) has no record there: that
 *    event is applied at once, its probe taking bo_lock (waiter_sync).
 *    The kernel's task_struct::blocked_on is read by the probe and
 *    carried in the event.
 *  - a task key queued after the task's exit removed it (its last switch)
 *    matches nothing: any task that reuses the address enters the graph
 *    under bo_lock, after a drain.
 * A queue that fills (nobody took bo_lock for BO_QLEN events of this CPU)
 * is drained by its own probe, which waits for bo_lock: no event is lost;
 * at half full the probe drains it if bo_lock is free (trylock). Drain
 * work: O(events queued x CPUs with events).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": blocked_on: " fmt

#include <linux/debugfs.h>
#include <linux/kallsyms.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <trace/events/lock.h>	/* LCB_F_*, probe prototypes */
#include <trace/events/sched.h>

#include "blocked_on.h"
#include "report.h"
#include "blocked_on_core.h"
#include "sched_fields.h"
#include "schedlab_trace.h"

/* the flag bits in the low bits of struct mutex::owner (kernel/locking/mutex.h) */
#define MUTEX_OWNER_FLAGS	0x07UL

#define STATS_LOCKS	128	/* locks with statistics */
#define STATS_TASKS	128	/* waiting tasks with statistics */
#define WORST		8	/* worst inversions kept */
#define REPORT_CHAINS	32	/* chains in one read of "chains" */
#define REPORT_LINKS	16	/* links shown per chain */

static const char * const cat_names[SL_BO_NR_CATS] = {
	"run_local", "run_remote", "preempted", "runnable_remote", "sleeping",
	"blocked", "unowned", "proxy",
};

/* parameters */
static s64 min_wait_us;
static s64 rules = SL_BO_RULES_ALL;
static s64 max_tasks = 256;

static DEFINE_RAW_SPINLOCK(bo_lock);
static struct sl_bo_graph graph;
static struct sl_bo_task *task_slots;
static struct sl_bo_lock *lock_slots;
static bool graph_ready;

struct lock_stat {
	u64 lock;
	struct sl_bo_stats st;
};

struct task_stat {
	int pid;
	char comm[TASK_COMM_LEN];
	struct sl_bo_stats st;
};

/* all under bo_lock */
static struct lock_stat *lock_stats;	/* STATS_LOCKS */
static struct task_stat *task_stats;	/* STATS_TASKS */
static u32 nr_lock_stats, nr_task_stats;
static struct sl_bo_wait_record *worst;	/* WORST, by inv_ns */
static u32 nr_worst;
static struct {
	u64 begun, ended, recorded, short_waits, no_room, stats_full;
	u64 bo_checked, bo_agree, bo_cleared, bo_disagree;
	u64 since;
} cnt;

/*
 * The decisions sched_proxy_decision_tp reports (patches/ 0001: the
 * SCHED_PROXY_* values index this table; checked where the kernel has them).
 */
static const char * const proxy_decision_names[] = {
	"run_owner", "migrate", "deact_waking", "deact_no_owner", "deact_owner_asleep",
	"idle_curr_in_chain", "idle_owner_migrating", "idle_owner_waking",
	"retry_chain_changed", "retry_owner_moved", "run_self", "return", "handoff",
};
#define BO_NR_PROXY_DECISIONS	13

/* per CPU, no lock; zeroed at enable (before the probes), summed by stats */
struct bo_pcpu {
	u64 end_lockless;	/* contention_end with waits tracked, not current's: no lock */
	u64 end_locked;		/* contention_end that took bo_lock */
	u64 end_locked_idle;	/* of which ended no wait */
	u64 sched_lockless;	/* scheduler events with tasks tracked, not theirs: no lock */
	u64 sched_queued;	/* scheduler events queued for the graph */
	u64 sched_locked;	/* scheduler probes that took bo_lock (queue half full or full) */
	u64 queue_full;		/* of which found the queue full and waited for bo_lock */
	u64 waiter_sync;	/* a waiter's own sleep or wake-up, applied at once under bo_lock */
	u64 bo_missed;		/* asleep with task_struct::blocked_on set, not waiting here */
	u64 spin_switched;	/* spinners switched out: their waits put into the graph */
	u64 proxy[BO_NR_PROXY_DECISIONS];	/* sched_proxy_decision_tp, by decision */
};
static DEFINE_PER_CPU(struct bo_pcpu, pcnt);
static struct bo_pcpu pcnt_base;	/* their sums at the last reset (bo_lock) */

/* the sums of the per-CPU counters (racy: each word is read once) */
static void pcnt_sum(struct bo_pcpu *s)
{
	int cpu, i;

	memset(s, 0, sizeof(*s));
	for_each_possible_cpu(cpu) {
		const struct bo_pcpu *p = per_cpu_ptr(&pcnt, cpu);

		s->end_lockless += READ_ONCE(p->end_lockless);
		s->end_locked += READ_ONCE(p->end_locked);
		s->end_locked_idle += READ_ONCE(p->end_locked_idle);
		s->sched_lockless += READ_ONCE(p->sched_lockless);
		s->sched_queued += READ_ONCE(p->sched_queued);
		s->sched_locked += READ_ONCE(p->sched_locked);
		s->queue_full += READ_ONCE(p->queue_full);
		s->waiter_sync += READ_ONCE(p->waiter_sync);
		s->bo_missed += READ_ONCE(p->bo_missed);
		s->spin_switched += READ_ONCE(p->spin_switched);
		for (i = 0; i < BO_NR_PROXY_DECISIONS; i++)
			s->proxy[i] += READ_ONCE(p->proxy[i]);
	}
}

/* a record per CPU: too big for the probes' stacks */
static DEFINE_PER_CPU(struct sl_bo_wait_record, scratch);

/*
 * The wait of the task spinning on this CPU, kept out of the graph until it
 * queues (blocked_on_core.c, "Spinning waiters"). The mutex slow path runs
 * with preemption off from its first contention_begin to its end or to the
 * schedule() of a queued wait, except that a failed spin may call
 * schedule() when a reschedule is due: sched_switch then moves the wait
 * into the graph (a spinner switched out), so that the record is only ever
 * that of the task on this CPU. Only the probes of that task touch it.
 */
struct spin_wait {
	struct task_struct *task;	/* NULL: none */
	void *lock;
	u64 begin_ns;
	bool owned;
	/* for the reports, read from other CPUs under seq */
	seqcount_t seq;
	int pid, owner_pid;
	char comm[TASK_COMM_LEN];
};
static DEFINE_PER_CPU(struct spin_wait, spinning);

/*
 * Writers of a CPU's record are that CPU's mutex slow paths, with
 * preemption off (spinning) or the wait_lock held (irqs off), never an
 * interrupt: one writer at a time without a lock. The raw_ writers keep
 * lockdep from pairing the irqs-on and irqs-off sections as if the
 * sequence counter were a lock (the lab-debug kernel reported the
 * HARDIRQ-safe -> HARDIRQ-unsafe order under p->blocked_lock).
 */
static void spin_wait_clear(struct spin_wait *sw)
{
	raw_write_seqcount_begin(&sw->seq);
	sw->task = NULL;
	raw_write_seqcount_end(&sw->seq);
}

/* another CPU's spinning wait, for the reports: false if none */
static bool spin_wait_read(int cpu, struct spin_wait *out)
{
	struct spin_wait *sw = per_cpu_ptr(&spinning, cpu);
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&sw->seq);
		out->task = READ_ONCE(sw->task);
		out->lock = sw->lock;
		out->begin_ns = sw->begin_ns;
		out->owned = sw->owned;
		out->pid = sw->pid;
		out->owner_pid = sw->owner_pid;
		memcpy(out->comm, sw->comm, sizeof(out->comm));
	} while (read_seqcount_retry(&sw->seq, seq));
	out->comm[sizeof(out->comm) - 1] = '\0';
	return out->task;
}

static u32 nr_spinning(void)
{
	struct spin_wait sw;
	u32 n = 0;
	int cpu;

	for_each_online_cpu(cpu)
		n += spin_wait_read(cpu, &sw);
	return n;
}

/* --- tasks --------------------------------------------------------------- */

static void fill_prio(struct task_struct *p, struct sl_bo_prio *prio)
{
	int policy = READ_ONCE(p->policy);
	unsigned long weight = READ_ONCE(p->se.load.weight);

	prio->policy_class = policy == SCHED_IDLE ? SL_BO_CLASS_IDLE :
			     policy == SCHED_FIFO || policy == SCHED_RR ? SL_BO_CLASS_RT :
			     policy == SCHED_DEADLINE ? SL_BO_CLASS_DL : SL_BO_CLASS_NORMAL;
	prio->rt_prio = READ_ONCE(p->rt_priority);
#ifdef CONFIG_64BIT
	weight >>= SCHED_FIXEDPOINT_SHIFT;	/* scale_load_down() */
#endif
	prio->weight = weight;
	prio->cgroup_weight = 100;
#if defined(CONFIG_FAIR_GROUP_SCHED) && SL_HAS_task_group__shares
	{
		/* the task's own group's cpu.weight, from its shares */
		void *tg = READ_ONCE(p->sched_task_group);
		unsigned long shares;

		if (tg) {
			shares = SL_READ(tg, task_group__shares);
#ifdef CONFIG_64BIT
			shares >>= SCHED_FIXEDPOINT_SHIFT;
#endif
			prio->cgroup_weight = clamp_t(unsigned long,
						      DIV_ROUND_CLOSEST(shares * 100, 1024),
						      1, 10000);
		}
	}
#endif
}

static unsigned int state_of(struct task_struct *p)
{
	if (READ_ONCE(p->on_cpu))
		return SL_BO_RUNNING;
	return READ_ONCE(p->on_rq) ? SL_BO_RUNNABLE : SL_BO_SLEEPING;
}

static void fill_info(struct task_struct *p, unsigned int state,
		      struct sl_bo_task_info *i)
{
	i->pid = p->pid;
	memcpy(i->comm, p->comm, sizeof(i->comm));
	i->comm[sizeof(i->comm) - 1] = '\0';
	i->state = state;
	i->cpu = task_cpu(p);
	fill_prio(p, &i->prio);
}

/* The owner a lock's word names; NULL if none, or if it is @waiter (handoff). */
static struct task_struct *mutex_owner_of(void *lock, struct task_struct *waiter)
{
	unsigned long owner = atomic_long_read(&((struct mutex *)lock)->owner);
	struct task_struct *p = (struct task_struct *)(owner & ~MUTEX_OWNER_FLAGS);

	return p == waiter ? NULL : p;
}

/* Read @lock's owner again for @waiter, which is in its slow path; bo_lock held. */
static void refresh_owner(struct task_struct *waiter, u64 lock, u64 now)
{
	struct task_struct *owner = mutex_owner_of((void *)lock, waiter);
	struct sl_bo_task_info oi;

	if (owner)
		fill_info(owner, state_of(owner), &oi);
	sl_bo_owner(&graph, lock, (u64)owner, owner ? &oi : NULL, now);
}

/* The lock @p waits on in the graph, 0 if none; bo_lock held. */
static u64 waits_on(struct task_struct *p)
{
	return sl_bo_lock_of(&graph, (u64)p);
}

/* --- statistics (bo_lock held) ------------------------------------------ */

static struct sl_bo_stats *lock_stats_of(u64 lock)
{
	u32 i;

	for (i = 0; i < nr_lock_stats; i++)
		if (lock_stats[i].lock == lock)
			return &lock_stats[i].st;
	if (nr_lock_stats == STATS_LOCKS)
		return NULL;
	lock_stats[nr_lock_stats].lock = lock;
	sl_bo_stats_reset(&lock_stats[nr_lock_stats].st);
	return &lock_stats[nr_lock_stats++].st;
}

static struct sl_bo_stats *task_stats_of(const struct sl_bo_wait_record *r)
{
	struct task_stat *t;
	u32 i;

	for (i = 0; i < nr_task_stats; i++)
		if (task_stats[i].pid == r->pid)
			break;
	if (i == nr_task_stats) {
		if (nr_task_stats == STATS_TASKS)
			return NULL;
		t = &task_stats[nr_task_stats++];
		t->pid = r->pid;
		sl_bo_stats_reset(&t->st);
	}
	t = &task_stats[i];
	/* the comm of its latest wait: a task that waited before its exec() */
	memcpy(t->comm, r->comm, sizeof(t->comm));
	return &t->st;
}

static void keep_if_worse(const struct sl_bo_wait_record *r)
{
	u32 i;

	if (!r->inv_rules)
		return;
	if (nr_worst < WORST) {
		i = nr_worst++;
	} else {
		if (r->inv_ns <= worst[WORST - 1].inv_ns)
			return;
		i = WORST - 1;
	}
	/* keep the array sorted by inv_ns, largest first */
	while (i > 0 && worst[i - 1].inv_ns < r->inv_ns) {
		worst[i] = worst[i - 1];
		i--;
	}
	worst[i] = *r;
}

/* A wait ended: true if it is worth an event (not shorter than min_wait_us). */
static bool account(const struct sl_bo_wait_record *r)
{
	struct sl_bo_stats *st;

	cnt.ended++;
	if (r->duration_ns < (u64)READ_ONCE(min_wait_us) * NSEC_PER_USEC) {
		cnt.short_waits++;
		return false;
	}
	cnt.recorded++;
	st = lock_stats_of(r->lock);
	if (st)
		sl_bo_stats_add(st, r);
	else
		cnt.stats_full++;
	st = task_stats_of(r);
	if (st)
		sl_bo_stats_add(st, r);
	else
		cnt.stats_full++;
	keep_if_worse(r);
	return true;
}

static void trace_end(const struct sl_bo_wait_record *r)
{
	trace_mutex_wait_end(r->pid, r->lock, r->duration_ns, r->end, r->cat_ns,
			     r->max_depth, r->inv_rules, r->inv_ns);
}

/* --- event queues (see "Event queues" at the top) ------------------------ */

#define BO_QLEN		128	/* events per CPU; a power of two */

enum {
	BO_EV_STATE,		/* task: state on cpu */
	BO_EV_PROXY,		/* task (a waiter): proxy decision what, arg its owner */
};

#define BO_EVF_REFRESH	0x1	/* a waiter's lock owner read again when applied */
#define BO_EVF_CHECK	0x2	/* switched out asleep: arg is task_struct::blocked_on */
#define BO_EVF_OWNER	0x4	/* a waiter switched out asleep: lock's owner as read then */

struct bo_event {
	u64 now;
	u64 task;
	u64 arg;
	s32 cpu;
	u8 kind;
	u8 state;
	u8 what;
	u8 flags;
	/* BO_EVF_OWNER: the lock @task waits on, its owner (0: none) and what it was doing */
	u64 lock;
	u64 owner;
	struct sl_bo_task_info oi;
};

/*
 * The wait this CPU's current task began in its slow path, until its first
 * switch or its contention_end (both on this CPU: the slow path runs with
 * preemption off up to its schedule()): a waiter going to sleep finds its
 * lock here, in its own slow path, and reads the owner word itself.
 */
struct queued_wait {
	struct task_struct *task;
	void *lock;
};
static DEFINE_PER_CPU(struct queued_wait, queued_wait);

struct bo_queue {
	u32 head;	/* next slot to write: this CPU's probes, irqs off */
	u32 tail;	/* next slot to read: the drainer, bo_lock held */
	u32 end;	/* the drainer's snapshot of head */
	struct bo_event ev[BO_QLEN];
};

/* set while the probes are registered; changed under bo_lock */
static struct bo_queue __percpu *queues;
static struct cpumask drain_cpus;	/* bo_lock */

/* The graph's edge for a task switched out asleep, against the kernel's (@bo). */
static void compare_blocked_on(u64 bo, u64 lock)
{
	if (!lock) {
		if (bo)
			this_cpu_inc(pcnt.bo_missed);
		return;
	}
	cnt.bo_checked++;
	if (bo == lock)
		cnt.bo_agree++;
	else if (!bo)
		cnt.bo_cleared++;	/* an unlocker or a wound cleared it first */
	else
		cnt.bo_disagree++;
}

/* one queued event into the graph; bo_lock held, graph_ready */
static void apply_event(const struct bo_event *e)
{
	u64 lock;

	if (e->kind == BO_EV_PROXY) {
		if (e->what == SL_BO_PROXY_RUN && e->arg)
			sl_bo_task_state(&graph, e->arg, SL_BO_PROXY, e->cpu, e->now);
		sl_bo_proxy_event(&graph, e->task, e->what);
		return;
	}
	sl_bo_task_state(&graph, e->task, e->state, e->cpu, e->now);
	if (!(e->flags & (BO_EVF_REFRESH | BO_EVF_CHECK | BO_EVF_OWNER)))
		return;
	lock = waits_on((struct task_struct *)e->task);
	if (e->flags & BO_EVF_OWNER) {
		/* the owner its probe read, at the switch */
		if (lock && lock == e->lock)
			sl_bo_owner(&graph, lock, e->owner, e->owner ? &e->oi : NULL, e->now);
	} else if (lock && (e->flags & BO_EVF_REFRESH)) {
		/* still waiting in the graph: still in its slow path, the lock is there */
		refresh_owner((struct task_struct *)e->task, lock, e->now);
	}
	if (SL_HAS_task_struct__blocked_on && (e->flags & BO_EVF_CHECK))
		compare_blocked_on(e->arg, lock);
}

/*
 * Every CPU's queued events into the graph, oldest first; bo_lock held.
 * Events queued while this runs wait for the next drain.
 */
static void drain_queues(void)
{
	struct bo_queue *q;
	int cpu;

	if (!queues)
		return;
	cpumask_clear(&drain_cpus);
	for_each_possible_cpu(cpu) {
		q = per_cpu_ptr(queues, cpu);
		/* pairs with queue_event()'s release of head: the events are written */
		q->end = smp_load_acquire(&q->head);
		if (q->end == q->tail)
			continue;
		if (!graph_ready) {
			/* pairs with queue_event()'s acquire of tail: slots free */
			smp_store_release(&q->tail, q->end);
			continue;
		}
		cpumask_set_cpu(cpu, &drain_cpus);
	}
	while (!cpumask_empty(&drain_cpus)) {
		int best_cpu = -1;
		u64 best_now = 0;

		for_each_cpu(cpu, &drain_cpus) {
			q = per_cpu_ptr(queues, cpu);
			if (best_cpu < 0 || q->ev[q->tail % BO_QLEN].now < best_now) {
				best_cpu = cpu;
				best_now = q->ev[q->tail % BO_QLEN].now;
			}
		}
		q = per_cpu_ptr(queues, best_cpu);
		apply_event(&q->ev[q->tail % BO_QLEN]);
		/* the slot may be written again once tail has passed it */
		smp_store_release(&q->tail, q->tail + 1);
		if (q->tail == q->end)
			cpumask_clear_cpu(best_cpu, &drain_cpus);
	}
}

/* bo_lock, and the queued events applied: the graph is up to date */
static void graph_lock(unsigned long *irqflags)
{
	raw_spin_lock_irqsave(&bo_lock, *irqflags);
	drain_queues();
}

static void graph_unlock(unsigned long irqflags)
{
	raw_spin_unlock_irqrestore(&bo_lock, irqflags);
}

/* graph_lock() from task context with irqs on; raw_spin_unlock_irq() */
static void graph_lock_irq(void)
{
	raw_spin_lock_irq(&bo_lock);
	drain_queues();
}

/* a waiter's sleep whose lock the probe does not know: applied now (see "Event queues"); irqs off */
static void sync_drain(void)
{
	raw_spin_lock(&bo_lock);
	this_cpu_inc(pcnt.waiter_sync);
	drain_queues();
	raw_spin_unlock(&bo_lock);
}

/*
 * An event about a tracked task into this CPU's queue. The scheduler
 * probes run with irqs off; they are disabled here all the same, so that
 * the queue has one writer whatever calls this.
 */
static void queue_event_owner(unsigned int kind, u64 task, unsigned int state, int cpu,
			      u64 now, u64 arg, unsigned int what, unsigned int flags,
			      bool sync, void *lock, struct task_struct *owner)
{
	unsigned long irqflags;
	struct bo_queue *q;
	struct bo_event *e;
	u32 head, used;

	local_irq_save(irqflags);
	q = this_cpu_ptr(queues);
	head = q->head;
	/* pairs with the drainer's release of tail: it read the slot */
	if (head - smp_load_acquire(&q->tail) >= BO_QLEN) {
		/* full: nobody drained for BO_QLEN events; wait for the lock */
		raw_spin_lock(&bo_lock);
		this_cpu_inc(pcnt.sched_locked);
		this_cpu_inc(pcnt.queue_full);
		drain_queues();
		raw_spin_unlock(&bo_lock);
	}
	e = &q->ev[head % BO_QLEN];
	e->now = now;
	e->task = task;
	e->arg = arg;
	e->cpu = cpu;
	e->kind = kind;
	e->state = state;
	e->what = what;
	e->flags = flags;
	if (flags & BO_EVF_OWNER) {
		e->lock = (u64)lock;
		e->owner = (u64)owner;
		if (owner)
			fill_info(owner, state_of(owner), &e->oi);
	}
	/* pairs with drain_queues()'s acquire of head: the event is written */
	smp_store_release(&q->head, head + 1);
	this_cpu_inc(pcnt.sched_queued);
	if (sync) {
		sync_drain();
		local_irq_restore(irqflags);
		return;
	}
	used = head + 1 - READ_ONCE(q->tail);
	if (used >= BO_QLEN / 2 && raw_spin_trylock(&bo_lock)) {
		this_cpu_inc(pcnt.sched_locked);
		drain_queues();
		raw_spin_unlock(&bo_lock);
	}
	local_irq_restore(irqflags);
}

static void queue_event(unsigned int kind, u64 task, unsigned int state, int cpu,
			u64 now, u64 arg, unsigned int what, unsigned int flags)
{
	queue_event_owner(kind, task, state, cpu, now, arg, what, flags, false, NULL, NULL);
}

/* --- probes -------------------------------------------------------------- */

/*
 * current waits on @lock (owned by @owner, NULL if none): into the graph.
 * @spun: when it began spinning on it (0: it did not), @owned: whether the
 * lock was owned then.
 */
static void wait_begin(void *lock, struct task_struct *owner, u64 spun, bool owned)
{
	struct sl_bo_task_info wi, oi;
	unsigned long irqflags;
	u64 now, replaced;
	u32 before;
	int ret;

	fill_info(current, SL_BO_RUNNING, &wi);
	if (owner)
		fill_info(owner, state_of(owner), &oi);
	graph_lock(&irqflags);
	if (!graph_ready) {
		graph_unlock(irqflags);
		return;
	}
	now = local_clock();
	before = sl_bo_nr_waits(&graph);
	replaced = graph.nr_replaced;
	ret = sl_bo_wait_begin(&graph, (u64)current, &wi, (u64)lock, SL_BO_MUTEX,
			       (u64)owner, owner ? &oi : NULL, now);
	if (ret) {
		cnt.no_room++;
	} else {
		struct queued_wait *qw = this_cpu_ptr(&queued_wait);

		qw->task = current;
		qw->lock = lock;
	}
	if (!ret && (sl_bo_nr_waits(&graph) != before || graph.nr_replaced != replaced)) {
		/* a new wait (one that replaced an unended one leaves the count as it was) */
		cnt.begun++;
		if (spun && now > spun)
			sl_bo_wait_spun(&graph, (u64)current, now - spun, owned);
	}
	graph_unlock(irqflags);
	if (!ret && trace_mutex_wait_begin_enabled())
		trace_mutex_wait_begin(wi.pid, (u64)lock, owner ? oi.pid : 0);
}

static void probe_contention_begin(void *data, void *lock, unsigned int flags)
{
	struct spin_wait *sw = this_cpu_ptr(&spinning);
	struct task_struct *owner;
	bool owned = false;
	u64 spun = 0;

	/* our own raw spinlock's contention comes back here: filter first */
	if (!(flags & LCB_F_MUTEX))
		return;
	owner = mutex_owner_of(lock, current);
	if (flags & LCB_F_SPIN) {
		/* about to spin: kept aside, nothing shared touched */
		if (!READ_ONCE(graph_ready))
			return;
		raw_write_seqcount_begin(&sw->seq);
		sw->task = current;
		sw->lock = lock;
		sw->begin_ns = local_clock();
		sw->owned = owner;
		sw->pid = current->pid;
		sw->owner_pid = owner ? owner->pid : 0;
		memcpy(sw->comm, current->comm, sizeof(sw->comm));
		raw_write_seqcount_end(&sw->seq);
		if (trace_mutex_wait_begin_enabled())
			trace_mutex_wait_begin(sw->pid, (u64)lock, sw->owner_pid);
		return;
	}
	if (sw->task == current && sw->lock == lock) {
		/* queued after spinning: the wait goes into the graph */
		spin_wait_clear(sw);
		spun = sw->begin_ns;
		owned = sw->owned;
	}
	wait_begin(lock, owner, spun, owned);
}

static void probe_contention_end(void *data, void *lock, int ret)
{
	struct sl_bo_wait_record *r = this_cpu_ptr(&scratch);
	struct spin_wait *sw = this_cpu_ptr(&spinning);
	struct sl_bo_task_info wi;
	unsigned long irqflags;
	bool emit = false, spun;
	u64 now;

	/*
	 * The end of a contention on bo_lock itself fires from inside the
	 * lock's slow path with the lock just taken: never take it again.
	 * (Begins carry flags and are filtered; ends do not.)
	 */
	if (lock == (void *)&bo_lock)
		return;
	/* a wait that ended without sleeping: its record goes (see queued_wait) */
	if (unlikely(this_cpu_read(queued_wait.task) == current))
		this_cpu_write(queued_wait.task, NULL);
	spun = sw->task == current && sw->lock == lock;
	if (!spun) {
		if (!READ_ONCE(graph.nr_waits))
			return;
		/* see "Lockless filtering" at the top */
		if (!sl_bo_maybe_waiting(&graph, (u64)current, (u64)lock)) {
			this_cpu_inc(pcnt.end_lockless);
			return;
		}
	}
	now = local_clock();
	if (spun) {
		spin_wait_clear(sw);
		fill_info(current, SL_BO_RUNNING, &wi);
	}
	graph_lock(&irqflags);
	this_cpu_inc(pcnt.end_locked);
	if (graph_ready) {
		/* in the graph already (it spun again after a wake-up): ended there */
		if (sl_bo_wait_end(&graph, (u64)current, (u64)lock, ret == 0, now, r)) {
			emit = account(r);
		} else if (spun) {
			sl_bo_spin_record((u64)current, &wi, (u64)lock, SL_BO_MUTEX, sw->owned,
					  sw->begin_ns, now, ret == 0, r);
			cnt.begun++;
			emit = account(r);
		} else {
			this_cpu_inc(pcnt.end_locked_idle);
		}
	}
	graph_unlock(irqflags);
	/* r is this CPU's and the probe runs with preemption off */
	if (emit)
		trace_end(r);
}

/* @prev going to sleep: the kernel's own edge, 0 where it has none */
static u64 kernel_blocked_on(struct task_struct *prev)
{
#if SL_HAS_task_struct__blocked_on
	return SL_READ(prev, task_struct__blocked_on);
#else
	return 0;
#endif
}

/* next runs as a blocked waiter's proxy when its runqueue's donor is another task */
static unsigned int running_state(struct task_struct *next, int cpu)
{
	if (SL_HAS_rq__donor && sl_cap_has(SL_CAP_RUNQUEUES) &&
	    sl_rq_donor(sl_cpu_rq(cpu)) != next)
		return SL_BO_PROXY;
	return SL_BO_RUNNING;
}

static void probe_sched_switch(void *data, bool preempt, struct task_struct *prev,
			       struct task_struct *next, unsigned int prev_state)
{
	bool asleep = !preempt && prev_state != TASK_RUNNING;
	struct spin_wait *sw = this_cpu_ptr(&spinning);
	int cpu = smp_processor_id();
	struct queued_wait *qw = this_cpu_ptr(&queued_wait);
	bool prev_tracked, next_tracked;
	void *lock = NULL;
	u64 now;

	if (unlikely(sw->task == prev)) {
		/*
		 * A spinner switched out before its wait ended or queued: the
		 * mutex slow path may call schedule() between its spinning and
		 * its queueing (need_resched() when a spin fails), and it may
		 * then end its wait or queue on another CPU, or another task
		 * may spin here meanwhile. The record is this CPU's, so the
		 * wait goes into the graph now (prev is current, in its slow
		 * path: the lock is still there). Not a new wait if it is in
		 * the graph already (a queued waiter spinning again).
		 */
		void *spin_lock = sw->lock;
		u64 spun = sw->begin_ns;
		bool owned = sw->owned;

		spin_wait_clear(sw);
		wait_begin(spin_lock, mutex_owner_of(spin_lock, prev), spun, owned);
		this_cpu_inc(pcnt.spin_switched);
	}
	/* the wait prev began in this slow path, if any: used once */
	if (unlikely(qw->task == prev)) {
		lock = qw->lock;
		qw->task = NULL;
	}
	if (!READ_ONCE(graph.tt.nr))
		return;
	prev_tracked = sl_bo_maybe_tracked(&graph, (u64)prev);
	next_tracked = sl_bo_maybe_tracked(&graph, (u64)next);
	if (!prev_tracked && !next_tracked)
		this_cpu_inc(pcnt.sched_lockless);
	if (!prev_tracked) {
		/* not waiting here: the kernel's edge, if any, is a miss */
		if (SL_HAS_task_struct__blocked_on && asleep && kernel_blocked_on(prev))
			this_cpu_inc(pcnt.bo_missed);
		if (!next_tracked)
			return;
	}
	now = local_clock();
	/*
	 * prev first: its owner's state is read (not running yet, if it is
	 * next), then next's says it runs (or runs as a proxy)
	 */
	if (prev_tracked) {
		if (!asleep)
			queue_event(BO_EV_STATE, (u64)prev, SL_BO_RUNNABLE, cpu, now, 0, 0, 0);
		else if (lock)
			/* a waiter going to sleep in its slow path: its lock's owner now */
			queue_event_owner(BO_EV_STATE, (u64)prev, SL_BO_SLEEPING, cpu, now,
					  kernel_blocked_on(prev), 0,
					  BO_EVF_OWNER | BO_EVF_CHECK, false, lock,
					  mutex_owner_of(lock, prev));
		else
			/* a waiter's lock not known here: applied at once */
			queue_event_owner(BO_EV_STATE, (u64)prev, SL_BO_SLEEPING, cpu, now,
					  kernel_blocked_on(prev), 0,
					  BO_EVF_REFRESH | BO_EVF_CHECK,
					  sl_bo_maybe_a_waiter(&graph, (u64)prev), NULL, NULL);
	}
	if (next_tracked)
		queue_event(BO_EV_STATE, (u64)next, running_state(next, cpu), cpu, now,
			    0, 0, 0);
}

/* Whether a scheduler probe must queue an event for @p (counts those filtered). */
static bool tracked(struct task_struct *p)
{
	if (!READ_ONCE(graph.tt.nr))
		return false;
	if (sl_bo_maybe_tracked(&graph, (u64)p))
		return true;
	this_cpu_inc(pcnt.sched_lockless);
	return false;
}

static void probe_sched_wakeup(void *data, struct task_struct *p)
{
	/* woken in its slow path: the lock was released or handed off */
	if (tracked(p))
		queue_event(BO_EV_STATE, (u64)p, SL_BO_RUNNABLE, task_cpu(p), local_clock(),
			    0, 0, BO_EVF_REFRESH);
}

static void probe_sched_migrate_task(void *data, struct task_struct *p, int dest_cpu)
{
	if (tracked(p))
		queue_event(BO_EV_STATE, (u64)p, state_of(p) == SL_BO_RUNNING ?
			    SL_BO_RUNNING : SL_BO_RUNNABLE, dest_cpu, local_clock(), 0, 0, 0);
}

#if SL_HAS_FUNC___traceiter_sched_proxy_decision_tp
/*
 * A proxy-execution decision (patches/ 0001), on @rq's CPU with its lock
 * held: counted per CPU; one about a tracked wait is counted in it, and an
 * owner run for a waiter becomes a proxy. Only the keys of @donor, @p and
 * @owner are queued.
 */
static void probe_proxy_decision(void *data, struct rq *rq, int decision,
				 struct task_struct *donor, struct task_struct *p,
				 struct task_struct *owner, int arg)
{
	struct task_struct *waiter = decision == SCHED_PROXY_RUN_OWNER ? donor : p;
	unsigned int what;

	if ((unsigned int)decision < BO_NR_PROXY_DECISIONS)
		this_cpu_inc(pcnt.proxy[decision]);
	switch (decision) {
	case SCHED_PROXY_RUN_OWNER:
		what = SL_BO_PROXY_RUN;
		break;
	case SCHED_PROXY_MIGRATE:
		what = SL_BO_PROXY_MIGRATE;
		break;
	case SCHED_PROXY_DEACT_WAKING:
	case SCHED_PROXY_DEACT_NO_OWNER:
	case SCHED_PROXY_DEACT_OWNER_ASLEEP:
		what = SL_BO_PROXY_DEACT;
		break;
	default:
		return;
	}
	if (!READ_ONCE(graph.tt.nr) || !waiter)
		return;
	if (!sl_bo_maybe_tracked(&graph, (u64)waiter) &&
	    !(owner && sl_bo_maybe_tracked(&graph, (u64)owner))) {
		this_cpu_inc(pcnt.sched_lockless);
		return;
	}
	queue_event(BO_EV_PROXY, (u64)waiter, 0, smp_processor_id(), local_clock(),
		    decision == SCHED_PROXY_RUN_OWNER ? (u64)owner : 0, what, 0);
}
#endif

/*
 * sched_process_exit is called from do_exit() in task context, and on
 * kernels whose tracepoints run under SRCU (7.x) its probes are
 * preemptible: pin the CPU while this CPU's scratch record is in use.
 */
static void task_exit(struct task_struct *p)
{
	struct sl_bo_wait_record *r;
	unsigned long irqflags;
	bool emit = false;

	if (!tracked(p))
		return;
	preempt_disable();
	r = this_cpu_ptr(&scratch);
	graph_lock(&irqflags);
	if (graph_ready && sl_bo_task_exit(&graph, (u64)p, local_clock(), r))
		emit = account(r);
	graph_unlock(irqflags);
	if (emit)
		trace_end(r);
	preempt_enable();
}

static void __maybe_unused probe_exit(void *data, struct task_struct *p)
{
	task_exit(p);
}

static void __maybe_unused probe_exit_group(void *data, struct task_struct *p,
					    bool group_dead)
{
	task_exit(p);
}

#define EXIT_PROBE \
	__builtin_choose_expr(SL_TP_EXIT_HAS_GROUP_DEAD, probe_exit_group, probe_exit)

static void probe_types_checked(void)
{
	check_trace_callback_type_contention_begin(probe_contention_begin);
	check_trace_callback_type_contention_end(probe_contention_end);
	check_trace_callback_type_sched_switch(probe_sched_switch);
	check_trace_callback_type_sched_wakeup(probe_sched_wakeup);
	check_trace_callback_type_sched_wakeup_new(probe_sched_wakeup);
	check_trace_callback_type_sched_migrate_task(probe_sched_migrate_task);
	check_trace_callback_type_sched_process_exit(EXIT_PROBE);
#if SL_HAS_FUNC___traceiter_sched_proxy_decision_tp
	check_trace_callback_type_sched_proxy_decision_tp(probe_proxy_decision);
	/* proxy_decision_names is indexed by the kernel's values */
	BUILD_BUG_ON(SCHED_PROXY_RUN_OWNER != 0 || SCHED_PROXY_MIGRATE != 1 ||
		     SCHED_PROXY_DEACT_WAKING != 2 || SCHED_PROXY_DEACT_NO_OWNER != 3 ||
		     SCHED_PROXY_DEACT_OWNER_ASLEEP != 4 || SCHED_PROXY_IDLE_CURR_IN_CHAIN != 5 ||
		     SCHED_PROXY_IDLE_OWNER_MIGRATING != 6 || SCHED_PROXY_IDLE_OWNER_WAKING != 7 ||
		     SCHED_PROXY_RETRY_CHAIN_CHANGED != 8 || SCHED_PROXY_RETRY_OWNER_MOVED != 9 ||
		     SCHED_PROXY_RUN_SELF != 10 || SCHED_PROXY_RETURN != 11 ||
		     SCHED_PROXY_HANDOFF != 12);
#endif
	BUILD_BUG_ON(ARRAY_SIZE(proxy_decision_names) != BO_NR_PROXY_DECISIONS);
}

/* --- enable / disable ---------------------------------------------------- */

static const struct {
	const char *tp;
	void *probe;
} probes[] = {
	{ "sched_process_exit", (void *)EXIT_PROBE },
	{ "sched_switch", probe_sched_switch },
	{ "sched_wakeup", probe_sched_wakeup },
	{ "sched_wakeup_new", probe_sched_wakeup },
	{ "sched_migrate_task", probe_sched_migrate_task },
	{ "contention_end", probe_contention_end },
	{ "contention_begin", probe_contention_begin },
};

static void unregister_probes(int n)
{
	while (n-- > 0)
		sl_tracepoint_unregister(probes[n].tp, probes[n].probe, NULL);
	tracepoint_synchronize_unregister();
}

/* sched_proxy_decision_tp, where the kernel has it: attach or detach */
static int proxy_probe(bool attach)
{
#if SL_HAS_FUNC___traceiter_sched_proxy_decision_tp
	if (!sl_cap_has(SL_CAP_TP_PROXY_DECISION))
		return 0;
	if (attach)
		return sl_tracepoint_register("sched_proxy_decision_tp",
					      probe_proxy_decision, NULL);
	sl_tracepoint_unregister("sched_proxy_decision_tp", probe_proxy_decision, NULL);
#endif
	return 0;
}

static void clear_stats(void)
{
	nr_lock_stats = 0;
	nr_task_stats = 0;
	nr_worst = 0;
	memset(&cnt, 0, sizeof(cnt));
	pcnt_sum(&pcnt_base);
	cnt.since = local_clock();
}

static void free_storage(void)
{
	struct bo_queue __percpu *q;

	/* a report's drain may look at the queues until they are gone */
	raw_spin_lock_irq(&bo_lock);
	q = queues;
	queues = NULL;
	raw_spin_unlock_irq(&bo_lock);
	free_percpu(q);
	vfree(task_slots);
	vfree(lock_slots);
	vfree(lock_stats);
	vfree(task_stats);
	vfree(worst);
	task_slots = NULL;
	lock_slots = NULL;
	lock_stats = NULL;
	task_stats = NULL;
	worst = NULL;
}

static int blocked_on_enable(struct sl_feature *f)
{
	int i, ret;

	queues = alloc_percpu(struct bo_queue);
	task_slots = vzalloc(array_size(max_tasks, sizeof(*task_slots)));
	lock_slots = vzalloc(array_size(max_tasks, sizeof(*lock_slots)));
	lock_stats = vzalloc(array_size(STATS_LOCKS, sizeof(*lock_stats)));
	task_stats = vzalloc(array_size(STATS_TASKS, sizeof(*task_stats)));
	worst = vzalloc(array_size(WORST, sizeof(*worst)));
	if (!queues || !task_slots || !lock_slots || !lock_stats || !task_stats || !worst) {
		free_storage();
		return -ENOMEM;
	}
	for_each_possible_cpu(i) {
		struct spin_wait *sw = per_cpu_ptr(&spinning, i);

		seqcount_init(&sw->seq);
		sw->task = NULL;
		per_cpu_ptr(&queued_wait, i)->task = NULL;
		memset(per_cpu_ptr(&pcnt, i), 0, sizeof(struct bo_pcpu));
	}
	raw_spin_lock_irq(&bo_lock);
	sl_bo_init(&graph, task_slots, max_tasks, lock_slots, max_tasks);
	graph.rules = rules;
	clear_stats();
	graph_ready = true;
	raw_spin_unlock_irq(&bo_lock);
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		ret = sl_tracepoint_register(probes[i].tp, probes[i].probe, NULL);
		if (ret)
			goto fail;
	}
	ret = proxy_probe(true);
	if (ret)
		goto fail;
	return 0;
fail:
	unregister_probes(i);
	raw_spin_lock_irq(&bo_lock);
	graph_ready = false;
	raw_spin_unlock_irq(&bo_lock);
	free_storage();
	return ret;
}

static void blocked_on_disable(struct sl_feature *f)
{
	proxy_probe(false);	/* synchronized with the probes below */
	unregister_probes(ARRAY_SIZE(probes));
	raw_spin_lock_irq(&bo_lock);
	graph_ready = false;
	sl_bo_init(&graph, NULL, 0, NULL, 0);
	raw_spin_unlock_irq(&bo_lock);
	free_storage();
}

static int blocked_on_init(struct sl_feature *f)
{
	if (0)
		probe_types_checked();
	sl_bo_init(&graph, NULL, 0, NULL, 0);
	return 0;
}

static int rules_changed(struct sl_feature *f, const struct sl_param *p)
{
	graph_lock_irq();
	/* every wait in progress recomputed: the changed events no longer do it */
	if (graph_ready)
		sl_bo_set_rules(&graph, rules, local_clock());
	else
		graph.rules = rules;
	raw_spin_unlock_irq(&bo_lock);
	return 0;
}

/* --- reports ------------------------------------------------------------- */

/*
 * The files are root-only; lock addresses are printed raw (0x...), not
 * hashed, so that a lock can be matched with other tools' views of it
 * (bpftrace, perf lock, crash) and with the events' lock field.
 */

static const char *class_name(int c)
{
	static const char * const names[] = { "idle", "normal", "rt", "dl" };

	return c >= 0 && c < ARRAY_SIZE(names) ? names[c] : "?";
}

static const char *state_name(unsigned int s)
{
	return s == SL_BO_RUNNING ? "R" : s == SL_BO_RUNNABLE ? "r" :
	       s == SL_BO_PROXY ? "P" : "S";
}

static void proxy_head(struct sl_rhead *h)
{
	bool built = sl_cap_has(SL_CAP_PROXY_EXEC);

	sl_rnote(h, "proxy execution: %s%s", built ? "built in, " : "not built in",
		 !built ? "" : sl_proxy_exec_enabled() ?
		 "enabled: owners run on their waiters' behalf" : "disabled");
	sl_rfact_str(h, "proxy_exec", !built ? "not_built" :
		     sl_proxy_exec_enabled() ? "on" : "off");
}

/* the split of a wait by what its owner did (us), in cat_names order */
static void cat_values(struct sl_rval *v, const u64 *cat_ns)
{
	int j;

	BUILD_BUG_ON(SL_BO_NR_CATS != 8);
	for (j = 0; j < SL_BO_NR_CATS; j++)
		sl_rv_u64(&v[j], div_u64(cat_ns[j], NSEC_PER_USEC));
}

/* " name value" for each category with time, as the chains print them */
static void cat_text(struct seq_file *m, const struct sl_rcol *cols,
		     const struct sl_rval *v)
{
	int j;

	for (j = 0; j < SL_BO_NR_CATS; j++)
		if (v[j].u)
			seq_printf(m, " %s %llu", cols[j].name, v[j].u);
}

static void fill_rlink(struct sl_rlink *l, int pid, const char *comm, int policy_class,
		       int rt_prio, long weight, long cgroup_weight,
		       unsigned int state, int cpu, u64 lock)
{
	l->pid = pid;
	memcpy(l->comm, comm, SL_BO_COMM_LEN);
	l->class = class_name(policy_class);
	l->rt_prio = policy_class == SL_BO_CLASS_RT ? rt_prio : -1;
	l->weight = weight;
	l->cgroup_weight = cgroup_weight;
	l->state = state_name(state);
	l->cpu = cpu;
	l->lock = lock;
}

/* "pid comm class/prio state cpu -> lock 0x... (sym)", what a link knows */
static void link_text(struct seq_file *m, const struct sl_rlink *l)
{
	seq_printf(m, "%d", l->pid);
	if (l->comm[0]) {
		seq_putc(m, ' ');
		sl_rtext_comm(m, l->comm);
	}
	if (l->class && l->rt_prio >= 0)
		seq_printf(m, " rt/%d", l->rt_prio);
	else if (l->class)
		seq_printf(m, " %s/w%ld/cg%ld", l->class, l->weight, l->cgroup_weight);
	if (l->state) {
		seq_printf(m, " %s ", l->state);
		if (l->cpu >= 0)
			seq_printf(m, "%d", l->cpu);
		else
			seq_puts(m, SL_TEXT_NONE);
	}
	if (l->lock)
		seq_printf(m, " -> lock 0x%llx (%ps)", l->lock, (void *)l->lock);
}

/* --- chains: one row per wait in progress, the chain to its head ------ */

struct chain_copy {
	int n;
	bool cycle;
	struct sl_bo_wait_record r;	/* the wait so far */
	struct sl_bo_link link[REPORT_LINKS];
};

struct chains_snap {
	struct chain_copy *c;		/* REPORT_CHAINS */
	struct spin_wait *sw;		/* nr_cpu_ids: waits still spinning */
	int *sw_cpu;
	unsigned int n, nsw;
	u64 now;
	struct sl_rlink links[REPORT_LINKS];	/* the row being printed */
	u64 cats[SL_BO_NR_CATS];
};

static const struct sl_rcol chains_cols[] = {
	{ "pid", NULL, SL_RK_S64 },
	{ "comm", NULL, SL_RK_COMM },
	{ "chain", NULL, SL_RK_LINKS },
	{ "cycle", NULL, SL_RK_U64, 0, SL_RCOL_TAIL },
	{ "depth", NULL, SL_RK_U64, 0, SL_RCOL_TAIL },
	{ "waited_us", "us", SL_RK_U64, 0, SL_RCOL_TAIL },
	{ "run_local", "us", SL_RK_U64, 10, SL_RCOL_TAIL | SL_RCOL_NONZERO },
	{ "run_remote", "us", SL_RK_U64, 10, SL_RCOL_TAIL | SL_RCOL_NONZERO },
	{ "preempted", "us", SL_RK_U64, 10, SL_RCOL_TAIL | SL_RCOL_NONZERO },
	{ "runnable_remote", "us", SL_RK_U64, 10, SL_RCOL_TAIL | SL_RCOL_NONZERO },
	{ "sleeping", "us", SL_RK_U64, 10, SL_RCOL_TAIL | SL_RCOL_NONZERO },
	{ "blocked", "us", SL_RK_U64, 10, SL_RCOL_TAIL | SL_RCOL_NONZERO },
	{ "unowned", "us", SL_RK_U64, 10, SL_RCOL_TAIL | SL_RCOL_NONZERO },
	{ "proxy", "us", SL_RK_U64, 10, SL_RCOL_TAIL | SL_RCOL_NONZERO },
};

static int chains_open(void *priv)
{
	struct chains_snap *s = priv;

	s->c = vmalloc(array_size(REPORT_CHAINS, sizeof(*s->c)));
	s->sw = kvcalloc(nr_cpu_ids, sizeof(*s->sw), GFP_KERNEL);
	s->sw_cpu = kvcalloc(nr_cpu_ids, sizeof(*s->sw_cpu), GFP_KERNEL);
	if (s->c && s->sw && s->sw_cpu)
		return 0;
	vfree(s->c);
	kvfree(s->sw);
	kvfree(s->sw_cpu);
	return -ENOMEM;
}

static void chains_release(void *priv)
{
	struct chains_snap *s = priv;

	vfree(s->c);
	kvfree(s->sw);
	kvfree(s->sw_cpu);
}

static long chains_take(void *priv)
{
	struct chains_snap *s = priv;
	struct chain_copy *c = s->c;
	u32 pos;
	int cpu;

	s->n = 0;
	s->nsw = 0;
	graph_lock_irq();
	if (graph_ready) {
		u64 now = local_clock();

		sl_bo_for_each_wait(&graph, pos, now, &c[s->n].r) {
			c[s->n].n = sl_bo_chain(&graph, c[s->n].r.waiter, c[s->n].link,
						REPORT_LINKS, &c[s->n].cycle);
			if (++s->n == REPORT_CHAINS)
				break;
		}
	}
	raw_spin_unlock_irq(&bo_lock);
	/* waits still spinning (not in the graph), their owner running */
	s->now = local_clock();
	if (READ_ONCE(graph_ready)) {
		for_each_online_cpu(cpu) {
			if (s->nsw == nr_cpu_ids)
				break;
			if (!spin_wait_read(cpu, &s->sw[s->nsw]))
				continue;
			s->sw_cpu[s->nsw++] = cpu;
		}
	}
	return s->n + s->nsw;
}

static void chains_head(void *priv, struct sl_rhead *h)
{
	proxy_head(h);
	sl_rnote(h, "waiter -> lock -> owner -> lock -> ... (pid comm class/prio state cpu), waited_us, split so far");
}

static void chains_row(void *priv, unsigned long i, struct sl_rval *v)
{
	struct chains_snap *s = priv;
	struct sl_rlink *l = s->links;
	int j;

	if (i < s->n) {
		const struct chain_copy *c = &s->c[i];

		for (j = 0; j < c->n; j++) {
			const struct sl_bo_link *k = &c->link[j];

			fill_rlink(&l[j], k->pid, k->comm, k->prio.policy_class,
				   k->prio.rt_prio, k->prio.weight, k->prio.cgroup_weight,
				   k->state, k->cpu, k->lock);
		}
		sl_rv_s64(&v[0], c->r.pid);
		sl_rv_str(&v[1], l[0].comm);
		sl_rv_links(&v[2], l, c->n);
		sl_rv_u64(&v[3], c->cycle);
		sl_rv_u64(&v[4], c->n);
		sl_rv_u64(&v[5], div_u64(c->r.duration_ns, NSEC_PER_USEC));
		cat_values(&v[6], c->r.cat_ns);
		return;
	}
	{
		const struct spin_wait *sw = &s->sw[i - s->n];
		u64 waited = s->now > sw->begin_ns ? s->now - sw->begin_ns : 0;

		memset(l, 0, 2 * sizeof(*l));
		l[0].pid = sw->pid;
		memcpy(l[0].comm, sw->comm, TASK_COMM_LEN);
		l[0].rt_prio = l[0].weight = l[0].cgroup_weight = -1;
		l[0].state = "spinning";
		l[0].cpu = s->sw_cpu[i - s->n];
		l[0].lock = (u64)sw->lock;
		l[1].pid = sw->owner_pid;
		l[1].rt_prio = l[1].weight = l[1].cgroup_weight = -1;
		l[1].cpu = -1;
		memset(s->cats, 0, sizeof(s->cats));
		s->cats[sw->owned ? SL_BO_CAT_RUN_REMOTE : SL_BO_CAT_UNOWNED] = waited;
		sl_rv_s64(&v[0], sw->pid);
		sl_rv_str(&v[1], l[0].comm);
		sl_rv_links(&v[2], l, sw->owned ? 2 : 1);
		sl_rv_u64(&v[3], 0);
		sl_rv_u64(&v[4], sw->owned ? 2 : 1);
		sl_rv_u64(&v[5], div_u64(waited, NSEC_PER_USEC));
		cat_values(&v[6], s->cats);
	}
}

static void chains_text(struct seq_file *m, void *priv, const struct sl_rval *v)
{
	u32 j;

	for (j = 0; j < v[2].links.n; j++) {
		if (j)
			seq_puts(m, " -> ");
		link_text(m, &v[2].links.l[j]);
	}
	if (v[3].u)
		seq_puts(m, " -> CYCLE");
	seq_printf(m, " | depth %llu waited_us %llu", v[4].u, v[5].u);
	cat_text(m, &chains_cols[6], &v[6]);
}

static const struct sl_report chains_report = {
	.feature = "blocked_on",
	.name = "chains",
	.mode = 0400,
	.layout = SL_RL_LINES,
	.cols = chains_cols,
	.ncols = ARRAY_SIZE(chains_cols),
	.priv_size = sizeof(struct chains_snap),
	.open = chains_open,
	.release = chains_release,
	.take = chains_take,
	.head = chains_head,
	.row = chains_row,
	.text_row = chains_text,
};

/* --- locks and tasks: completed waits, a copy taken under the lock ---- */

static const struct sl_rcol locks_cols[] = {
	{ "lock", NULL, SL_RK_HEX, 18, SL_RCOL_LEFT },
	{ "sym", NULL, SL_RK_SYM, 16, SL_RCOL_LEFT },
	{ "waits", NULL, SL_RK_U64, 8 },
	{ "acquired", NULL, SL_RK_U64, 8 },
	{ "total_us", "us", SL_RK_U64, 10 },
	{ "max_us", "us", SL_RK_U64, 10 },
	{ "inversion_us", "us", SL_RK_U64, 12 },
	{ "invs", NULL, SL_RK_U64, 6 },
	{ "run_local", "us", SL_RK_U64, 10 },
	{ "run_remote", "us", SL_RK_U64, 10 },
	{ "preempted", "us", SL_RK_U64, 10 },
	{ "runnable_remote", "us", SL_RK_U64, 10 },
	{ "sleeping", "us", SL_RK_U64, 10 },
	{ "blocked", "us", SL_RK_U64, 10 },
	{ "unowned", "us", SL_RK_U64, 10 },
	{ "proxy", "us", SL_RK_U64, 10 },
	{ "hist_log2_us", NULL, SL_RK_LIST },
	{ "proxy_runs", NULL, SL_RK_U64, 10 },
	{ "proxy_migrations", NULL, SL_RK_U64, 10 },
	{ "proxy_deacts", NULL, SL_RK_U64, 10 },
};

static const struct sl_rcol tasks_cols[] = {
	{ "pid", NULL, SL_RK_S64, 18, SL_RCOL_LEFT },
	{ "comm", NULL, SL_RK_COMM, 16, SL_RCOL_LEFT },
	{ "waits", NULL, SL_RK_U64, 8 },
	{ "acquired", NULL, SL_RK_U64, 8 },
	{ "total_us", "us", SL_RK_U64, 10 },
	{ "max_us", "us", SL_RK_U64, 10 },
	{ "inversion_us", "us", SL_RK_U64, 12 },
	{ "invs", NULL, SL_RK_U64, 6 },
	{ "run_local", "us", SL_RK_U64, 10 },
	{ "run_remote", "us", SL_RK_U64, 10 },
	{ "preempted", "us", SL_RK_U64, 10 },
	{ "runnable_remote", "us", SL_RK_U64, 10 },
	{ "sleeping", "us", SL_RK_U64, 10 },
	{ "blocked", "us", SL_RK_U64, 10 },
	{ "unowned", "us", SL_RK_U64, 10 },
	{ "proxy", "us", SL_RK_U64, 10 },
	{ "hist_log2_us", NULL, SL_RK_LIST },
	{ "proxy_runs", NULL, SL_RK_U64, 10 },
	{ "proxy_migrations", NULL, SL_RK_U64, 10 },
	{ "proxy_deacts", NULL, SL_RK_U64, 10 },
};

static void stats_values(struct sl_rval *v, const struct sl_bo_stats *st)
{
	int j, last = -1;

	sl_rv_u64(&v[0], st->count);
	sl_rv_u64(&v[1], st->acquired);
	sl_rv_u64(&v[2], div_u64(st->total_ns, NSEC_PER_USEC));
	sl_rv_u64(&v[3], div_u64(st->max_ns, NSEC_PER_USEC));
	sl_rv_u64(&v[4], div_u64(st->inv_ns, NSEC_PER_USEC));
	sl_rv_u64(&v[5], st->inversions);
	cat_values(&v[6], st->cat_ns);
	for (j = 0; j < SL_BO_HIST_BUCKETS; j++)
		if (st->hist[j])
			last = j;
	sl_rv_list(&v[6 + SL_BO_NR_CATS], st->hist, last + 1);
	for (j = 0; j < SL_BO_NR_PROXY; j++)
		sl_rv_u64(&v[7 + SL_BO_NR_CATS + j], st->proxy[j]);
}

/*
 * The locks and tasks reports: a copy of one statistics table, taken in one
 * bo_lock section (rows() is called under it and says where the table is
 * and how many rows it has).
 */
struct table_snap {
	void *c;
	u32 n;
};

static int table_open(struct table_snap *s, size_t size)
{
	s->c = vmalloc(size);
	return s->c ? 0 : -ENOMEM;
}

static void table_release(void *priv)
{
	vfree(((struct table_snap *)priv)->c);
}

static long table_take(struct table_snap *s, const void *(*rows)(u32 *n), size_t esize)
{
	const void *t;

	s->n = 0;
	graph_lock_irq();
	if (graph_ready) {
		t = rows(&s->n);
		memcpy(s->c, t, s->n * esize);
	}
	raw_spin_unlock_irq(&bo_lock);
	return s->n;
}

static const void *lock_rows(u32 *n)
{
	*n = nr_lock_stats;
	return lock_stats;
}

static int locks_open(void *priv)
{
	return table_open(priv, array_size(STATS_LOCKS, sizeof(*lock_stats)));
}

static long locks_take(void *priv)
{
	return table_take(priv, lock_rows, sizeof(*lock_stats));
}

static void locks_head(void *priv, struct sl_rhead *h)
{
	sl_rnote(h, "completed waits per lock (times in us; hist: waits by log2 of their length in us, from bucket 0)");
}

static void locks_row(void *priv, unsigned long i, struct sl_rval *v)
{
	const struct lock_stat *c = (const struct lock_stat *)((struct table_snap *)priv)->c + i;

	sl_rv_u64(&v[0], c->lock);
	sl_rv_u64(&v[1], c->lock);
	stats_values(&v[2], &c->st);
}

static const struct sl_report locks_report = {
	.feature = "blocked_on",
	.name = "locks",
	.mode = 0400,
	.layout = SL_RL_TABLE,
	.cols = locks_cols,
	.ncols = ARRAY_SIZE(locks_cols),
	.priv_size = sizeof(struct table_snap),
	.open = locks_open,
	.release = table_release,
	.take = locks_take,
	.head = locks_head,
	.row = locks_row,
};

static const void *task_rows(u32 *n)
{
	*n = nr_task_stats;
	return task_stats;
}

static int tasks_open(void *priv)
{
	return table_open(priv, array_size(STATS_TASKS, sizeof(*task_stats)));
}

static long tasks_take(void *priv)
{
	return table_take(priv, task_rows, sizeof(*task_stats));
}

static void tasks_head(void *priv, struct sl_rhead *h)
{
	sl_rnote(h, "completed waits per waiting task (times in us)");
}

static void tasks_row(void *priv, unsigned long i, struct sl_rval *v)
{
	const struct task_stat *c = (const struct task_stat *)((struct table_snap *)priv)->c + i;

	sl_rv_s64(&v[0], c->pid);
	sl_rv_str(&v[1], c->comm);
	stats_values(&v[2], &c->st);
}

static const struct sl_report tasks_report = {
	.feature = "blocked_on",
	.name = "tasks",
	.mode = 0400,
	.layout = SL_RL_TABLE,
	.cols = tasks_cols,
	.ncols = ARRAY_SIZE(tasks_cols),
	.priv_size = sizeof(struct table_snap),
	.open = tasks_open,
	.release = table_release,
	.take = tasks_take,
	.head = tasks_head,
	.row = tasks_row,
};

/* --- inversions: the worst waits, each with its chain at its worst --- */

struct inversions_snap {
	struct sl_bo_wait_record *c;	/* WORST */
	u32 n;
	s64 rules;
	struct sl_rlink links[SL_BO_SNAP_DEPTH];	/* the row being printed */
};

static const struct sl_rcol inversions_cols[] = {
	{ "rank", NULL, SL_RK_U64 },
	{ "pid", NULL, SL_RK_S64 },
	{ "comm", NULL, SL_RK_COMM },
	{ "class", NULL, SL_RK_STR },
	{ "rt_prio", NULL, SL_RK_S64 },
	{ "weight", NULL, SL_RK_U64 },
	{ "cgroup_weight", NULL, SL_RK_U64 },
	{ "lock", NULL, SL_RK_HEX },
	{ "lock_sym", NULL, SL_RK_SYM },
	{ "waited_us", "us", SL_RK_U64 },
	{ "inversion_us", "us", SL_RK_U64 },
	{ "rules", NULL, SL_RK_HEX },
	{ "run_local", "us", SL_RK_U64, 10, SL_RCOL_NONZERO },
	{ "run_remote", "us", SL_RK_U64, 10, SL_RCOL_NONZERO },
	{ "preempted", "us", SL_RK_U64, 10, SL_RCOL_NONZERO },
	{ "runnable_remote", "us", SL_RK_U64, 10, SL_RCOL_NONZERO },
	{ "sleeping", "us", SL_RK_U64, 10, SL_RCOL_NONZERO },
	{ "blocked", "us", SL_RK_U64, 10, SL_RCOL_NONZERO },
	{ "unowned", "us", SL_RK_U64, 10, SL_RCOL_NONZERO },
	{ "proxy", "us", SL_RK_U64, 10, SL_RCOL_NONZERO },
	{ "stall_us", "us", SL_RK_U64 },
	{ "stall_depth", NULL, SL_RK_U64 },
	{ "stall_chain", NULL, SL_RK_LINKS },
};

static int inversions_open(void *priv)
{
	struct inversions_snap *s = priv;

	s->c = vmalloc(array_size(WORST, sizeof(*s->c)));
	return s->c ? 0 : -ENOMEM;
}

static void inversions_release(void *priv)
{
	vfree(((struct inversions_snap *)priv)->c);
}

static long inversions_take(void *priv)
{
	struct inversions_snap *s = priv;

	s->n = 0;
	graph_lock_irq();
	if (graph_ready) {
		s->n = nr_worst;
		memcpy(s->c, worst, s->n * sizeof(*s->c));
	}
	raw_spin_unlock_irq(&bo_lock);
	s->rules = READ_ONCE(rules);
	return s->n;
}

static void inversions_head(void *priv, struct sl_rhead *h)
{
	struct inversions_snap *s = priv;

	proxy_head(h);
	sl_rnote(h, "worst inversions (rules 0x%llx: 1 rt, 2 weight, 4 idle, 8 cgroup), each with its chain at the start of its longest stall",
		 s->rules);
	sl_rfact_s64(h, "rules", s->rules);
}

static void inversions_row(void *priv, unsigned long i, struct sl_rval *v)
{
	struct inversions_snap *s = priv;
	const struct sl_bo_wait_record *c = &s->c[i];
	const struct sl_bo_snap *sn = &c->snap;
	u32 j, nr = min_t(u32, sn->nr, SL_BO_SNAP_DEPTH);

	for (j = 0; j < nr; j++) {
		const struct sl_bo_snap_link *k = &sn->link[j];

		fill_rlink(&s->links[j], k->pid, k->comm, k->policy_class, k->rt_prio,
			   k->weight, -1, k->state, k->cpu, k->lock);
	}
	sl_rv_u64(&v[0], i);
	sl_rv_s64(&v[1], c->pid);
	sl_rv_str(&v[2], c->comm);
	sl_rv_str(&v[3], class_name(c->prio.policy_class));
	if (c->prio.policy_class == SL_BO_CLASS_RT)
		sl_rv_s64(&v[4], c->prio.rt_prio);
	else
		sl_rv_none(&v[4]);
	sl_rv_u64(&v[5], c->prio.weight);
	sl_rv_u64(&v[6], c->prio.cgroup_weight);
	sl_rv_u64(&v[7], c->lock);
	sl_rv_u64(&v[8], c->lock);
	sl_rv_u64(&v[9], div_u64(c->duration_ns, NSEC_PER_USEC));
	sl_rv_u64(&v[10], div_u64(c->inv_ns, NSEC_PER_USEC));
	sl_rv_u64(&v[11], c->inv_rules);
	cat_values(&v[12], c->cat_ns);
	sl_rv_u64(&v[12 + SL_BO_NR_CATS], div_u64(sn->len_ns, NSEC_PER_USEC));
	sl_rv_u64(&v[13 + SL_BO_NR_CATS], sn->depth);
	sl_rv_links(&v[14 + SL_BO_NR_CATS], s->links, nr);
}

/* two lines: the wait, then its chain at the start of its longest stall */
static void inversions_text(struct seq_file *m, void *priv, const struct sl_rval *v)
{
	const struct sl_rval *chain = &v[14 + SL_BO_NR_CATS];
	u32 j;

	seq_printf(m, "%llu: pid %lld ", v[0].u, v[1].s);
	sl_rtext_comm(m, v[2].str);
	if (!v[4].none)
		seq_printf(m, " rt/%lld", v[4].s);
	else
		seq_printf(m, " %s/w%llu/cg%llu", v[3].str, v[5].u, v[6].u);
	seq_printf(m, " lock 0x%llx (%ps) waited_us %llu inversion_us %llu rules 0x%llx",
		   v[7].u, (void *)v[7].u, v[9].u, v[10].u, v[11].u);
	cat_text(m, &inversions_cols[12], &v[12]);
	seq_printf(m, "\n   stall of %llu us, chain depth %llu:", v[12 + SL_BO_NR_CATS].u,
		   v[13 + SL_BO_NR_CATS].u);
	for (j = 0; j < chain->links.n; j++) {
		const struct sl_rlink *l = &chain->links.l[j];

		seq_printf(m, "%s %d ", j ? " ->" : "", l->pid);
		sl_rtext_comm(m, l->comm);
		seq_printf(m, " %s/%ld %s %d", l->class,
			   l->rt_prio >= 0 ? (long)l->rt_prio : l->weight, l->state, l->cpu);
	}
}

static const struct sl_report inversions_report = {
	.feature = "blocked_on",
	.name = "inversions",
	.mode = 0400,
	.layout = SL_RL_LINES,
	.cols = inversions_cols,
	.ncols = ARRAY_SIZE(inversions_cols),
	.priv_size = sizeof(struct inversions_snap),
	.open = inversions_open,
	.release = inversions_release,
	.take = inversions_take,
	.head = inversions_head,
	.row = inversions_row,
	.text_row = inversions_text,
};

/* --- stats: one record ---------------------------------------------- */

static const struct sl_rcol stats_cols[] = {
	{ "enabled", NULL, SL_RK_U64 },
	{ "tracked_tasks", NULL, SL_RK_U64 },
	{ "tracked_locks", NULL, SL_RK_U64 },
	{ "waits_in_progress", NULL, SL_RK_U64 },
	{ "waits_spinning", NULL, SL_RK_U64 },
	{ "waits_begun", NULL, SL_RK_U64 },
	{ "waits_ended", NULL, SL_RK_U64 },
	{ "waits_recorded", NULL, SL_RK_U64 },
	{ "waits_shorter_than_min", NULL, SL_RK_U64 },
	{ "no_room", NULL, SL_RK_U64 },
	{ "owners_not_tracked", NULL, SL_RK_U64 },
	{ "stats_full", NULL, SL_RK_U64 },
	{ "cycles", NULL, SL_RK_U64 },
	{ "waits_replaced", NULL, SL_RK_U64 },
	{ "blocked_on_field", NULL, SL_RK_STR },
	{ "blocked_on_checked", NULL, SL_RK_U64 },
	{ "blocked_on_agree", NULL, SL_RK_U64 },
	{ "blocked_on_cleared", NULL, SL_RK_U64 },
	{ "blocked_on_disagree", NULL, SL_RK_U64 },
	{ "blocked_on_missed", NULL, SL_RK_U64 },
	{ "waits_recomputed", NULL, SL_RK_U64 },
	{ "end_lockless", NULL, SL_RK_U64 },
	{ "end_locked", NULL, SL_RK_U64 },
	{ "end_locked_idle", NULL, SL_RK_U64 },
	{ "sched_lockless", NULL, SL_RK_U64 },
	{ "sched_queued", NULL, SL_RK_U64 },
	{ "sched_locked", NULL, SL_RK_U64 },
	{ "queue_full", NULL, SL_RK_U64 },
	{ "waiter_sync", NULL, SL_RK_U64 },
	{ "spin_switched", NULL, SL_RK_U64 },
	{ "proxy_run_owner", NULL, SL_RK_U64 },
	{ "proxy_migrate", NULL, SL_RK_U64 },
	{ "proxy_deact_waking", NULL, SL_RK_U64 },
	{ "proxy_deact_no_owner", NULL, SL_RK_U64 },
	{ "proxy_deact_owner_asleep", NULL, SL_RK_U64 },
	{ "proxy_idle_curr_in_chain", NULL, SL_RK_U64 },
	{ "proxy_idle_owner_migrating", NULL, SL_RK_U64 },
	{ "proxy_idle_owner_waking", NULL, SL_RK_U64 },
	{ "proxy_retry_chain_changed", NULL, SL_RK_U64 },
	{ "proxy_retry_owner_moved", NULL, SL_RK_U64 },
	{ "proxy_run_self", NULL, SL_RK_U64 },
	{ "proxy_return", NULL, SL_RK_U64 },
	{ "proxy_handoff", NULL, SL_RK_U64 },
};
#define BO_STATS_PROXY	30	/* the first proxy_* column */

#define BO_STATS_FIELD	14	/* the one string column, blocked_on_field */

struct stats_snap {
	u64 v[ARRAY_SIZE(stats_cols)];
};

static long stats_take(void *priv)
{
	struct stats_snap *s = priv;
	typeof(cnt) c;
	struct bo_pcpu pc, base;
	u32 tasks = 0, locks = 0, waits = 0, spinning;
	u64 cycles = 0, dropped = 0, updates = 0, replaced = 0;
	bool ready;
	u64 *v = s->v;
	int k;

	graph_lock_irq();
	ready = graph_ready;
	c = cnt;
	base = pcnt_base;
	if (ready) {
		tasks = sl_bo_nr_tasks(&graph);
		locks = sl_bo_nr_locks(&graph);
		waits = sl_bo_nr_waits(&graph);
		cycles = sl_bo_cycles_seen(&graph);
		dropped = graph.nr_dropped;
		updates = graph.nr_updates;
		replaced = graph.nr_replaced;
	}
	raw_spin_unlock_irq(&bo_lock);
	pcnt_sum(&pc);
	spinning = ready ? nr_spinning() : 0;
	v[0] = ready;
	v[1] = tasks;
	v[2] = locks;
	v[3] = waits + spinning;
	v[4] = spinning;
	v[5] = c.begun;
	v[6] = c.ended;
	v[7] = c.recorded;
	v[8] = c.short_waits;
	v[9] = c.no_room;
	v[10] = dropped;
	v[11] = c.stats_full;
	v[12] = cycles;
	v[13] = replaced;
	v[15] = c.bo_checked;
	v[16] = c.bo_agree;
	v[17] = c.bo_cleared;
	v[18] = c.bo_disagree;
	v[19] = pc.bo_missed - base.bo_missed;
	v[20] = updates;
	v[21] = pc.end_lockless - base.end_lockless;
	v[22] = pc.end_locked - base.end_locked;
	v[23] = pc.end_locked_idle - base.end_locked_idle;
	v[24] = pc.sched_lockless - base.sched_lockless;
	v[25] = pc.sched_queued - base.sched_queued;
	v[26] = pc.sched_locked - base.sched_locked;
	v[27] = pc.queue_full - base.queue_full;
	v[28] = pc.waiter_sync - base.waiter_sync;
	v[29] = pc.spin_switched - base.spin_switched;
	BUILD_BUG_ON(ARRAY_SIZE(stats_cols) != BO_STATS_PROXY + BO_NR_PROXY_DECISIONS);
	for (k = 0; k < BO_NR_PROXY_DECISIONS; k++)
		v[BO_STATS_PROXY + k] = pc.proxy[k] - base.proxy[k];
	return 1;
}

static void stats_head(void *priv, struct sl_rhead *h)
{
	proxy_head(h);
}

static void stats_row(void *priv, unsigned long i, struct sl_rval *v)
{
	struct stats_snap *s = priv;
	int k;

	for (k = 0; k < ARRAY_SIZE(s->v); k++)
		sl_rv_u64(&v[k], s->v[k]);
	sl_rv_str(&v[BO_STATS_FIELD], SL_HAS_task_struct__blocked_on ? "yes" : "no");
	/* without the tracepoint the decisions are not known: missing, not 0 */
	if (!sl_cap_has(SL_CAP_TP_PROXY_DECISION))
		for (k = 0; k < BO_NR_PROXY_DECISIONS; k++)
			sl_rv_none(&v[BO_STATS_PROXY + k]);
}

static const struct sl_report stats_report = {
	.feature = "blocked_on",
	.name = "stats",
	.mode = 0444,
	.layout = SL_RL_RECORD,
	.cols = stats_cols,
	.ncols = ARRAY_SIZE(stats_cols),
	.priv_size = sizeof(struct stats_snap),
	.take = stats_take,
	.head = stats_head,
	.row = stats_row,
};

/* the "reset" file: clears the statistics; the graph stays */
static int reset_stats(void)
{
	graph_lock_irq();
	if (!graph_ready) {
		raw_spin_unlock_irq(&bo_lock);
		return -ENODEV;
	}
	clear_stats();
	raw_spin_unlock_irq(&bo_lock);
	return 0;
}

static int blocked_on_debugfs(struct sl_feature *f, struct dentry *dir)
{
	sl_report_create(dir, &chains_report);
	sl_report_create(dir, &locks_report);
	sl_report_create(dir, &tasks_report);
	sl_report_create(dir, &inversions_report);
	sl_report_create(dir, &stats_report);
	sl_debugfs_reset_file(dir, reset_stats);
	return 0;
}

static const struct sl_param blocked_on_params[] = {
	{
		.name = "min_wait_us",
		.help = "waits shorter than this are counted but not recorded (statistics, events)",
		.value = &min_wait_us, .min = 0, .max = 10000000, .live = true,
	},
	{
		.name = "rules",
		.help = "what makes a waiter more important than its owner: 1 rt prio, 2 nice weight, 4 SCHED_IDLE, 8 cgroup cpu.weight (sum)",
		.value = &rules, .min = 1, .max = SL_BO_RULES_ALL, .live = true,
		.on_change = rules_changed,
	},
	{
		.name = "max_tasks",
		.help = "tasks (and locks) tracked at once, waiters and owners (set while disabled)",
		.value = &max_tasks, .min = 16, .max = 8192,
	},
	{ }
};

struct sl_feature blocked_on_feature = {
	.name = "blocked_on",
	.summary = "mutex wait chains (waiter -> lock -> owner -> ...) and what each wait was stuck behind: running, preempted, asleep owners; inversions",
	.needs = SL_CAP(SL_CAP_TP_CONTENTION_BEGIN) | SL_CAP(SL_CAP_TP_CONTENTION_END) |
		 SL_CAP(SL_CAP_TP_SCHED_SWITCH) | SL_CAP(SL_CAP_TP_SCHED_WAKEUP) |
		 SL_CAP(SL_CAP_TP_SCHED_WAKEUP_NEW) | SL_CAP(SL_CAP_TP_SCHED_MIGRATE_TASK) |
		 SL_CAP(SL_CAP_TP_SCHED_PROCESS_EXIT),
	.init = blocked_on_init,
	.enable = blocked_on_enable,
	.disable = blocked_on_disable,
	.debugfs = blocked_on_debugfs,
	.params = blocked_on_params,
};
