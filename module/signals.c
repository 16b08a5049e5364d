// SPDX-License-Identifier: GPL-2.0
/*
 * signals: per-task utilization signals side by side with the kernel's own
 * PELT util_avg and util_est (definitions: signals_core.c, docs/signals.md).
 *
 * Events. A task's state follows the stock tracepoints:
 *   sched_switch      prev: WAITING if preempted or still TASK_RUNNING,
 *                     else SLEEPING (dequeued); next: RUNNING
 *   sched_process_exit the task is forgotten
 * and the time since its previous event is accounted in the previous state
 * (sl_signals_event()). When a task that went to sleep is switched in, the
 * instant it was enqueued again (woken) splits the time since into
 * sleeping, then waiting. That instant comes from the scheduler's own
 * bookkeeping (sched_info, CONFIG_SCHED_INFO: run_delay totals the waits
 * that ended, last_queued is when the current one began), so the probes
 * need no wakeup event: a third fewer of them on every context switch.
 * Readers apply the same split to a sleeping entry whose task is queued
 * again. Without CONFIG_SCHED_INFO, sched_wakeup(_new) mark SLEEPING ->
 * WAITING instead.
 *
 * Where a sleep begins (sleep_source). sched_switch sees a task leave the
 * CPU in a sleeping state, and takes that as its dequeue. Where the kernel
 * has sched_dequeue_task_tp (the lab kernel's series, patches/ 0002), the
 * sleep begins at the dequeue itself: the dequeue probe notes the instant
 * (rq clock and model clock) at which the current task left its runqueue,
 * and the switch that follows starts the sleep there. A task that leaves
 * the CPU blocked without having been dequeued stays queued, runnable to
 * the kernel (its PELT runnable signal goes on; with proxy execution a
 * mutex waiter stays queued as a donor): WAITING, until a dequeue of it by
 * another CPU or path (proxy_deactivate(), a move) makes it SLEEPING, or it
 * runs again. The statistics count both: how far each dequeue preceded its
 * switch (lead), and how long blocked tasks stayed queued (queued_block),
 * the time the sched_switch path calls sleep. The probe looks a task up
 * without a lock and touches only tracked ones.
 *
 * Whose context runs (with sleep_source 1, where the kernel also has
 * rq->donor and sched_proxy_decision_tp: follow_donor). With proxy
 * execution the CPU runs a blocked donor's scheduling context while the
 * mutex owner executes: the kernel's PELT runs the donor's signal (its
 * entity is the runqueue's current one), not the owner's. schedlab does
 * the same: at a switch whose next is not rq->donor, next is WAITING and
 * the donor RUNNING; the CPU remembers that donor (pelt_donor, a key) and
 * the next switch ends its run. An owner that becomes a proxy without a
 * switch (it was already running) is caught at the proxy decision; one
 * that goes on as itself without a switch keeps the donor running until
 * the next switch. The donor's entry is only written while it is queued
 * on that CPU, under its runqueue's lock; one dequeued meanwhile was
 * seen by the dequeue probe. At each sample, schedlab's model of util_avg is
 * projected to the instant of the kernel's last update of the task's PELT
 * signal (se.avg.last_update_time, on the same PELT clock) and compared
 * with the kernel's util_avg, after the model's first
 * SIGNALS_MODEL_WARMUP_NS (its start is a copy of the kernel's value).
 *
 * Tasks. Entries come from a pool allocated when the feature is enabled
 * (max_tasks), are found through an RCU hash keyed by task, and are
 * unhashed when the task exits and returned to the pool after a grace
 * period. A task pointer is only dereferenced under RCU while its entry is
 * hashed: the task is freed at least one grace period after its exit, and
 * an exiting task (PF_EXITING) is never tracked again. No allocation,
 * sleeping or unbounded work happens in the probes. Once the pool is
 * empty, a lockless hint (pool_full) turns the events of untracked tasks
 * away without the table's lock, each counted in `dropped`, until an entry
 * is returned.
 *
 * Walks. The sampler and the debugfs reports visit the table bucket by
 * bucket (walk_tasks()), leaving RCU for a cond_resched() every
 * SIGNALS_WALK_BATCH entries; an entry stays in its bucket while hashed, so
 * a walk sees each task at most once. A report takes one walk per pass
 * (its read from offset 0) into a snapshot, then prints from it however
 * the reads are sized.
 *
 * Output: debugfs signals/{tasks,cpus,stats}; trace events
 * schedlab:signals_task at each dequeue and each sample, and
 * schedlab:signals_cpu (per-CPU sums next to the kernel's CFS util_avg) at
 * each sample. The filter (filter_pid, filter_comm, filter_cgroup) selects
 * which tasks are tracked and shown.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": signals: " fmt

#include <linux/cgroup.h>
#include <linux/debugfs.h>
#include <linux/hashtable.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <trace/events/sched.h>	/* probe prototypes, checked below */

#include "signals.h"
#include "report.h"
#include "sched_fields.h"
#include "signals_core.h"
#include "cpu_signals.h"
#include "schedlab_trace.h"

#define SIGNALS_MODEL_WARMUP_NS	(50 * NSEC_PER_MSEC)
#define SIGNALS_HASH_BITS	10

struct sig_task {
	struct hlist_node node;
	struct task_struct *task;	/* see "Tasks" above */
	/*
	 * s and cpu are written only by the probes, which the scheduler
	 * serialises for one task (each runs under the rq lock of the task's
	 * CPU, and a task is on one rq at a time); readers retry on seq.
	 */
	seqcount_t seq;
	struct sl_signals s;
	int cpu;
	u64 waited;			/* sched_info_waited() at the last event */
	/*
	 * sleep_source 1: the instant (rq clock; model clock) the task, as the
	 * current one, was dequeued since it last ran, or 0; and when it last
	 * left the CPU blocked but queued, or 0
	 */
	u64 dequeued_at, dequeued_mclock, left_at;
	pid_t pid, tgid;
	u64 model_since_ns;		/* start of the model's warm-up */
	/* written by the sampler only (one work item) */
	u64 model_err_max, model_err_sum, model_err_at, model_err_n;
	struct sig_task *next_free;
	struct rcu_head rcu;
};

/* parameters */
static s64 sample_ms = 20;
/*
 * Whether the signals_task event is also written at every dequeue of a
 * tracked task (kind "dequeue"), not only at the sampler's ticks. Off by
 * default: one event per dequeue is one ring-buffer write per voluntary
 * context switch (about 23% of a switch in the ping-pong benchmark,
 * docs/signals.md), where the samples cost a walk every sample_ms.
 */
static s64 dequeue_events;
/* where a sleep begins: 0 sched_switch, 1 the dequeue (see "Events") */
static s64 sleep_source = 1;
static bool sleep_at_dequeue;	/* sleep_source 1 and the tracepoint found */
/* sleep_at_dequeue, rq->donor and sched_proxy_decision_tp (see "Events") */
static bool follow_donor;
#define SIG_DONOR_BUILT \
	(SL_HAS_rq__donor && SL_HAS_FUNC___traceiter_sched_proxy_decision_tp)
static DEFINE_PER_CPU(struct task_struct *, pelt_donor);
static s64 check_model_on;
static s64 max_tasks = 2048;
static s64 filter_pid;
static s64 filter_cgroup;
static char filter_comm[TASK_COMM_LEN];
static DEFINE_SEQLOCK(filter_comm_lock);

static DEFINE_HASHTABLE(tasks, SIGNALS_HASH_BITS);
static DEFINE_RAW_SPINLOCK(tasks_lock);	/* hash writers and the free list */
static struct sig_task *pool, *free_list;
static unsigned int pool_size;		/* entries in pool */
static unsigned int nr_tracked;
/*
 * free_list was empty when last changed: read without the lock, so that
 * the events of untracked tasks, once the pool is full, count a drop and
 * take no lock. Set under the lock when the last entry is taken, cleared
 * when one is returned (a reader may see either a little late: one more
 * event dropped, or one more lock taken to find the pool empty).
 */
static bool pool_full;
static u64 track_locked;		/* the probes' takings of tasks_lock */
static atomic64_t report_walks;		/* walks made by the debugfs reports */
/*
 * per CPU, so that the probes share no cache line; dropped: events of
 * matching untracked tasks that found the pool full (see docs/signals.md)
 */
struct sig_stats {
	u64 dropped, dequeues;
	/* sleep_source 1 (see "Events") */
	u64 lead_n, lead_ns, lead_max_ns, queued_blocks, queued_block_ns;
	u64 queued_dequeues;
	u64 donor_runs;		/* follow_donor: a donor's context run by another */
};
static DEFINE_PER_CPU(struct sig_stats, sig_stats);

static struct delayed_work sample_work;
static u64 sample_runs, sample_ns;	/* the sampler's own cost */

struct cpu_sum {
	unsigned long model, burst, waiting, time;
	unsigned int tasks;
};
static struct cpu_sum *sums;

/* --- filter -------------------------------------------------------------- */

static void filter_comm_copy(char *buf)
{
	unsigned int seq;

	do {
		seq = read_seqbegin(&filter_comm_lock);
		memcpy(buf, filter_comm, TASK_COMM_LEN);
	} while (read_seqretry(&filter_comm_lock, seq));
	buf[TASK_COMM_LEN - 1] = '\0';
}

/* @p in the cgroup v2 @id or below it; under RCU (or preemption off) */
static bool in_cgroup(struct task_struct *p, u64 id)
{
	struct cgroup *c;

	for (c = task_dfl_cgroup(p); c; c = cgroup_parent(c))
		if (cgroup_id(c) == id)
			return true;
	return false;
}

/*
 * Whether the filter selects a task; @e's task must be valid (RCU, see
 * "Tasks"). The cgroup is the task's current one.
 */
static bool task_matches(struct task_struct *p, pid_t pid, pid_t tgid,
			 const char *comm)
{
	s64 fpid = READ_ONCE(filter_pid), cg = READ_ONCE(filter_cgroup);
	char want[TASK_COMM_LEN];

	if (fpid && pid != fpid && tgid != fpid)
		return false;
	if (cg && !in_cgroup(p, cg))
		return false;
	filter_comm_copy(want);
	return !want[0] || !strncmp(comm, want, TASK_COMM_LEN);
}

static bool entry_matches(const struct sig_task *e, const char *comm)
{
	return task_matches(e->task, e->pid, e->tgid, comm);
}

/* --- entries ------------------------------------------------------------- */

static struct sig_task *find(struct task_struct *p)
{
	struct sig_task *e;

	hash_for_each_possible_rcu(tasks, e, node, (unsigned long)p)
		if (e->task == p)
			return e;
	return NULL;
}

/*
 * The model's clock: the kernel's PELT clock of @cpu, rq_clock_pelt() =
 * rq->clock_pelt - rq->lost_idle_time, which already carries capacity and
 * frequency invariance (model scale 1024). Where a kernel lacks those
 * members, the wall clock, scaled by rq->cpu_capacity_orig if it has that.
 */
static u64 model_clock(int cpu)
{
#if SL_HAS_rq__clock_pelt && SL_HAS_rq__lost_idle_time
	void *rq = sl_cpu_rq(cpu);

	return SL_READ(rq, rq__clock_pelt) - SL_READ(rq, rq__lost_idle_time);
#else
	return local_clock();
#endif
}

static unsigned long model_scale(int cpu)
{
#if !(SL_HAS_rq__clock_pelt && SL_HAS_rq__lost_idle_time)
	long cap = sl_rq_capacity_orig(sl_cpu_rq(cpu));

	if (cap > 0 && cap <= SL_PELT_CAPACITY_SCALE)
		return cap;
#endif
	return SL_PELT_CAPACITY_SCALE;
}

/*
 * Total time @p has waited on a runqueue up to @now, as the scheduler keeps
 * it (see "Events"); 0 without CONFIG_SCHED_INFO. @now is a clock of the
 * task's rq (last_queued is stamped with it).
 */
static u64 sched_info_waited(struct task_struct *p, u64 now)
{
#ifdef CONFIG_SCHED_INFO
	u64 queued = READ_ONCE(p->sched_info.last_queued);
	u64 waited = READ_ONCE(p->sched_info.run_delay);

	if (queued && (s64)(now - queued) > 0)
		waited += now - queued;
	return waited;
#else
	return 0;
#endif
}

/*
 * Account the wait that ends the sleep of @s at @now: the scheduler says
 * @p waited @waited_now - @waited_then since @s's last event; that much
 * time before @now is WAITING, the rest SLEEPING.
 */
static void account_wakeup(struct sl_signals *s, u64 waited_then,
			   u64 waited_now, u64 now, u64 mclock)
{
	u64 waited = waited_now - waited_then, span = now - s->last_ns;

	if (s->state != SL_TASK_SLEEPING || (s64)waited <= 0 || (s64)span <= 0)
		return;
	if (waited > span)
		waited = span;
	sl_signals_event(s, now - waited, mclock, SL_TASK_WAITING,
			 SL_PELT_CAPACITY_SCALE);
}

/* Start tracking @p, in @state at @now; NULL if filtered out or no room. */
static noinline struct sig_task *track(struct task_struct *p, u64 now, int cpu,
			      unsigned int state)
{
	struct sig_task *e;
	unsigned long flags;

	if (!task_matches(p, p->pid, p->tgid, p->comm) ||
	    (READ_ONCE(p->flags) & PF_EXITING))
		return NULL;
	if (READ_ONCE(pool_full)) {
		this_cpu_inc(sig_stats.dropped);
		return NULL;
	}
	raw_spin_lock_irqsave(&tasks_lock, flags);
	track_locked++;
	e = NULL;
	/* exit forgets the task under this lock after PF_EXITING is set */
	if ((READ_ONCE(p->flags) & PF_EXITING) || find(p))
		goto out;
	e = free_list;
	if (!e) {
		WRITE_ONCE(pool_full, true);
		this_cpu_inc(sig_stats.dropped);
		goto out;
	}
	free_list = e->next_free;
	if (!free_list)
		WRITE_ONCE(pool_full, true);
	seqcount_init(&e->seq);
	e->task = p;
	e->cpu = cpu;
	e->pid = p->pid;
	e->tgid = p->tgid;
	e->waited = sched_info_waited(p, now);
	e->model_since_ns = now;
	e->model_err_max = 0;
	e->model_err_at = 0;
	e->model_err_sum = 0;
	e->model_err_n = 0;
	sl_signals_init(&e->s, now, model_clock(cpu), state,
			READ_ONCE(p->se.avg.util_avg));
	hash_add_rcu(tasks, &e->node, (unsigned long)p);
	nr_tracked++;
out:
	raw_spin_unlock_irqrestore(&tasks_lock, flags);
	return e;
}

static void release_rcu(struct rcu_head *rcu)
{
	struct sig_task *e = container_of(rcu, struct sig_task, rcu);
	unsigned long flags;

	raw_spin_lock_irqsave(&tasks_lock, flags);
	e->next_free = free_list;
	free_list = e;
	WRITE_ONCE(pool_full, false);
	raw_spin_unlock_irqrestore(&tasks_lock, flags);
}

static void forget(struct task_struct *p)
{
	struct sig_task *e;
	unsigned long flags;

	raw_spin_lock_irqsave(&tasks_lock, flags);
	e = find(p);
	if (e) {
		hash_del_rcu(&e->node);
		nr_tracked--;
	}
	raw_spin_unlock_irqrestore(&tasks_lock, flags);
	if (e)
		call_rcu(&e->rcu, release_rcu);
}

/* --- probes -------------------------------------------------------------- */

/*
 * Enqueued on another CPU: the kernel has re-based the task's PELT signal
 * there (decayed to the old CPU's last update, attached at the new CPU's
 * clock); restart the model from the kernel's value, and its check after
 * a new warm-up. In @e's write section.
 */
static noinline void migrated(struct sig_task *e, struct task_struct *p,
			      u64 now, u64 mclock, int cpu)
{
	sl_signals_reseed_model(&e->s, now, mclock, READ_ONCE(p->se.avg.util_avg));
	e->model_since_ns = now;
	e->cpu = cpu;
}

/*
 * The signals_task event of a dequeue; @p is current, and this probe the
 * only writer of @e.
 */
static noinline void dequeue_event(struct sig_task *e, struct task_struct *p,
				   u64 now, u64 mclock, int cpu)
{
	struct sl_signal_values v;
	char comm[TASK_COMM_LEN];

	sl_signals_read(&e->s, now, mclock, model_scale(cpu), &v);
	memcpy(comm, p->comm, TASK_COMM_LEN);
	if (entry_matches(e, comm))
		trace_signals_task(0, e->pid, comm, cpu,
				   READ_ONCE(p->se.avg.util_avg),
				   sl_task_util_est(p), v.model, v.burst,
				   v.waiting, v.time);
}

/*
 * @e's task @p enters @state at @now on @cpu, whose model clock reads
 * @mclock. The time since the last event was spent on e->cpu: the same
 * CPU, except for a task switched in (or woken) elsewhere, which did not
 * run meanwhile, so that only the model's decay, about to be re-seeded,
 * uses @cpu's clock. Only the probes write @e, serialised per task.
 */
static __always_inline void entry_event(struct sig_task *e, struct task_struct *p,
					u64 now, u64 mclock, int cpu,
					unsigned int state)
{
	unsigned int old = e->s.state;

	write_seqcount_begin(&e->seq);
	if (state == SL_TASK_RUNNING) {
		if (old == SL_TASK_SLEEPING)
			account_wakeup(&e->s, e->waited, sched_info_waited(p, now),
				       now, mclock);
		e->dequeued_at = 0;
	} else if (state == SL_TASK_SLEEPING) {
		e->waited = sched_info_waited(p, now);
	}
	if (unlikely(e->left_at) && state != SL_TASK_WAITING) {
		this_cpu_add(sig_stats.queued_block_ns, now - e->left_at);
		e->left_at = 0;
	}
	sl_signals_event(&e->s, now, mclock, state, model_scale(cpu));
	if (unlikely(cpu != e->cpu) && state != SL_TASK_SLEEPING)
		migrated(e, p, now, mclock, cpu);
	write_seqcount_end(&e->seq);
	if (state == SL_TASK_SLEEPING && old != SL_TASK_SLEEPING) {
		this_cpu_inc(sig_stats.dequeues);
		if (trace_signals_task_enabled() && READ_ONCE(dequeue_events))
			dequeue_event(e, p, now, mclock, cpu);
	}
}

/* @p enters @state: its entry's event, or it is tracked from now on */
static __always_inline void task_event(struct task_struct *p, u64 now,
					u64 mclock, int cpu, unsigned int state)
{
	struct sig_task *e = find(p);

	if (unlikely(!e)) {
		track(p, now, cpu, state);
		return;
	}
	entry_event(e, p, now, mclock, cpu, state);
}

/*
 * sleep_source 1: @p has left the CPU in a sleeping state at @now. If it
 * was dequeued since it last ran, it has slept since that instant; if not,
 * it is still queued (see "Events").
 */
static void left_blocked(struct task_struct *p, u64 now, u64 mclock, int cpu)
{
	struct sig_task *e = find(p);
	u64 at;

	if (unlikely(!e)) {
		track(p, now, cpu, READ_ONCE(p->on_rq) && !sl_task_delayed(p) ?
		      SL_TASK_WAITING : SL_TASK_SLEEPING);
		return;
	}
	at = e->dequeued_at;
	if (at && (s64)(at - e->s.last_ns) >= 0 && (s64)(now - at) >= 0) {
		u64 lead = now - at;

		this_cpu_inc(sig_stats.lead_n);
		this_cpu_add(sig_stats.lead_ns, lead);
		if (lead > __this_cpu_read(sig_stats.lead_max_ns))
			__this_cpu_write(sig_stats.lead_max_ns, lead);
		/* the time since, on the CPU but off its runqueue, is sleep */
		entry_event(e, p, at, e->dequeued_mclock, cpu, SL_TASK_SLEEPING);
		e->dequeued_at = 0;
		return;
	}
	if (e->s.state == SL_TASK_SLEEPING) {
		entry_event(e, p, now, mclock, cpu, SL_TASK_SLEEPING);
		return;
	}
	entry_event(e, p, now, mclock, cpu, SL_TASK_WAITING);
	e->left_at = now;
	this_cpu_inc(sig_stats.queued_blocks);
}

/*
 * follow_donor: the donor marked RUNNING on @cpu, unless it is @keep, no
 * longer has the CPU. Under @cpu's runqueue lock, and only while it is
 * queued there (see "Events").
 */
static void end_donor(int cpu, u64 now, u64 mclock, struct task_struct *keep)
{
	struct task_struct *d = __this_cpu_read(pelt_donor);
	struct sig_task *e;

	if (!d || d == keep)
		return;
	__this_cpu_write(pelt_donor, NULL);
	e = find(d);
	if (!e || e->s.state != SL_TASK_RUNNING ||
	    !sl_task_queued(e->task) ||
	    task_cpu(e->task) != cpu)
		return;
	entry_event(e, e->task, now, mclock, cpu, SL_TASK_WAITING);
}

/* follow_donor: @donor's context has @cpu, another task executing for it */
static void run_donor(struct task_struct *donor, int cpu, u64 now, u64 mclock)
{
	struct sig_task *e;

	end_donor(cpu, now, mclock, donor);
	__this_cpu_write(pelt_donor, donor);
	this_cpu_inc(sig_stats.donor_runs);
	e = find(donor);
	if (unlikely(!e)) {
		track(donor, now, cpu, SL_TASK_RUNNING);
	} else if (e->s.state != SL_TASK_RUNNING) {
		/* still blocked and queued: its queued block goes on */
		u64 left = e->left_at;

		e->left_at = 0;
		entry_event(e, donor, now, mclock, cpu, SL_TASK_RUNNING);
		e->left_at = left;
	}
}

/*
 * follow_donor: @p left the CPU lending its context to next (run_donor()
 * follows); blocked (not @runnable), it is a queued block from now on.
 */
static void lent_context(struct task_struct *p, u64 now, bool runnable)
{
	struct sig_task *e = find(p);

	if (runnable || !e || e->left_at)
		return;
	e->left_at = now;
	this_cpu_inc(sig_stats.queued_blocks);
}

#if SIG_DONOR_BUILT
/*
 * sched_proxy_decision_tp (patches/ 0001), under @rq's lock: an owner that
 * is already current runs for @donor, and no switch will say so.
 */
static void probe_proxy_decision(void *data, struct rq *rq, int decision,
				 struct task_struct *donor, struct task_struct *p,
				 struct task_struct *owner, int arg)
{
	int cpu = smp_processor_id();
	struct sig_task *e;
	u64 now, mclock;

	if (decision != SCHED_PROXY_RUN_OWNER || !owner || owner != current ||
	    donor == owner)
		return;
	now = SL_READ(rq, rq__clock);
	mclock = model_clock(cpu);
	e = find(owner);
	if (e && e->s.state == SL_TASK_RUNNING)
		entry_event(e, owner, now, mclock, cpu, SL_TASK_WAITING);
	run_donor(donor, cpu, now, mclock);
}
#endif

#if SL_HAS_FUNC___traceiter_sched_dequeue_task_tp
/*
 * sched_dequeue_task_tp (patches/ 0002): @p leaves @rq, whose lock is held
 * and clock updated; with @delayed the fair class keeps it queued, blocked.
 * A dequeue of a task that is not TASK_RUNNING is a sleep: the current
 * task's is noted for the switch that follows; another task's (a blocked
 * one left queued: proxy_deactivate(), or a move, enqueued again at once
 * and split by the wakeup rule) starts its sleep now. A dequeue of a
 * runnable task (a migration, a change of class or priority) is no sleep.
 */
static void probe_dequeue(void *data, struct rq *rq, struct task_struct *p,
			  int flags, bool delayed)
{
	struct sig_task *e;
	u64 now;
	int cpu;

	if (READ_ONCE(p->__state) == TASK_RUNNING)
		return;
	e = find(p);
	if (!e || e->s.state == SL_TASK_SLEEPING)
		return;
	cpu = task_cpu(p);
	now = SL_READ(rq, rq__clock);
	if (p == current) {
		e->dequeued_at = now;
		e->dequeued_mclock = model_clock(cpu);
		return;
	}
	this_cpu_inc(sig_stats.queued_dequeues);
	entry_event(e, p, now, model_clock(cpu), cpu, SL_TASK_SLEEPING);
}
#endif

static void probe_sched_switch(void *data, bool preempt, struct task_struct *prev,
			       struct task_struct *next, unsigned int prev_state)
{
	int cpu = smp_processor_id();
	void *rq = sl_cpu_rq(cpu);
	/* __schedule() has just updated this rq's clock */
	u64 now = SL_READ(rq, rq__clock), mclock = model_clock(cpu);
	/* follow_donor: the donor next executes for, if not itself */
	struct task_struct *donor = NULL;

	if (READ_ONCE(follow_donor)) {
		donor = sl_rq_donor(rq);
		if (donor == next || !donor || is_idle_task(donor))
			donor = NULL;
	}
	if (is_idle_task(prev))
		;
	else if (prev == donor)
		lent_context(prev, now, preempt || prev_state == TASK_RUNNING);
	else if (preempt || prev_state == TASK_RUNNING)
		task_event(prev, now, mclock, cpu, SL_TASK_WAITING);
	else if (READ_ONCE(sleep_at_dequeue))
		left_blocked(prev, now, mclock, cpu);
	else
		task_event(prev, now, mclock, cpu, SL_TASK_SLEEPING);
	if (!is_idle_task(next))
		task_event(next, now, mclock, cpu,
			   donor ? SL_TASK_WAITING : SL_TASK_RUNNING);
	if (!READ_ONCE(follow_donor))
		return;
	if (donor)
		run_donor(donor, cpu, now, mclock);
	else
		end_donor(cpu, now, mclock, next);
}

/* only without CONFIG_SCHED_INFO (see "Events") */
static void __maybe_unused probe_sched_wakeup(void *data, struct task_struct *p)
{
	int cpu = task_cpu(p);

	/* the wakeup has just updated the clock of the rq it enqueued p on */
	task_event(p, SL_READ(sl_cpu_rq(cpu), rq__clock), model_clock(cpu), cpu,
		   SL_TASK_WAITING);
}

/* 7.x passes group_dead too; the kernel's own header says which one */
static void __maybe_unused probe_exit(void *data, struct task_struct *p)
{
	forget(p);
}

static void __maybe_unused probe_exit_group(void *data, struct task_struct *p,
					    bool group_dead)
{
	forget(p);
}

#define EXIT_PROBE \
	__builtin_choose_expr(SL_TP_EXIT_HAS_GROUP_DEAD, probe_exit_group, probe_exit)

static void probe_types_checked(void)
{
	check_trace_callback_type_sched_switch(probe_sched_switch);
	check_trace_callback_type_sched_wakeup(probe_sched_wakeup);
	check_trace_callback_type_sched_wakeup_new(probe_sched_wakeup);
	check_trace_callback_type_sched_process_exit(EXIT_PROBE);
#if SL_HAS_FUNC___traceiter_sched_dequeue_task_tp
	check_trace_callback_type_sched_dequeue_task_tp(probe_dequeue);
#endif
#if SIG_DONOR_BUILT
	check_trace_callback_type_sched_proxy_decision_tp(probe_proxy_decision);
#endif
}

/* sleep_source 1 can be honoured: the kernel has the dequeue tracepoint */
static bool dequeue_tp_found(void)
{
	return SL_HAS_FUNC___traceiter_sched_dequeue_task_tp &&
	       sl_cap_has(SL_CAP_TP_DEQUEUE);
}

/* follow_donor can be honoured (see "Events") */
static bool donor_found(void)
{
	return SIG_DONOR_BUILT && sl_cap_has(SL_CAP_TP_PROXY_DECISION) &&
	       sl_cap_has(SL_CAP_RUNQUEUES);
}

/*
 * sched_dequeue_task_tp, when sleep_at_dequeue: attach (0 or an errno) or
 * detach. Attached before the switch probe and detached after it, so that
 * while a tracked task's switch-out is seen, so is its dequeue: attached
 * after it, a task switched in, dequeued before the dequeue probe came and
 * switched out was taken for a blocked task left queued (WAITING for its
 * whole sleep, and one queued_blocks in a run without proxy execution).
 * The probe only writes entries the others made.
 */
static int dequeue_probe(bool attach)
{
#if SL_HAS_FUNC___traceiter_sched_dequeue_task_tp
	if (!sleep_at_dequeue)
		return 0;
	if (attach)
		return sl_tracepoint_register("sched_dequeue_task_tp",
					      probe_dequeue, NULL);
	sl_tracepoint_unregister("sched_dequeue_task_tp", probe_dequeue, NULL);
#endif
	return 0;
}

/*
 * sched_proxy_decision_tp, when follow_donor: attach (0 or an errno) or
 * detach. After the exit probe: it tracks tasks.
 */
static int decision_probe(bool attach)
{
#if SIG_DONOR_BUILT
	if (!follow_donor)
		return 0;
	if (attach)
		return sl_tracepoint_register("sched_proxy_decision_tp",
					      probe_proxy_decision, NULL);
	sl_tracepoint_unregister("sched_proxy_decision_tp",
				 probe_proxy_decision, NULL);
#endif
	return 0;
}

/* --- walks --------------------------------------------------------------- */

/* entries visited per RCU read-side section, at most (bar one bucket) */
#define SIGNALS_WALK_BATCH	128

/*
 * Call @fn on every hashed entry, under RCU, bucket by bucket; between
 * buckets, every SIGNALS_WALK_BATCH entries, leave RCU and cond_resched().
 * An entry stays in its bucket while hashed and a task is hashed once in
 * its life (see "Tasks"), so each task is visited at most once; one that
 * enters a bucket already visited, or leaves one not yet visited, is
 * missed. Process context.
 */
static void walk_tasks(void (*fn)(struct sig_task *e, void *arg), void *arg)
{
	struct sig_task *e;
	unsigned int n = 0;
	int bkt;

	rcu_read_lock();
	for (bkt = 0; bkt < HASH_SIZE(tasks); bkt++) {
		hlist_for_each_entry_rcu(e, &tasks[bkt], node) {
			fn(e, arg);
			n++;
		}
		if (n >= SIGNALS_WALK_BATCH) {
			rcu_read_unlock();
			cond_resched();
			rcu_read_lock();
			n = 0;
		}
	}
	rcu_read_unlock();
}

/* --- sampling ------------------------------------------------------------ */

struct task_row {
	struct sl_signal_values v;
	char comm[TASK_COMM_LEN];
	int cpu;
	unsigned int state;
	u64 err_max, err_mean, err_at, err_n;
};

/*
 * A consistent copy of @e's signals and CPU; with @split, as of @now (a
 * sleeping task queued again since its last event is waiting: see
 * "Events"). Under RCU (see "Tasks"). False if the probes kept it busy.
 */
static bool snapshot_entry(struct sig_task *e, u64 now, bool split,
			   struct sl_signals *s, int *cpu)
{
	u64 waited;
	int tries;

	for (tries = 0; tries < 8; tries++) {
		unsigned int seq = raw_read_seqcount(&e->seq);

		if (seq & 1) {
			cpu_relax();
			continue;
		}
		*s = e->s;
		*cpu = e->cpu;
		waited = e->waited;
		if (!read_seqcount_retry(&e->seq, seq))
			break;
	}
	if (tries == 8)
		return false;
	if (split && READ_ONCE(e->task->on_rq))
		account_wakeup(s, waited, sched_info_waited(e->task, now), now,
			       model_clock(*cpu));
	return true;
}

/*
 * Compare the model with the kernel's util_avg at the kernel's last update
 * of the task's signal; under RCU (see "Tasks"). Skipped while the model
 * warms up, when the kernel's pair changes under us, or when schedlab's
 * last event is more than a PELT period newer than the kernel's update.
 */
static void check_model(struct sig_task *e, u64 now)
{
	struct sched_avg *sa = &e->task->se.avg;
	struct sl_signals s;
	unsigned long model;
	u64 lut, err;
	s64 ahead;
	long kernel;
	int cpu;

	/*
	 * The kernel writes last_update_time, then util_avg, under a lock we
	 * cannot take: an update under way shows as a change of either
	 * between two reads of both.
	 */
	lut = READ_ONCE(sa->last_update_time);
	kernel = READ_ONCE(sa->util_avg);
	/* the first reads before the re-reads that validate them */
	smp_rmb();
	if (READ_ONCE(sa->last_update_time) != lut ||
	    READ_ONCE(sa->util_avg) != kernel || !lut)
		return;
	if (now - e->model_since_ns < SIGNALS_MODEL_WARMUP_NS ||
	    !snapshot_entry(e, now, false, &s, &cpu))
		return;
	sl_signals_sync(&s);
	ahead = (s64)(s.model.last_update_time - lut);
	if (ahead <= 0)
		model = sl_signals_model_at(&s, lut, model_scale(cpu));
	else if (ahead < SL_PELT_PERIOD_NS)
		/*
		 * Updated at the same event as the kernel (a switch), its
		 * 1024 ns steps in another phase: util_avg moves only at
		 * period boundaries, compare as is.
		 */
		model = s.model.util_avg;
	else
		return;
	err = abs((long)model - kernel);
	if (err > e->model_err_max) {
		e->model_err_max = err;
		e->model_err_at = now - e->model_since_ns;
	}
	e->model_err_sum += err;
	e->model_err_n++;
}

/* under RCU (see "Tasks") */
static bool read_entry(struct sig_task *e, u64 now, struct task_row *r)
{
	struct sl_signals s;

	if (!snapshot_entry(e, now, true, &s, &r->cpu))
		return false;
	sl_signals_read(&s, now, model_clock(r->cpu), model_scale(r->cpu), &r->v);
	/* the task's own comm: it may have changed (exec) since it last ran */
	memcpy(r->comm, e->task->comm, TASK_COMM_LEN);
	r->comm[TASK_COMM_LEN - 1] = '\0';
	r->state = s.state;
	r->err_max = READ_ONCE(e->model_err_max);
	r->err_n = READ_ONCE(e->model_err_n);
	r->err_at = READ_ONCE(e->model_err_at);
	r->err_mean = sl_mean(READ_ONCE(e->model_err_sum), r->err_n, 1);
	return true;
}

/*
 * The sampler: every sample_ms while it has a user (the signals_task or
 * signals_cpu event enabled, or check_model set); otherwise it only looks
 * again every SIGNALS_IDLE_SAMPLE_MS, at no cost to the tracked tasks.
 */
#define SIGNALS_IDLE_SAMPLE_MS	250

/* add @r to the sums of its CPU in @acc (nr_cpu_ids of them) */
static void add_to_sum(struct cpu_sum *acc, const struct task_row *r)
{
	struct cpu_sum *s;

	if (r->cpu < 0 || r->cpu >= nr_cpu_ids)
		return;
	s = &acc[r->cpu];
	s->model += r->v.model;
	s->burst += r->v.burst;
	s->waiting += r->v.waiting;
	s->time += r->v.time;
	s->tasks++;
}

struct sample_walk {
	u64 now;
	bool traced, check;
};

/* one entry of a sample; under RCU */
static void sample_entry(struct sig_task *e, void *arg)
{
	struct sample_walk *w = arg;
	struct task_row r;

	if (w->check)
		check_model(e, w->now);
	if (!w->traced || !read_entry(e, w->now, &r) || !entry_matches(e, r.comm))
		return;
	add_to_sum(sums, &r);
	trace_signals_task(1, e->pid, r.comm, r.cpu,
			   READ_ONCE(e->task->se.avg.util_avg),
			   sl_task_util_est(e->task), r.v.model, r.v.burst,
			   r.v.waiting, r.v.time);
}

static void sample_fn(struct work_struct *work)
{
	struct sample_walk w = {
		.now = local_clock(),
		.traced = trace_signals_task_enabled() || trace_signals_cpu_enabled(),
		.check = READ_ONCE(check_model_on),
	};
	struct sl_cpu_signals cs;
	int cpu;

	if (!w.traced && !w.check) {
		schedule_delayed_work(&sample_work,
				      msecs_to_jiffies(SIGNALS_IDLE_SAMPLE_MS));
		return;
	}
	memset(sums, 0, nr_cpu_ids * sizeof(*sums));
	walk_tasks(sample_entry, &w);
	for_each_online_cpu(cpu) {
		if (!w.traced)
			break;
		sl_read_cpu_signals(cpu, &cs);
		trace_signals_cpu(cpu, cs.capacity, cs.util_avg, sums[cpu].model,
				  sums[cpu].burst, sums[cpu].waiting, sums[cpu].time,
				  sums[cpu].tasks);
	}
	WRITE_ONCE(sample_ns, sample_ns + (local_clock() - w.now));
	WRITE_ONCE(sample_runs, sample_runs + 1);
	schedule_delayed_work(&sample_work,
			      msecs_to_jiffies(READ_ONCE(sample_ms)) ?: 1);
}

/* --- enable / disable ---------------------------------------------------- */

/*
 * Registered in this order, unregistered in the reverse: the exit probe is
 * attached before anything can track a task and detached after nothing
 * can. Otherwise a task tracked by the first sched_switch could pass
 * sched_process_exit before its probe was attached, stay hashed after its
 * task_struct was freed, and be read by the sampler: KASAN caught exactly
 * that (slab-use-after-free in snapshot_entry() from sample_fn()) on the
 * debug kernel during r10's load/enable/unload cycles.
 */
static const struct {
	const char *tp;
	void *probe;
} probes[] = {
	{ "sched_process_exit", (void *)EXIT_PROBE },
	{ "sched_switch", probe_sched_switch },
#ifndef CONFIG_SCHED_INFO
	{ "sched_wakeup", probe_sched_wakeup },
	{ "sched_wakeup_new", probe_sched_wakeup },
#endif
};

/* the first @n of probes[], then the dequeue probe; wait for them all */
static void unregister_probes(int n)
{
	while (n-- > 0)
		sl_tracepoint_unregister(probes[n].tp, probes[n].probe, NULL);
	dequeue_probe(false);
	tracepoint_synchronize_unregister();
}

static void forget_all(void)
{
	struct hlist_node *tmp;
	struct sig_task *e;
	unsigned long flags;
	int bkt;

	raw_spin_lock_irqsave(&tasks_lock, flags);
	hash_for_each_safe(tasks, bkt, tmp, e, node)
		hash_del_rcu(&e->node);
	nr_tracked = 0;
	free_list = NULL;
	raw_spin_unlock_irqrestore(&tasks_lock, flags);
}

static int signals_enable(struct sl_feature *f)
{
	int i, ret = 0;

	pool = vzalloc(array_size(max_tasks, sizeof(*pool)));
	sums = kcalloc(nr_cpu_ids, sizeof(*sums), GFP_KERNEL);
	if (!pool || !sums) {
		ret = -ENOMEM;
		goto fail_mem;
	}
	free_list = NULL;
	for (i = max_tasks - 1; i >= 0; i--) {
		pool[i].next_free = free_list;
		free_list = &pool[i];
	}
	pool_size = max_tasks;
	WRITE_ONCE(pool_full, false);
	for_each_possible_cpu(i)
		memset(per_cpu_ptr(&sig_stats, i), 0, sizeof(struct sig_stats));
	sample_runs = 0;
	sample_ns = 0;
	track_locked = 0;
	atomic64_set(&report_walks, 0);
	sleep_at_dequeue = sleep_source == 1 && dequeue_tp_found();
	follow_donor = sleep_at_dequeue && donor_found();
	for_each_possible_cpu(i)
		per_cpu(pelt_donor, i) = NULL;
	ret = dequeue_probe(true);
	if (ret)
		goto fail_mem;
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		ret = sl_tracepoint_register(probes[i].tp, probes[i].probe, NULL);
		if (ret)
			goto fail_probes;
	}
	ret = decision_probe(true);
	if (ret)
		goto fail_probes;
	schedule_delayed_work(&sample_work, 0);
	return 0;

fail_probes:
	unregister_probes(i);
	forget_all();
	rcu_barrier();
fail_mem:
	vfree(pool);
	kfree(sums);
	pool = NULL;
	sums = NULL;
	return ret;
}

static void signals_disable(struct sl_feature *f)
{
	/*
	 * The sampler first: once the exit probe is gone, an entry may outlive
	 * its task until forget_all().
	 */
	cancel_delayed_work_sync(&sample_work);
	decision_probe(false);
	unregister_probes(ARRAY_SIZE(probes));
	forget_all();
	/* readers of the hash, then the pool's release callbacks */
	synchronize_rcu();
	rcu_barrier();
	vfree(pool);
	kfree(sums);
	pool = NULL;
	sums = NULL;
}

static int signals_feature_init(struct sl_feature *f)
{
	INIT_DELAYED_WORK(&sample_work, sample_fn);
	if (0)
		probe_types_checked();
	return 0;
}

static void signals_feature_exit(struct sl_feature *f)
{
	/* release_rcu() is module code */
	rcu_barrier();
}

/* --- debugfs ------------------------------------------------------------- */

static const char * const state_names[] = { "sleep", "wait", "run" };

/*
 * The reports (report.h). Each pass (a read from offset 0: the first, or
 * after a seek back) takes one walk of the table into a snapshot, then the
 * rows are printed from it one at a time: reads of any size, and
 * seq_file's retries with a bigger buffer, print the same snapshot without
 * walking again.
 */
struct task_snap_row {
	struct task_row r;
	unsigned long util_avg;
	long util_est;
	pid_t pid, tgid;
};

struct tasks_snap {
	struct task_snap_row *rows;
	unsigned int n, cap;	/* rows taken, room for */
	u64 missed;		/* rows beyond cap: the table changed meanwhile */
	u64 now;
};

/* one entry into the snapshot; under RCU */
static void snap_task(struct sig_task *e, void *arg)
{
	struct tasks_snap *t = arg;
	struct task_snap_row *row;

	if (t->n == t->cap) {
		t->missed++;
		return;
	}
	row = &t->rows[t->n];
	if (!read_entry(e, t->now, &row->r) || !entry_matches(e, row->r.comm))
		return;
	row->pid = e->pid;
	row->tgid = e->tgid;
	row->util_avg = READ_ONCE(e->task->se.avg.util_avg);
	row->util_est = sl_task_util_est(e->task);
	t->n++;
}

static long tasks_take(void *priv)
{
	struct tasks_snap *t = priv;
	unsigned int cap;

	t->n = 0;
	t->missed = 0;
	t->now = local_clock();
	if (!sl_feature_enabled(&signals_feature))
		return 0;
	/* room for the whole pool: each task once (see walk_tasks()) */
	cap = READ_ONCE(pool_size);
	if (cap > t->cap) {
		kvfree(t->rows);
		t->rows = kvmalloc_array(cap, sizeof(*t->rows), GFP_KERNEL);
		t->cap = t->rows ? cap : 0;
		if (!t->rows)
			return -ENOMEM;
	}
	atomic64_inc(&report_walks);
	walk_tasks(snap_task, t);
	return t->n;
}

static void tasks_release(void *priv)
{
	kvfree(((struct tasks_snap *)priv)->rows);
}

static const struct sl_rcol tasks_cols[] = {
	{ "pid", NULL, SL_RK_S64, 7, SL_RCOL_LEFT },
	{ "tgid", NULL, SL_RK_S64, 7, SL_RCOL_LEFT },
	{ "comm", NULL, SL_RK_COMM, 16, SL_RCOL_LEFT },
	{ "cpu", NULL, SL_RK_S64, 3 },
	{ "state", NULL, SL_RK_STR, 5, SL_RCOL_LEFT },
	{ "util_avg", "util", SL_RK_U64, 8 },
	{ "util_est", "util", SL_RK_S64, 8 },
	{ "model", "util", SL_RK_U64, 6 },
	{ "burst", "util", SL_RK_U64, 6 },
	{ "waiting", "util", SL_RK_U64, 7 },
	{ "time", "util", SL_RK_U64, 6 },
	{ "run_us", "us", SL_RK_U64, 11 },
	{ "wait_us", "us", SL_RK_U64, 11 },
	{ "sleep_us", "us", SL_RK_U64, 11 },
	{ "err_max", "util", SL_RK_U64, 7 },
	{ "err_mean", "util", SL_RK_U64, 8 },
	{ "err_n", NULL, SL_RK_U64, 7 },
	{ "err_at_us", "us", SL_RK_U64, 11 },
};

static void tasks_head(void *priv, struct sl_rhead *h)
{
	sl_rnote(h, "util_avg/util_est: the kernel's; model: schedlab's PELT of util_avg; err: |model - util_avg| at the kernel's PELT updates");
	sl_rfact_u64(h, "missed", ((struct tasks_snap *)priv)->missed);
}

static void tasks_tail(void *priv, struct sl_rhead *h)
{
	struct tasks_snap *t = priv;

	if (t->missed)
		sl_rnote(h, "%llu more tasks not shown: the table changed during the walk",
			 t->missed);
}

static void tasks_row(void *priv, unsigned long i, struct sl_rval *v)
{
	const struct task_snap_row *row = &((struct tasks_snap *)priv)->rows[i];
	const struct task_row *r = &row->r;

	sl_rv_s64(&v[0], row->pid);
	sl_rv_s64(&v[1], row->tgid);
	sl_rv_str(&v[2], r->comm);
	sl_rv_s64(&v[3], r->cpu);
	sl_rv_str(&v[4], state_names[min_t(unsigned int, r->state, 2)]);
	sl_rv_u64(&v[5], row->util_avg);
	sl_rv_s64(&v[6], row->util_est);
	sl_rv_u64(&v[7], r->v.model);
	sl_rv_u64(&v[8], r->v.burst);
	sl_rv_u64(&v[9], r->v.waiting);
	sl_rv_u64(&v[10], r->v.time);
	sl_rv_u64(&v[11], div_u64(r->v.running_ns, NSEC_PER_USEC));
	sl_rv_u64(&v[12], div_u64(r->v.waiting_ns, NSEC_PER_USEC));
	sl_rv_u64(&v[13], div_u64(r->v.sleeping_ns, NSEC_PER_USEC));
	if (r->err_n) {
		sl_rv_u64(&v[14], r->err_max);
		sl_rv_u64(&v[15], r->err_mean);
		sl_rv_u64(&v[17], div_u64(r->err_at, NSEC_PER_USEC));
	} else {
		sl_rv_none(&v[14]);
		sl_rv_none(&v[15]);
		sl_rv_none(&v[17]);
	}
	sl_rv_u64(&v[16], r->err_n);
}

static const struct sl_report tasks_report = {
	.feature = "signals",
	.name = "tasks",
	.mode = 0444,
	.layout = SL_RL_TABLE,
	.cols = tasks_cols,
	.ncols = ARRAY_SIZE(tasks_cols),
	.priv_size = sizeof(struct tasks_snap),
	.release = tasks_release,
	.take = tasks_take,
	.head = tasks_head,
	.tail = tasks_tail,
	.row = tasks_row,
};

/* the cpus report: per online CPU, the sums over one walk */
struct cpus_snap {
	struct cpu_sum *sums;			/* nr_cpu_ids */
	struct sl_cpu_signals *cs;		/* nr_cpu_ids */
	int *cpu;				/* the online CPUs, n of them */
	unsigned int n;
	u64 now;
};

static void snap_cpu_sum(struct sig_task *e, void *arg)
{
	struct cpus_snap *c = arg;
	struct task_row r;

	if (read_entry(e, c->now, &r) && entry_matches(e, r.comm))
		add_to_sum(c->sums, &r);
}

static long cpus_take(void *priv)
{
	struct cpus_snap *c = priv;
	int cpu;

	memset(c->sums, 0, nr_cpu_ids * sizeof(*c->sums));
	c->now = local_clock();
	if (sl_feature_enabled(&signals_feature)) {
		atomic64_inc(&report_walks);
		walk_tasks(snap_cpu_sum, c);
	}
	c->n = 0;
	for_each_online_cpu(cpu) {
		sl_read_cpu_signals(cpu, &c->cs[cpu]);
		c->cpu[c->n++] = cpu;
		if (c->n == nr_cpu_ids)
			break;
	}
	return c->n;
}

static void cpus_release(void *priv)
{
	struct cpus_snap *c = priv;

	kvfree(c->sums);
	kvfree(c->cs);
	kvfree(c->cpu);
}

static int cpus_open(void *priv)
{
	struct cpus_snap *c = priv;

	c->sums = kvcalloc(nr_cpu_ids, sizeof(*c->sums), GFP_KERNEL);
	c->cs = kvcalloc(nr_cpu_ids, sizeof(*c->cs), GFP_KERNEL);
	c->cpu = kvcalloc(nr_cpu_ids, sizeof(*c->cpu), GFP_KERNEL);
	if (!c->sums || !c->cs || !c->cpu) {
		cpus_release(c);
		return -ENOMEM;
	}
	return 0;
}

static const struct sl_rcol cpus_cols[] = {
	{ "cpu", NULL, SL_RK_S64, 4, SL_RCOL_LEFT },
	{ "capacity", "util", SL_RK_U64, 8 },
	{ "cap_orig", "util", SL_RK_U64, 8 },
	{ "cfs_util_avg", "util", SL_RK_U64, 12 },
	{ "sum_model", "util", SL_RK_U64, 9 },
	{ "sum_burst", "util", SL_RK_U64, 9 },
	{ "sum_waiting", "util", SL_RK_U64, 11 },
	{ "sum_time", "util", SL_RK_U64, 8 },
	{ "tasks", NULL, SL_RK_U64, 5 },
};

static void cpus_head(void *priv, struct sl_rhead *h)
{
	sl_rnote(h, "per CPU: the kernel's CFS util_avg and capacity, and the sums of the shown tasks' signals (tasks last on that CPU)");
}

static void put_signal(struct sl_rval *v, u64 x)
{
	if (x == SL_SIGNAL_NONE)
		sl_rv_none(v);
	else
		sl_rv_u64(v, x);
}

static void cpus_row(void *priv, unsigned long i, struct sl_rval *v)
{
	struct cpus_snap *c = priv;
	int cpu = c->cpu[i];
	const struct sl_cpu_signals *cs = &c->cs[cpu];
	const struct cpu_sum *s = &c->sums[cpu];

	sl_rv_s64(&v[0], cpu);
	put_signal(&v[1], cs->capacity);
	put_signal(&v[2], cs->capacity_orig);
	put_signal(&v[3], cs->util_avg);
	sl_rv_u64(&v[4], s->model);
	sl_rv_u64(&v[5], s->burst);
	sl_rv_u64(&v[6], s->waiting);
	sl_rv_u64(&v[7], s->time);
	sl_rv_u64(&v[8], s->tasks);
}

static const struct sl_report cpus_report = {
	.feature = "signals",
	.name = "cpus",
	.mode = 0444,
	.layout = SL_RL_TABLE,
	.cols = cpus_cols,
	.ncols = ARRAY_SIZE(cpus_cols),
	.priv_size = sizeof(struct cpus_snap),
	.open = cpus_open,
	.release = cpus_release,
	.take = cpus_take,
	.head = cpus_head,
	.row = cpus_row,
};

/* the statistics: one record */
struct stats_snap {
	u64 v[8];
	/* sleep_source 1 (see "Events"); lead/queued_block: none without */
	bool at_dequeue;
	u64 lead_n, lead_ns, lead_max_ns, queued_blocks, queued_block_ns;
	u64 queued_dequeues;
	bool donor;
	u64 donor_runs;
};

static const struct sl_rcol stats_cols[] = {
	{ "tracked", NULL, SL_RK_U64 },
	{ "max_tasks", NULL, SL_RK_U64 },
	{ "dropped", NULL, SL_RK_U64 },
	{ "track_locked", NULL, SL_RK_U64 },
	{ "dequeues", NULL, SL_RK_U64 },
	{ "samples", NULL, SL_RK_U64 },
	{ "sample_mean_us", "us", SL_RK_U64 },
	{ "report_walks", NULL, SL_RK_U64 },
	{ "model_clock", NULL, SL_RK_STR },
	{ "sleep_source", NULL, SL_RK_STR },
	{ "sleeps_at_dequeue", NULL, SL_RK_U64 },
	{ "dequeue_lead_mean_ns", "ns", SL_RK_U64 },
	{ "dequeue_lead_max_ns", "ns", SL_RK_U64 },
	{ "queued_blocks", NULL, SL_RK_U64 },
	{ "queued_block_mean_us", "us", SL_RK_U64 },
	{ "queued_dequeues", NULL, SL_RK_U64 },
	{ "running_source", NULL, SL_RK_STR },
	{ "donor_runs", NULL, SL_RK_U64 },
};

#define SIG_STAT(field) sl_percpu_sum(&sig_stats, offsetof(struct sig_stats, field))

static long stats_take(void *priv)
{
	struct stats_snap *st = priv;
	u64 runs = READ_ONCE(sample_runs);
	int cpu;

	st->v[0] = READ_ONCE(nr_tracked);
	st->v[1] = max_tasks;
	st->v[2] = sl_percpu_sum(&sig_stats, offsetof(struct sig_stats, dropped));
	st->v[3] = READ_ONCE(track_locked);
	st->v[4] = sl_percpu_sum(&sig_stats, offsetof(struct sig_stats, dequeues));
	st->v[5] = runs;
	st->v[6] = sl_mean(READ_ONCE(sample_ns), runs, NSEC_PER_USEC);
	st->v[7] = atomic64_read(&report_walks);
	st->at_dequeue = sleep_source == 1 && dequeue_tp_found();
	st->lead_n = SIG_STAT(lead_n);
	st->lead_ns = SIG_STAT(lead_ns);
	st->lead_max_ns = 0;
	for_each_possible_cpu(cpu)
		st->lead_max_ns = max(st->lead_max_ns,
				      READ_ONCE(per_cpu(sig_stats, cpu).lead_max_ns));
	st->queued_blocks = SIG_STAT(queued_blocks);
	st->queued_block_ns = SIG_STAT(queued_block_ns);
	st->queued_dequeues = SIG_STAT(queued_dequeues);
	st->donor = st->at_dequeue && donor_found();
	st->donor_runs = SIG_STAT(donor_runs);
	return 1;
}

static void stats_head(void *priv, struct sl_rhead *h)
{
	struct stats_snap *st = priv;

	sl_rnote(h, "model_clock: rq_clock_pelt (invariance in the clock), wall_scaled (wall clock scaled by rq->cpu_capacity_orig) or wall_unscaled");
	sl_rnote(h, "sleep_source: dequeue (a sleep begins at the task's dequeue, sched_dequeue_task_tp) or sched_switch; dequeue_lead: how far the dequeue preceded the switch; queued_blocks: switches out of a blocked task left queued (a proxy-execution donor), WAITING (or RUNNING while its context runs), not asleep, for queued_block_mean_us each, until dequeued or run itself; queued_dequeues: such tasks dequeued later; running_source: donor (with proxy execution, the task whose context the CPU runs is RUNNING, as for the kernel's PELT; the owner executing for it WAITING) or curr (the task executing); donor_runs: switches and decisions that ran a donor's context");
	if (sleep_source == 1 && !st->at_dequeue)
		sl_rnote(h, "sleep_source 1 asked, but this kernel has no sched_dequeue_task_tp: sleeps begin at sched_switch");
}

static void stats_row(void *priv, unsigned long i, struct sl_rval *v)
{
	struct stats_snap *st = priv;
	int k;

	for (k = 0; k < ARRAY_SIZE(st->v); k++)
		sl_rv_u64(&v[k], st->v[k]);
	sl_rv_str(&v[8], SL_HAS_rq__clock_pelt && SL_HAS_rq__lost_idle_time ?
		  "rq_clock_pelt" : SL_HAS_rq__cpu_capacity_orig ? "wall_scaled" :
		  "wall_unscaled");
	sl_rv_str(&v[9], st->at_dequeue ? "dequeue" : "sched_switch");
	sl_rv_str(&v[16], st->donor ? "donor" : "curr");
	if (st->donor)
		sl_rv_u64(&v[17], st->donor_runs);
	else
		sl_rv_none(&v[17]);
	if (!st->at_dequeue) {
		for (k = 10; k < 16; k++)
			sl_rv_none(&v[k]);
		return;
	}
	sl_rv_u64(&v[10], st->lead_n);
	if (st->lead_n) {
		sl_rv_u64(&v[11], sl_mean(st->lead_ns, st->lead_n, 1));
		sl_rv_u64(&v[12], st->lead_max_ns);
	} else {
		sl_rv_none(&v[11]);
		sl_rv_none(&v[12]);
	}
	sl_rv_u64(&v[13], st->queued_blocks);
	if (st->queued_blocks)
		sl_rv_u64(&v[14], sl_mean(st->queued_block_ns, st->queued_blocks,
					  NSEC_PER_USEC));
	else
		sl_rv_none(&v[14]);
	sl_rv_u64(&v[15], st->queued_dequeues);
}

static const struct sl_report stats_report = {
	.feature = "signals",
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

static int signals_debugfs(struct sl_feature *f, struct dentry *dir)
{
	sl_report_create(dir, &tasks_report);
	sl_report_create(dir, &cpus_report);
	sl_report_create(dir, &stats_report);
	return 0;
}

/* --- parameters ---------------------------------------------------------- */

static int set_filter_comm(struct sl_feature *f, const char *val)
{
	unsigned long flags;

	write_seqlock_irqsave(&filter_comm_lock, flags);
	strscpy(filter_comm, val, sizeof(filter_comm));
	write_sequnlock_irqrestore(&filter_comm_lock, flags);
	return 0;
}

static void get_filter_comm(struct sl_feature *f, char *buf, size_t size)
{
	char tmp[TASK_COMM_LEN];

	filter_comm_copy(tmp);
	strscpy(buf, tmp, size);
}

static const struct sl_param signals_params[] = {
	{
		.name = "sample_ms",
		.help = "period of the signals_task/signals_cpu sample events",
		.value = &sample_ms, .min = 1, .max = 10000, .live = true,
	},
	{
		.name = "dequeue_events",
		.help = "also write a signals_task event at every dequeue of a tracked task (1), not only at samples (0)",
		.value = &dequeue_events, .min = 0, .max = 1, .live = true,
	},
	{
		.name = "sleep_source",
		.help = "where a sleep begins: 0 sched_switch, 1 the task's dequeue where the kernel has sched_dequeue_task_tp (else sched_switch), and a proxy donor's context runs as for PELT where it has rq->donor and sched_proxy_decision_tp; set while disabled",
		.value = &sleep_source, .min = 0, .max = 1,
	},
	{
		.name = "check_model",
		.help = "compare the model with the kernel's util_avg at each sample (err_* columns)",
		.value = &check_model_on, .min = 0, .max = 1, .live = true,
	},
	{
		.name = "max_tasks",
		.help = "tasks tracked at most (set while disabled)",
		.value = &max_tasks, .min = 16, .max = 65536,
	},
	{
		.name = "filter_pid",
		.help = "track and show only this pid or tgid (0: all)",
		.value = &filter_pid, .min = 0, .max = PID_MAX_LIMIT, .live = true,
	},
	{
		.name = "filter_cgroup",
		.help = "track and show only tasks in this cgroup v2 (its id, the directory's inode number; 0: all)",
		.value = &filter_cgroup, .min = 0, .max = S64_MAX, .live = true,
	},
	{
		.name = "filter_comm",
		.help = "track and show only tasks with this comm (empty: all)",
		.str_size = TASK_COMM_LEN, .live = true,
		.set_str = set_filter_comm, .get_str = get_filter_comm,
	},
	{ }
};

struct sl_feature signals_feature = {
	.name = "signals",
	.summary = "per-task util_burst, waiting_avg, time-domain util and a PELT model beside the kernel's util_avg/util_est",
	.needs = SL_CAP(SL_CAP_RUNQUEUES) | SL_CAP(SL_CAP_TP_SCHED_SWITCH) |
#ifndef CONFIG_SCHED_INFO
		 SL_CAP(SL_CAP_TP_SCHED_WAKEUP) | SL_CAP(SL_CAP_TP_SCHED_WAKEUP_NEW) |
#endif
		 SL_CAP(SL_CAP_TP_SCHED_PROCESS_EXIT),
	.init = signals_feature_init,
	.exit = signals_feature_exit,
	.enable = signals_enable,
	.disable = signals_disable,
	.debugfs = signals_debugfs,
	.params = signals_params,
};
