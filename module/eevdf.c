// SPDX-License-Identifier: GPL-2.0
/*
 * eevdf: a live EEVDF verifier (docs/eevdf.md).
 *
 * At every sched_switch to a fair task, with the local runqueue lock held
 * (the state is as the pick left it: __schedule() holds the lock from the
 * pick to the switch, and the runqueue clock does not move in between),
 * the verifier copies the picked entity, its runqueue's cached sums and
 * curr into its own structures (eevdf_core.h) and checks the EEVDF
 * invariants on the copy (eevdf_core.c): O(1) ones at every switch, the
 * O(queue) ones (a walk of the tree, bounded by EV_MAX_WALK) every
 * sample_every-th switch of a CPU. Where the kernel is hierarchical (one
 * tree per cgroup level), every level of the picked task's parents is
 * checked; where it keeps one flat tree per CPU, that tree.
 *
 * Cost on the switch path: per-CPU counters, no lock; a violation takes the
 * log's lock to keep its context (rare by definition). Nothing of the
 * kernel's is written: a mutation mode perturbs the verifier's own copy.
 */
#define pr_fmt(fmt) "schedlab: eevdf: " fmt

#include <linux/debugfs.h>
#include <linux/kallsyms.h>
#include <linux/percpu.h>
#include <linux/rbtree.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include <trace/events/sched.h>	/* probe prototype, checked below */

#include "eevdf.h"
#include "eevdf_core.h"
#include "compat.h"
#include "report.h"
#include "sched_fields.h"
#include "schedlab_trace.h"

/* --- the kernel's layout: one accessor per field ------------------------ */

/*
 * Which fields back the model (from the target kernel's BTF):
 *  - a flat runqueue (one tree per CPU, tasks only) keeps each task's
 *    hierarchical weight in sched_entity::h_load; a hierarchical one weighs
 *    an entity by sched_entity::load at its own level;
 *  - the cached sums are avg_vruntime/avg_load or sum_w_vruntime/
 *    sum_weight; where cfs_rq::sum_shift exists they are kept at full
 *    weight (rescaled by sum_shift on overflow), else at scale_load_down().
 */
#define EV_FLAT		SL_HAS_sched_entity__h_load__weight
#if EV_FLAT
#define EV_SE_W		sched_entity__h_load__weight
#define EV_SE_INV	sched_entity__h_load__inv_weight
#define EV_HAS_W	(SL_HAS_sched_entity__h_load__weight && SL_HAS_sched_entity__h_load__inv_weight)
#else
#define EV_SE_W		sched_entity__load__weight
#define EV_SE_INV	sched_entity__load__inv_weight
#define EV_HAS_W	(SL_HAS_sched_entity__load__weight && SL_HAS_sched_entity__load__inv_weight)
#endif
#if SL_HAS_cfs_rq__sum_w_vruntime && SL_HAS_cfs_rq__sum_weight
#define EV_CFS_SUM	cfs_rq__sum_w_vruntime
#define EV_CFS_W	cfs_rq__sum_weight
#define EV_HAS_SUMS	1
#elif SL_HAS_cfs_rq__avg_vruntime && SL_HAS_cfs_rq__avg_load
#define EV_CFS_SUM	cfs_rq__avg_vruntime
#define EV_CFS_W	cfs_rq__avg_load
#define EV_HAS_SUMS	1
#else
#define EV_HAS_SUMS	0
#endif
#define EV_HIER		(!EV_FLAT && SL_HAS_sched_entity__parent && SL_HAS_sched_entity__cfs_rq)

#define EV_HAVE (SL_HAS_task_struct__se && EV_HAS_W && EV_HAS_SUMS && \
		 SL_HAS_sched_entity__vruntime && SL_HAS_sched_entity__deadline && \
		 SL_HAS_sched_entity__vlag && SL_HAS_sched_entity__slice && \
		 SL_HAS_sched_entity__run_node && SL_HAS_sched_entity__min_vruntime && \
		 SL_HAS_sched_entity__min_slice && SL_HAS_sched_entity__on_rq && \
		 SL_HAS_cfs_rq__zero_vruntime && SL_HAS_cfs_rq__tasks_timeline && \
		 SL_HAS_cfs_rq__curr && SL_HAS_rq__cfs && \
		 SL_HAS_ENUM___SCHED_FEAT_RUN_TO_PARITY && \
		 SL_HAS_ENUM___SCHED_FEAT_PREEMPT_SHORT && \
		 SL_HAS_ENUM___SCHED_FEAT_NEXT_BUDDY && SL_HAS_ENUM___SCHED_FEAT_PICK_BUDDY)

/* SL_READ with a field named by one of the macros above (expanded first) */
#define EV_READ(base, id)	SL_READ(base, id)

#define EV_MAX_WALK	256	/* tree entities copied per sampled check */
#define EV_MAX_LEVELS	16	/* cgroup levels followed */

#if EV_HAVE

struct sched_entity;	/* only ever reached through the layout */

static inline void *task_se(struct task_struct *p)
{
	return SL_PTR(p, task_struct__se);
}

static inline struct task_struct *se_task(void *se)
{
	return (struct task_struct *)((char *)se - SL_OFF_task_struct__se);
}

static inline void *node_se(struct rb_node *n)
{
	return (char *)n - SL_OFF_sched_entity__run_node;
}

static inline struct rb_node *se_node(void *se)
{
	return SL_PTR(se, sched_entity__run_node);
}

static inline u64 se_vruntime(void *se) { return SL_READ(se, sched_entity__vruntime); }
static inline u64 se_deadline(void *se) { return SL_READ(se, sched_entity__deadline); }
static inline s64 se_vlag(void *se) { return (s64)SL_READ(se, sched_entity__vlag); }
static inline u64 se_slice(void *se) { return SL_READ(se, sched_entity__slice); }
static inline u64 se_weight(void *se) { return EV_READ(se, EV_SE_W); }
static inline u32 se_inv_weight(void *se) { return EV_READ(se, EV_SE_INV); }
static inline u8 se_on_rq(void *se) { return SL_READ(se, sched_entity__on_rq); }
static inline u64 se_min_vruntime(void *se) { return SL_READ(se, sched_entity__min_vruntime); }
static inline u64 se_min_slice(void *se) { return SL_READ(se, sched_entity__min_slice); }

static inline u64 se_max_slice(void *se)
{
#if SL_HAS_sched_entity__max_slice
	return SL_READ(se, sched_entity__max_slice);
#else
	return 0;
#endif
}

static inline u8 se_delayed(void *se)
{
#if SL_HAS_sched_entity__sched_delayed
	return SL_READ(se, sched_entity__sched_delayed);
#else
	return 0;
#endif
}

static inline u8 se_custom_slice(void *se)
{
#if SL_HAS_sched_entity__custom_slice
	return SL_READ(se, sched_entity__custom_slice);
#else
	return 0;
#endif
}

static inline u8 se_rel_deadline(void *se)
{
#if SL_HAS_sched_entity__rel_deadline
	return SL_READ(se, sched_entity__rel_deadline);
#else
	return 0;
#endif
}

static inline u64 se_vprot(void *se)
{
#if SL_HAS_sched_entity__vprot
	return SL_READ(se, sched_entity__vprot);
#else
	return 0;
#endif
}

static inline void *se_parent(void *se)
{
#if EV_HIER
	return (void *)(unsigned long)SL_READ(se, sched_entity__parent);
#else
	return NULL;
#endif
}

/* a task in a cgroup below the root (its entity has a parent) */
static inline bool se_in_group(void *se)
{
#if SL_HAS_sched_entity__parent
	return SL_READ(se, sched_entity__parent);
#else
	return false;
#endif
}

/* the runqueue the entity is queued on (hierarchical) */
static inline void *se_cfs_rq(void *se)
{
#if EV_HIER
	return (void *)(unsigned long)SL_READ(se, sched_entity__cfs_rq);
#else
	return NULL;
#endif
}

/* a task's entity (not a group's) */
static inline bool se_is_task(void *se)
{
#if SL_HAS_sched_entity__my_q
	return !SL_READ(se, sched_entity__my_q);
#else
	return true;
#endif
}

static inline u64 cfs_zero_vruntime(void *q) { return SL_READ(q, cfs_rq__zero_vruntime); }
static inline s64 cfs_sum(void *q) { return (s64)EV_READ(q, EV_CFS_SUM); }
static inline u64 cfs_weight(void *q) { return EV_READ(q, EV_CFS_W); }

static inline u32 cfs_sum_shift(void *q)
{
#if SL_HAS_cfs_rq__sum_shift
	return SL_READ(q, cfs_rq__sum_shift);
#else
	return 0;
#endif
}

static inline void *cfs_curr(void *q)
{
	return (void *)(unsigned long)SL_READ(q, cfs_rq__curr);
}

static inline struct rb_root *cfs_tree(void *q)
{
	/* struct rb_root_cached starts with its struct rb_root */
	return SL_PTR(q, cfs_rq__tasks_timeline);
}

static inline void *cpu_cfs_rq(int cpu)
{
	return SL_PTR(sl_cpu_rq(cpu), rq__cfs);
}

/*
 * The entity that will be curr of its runqueue at the next pick: the
 * donor's (rq->donor, the scheduling context) where the kernel has proxy
 * execution, which may be another task than next (next runs on its
 * behalf, and is prev at that pick); else next's. Called under the
 * runqueue's lock at the switch; the pointer is only compared later.
 */
static inline void *switch_pick_curr(struct task_struct *next, int cpu)
{
	struct task_struct *donor = sl_rq_donor(sl_cpu_rq(cpu));

	return task_se(donor ?: next);
}

#endif /* EV_HAVE */

/* --- parameters, state ---------------------------------------------------- */

static s64 check_every = 1;	/* checks at every Nth fair switch per CPU */
static s64 sample_every = 16;	/* O(queue) checks at every Nth checked switch */
static s64 keep = 32;		/* violations kept with their context */
static s64 mutate;		/* 0: off; 1 + enum eevdf_check: perturb the copy */

struct ev_stats {
	u64 switches;
	u64 checked[EEVDF_NR_CHECKS];
	u64 violations[EEVDF_NR_CHECKS];
	u64 skipped[EEVDF_NR_CHECKS];
	u64 truncated;		/* walks cut at EV_MAX_WALK */
	u32 check_ctr;
	u32 sample_ctr;
	void *pick_curr;	/* switch_pick_curr() at the last switch (compared only) */
	struct eevdf_clamped_memory clamped;	/* deadlines clamped reweights left */
};

/* one kept violation */
struct ev_record {
	u64 time_ns;
	int cpu;
	int level;
	enum eevdf_check check;
	pid_t pid;
	char comm[TASK_COMM_LEN];
	s64 expected, actual;
	pid_t other_pid;
	struct eevdf_entity e;		/* the entity the check is about */
	bool have_queue;
	u64 zero_vruntime;
	s64 sum_w_vruntime;
	u64 sum_weight;
	u32 features;
};

static struct ev_stats __percpu *stats;
static struct eevdf_entity *walk_buf __maybe_unused;	/* EV_MAX_WALK per CPU */
static DEFINE_RAW_SPINLOCK(log_lock);
static struct ev_record *viol_log;		/* keep entries */
static unsigned int log_len, log_cap __maybe_unused;
static u64 log_dropped;
static u64 enabled_at;

static const struct sched_class *fair_class __maybe_unused;
static unsigned int *sched_features_p;		/* sysctl_sched_features */
static unsigned int *base_slice_p __maybe_unused;		/* normalized_sysctl_sched_base_slice */

#if EV_HAVE

static void model_now(struct eevdf_model *m, u32 *bits)
{
	unsigned int f = READ_ONCE(*sched_features_p);

	*bits = f;
	m->sum_scale_down = !SL_HAS_cfs_rq__sum_shift;
	m->lag_max_slice = SL_HAS_sched_entity__max_slice;
	m->has_vprot = SL_HAS_sched_entity__vprot;
	/*
	 * The flat runqueue's reweight_eevdf() stores entity_lag() in
	 * se->vlag; the hierarchical one keeps it in a local (and vlag shares
	 * its word with min_vruntime while queued).
	 */
	m->reweight_keeps_lag = EV_FLAT;
	m->run_to_parity = f & BIT(SL_ENUM___SCHED_FEAT_RUN_TO_PARITY);
	m->preempt_short = f & BIT(SL_ENUM___SCHED_FEAT_PREEMPT_SHORT);
	m->next_buddy = f & BIT(SL_ENUM___SCHED_FEAT_NEXT_BUDDY);
	m->pick_buddy = f & BIT(SL_ENUM___SCHED_FEAT_PICK_BUDDY);
	m->tick_nsec = TICK_NSEC;
	m->base_slice = base_slice_p ? READ_ONCE(*base_slice_p) : 0;
}

/* what every check reads of an entity */
static void copy_entity(struct eevdf_entity *e, void *se)
{
	e->vruntime = se_vruntime(se);
	e->deadline = se_deadline(se);
	e->vlag = se_vlag(se);
	e->vprot = se_vprot(se);
	e->slice = se_slice(se);
	e->weight = se_weight(se);
	e->inv_weight = se_inv_weight(se);
	e->on_rq = se_on_rq(se);
	e->sched_delayed = se_delayed(se);
	e->rel_deadline = se_rel_deadline(se);
	e->custom_slice = se_custom_slice(se);
	e->has_left = false;
	e->has_right = false;
	e->pid = se_is_task(se) ? se_task(se)->pid : -1;
}

/* and, for the walk of the tree, its augmented values and its children's */
static void copy_tree_entity(struct eevdf_entity *e, void *se)
{
	struct rb_node *n = se_node(se);
	struct rb_node *l = READ_ONCE(n->rb_left), *r = READ_ONCE(n->rb_right);

	copy_entity(e, se);
	e->min_vruntime = se_min_vruntime(se);
	e->min_slice = se_min_slice(se);
	e->max_slice = se_max_slice(se);
	e->has_left = l;
	e->has_right = r;
	if (l) {
		e->l_min_vruntime = se_min_vruntime(node_se(l));
		e->l_min_slice = se_min_slice(node_se(l));
		e->l_max_slice = se_max_slice(node_se(l));
	}
	if (r) {
		e->r_min_vruntime = se_min_vruntime(node_se(r));
		e->r_min_slice = se_min_slice(node_se(r));
		e->r_max_slice = se_max_slice(node_se(r));
	}
}

/*
 * @curr: the verifier's copy of the queue's curr, or NULL. Of the tree's
 * root only what the O(1) checks use: the shortest and longest slice
 * queued (its augmented values).
 */
static void copy_queue(struct eevdf_queue *q, void *cfs, const struct eevdf_entity *curr,
		       struct eevdf_entity *root_copy)
{
	struct rb_node *root = READ_ONCE(cfs_tree(cfs)->rb_node);

	q->zero_vruntime = cfs_zero_vruntime(cfs);
	q->sum_w_vruntime = cfs_sum(cfs);
	q->sum_weight = cfs_weight(cfs);
	q->sum_shift = cfs_sum_shift(cfs);
	q->nr_queued = 0;
	q->curr = curr;
	q->root = NULL;
	if (root) {
		root_copy->min_slice = se_min_slice(node_se(root));
		root_copy->max_slice = se_max_slice(node_se(root));
		q->root = root_copy;
	}
}

/* the whole tree, in deadline order; returns how many, -1: too many */
static int copy_tree(void *cfs, struct eevdf_entity *buf)
{
	struct rb_node *n = rb_first(cfs_tree(cfs));
	int i = 0;

	for (; n; n = rb_next(n)) {
		if (i == EV_MAX_WALK)
			return -1;
		copy_tree_entity(&buf[i++], node_se(n));
	}
	return i;
}

static void record(int cpu, int level, void *se, const struct eevdf_entity *e,
		   const struct eevdf_queue *q, const struct eevdf_finding *f, u32 bits)
{
	pid_t other_pid;
	struct ev_record *r;
	unsigned long flags;

	/*
	 * Where the finding is about another entity (a tree node: augment,
	 * overflow; the task that left: delayed), that one is the subject and
	 * the picked entity the other; earliest_deadline keeps the picked one
	 * and names the entity EEVDF would have picked.
	 */
	if (f->other && f->check != EEVDF_EARLIEST) {
		const struct eevdf_entity *picked = e;

		e = f->other;
		se = NULL;
		other_pid = picked->pid;
	} else {
		other_pid = f->other ? f->other->pid : -1;
	}
	trace_eevdf_violation(f->check, cpu, e->pid, level, f->expected, f->actual,
			      e->vruntime, e->deadline, q ? q->sum_w_vruntime : 0,
			      q ? q->sum_weight : 0);
	raw_spin_lock_irqsave(&log_lock, flags);
	if (!viol_log || log_len >= log_cap) {
		log_dropped++;
		goto out;
	}
	r = &viol_log[log_len++];
	r->time_ns = local_clock();
	r->cpu = cpu;
	r->level = level;
	r->check = f->check;
	r->pid = e->pid;
	if (e->pid >= 0 && se)
		strscpy(r->comm, se_task(se)->comm, sizeof(r->comm));
	else
		r->comm[0] = '\0';
	r->expected = f->expected;
	r->actual = f->actual;
	r->other_pid = other_pid;
	r->e = *e;
	/* the lag check needs no copy of the queue: its figures are missing */
	r->have_queue = q;
	if (q) {
		r->zero_vruntime = q->zero_vruntime;
		r->sum_w_vruntime = q->sum_w_vruntime;
		r->sum_weight = q->sum_weight;
	}
	r->features = bits;
out:
	raw_spin_unlock_irqrestore(&log_lock, flags);
}

/* one check's outcome into the per-CPU counters (and the log) */
static void outcome(struct ev_stats *st, enum eevdf_check c, bool ok, int cpu, int level,
		    void *se, const struct eevdf_entity *e, const struct eevdf_queue *q,
		    const struct eevdf_finding *f, u32 bits)
{
	st->checked[c]++;
	if (ok)
		return;
	st->violations[c]++;
	record(cpu, level, se, e, q, f, bits);
}

/*
 * The slice bound holds for a task's entity with the default slice; a
 * group entity's slice follows its queue's shortest without moving its
 * deadline, and a custom slice set by sched_setattr applies from the next
 * deadline: for those only deadline > vruntime is checked.
 */
static inline bool slice_upper(const struct eevdf_entity *e)
{
	return e->pid >= 0 && !e->custom_slice;
}

static inline bool mutating(enum eevdf_check c)
{
	return READ_ONCE(mutate) == (s64)c + 1;
}

/* the largest slice on @q's tree and its curr (cfs_rq_max_slice()) */
static u64 queue_max_slice(const struct eevdf_queue *q)
{
	u64 s = q->root ? q->root->max_slice : 0;

	if (q->curr && q->curr->on_rq && q->curr->slice > s)
		s = q->curr->slice;
	return s;
}

/*
 * The slice bound for @e on @q. Where a reweight leaves the lag it clamped
 * in vlag, a break of the bound that such a reweight explains is
 * counted apart, as slice_clamped (eevdf_slice_clamped(), docs/eevdf.md):
 * a kernel behaviour, not a broken invariant of the pick.
 */
static void check_slice(struct ev_stats *st, const struct eevdf_model *m, u32 bits, int cpu,
			int level, void *se, const struct eevdf_entity *e,
			const struct eevdf_queue *q)
{
	struct eevdf_finding f;
	bool upper = slice_upper(e), ok, clamped;

	if (e->rel_deadline) {
		st->skipped[EEVDF_SLICE]++;
		return;
	}
	ok = eevdf_check_slice(e, upper, &f);
	if (m->reweight_keeps_lag) {
		clamped = false;
		if (!ok && eevdf_slice_clamped(m, e, queue_max_slice(q), &f)) {
			clamped = true;
			eevdf_clamped_keep(&st->clamped, e);
		} else if (!ok) {
			/* that deadline, the task having run since (t65 on 7.3) */
			clamped = eevdf_clamped_still(&st->clamped, e, &f);
		}
		outcome(st, EEVDF_SLICE_CLAMPED, !clamped, cpu, level, se, e, q, &f, bits);
		ok |= clamped;
	}
	outcome(st, EEVDF_SLICE, ok, cpu, level, se, e, q, &f, bits);
}

/*
 * Checks about the entity picked at one level: @se is curr of @cfs. @exempt:
 * the pick at this level may legitimately not be the earliest deadline (it
 * was curr at the pick: run to parity; or a buddy).
 */
static void check_level(struct ev_stats *st, const struct eevdf_model *m, u32 bits,
			int cpu, int level, void *cfs, void *se, bool exempt, bool sample)
{
	struct eevdf_entity cur, rootc, *buf;
	struct eevdf_queue q;
	struct eevdf_finding f;
	int n, i;

	copy_entity(&cur, se);
	copy_queue(&q, cfs, &cur, &rootc);

	if (mutating(EEVDF_ELIGIBLE) && q.sum_weight)
		cur.vruntime += (u64)1 << 40;	/* far right of V: not eligible */
	if (mutating(EEVDF_SLICE))
		cur.deadline = cur.vruntime;
	if (mutating(EEVDF_DELAYED))
		cur.sched_delayed = 1;
	if (mutating(EEVDF_VPROT))
		cur.vprot++;
	if (mutating(EEVDF_EARLIEST))
		cur.deadline += (u64)1 << 40;
	if (mutating(EEVDF_OVERFLOW))
		q.sum_w_vruntime = EEVDF_PRODUCT_LIMIT;
	if (mutating(EEVDF_SLICE_CLAMPED) && slice_upper(&cur)) {
		/* as a reweight that clamped a lag leaves it */
		cur.vlag = -eevdf_lag_limit(m, &cur, queue_max_slice(&q));
		cur.deadline = cur.vruntime + 2 * eevdf_calc_delta_fair(cur.slice, &cur) +
			       EEVDF_REWEIGHT_ROUND_NS;
	}

	outcome(st, EEVDF_ELIGIBLE, eevdf_check_eligible(m, &q, &f), cpu, level, se,
		&cur, &q, &f, bits);
	outcome(st, EEVDF_DELAYED, eevdf_check_delayed(m, &q, NULL, &f), cpu, level, se,
		&cur, &q, &f, bits);
	check_slice(st, m, bits, cpu, level, se, &cur, &q);
	if (m->has_vprot && level == 0) {
		if (!m->run_to_parity && !m->base_slice)
			st->skipped[EEVDF_VPROT]++;
		else
			outcome(st, EEVDF_VPROT, eevdf_check_vprot(m, &q, &f), cpu, level, se,
				&cur, &q, &f, bits);
	}

	if (!sample)
		return;
	buf = walk_buf + (size_t)cpu * EV_MAX_WALK;
	n = copy_tree(cfs, buf);
	if (n < 0) {
		st->truncated++;
		st->skipped[EEVDF_EARLIEST]++;
		st->skipped[EEVDF_SUMS]++;
		st->skipped[EEVDF_AUGMENT]++;
		st->skipped[EEVDF_AUGMENT_SLICE]++;
		st->skipped[EEVDF_OVERFLOW]++;
		return;
	}
	if (mutating(EEVDF_SUMS))
		q.sum_weight++;
	if (mutating(EEVDF_AUGMENT) && n)
		buf[0].min_vruntime++;
	if (mutating(EEVDF_AUGMENT_SLICE) && n)
		buf[0].min_slice++;

	/*
	 * A flat runqueue reweights the picked task at set_next_task_fair()
	 * (its hierarchical weight recomputed), after the pick decided: it
	 * leaves vruntime == avg_vruntime() - vlag, with zero_vruntime just
	 * set to avg_vruntime(); the rescaled deadline may then be later than
	 * another eligible one's. Such a pick is not compared. (Only a task in
	 * a cgroup has a hierarchical weight other than its own; a task woken
	 * with zero lag also sits at vruntime == zero_vruntime.)
	 */
	if (EV_FLAT && level == 0 && se_in_group(se) &&
	    (s64)(cur.vruntime - q.zero_vruntime) == -cur.vlag)
		exempt = true;
	if (exempt)
		st->skipped[EEVDF_EARLIEST]++;
	else
		outcome(st, EEVDF_EARLIEST, eevdf_check_earliest(m, &q, buf, n, &f), cpu,
			level, se, &cur, &q, &f, bits);
	outcome(st, EEVDF_SUMS, eevdf_check_sums(m, &q, buf, n, &f), cpu, level, se,
		&cur, &q, &f, bits);
	outcome(st, EEVDF_AUGMENT, eevdf_check_augment(buf, n, &f), cpu, level, se, &cur, &q,
		&f, bits);
	outcome(st, EEVDF_AUGMENT_SLICE,
		eevdf_check_augment_slice(buf, n, SL_HAS_sched_entity__max_slice, &f),
		cpu, level, se, &cur, &q, &f, bits);
	outcome(st, EEVDF_OVERFLOW, eevdf_check_overflow(m, &q, buf, n, &f), cpu, level,
		se, &cur, &q, &f, bits);
	for (i = 0; i < n; i++)
		check_slice(st, m, bits, cpu, level, NULL, &buf[i], &q);
}

/* whether @q's V is @v to 1 us: v - 1 us eligible, v + 1 us not */
static bool same_v(const struct eevdf_model *m, const struct eevdf_queue *q, u64 v)
{
	return eevdf_vruntime_eligible(m, q, v - NSEC_PER_USEC) &&
	       !eevdf_vruntime_eligible(m, q, v + NSEC_PER_USEC);
}

/*
 * @prev left the CPU: dequeued to sleep, its lag was clamped; delayed, it
 * must not be eligible. @cfs: its queue.
 */
static void check_prev(struct ev_stats *st, const struct eevdf_model *m, u32 bits,
		       int cpu, void *cfs, void *se)
{
	struct eevdf_entity pe, cur, rootc;
	struct eevdf_queue q;
	struct eevdf_finding f;
	void *curr_se, *root_se;
	u64 max_slice = 0;
	u8 on_rq = se_on_rq(se), delayed = se_delayed(se);

	/* still queued and not delayed (preempted): nothing to check */
	if (on_rq && !delayed)
		return;
	copy_entity(&pe, se);
	if (mutating(EEVDF_LAG))
		pe.vlag = S64_MAX / 2;

	/*
	 * The lag is set at every dequeue to sleep; where the lag limit uses
	 * the queue's slices, a delayed entity's too (update_entity_lag()
	 * runs before the delay decision there).
	 */
	if (!on_rq || (m->lag_max_slice && delayed)) {
		if (m->lag_max_slice) {
			root_se = READ_ONCE(cfs_tree(cfs)->rb_node);
			if (root_se)
				max_slice = se_max_slice(node_se(root_se));
			curr_se = cfs_curr(cfs);
			if (curr_se && se_on_rq(curr_se) && se_slice(curr_se) > max_slice)
				max_slice = se_slice(curr_se);
		}
		outcome(st, EEVDF_LAG, eevdf_check_lag(m, &pe, max_slice, &f), cpu, 0, se,
			&pe, NULL, &f, bits);
	}
	if (on_rq && delayed) {
		curr_se = cfs_curr(cfs);
		if (curr_se)
			copy_entity(&cur, curr_se);
		copy_queue(&q, cfs, curr_se ? &cur : NULL, &rootc);
		/*
		 * The delay was decided against V as it was then; where the
		 * lag is set at that decision (lag_max_slice), V then was
		 * v + vlag. The pick may drop the runqueue lock (newidle
		 * balance) and let other CPUs enqueue here, which moves V: a
		 * delayed entity may then be eligible, rightly (the next pick
		 * that reaches it dequeues it). The check is made only on the
		 * V the decision saw, within 1 us; else it is skipped.
		 */
		if (m->lag_max_slice && !same_v(m, &q, pe.vruntime + pe.vlag))
			st->skipped[EEVDF_DELAYED]++;
		else
			outcome(st, EEVDF_DELAYED, eevdf_check_delayed(m, &q, &pe, &f), cpu, 0,
				se, &pe, &q, &f, bits);
	}
}

static void probe_sched_switch(void *data, bool preempt, struct task_struct *prev,
			       struct task_struct *next, unsigned int prev_state)
{
	void *prev_anc[EV_MAX_LEVELS];
	struct ev_stats *st = this_cpu_ptr(stats);
	int cpu = smp_processor_id();
	struct eevdf_model m;
	bool sample, prev_fair;
	void *se, *cfs, *pick_curr;
	int level, np = 0, i;
	u32 bits;

	st->switches++;
	pick_curr = st->pick_curr;
	st->pick_curr = switch_pick_curr(next, cpu);
	prev_fair = READ_ONCE(prev->sched_class) == fair_class;
	if (!prev_fair && READ_ONCE(next->sched_class) != fair_class)
		return;
	/* sampled mode: every check, but at every Nth such switch only */
	if (++st->check_ctr < READ_ONCE(check_every))
		return;
	st->check_ctr = 0;
	model_now(&m, &bits);

	if (prev_fair) {
		se = task_se(prev);
		cfs = EV_HIER ? se_cfs_rq(se) : cpu_cfs_rq(cpu);
		if (cfs)
			check_prev(st, &m, bits, cpu, cfs, se);
		/* prev's entity at each level: curr there when the pick ran */
		for (; se && np < EV_MAX_LEVELS; se = se_parent(se))
			prev_anc[np++] = se;
	}
	if (READ_ONCE(next->sched_class) != fair_class)
		return;

	sample = ++st->sample_ctr >= READ_ONCE(sample_every);
	if (sample)
		st->sample_ctr = 0;
	se = task_se(next);
	for (level = 0; se && level < EV_MAX_LEVELS; level++, se = se_parent(se)) {
		bool exempt = false;

		cfs = EV_HIER ? se_cfs_rq(se) : cpu_cfs_rq(cpu);
		if (!cfs || cfs_curr(cfs) != se) {
			/* not the state a pick leaves: nothing to check here */
			st->skipped[EEVDF_ELIGIBLE]++;
			break;
		}
		for (i = 0; i < np; i++)
			if (prev_anc[i] == se)
				exempt = true;	/* curr at the pick: run to parity */
		/*
		 * Under proxy execution curr at the pick was the donor's
		 * entity, not prev's: an owner that ran as a waiter's proxy
		 * hands the CPU back, and run to parity keeps the waiter (the
		 * lab kernel: bash kept before a kworker's earlier deadline).
		 */
		if (se == pick_curr && level == 0)
			exempt = true;
		/*
		 * A buddy may be picked before the earliest deadline: the
		 * wakeup buddy (NEXT_BUDDY), a group entity (a task that
		 * sleeps nominates its groups, which stay nominated until
		 * picked), or the short-slice buddy a PREEMPT_SHORT wakeup
		 * nominates (shorter slice than prev).
		 */
		if (m.pick_buddy && (m.next_buddy || !se_is_task(se) ||
				     (m.preempt_short && prev_fair &&
				      se_slice(se) < se_slice(task_se(prev)))))
			exempt = true;
		check_level(st, &m, bits, cpu, level, cfs, se, exempt, sample);
		if (!EV_HIER)
			break;
	}
}

static void probe_types_checked(void)
{
	check_trace_callback_type_sched_switch(probe_sched_switch);
}

#endif /* EV_HAVE */

/* --- lifecycle ---------------------------------------------------------- */

static int eevdf_init(struct sl_feature *f)
{
#if EV_HAVE
	(void)probe_types_checked;
	fair_class = (const struct sched_class *)sl_lookup_symbol("fair_sched_class");
	sched_features_p = (unsigned int *)sl_lookup_symbol("sysctl_sched_features");
	base_slice_p = (unsigned int *)sl_lookup_symbol("normalized_sysctl_sched_base_slice");
	if (!fair_class || !sched_features_p) {
		scnprintf(f->why, sizeof(f->why),
			  "kallsyms: fair_sched_class or sysctl_sched_features not found");
		return -ENOENT;
	}
	/* the counters live from load to unload: readable after a disable */
	stats = alloc_percpu(struct ev_stats);
	return stats ? 0 : -ENOMEM;
#else
	scnprintf(f->why, sizeof(f->why),
		  "no EEVDF runqueue in this kernel's BTF (sched_entity deadline/vlag, cfs_rq zero_vruntime and sums, sched features)");
	return -ENODEV;
#endif
}

static void eevdf_exit(struct sl_feature *f)
{
	free_percpu(stats);
	stats = NULL;
	kvfree(viol_log);
	viol_log = NULL;
}

static int eevdf_enable(struct sl_feature *f)
{
#if EV_HAVE
	struct eevdf_entity *wb;
	struct ev_record *lg = NULL, *old;
	int cpu, ret;

	wb = vmalloc(array_size(nr_cpu_ids, sizeof(*wb) * EV_MAX_WALK));
	if (!wb)
		return -ENOMEM;
	if (keep) {
		lg = kvcalloc(keep, sizeof(*lg), GFP_KERNEL);
		if (!lg) {
			vfree(wb);
			return -ENOMEM;
		}
	}
	/* no probe runs: the counters start from zero */
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(stats, cpu), 0, sizeof(struct ev_stats));
	walk_buf = wb;
	raw_spin_lock_irq(&log_lock);
	old = viol_log;
	viol_log = lg;
	log_len = 0;
	log_cap = keep;
	log_dropped = 0;
	raw_spin_unlock_irq(&log_lock);
	kvfree(old);	/* the previous run's, readable until now */
	enabled_at = local_clock();
	ret = sl_tracepoint_register("sched_switch", probe_sched_switch, NULL);
	if (ret) {
		raw_spin_lock_irq(&log_lock);
		viol_log = NULL;
		log_cap = 0;
		raw_spin_unlock_irq(&log_lock);
		walk_buf = NULL;
		vfree(wb);
		kvfree(lg);
	}
	return ret;
#else
	return -ENODEV;
#endif
}

static void eevdf_disable(struct sl_feature *f)
{
#if EV_HAVE
	sl_tracepoint_unregister("sched_switch", probe_sched_switch, NULL);
	tracepoint_synchronize_unregister();
	/* the kept violations stay readable until the next enable */
	raw_spin_lock_irq(&log_lock);
	log_cap = log_len;
	raw_spin_unlock_irq(&log_lock);
	vfree(walk_buf);
	walk_buf = NULL;
#endif
}

/* --- reports ------------------------------------------------------------ */

static const struct sl_rcol checks_cols[] = {
	{ "check", NULL, SL_RK_STR, 17, SL_RCOL_LEFT },
	{ "checked", NULL, SL_RK_U64, 12 },
	{ "violations", NULL, SL_RK_U64, 10 },
	{ "skipped", NULL, SL_RK_U64, 10 },
};

struct checks_snap {
	bool enabled;
	bool have;
	struct ev_stats sum;
	u64 dropped;
	unsigned int kept;
	u32 bits;
};

static long checks_take(void *priv)
{
	struct checks_snap *s = priv;
	int cpu, i;

	/* a pass may be taken again (a reader seeking back): start from zero */
	memset(&s->sum, 0, sizeof(s->sum));
	s->enabled = READ_ONCE(eevdf_feature.enabled);
	s->have = stats;
	if (!stats)
		return EEVDF_NR_CHECKS;
	for_each_possible_cpu(cpu) {
		struct ev_stats *c = per_cpu_ptr(stats, cpu);

		s->sum.switches += READ_ONCE(c->switches);
		s->sum.truncated += READ_ONCE(c->truncated);
		for (i = 0; i < EEVDF_NR_CHECKS; i++) {
			s->sum.checked[i] += READ_ONCE(c->checked[i]);
			s->sum.violations[i] += READ_ONCE(c->violations[i]);
			s->sum.skipped[i] += READ_ONCE(c->skipped[i]);
		}
	}
	raw_spin_lock_irq(&log_lock);
	s->dropped = log_dropped;
	s->kept = log_len;
	raw_spin_unlock_irq(&log_lock);
	s->bits = sched_features_p ? READ_ONCE(*sched_features_p) : 0;
	return EEVDF_NR_CHECKS;
}

static void checks_head(void *priv, struct sl_rhead *h)
{
	struct checks_snap *s = priv;

	sl_rfact_bool(h, "enabled", s->enabled);
	sl_rfact_str(h, "runqueue", EV_FLAT ? "flat" : EV_HIER ? "hierarchical" : "single");
	sl_rfact_str(h, "sums", SL_HAS_cfs_rq__sum_shift ? "full weight" : "scale_load_down");
	sl_rfact_u64(h, "switches", s->sum.switches);
	sl_rfact_u64(h, "truncated_walks", s->sum.truncated);
	sl_rfact_u64(h, "violations_kept", s->kept);
	sl_rfact_u64(h, "violations_dropped", s->dropped);
	sl_rfact_u64(h, "sched_features", s->bits);
	sl_rfact_s64(h, "check_every", READ_ONCE(check_every));
	sl_rfact_s64(h, "sample_every", READ_ONCE(sample_every));
	sl_rfact_s64(h, "mutate", READ_ONCE(mutate));
	if (!s->have)
		sl_rnote(h, "eevdf has not been enabled since load");
	sl_rnote(h, "runqueue: %s; sums at %s; protected slice (vprot): %s",
		 EV_FLAT ? "flat (one tree per CPU)" : EV_HIER ? "hierarchical (one tree per cgroup level)" : "single",
		 SL_HAS_cfs_rq__sum_shift ? "full weight" : "scale_load_down()",
		 SL_HAS_sched_entity__vprot ? "checked" : "not in this kernel");
	sl_rnote(h, "checked at every check_every-th switch of a CPU involving a fair task (%lld); earliest_deadline, sums, augment, overflow and the tree's slices at every sample_every-th of those (%lld)",
		 READ_ONCE(check_every), READ_ONCE(sample_every));
	if (READ_ONCE(mutate))
		sl_rnote(h, "mutation mode: the verifier's copy of one value is perturbed; violations are expected");
}

static void checks_row(void *priv, unsigned long i, struct sl_rval *v)
{
	struct checks_snap *s = priv;

	sl_rv_str(&v[0], eevdf_check_names[i]);
	/* a check this kernel has nothing for: missing, not zero */
	if ((i == EEVDF_VPROT && !SL_HAS_sched_entity__vprot) ||
	    (i == EEVDF_AUGMENT_SLICE && !SL_HAS_sched_entity__min_slice) ||
	    (i == EEVDF_SLICE_CLAMPED && !EV_FLAT)) {
		sl_rv_none(&v[1]);
		sl_rv_none(&v[2]);
		sl_rv_none(&v[3]);
		return;
	}
	sl_rv_u64(&v[1], s->sum.checked[i]);
	sl_rv_u64(&v[2], s->sum.violations[i]);
	sl_rv_u64(&v[3], s->sum.skipped[i]);
}

static const struct sl_report checks_report = {
	.feature = "eevdf",
	.name = "checks",
	.mode = 0444,
	.layout = SL_RL_TABLE,
	.cols = checks_cols,
	.ncols = ARRAY_SIZE(checks_cols),
	.priv_size = sizeof(struct checks_snap),
	.take = checks_take,
	.head = checks_head,
	.row = checks_row,
};

static const struct sl_rcol viol_cols[] = {
	{ "time_us", "us", SL_RK_U64, 12 },
	{ "cpu", NULL, SL_RK_U64, 3 },
	{ "check", NULL, SL_RK_STR, 17, SL_RCOL_LEFT },
	{ "level", NULL, SL_RK_U64, 5 },
	{ "pid", NULL, SL_RK_S64, 7 },
	{ "comm", NULL, SL_RK_COMM, 16, SL_RCOL_LEFT },
	{ "expected", NULL, SL_RK_S64, 20 },
	{ "actual", NULL, SL_RK_S64, 20 },
	{ "other_pid", NULL, SL_RK_S64, 9 },
	{ "vruntime", "ns", SL_RK_U64, 20 },
	{ "deadline", "ns", SL_RK_U64, 20 },
	{ "vlag", "ns", SL_RK_S64, 12 },
	{ "slice", "ns", SL_RK_U64, 9 },
	{ "weight", NULL, SL_RK_U64, 9 },
	{ "delayed", NULL, SL_RK_U64, 7 },
	{ "zero_vruntime", "ns", SL_RK_U64, 20 },
	{ "sum_w_vruntime", NULL, SL_RK_S64, 20 },
	{ "sum_weight", NULL, SL_RK_U64, 12 },
	{ "sched_features", NULL, SL_RK_HEX, 10 },
};

struct viol_snap {
	struct ev_record *r;
	unsigned int n;
};

static long viol_take(void *priv)
{
	struct viol_snap *s = priv;
	struct ev_record *copy;
	unsigned int n;

	/* bounded by keep (at most 4096 records) */
	copy = kvcalloc(max_t(s64, keep, 1), sizeof(*copy), GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	raw_spin_lock_irq(&log_lock);
	n = min_t(unsigned int, log_len, max_t(s64, keep, 1));
	if (viol_log)
		memcpy(copy, viol_log, n * sizeof(*copy));
	else
		n = 0;
	raw_spin_unlock_irq(&log_lock);
	kvfree(s->r);
	s->r = copy;
	s->n = n;
	return n;
}

static void viol_release(void *priv)
{
	kvfree(((struct viol_snap *)priv)->r);
}

static void viol_head(void *priv, struct sl_rhead *h)
{
	sl_rnote(h, "the first violations since enable, with the verifier's copy of the entity and its runqueue (level 0: the task's own queue)");
}

static void viol_row(void *priv, unsigned long i, struct sl_rval *v)
{
	const struct ev_record *r = &((struct viol_snap *)priv)->r[i];

	sl_rv_u64(&v[0], r->time_ns > enabled_at ? div_u64(r->time_ns - enabled_at, NSEC_PER_USEC) : 0);
	sl_rv_u64(&v[1], r->cpu);
	sl_rv_str(&v[2], eevdf_check_names[r->check]);
	sl_rv_u64(&v[3], r->level);
	sl_rv_s64(&v[4], r->pid);
	sl_rv_str(&v[5], r->pid >= 0 ? r->comm : NULL);
	sl_rv_s64(&v[6], r->expected);
	sl_rv_s64(&v[7], r->actual);
	if (r->other_pid == -1)
		sl_rv_none(&v[8]);
	else
		sl_rv_s64(&v[8], r->other_pid);
	sl_rv_u64(&v[9], r->e.vruntime);
	sl_rv_u64(&v[10], r->e.deadline);
	sl_rv_s64(&v[11], r->e.vlag);
	sl_rv_u64(&v[12], r->e.slice);
	sl_rv_u64(&v[13], r->e.weight);
	sl_rv_u64(&v[14], r->e.sched_delayed);
	if (r->have_queue) {
		sl_rv_u64(&v[15], r->zero_vruntime);
		sl_rv_s64(&v[16], r->sum_w_vruntime);
		sl_rv_u64(&v[17], r->sum_weight);
	} else {
		sl_rv_none(&v[15]);
		sl_rv_none(&v[16]);
		sl_rv_none(&v[17]);
	}
	sl_rv_u64(&v[18], r->features);
}

static const struct sl_report viol_report = {
	.feature = "eevdf",
	.name = "violations",
	.mode = 0444,
	.layout = SL_RL_TABLE,
	.cols = viol_cols,
	.ncols = ARRAY_SIZE(viol_cols),
	.priv_size = sizeof(struct viol_snap),
	.release = viol_release,
	.take = viol_take,
	.head = viol_head,
	.row = viol_row,
};

static int eevdf_debugfs(struct sl_feature *f, struct dentry *dir)
{
	sl_report_create(dir, &checks_report);
	sl_report_create(dir, &viol_report);
	return 0;
}

static const struct sl_param eevdf_params[] = {
	{
		.name = "check_every",
		.help = "check at every Nth switch of a CPU that involves a fair task (1: every one; more: sampled mode)",
		.value = &check_every, .min = 1, .max = 1000000, .live = true,
	},
	{
		.name = "sample_every",
		.help = "also run the O(queue) checks at every Nth checked switch of a CPU (1: every one)",
		.value = &sample_every, .min = 1, .max = 1000000, .live = true,
	},
	{
		.name = "keep",
		.help = "violations kept with their context (first N since enable)",
		.value = &keep, .min = 0, .max = 4096,
	},
	{
		.name = "mutate",
		.help = "0: off; 1..10: perturb the verifier's copy of the value check N-1 guards (docs/eevdf.md)",
		.value = &mutate, .min = 0, .max = EEVDF_NR_CHECKS, .live = true,
	},
	{ }
};

struct sl_feature eevdf_feature = {
	.name = "eevdf",
	.summary = "live EEVDF verifier: eligibility, earliest deadline, slices, lag clamp, delayed dequeue, cached sums, protected slice",
	.needs = SL_CAP(SL_CAP_TP_SCHED_SWITCH) | SL_CAP(SL_CAP_EEVDF) |
		 SL_CAP(SL_CAP_RUNQUEUES),
	.init = eevdf_init,
	.exit = eevdf_exit,
	.enable = eevdf_enable,
	.disable = eevdf_disable,
	.debugfs = eevdf_debugfs,
	.params = eevdf_params,
};
