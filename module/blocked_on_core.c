// SPDX-License-Identifier: GPL-2.0
/*
 * blocked_on_core: chains of tasks blocked on mutexes, and where the time
 * of each wait goes.
 *
 * The graph
 * ---------
 * Two kinds of nodes, each named by an opaque non-zero u64 key the caller
 * chooses (the task_struct and the lock address, in the module): tasks and
 * locks. Two kinds of edges: a task waits on at most one lock, and a lock
 * has at most one owner, a task. Following the edges from a waiting task
 * W gives a single path, its chain:
 *
 *	W -> L1 -> O1 -> L2 -> O2 -> ... -> Ok
 *
 * (W waits on L1, owned by O1, which waits on L2, ...). Many tasks may wait
 * on one lock, so the waits form trees hanging off the tasks that do not
 * wait; a chain may also come back to one of its own tasks: a cycle, a
 * deadlock. The chain ends
 *  - at a task that does not wait: the head of the chain, the task whose
 *    progress every waiter of the chain needs;
 *  - at a lock with no known owner (released, handoff pending);
 *  - at a task already in the chain: a cycle;
 *  - after SL_BO_MAX_DEPTH tasks, the waiter included: too deep.
 * The depth of a chain is the number of its tasks, the waiter included: W
 * behind a running owner has depth 2; W on an unowned lock depth 1.
 *
 * What is kept
 * ------------
 * A lock is tracked only while some task waits on it: it enters with its
 * first waiter (the owner word the caller read then), and is forgotten,
 * owner included, when its last waiter leaves. A task is tracked while it
 * waits or owns a tracked lock, and forgotten as soon as it does neither.
 * So when no wait is in progress both tables are empty, and an owner
 * nobody waits for costs nothing. Of a task the core keeps what the caller
 * last told: pid, comm, state (running, runnable, sleeping), CPU, and its
 * importance (policy class, rt priority, nice weight, cgroup cpu.weight).
 * Events about keys that are not tracked are ignored.
 *
 * Events
 * ------
 * sl_bo_wait_begin()  W starts waiting on L; the caller passes L's owner
 *                     word as read then (0: none), and what it knows of W
 *                     and of the owner (refreshing them if tracked). A W
 *                     already waiting on another lock ends that wait first
 *                     (unrecorded: nr_replaced); on the same lock the call
 *                     only refreshes W, L's kind and L's owner.
 * sl_bo_owner()       L's owner was seen to be O (0: released): handoff,
 *                     steal, release.
 * sl_bo_task_state()  a tracked task changed state or CPU.
 * sl_bo_task_prio()   a tracked task changed importance.
 * sl_bo_wait_end()    W stopped waiting on L, having taken it or not
 *                     (interrupted, timed out, a wounded ww_mutex waiter);
 *                     if taken, W becomes L's owner. Yields a record.
 * sl_bo_task_exit()   the task's wait ends (a record), and the locks it
 *                     owned are left unowned.
 *
 * Time
 * ----
 * The graph keeps one clock, now: the latest timestamp of the events it
 * acted on (those it ignores, about untracked keys or changing nothing,
 * leave it). An event stamped earlier (clocks of different CPUs) is taken
 * as happening at now. A wait is accounted lazily: its sums run up to its
 * own since_ns (at most now), and its categories have held since then; it
 * is brought up to now only when an event recomputes it, and reads
 * (sl_bo_next_wait(), the record at its end) add the time from since_ns to
 * the instant asked for, in the current categories.
 *
 * Attribution
 * -----------
 * An event applies its change to the graph, then recomputes the
 * categories of every wait whose chain the change can affect (below,
 * "Work per call"): such a wait is first brought from its since_ns to the
 * event's time, the time in between added to the category it was in
 * (cat_ns[] and head_ns[], below) and to its inversion time if it was in
 * an inversion; then its categories are computed from the new graph. The
 * other waits' categories are those a full recomputation would give them:
 * nothing they depend on changed. Categories are thus constant between
 * events, and each wait's cat_ns[] and head_ns[] each sum to its duration
 * exactly. (tests/host/test_blocked_on.c compares every wait, after every
 * step of random events, with a copy of the graph recomputed whole.)
 *
 * cat_ns[] splits the wait by what L's direct owner O does, with "local"
 * meaning on the waiter's CPU (the CPU it last ran on, and where it would
 * run once woken; a negative, unknown, CPU is never local):
 *   UNOWNED          L has no known owner;
 *   BLOCKED          O waits on a tracked lock itself (whatever its state):
 *                    the delay is further down the chain;
 *   RUN_LOCAL        O runs on the waiter's CPU;
 *   RUN_REMOTE       O runs on another CPU;
 *   PREEMPTED        O is runnable but not running, on the waiter's CPU:
 *                    the time proxy execution would give back, running O
 *                    in the waiter's place;
 *   RUNNABLE_REMOTE  O is runnable but not running, on another CPU;
 *   SLEEPING         O sleeps, not on a tracked lock.
 * head_ns[] splits it the same way by the chain's head H instead of O:
 * RUN_LOCAL .. SLEEPING by H's state and CPU against the waiter's CPU;
 * UNOWNED if the chain ends at an unowned lock; BLOCKED only if the chain
 * ends in a cycle or is too deep (no head). With O not waiting, H is O and
 * both splits agree.
 *
 * Inversions
 * ----------
 * sl_bo_importance_rules(a, b, rules) gives the rules, of those enabled,
 * by which a is more important than b:
 *   RT      a is rt or dl and b neither; or a is dl and b rt; or both are
 *           rt and a's rt_prio (sched_priority: 1..99) is higher;
 *   WEIGHT  both are normal and a's nice weight is higher;
 *   IDLE    a is normal, rt or dl and b is SCHED_IDLE;
 *   CGROUP  both are normal and a's cgroup cpu.weight is higher.
 * sl_bo_more_important() is whether any matched. A wait is in an inversion
 * while its chain's head is not running (head category PREEMPTED,
 * RUNNABLE_REMOTE or SLEEPING) and the waiter is more important than the
 * head by the rules in graph->rules. The time so spent is the wait's
 * inversion time; the rules that matched during some of it (a stretch
 * longer than 0) are its inversion rules. A wait is an inversion when that
 * time is not 0, equivalently when some rule is recorded.
 *
 * The worst moment
 * ----------------
 * A stalled stretch of a wait is a maximal interval during which its head
 * category is PREEMPTED, RUNNABLE_REMOTE or SLEEPING (the head may change
 * state among these, or be another task, within one stretch). At the start
 * of each stretch the chain is copied (the first SL_BO_SNAP_DEPTH tasks:
 * pid, comm, state, CPU, class, rt_prio, weight, the lock each waits on);
 * the record carries the copy of the longest stretch of the wait (the
 * first of equally long ones, one still open at the end included). Waits
 * with no stalled stretch longer than 0 carry an empty snapshot.
 *
 * Cycles
 * ------
 * A wait's record says whether its chain ended in a cycle at some time
 * (waits hanging off a cycle, not on it, included). graph->cycles_seen
 * counts the deadlocks formed: events that gave a lock L a new waiter or a
 * new owner such that L is on a cycle (of at most SL_BO_MAX_DEPTH tasks)
 * when it was not just before.
 *
 * Tables
 * ------
 * The caller's arrays of tasks and locks are two hash tables of fixed
 * size, with separate chaining inside the arrays themselves: the bucket
 * of a key is a multiplicative hash of it modulo the table's size, and
 * slot i holds both the head of bucket i and the link to the next slot of
 * its own entry's bucket. Free slots form a list through the same link.
 * Entries never move, so the edges are slot numbers; a wait's lock and a
 * lock's owner are reached without a lookup. The reverse edges are lists
 * through the entries: each lock's waiters (doubly linked through the
 * tasks), each task's locks owned (doubly linked through the locks).
 *
 * Lockless hints
 * --------------
 * For callers that must not take their lock on every event (the module's
 * probes see every lock contention and context switch in the kernel), each
 * bucket carries hints, rewritten (SL_BO_WRITE_ONCE) whenever a key enters
 * or leaves it: h.hint of the tasks' and of the locks' buckets (all their
 * keys), whint of the tasks' (the keys of waiting tasks only). A hint is 0
 * (no key), the key (the only one) or SL_BO_HINT_MANY: a key entering
 * makes it the key or many, one leaving makes it 0, or, if it was many,
 * what a walk of the bucket finds. sl_bo_maybe_tracked() and sl_bo_maybe_waiting() read
 * them (SL_BO_READ_ONCE) without the lock: false is certain for a key
 * whose own entry (or wait) was last changed by the reader's own thread,
 * or before a barrier the reader has passed; with other writers on the
 * same bucket, every value written while the key is in says "maybe"
 * (the key itself or many). A wrong "maybe" costs the caller its lock.
 *
 * Work per call
 * -------------
 * With T and K the sizes of the task and lock tables, D = SL_BO_MAX_DEPTH:
 *  - a lookup walks one bucket: at most T (or K) slots, O(1) expected; so
 *    does a hint's update when a key leaves a bucket that had several
 *    (otherwise O(1));
 *  - an event touches the tasks whose state or importance it changed (a
 *    waiter, an owner seen) and the waiters of a lock whose owner changed;
 *    it then recomputes the waits whose chain holds a touched task at most
 *    D - 1 links after the waiter (a chain walk stops at D tasks: a touched
 *    task further away is not seen). They are found breadth-first from
 *    the touched tasks along the reverse edges (a task, the locks it owns,
 *    their waiters), each task once per pass (a mark, the pass number),
 *    at most D - 1 levels, a task queued only if it owns locks: A waits
 *    recomputed cost O(A) plus the locks owned by the tasks reached. A
 *    state change of a task nobody waits behind (a waiter at the end of
 *    nobody's chain, an owner of locks with one waiter) recomputes one
 *    wait, not every wait; an owner seen again with nothing new about it
 *    changes nothing;
 *  - recomputing a wait: a chain walk of at most D tasks, each compared
 *    with those before it (D * (D + 1) / 2 comparisons at worst), and a
 *    snapshot copy of at most SL_BO_SNAP_DEPTH tasks;
 *  - the cycle test of sl_bo_wait_begin() and sl_bo_owner(): 2 walks of D;
 *  - sl_bo_task_exit() of an owner: its list of locks owned;
 *  - sl_bo_task_state(), sl_bo_task_prio() of an untracked task, or with
 *    nothing changed: a lookup only; with no task tracked, nothing;
 *  - sl_bo_set_rules(): every wait (T slots);
 *  - sl_bo_chain(): a walk of D; sl_bo_next_wait(): at most T slots per
 *    call, T for a whole iteration.
 * Nothing recurses and every loop has one of these bounds. g->nr_updates
 * counts the waits recomputed.
 *
 * Full tables
 * -----------
 * sl_bo_wait_begin() checks first that there is room for the waiter, the
 * lock and the owner, and if not changes nothing (beyond ending the
 * waiter's previous wait) and returns -SL_BO_ENOSPC: that wait is not
 * tracked, and its end will not be found. A new owner that finds no room
 * in sl_bo_owner() (or in sl_bo_wait_begin() for a task already waiting
 * on that lock) is taken as none: the lock counts as unowned. nr_dropped
 * counts both.
 */
#include "blocked_on_core.h"
#include "hist_core.h"

/* --- tables ---------------------------------------------------------------- */

static struct sl_bo_hnode *sl_bo_node(struct sl_bo_table *tb, u32 i)
{
	return (struct sl_bo_hnode *)((char *)tb->base + (unsigned long)i * tb->stride);
}

static const struct sl_bo_hnode *sl_bo_cnode(const struct sl_bo_table *tb, u32 i)
{
	return (const struct sl_bo_hnode *)((const char *)tb->base +
					    (unsigned long)i * tb->stride);
}

static u32 sl_bo_bucket(const struct sl_bo_table *tb, u64 key)
{
	return sl_bo_bucket_of(key, tb->size);
}

/*
 * The hint of bucket @b from its keys (with @waiting, those of the task
 * table's waiting tasks only): O(the bucket's length), needed only when a
 * key leaves a bucket that had several.
 */
static u64 sl_bo_bucket_hint(const struct sl_bo_table *tb, u32 b, bool waiting)
{
	u32 i = sl_bo_cnode(tb, b)->head, n;
	u64 hint = 0;

	for (n = 0; i != SL_BO_NIL && n < tb->size; n++) {
		const struct sl_bo_hnode *h = sl_bo_cnode(tb, i);

		if (h->key && (!waiting ||
			       ((const struct sl_bo_task *)h)->lock != SL_BO_NIL))
			hint = hint ? SL_BO_HINT_MANY : h->key;
		i = h->next;
	}
	return hint;
}

/* a key entered (@in) or left the bucket of @key: its hint *@hint again */
static void sl_bo_hint_update(const struct sl_bo_table *tb, u64 *hint, u64 key, bool in,
			      bool waiting)
{
	u64 old = *hint, v;

	if (in)
		v = old ? SL_BO_HINT_MANY : key;
	else if (old != SL_BO_HINT_MANY)
		v = 0;		/* it was the only one */
	else
		v = sl_bo_bucket_hint(tb, sl_bo_bucket(tb, key), waiting);
	if (v != old)
		SL_BO_WRITE_ONCE(*hint, v);
}

static void sl_bo_table_init(struct sl_bo_table *tb, void *base, u32 size,
			     u32 stride)
{
	u32 i;

	if (size >= SL_BO_NIL)
		size = SL_BO_NIL - 1;
	tb->base = base;
	tb->size = size;
	tb->stride = stride;
	tb->nr = 0;
	tb->free = size ? 0 : SL_BO_NIL;
	for (i = 0; i < size; i++) {
		struct sl_bo_hnode *h = sl_bo_node(tb, i);

		h->key = 0;
		h->head = SL_BO_NIL;
		h->hint = 0;
		h->next = i + 1 < size ? i + 1 : SL_BO_NIL;
	}
}

/* the slot of @key, or SL_BO_NIL */
static u32 sl_bo_find(const struct sl_bo_table *tb, u64 key)
{
	u32 i, n;

	if (!key || !tb->nr)
		return SL_BO_NIL;
	i = sl_bo_cnode(tb, sl_bo_bucket(tb, key))->head;
	for (n = 0; i != SL_BO_NIL && n < tb->nr; n++) {
		const struct sl_bo_hnode *h = sl_bo_cnode(tb, i);

		if (h->key == key)
			return i;
		i = h->next;
	}
	return SL_BO_NIL;
}

/* a slot for @key (not in the table), or SL_BO_NIL if full */
static u32 sl_bo_insert(struct sl_bo_table *tb, u64 key)
{
	u32 i = tb->free;
	struct sl_bo_hnode *h, *b;

	if (i == SL_BO_NIL)
		return SL_BO_NIL;
	h = sl_bo_node(tb, i);
	b = sl_bo_node(tb, sl_bo_bucket(tb, key));
	tb->free = h->next;
	h->key = key;
	h->next = b->head;
	b->head = i;
	tb->nr++;
	sl_bo_hint_update(tb, &b->hint, key, true, false);
	return i;
}

static void sl_bo_remove(struct sl_bo_table *tb, u32 i)
{
	struct sl_bo_hnode *h = sl_bo_node(tb, i);
	u32 *pp = &sl_bo_node(tb, sl_bo_bucket(tb, h->key))->head;
	u32 n;

	for (n = 0; *pp != i; n++) {
		if (*pp == SL_BO_NIL || n >= tb->size)
			return;		/* not in its bucket: cannot happen */
		pp = &sl_bo_node(tb, *pp)->next;
	}
	*pp = h->next;
	sl_bo_hint_update(tb, &sl_bo_node(tb, sl_bo_bucket(tb, h->key))->hint, h->key,
			  false, false);
	h->key = 0;
	h->next = tb->free;
	tb->free = i;
	tb->nr--;
}

/* --- copies, field by field (no memcpy() or memset() in a freestanding build) */

static void sl_bo_copy_comm(char *to, const char *from)
{
	unsigned int i;

	for (i = 0; i < SL_BO_COMM_LEN - 1 && from[i]; i++)
		to[i] = from[i];
	for (; i < SL_BO_COMM_LEN; i++)
		to[i] = 0;
}

static void sl_bo_copy_prio(struct sl_bo_prio *to, const struct sl_bo_prio *from)
{
	to->policy_class = from->policy_class;
	to->rt_prio = from->rt_prio;
	to->weight = from->weight;
	to->cgroup_weight = from->cgroup_weight;
}

static bool sl_bo_same_prio(const struct sl_bo_prio *a, const struct sl_bo_prio *b)
{
	return a->policy_class == b->policy_class && a->rt_prio == b->rt_prio &&
	       a->weight == b->weight && a->cgroup_weight == b->cgroup_weight;
}

static void sl_bo_copy_snap(struct sl_bo_snap *to, const struct sl_bo_snap *from)
{
	unsigned int i;

	to->at_ns = from->at_ns;
	to->len_ns = from->len_ns;
	to->depth = from->depth;
	to->head_cat = from->head_cat;
	to->nr = from->nr;
	/* only the links kept: past nr, a snapshot's links mean nothing */
	for (i = 0; i < from->nr && i < SL_BO_SNAP_DEPTH; i++) {
		struct sl_bo_snap_link *t = &to->link[i];
		const struct sl_bo_snap_link *f = &from->link[i];

		t->lock = f->lock;
		t->weight = f->weight;
		t->pid = f->pid;
		t->cpu = f->cpu;
		t->policy_class = f->policy_class;
		t->rt_prio = f->rt_prio;
		t->state = f->state;
		sl_bo_copy_comm(t->comm, f->comm);
	}
}

static void sl_bo_clear_snap(struct sl_bo_snap *s)
{
	s->at_ns = 0;
	s->len_ns = 0;
	s->depth = 0;
	s->head_cat = 0;
	s->nr = 0;	/* no link kept: link[] means nothing */
}

/* --- importance ------------------------------------------------------------- */

/**
 * sl_bo_importance_rules - the rules by which one task is more important
 * @a: the first task's importance
 * @b: the second's
 * @rules: SL_BO_RULE_* to try
 *
 * Return: the bits of @rules by which @a is more important than @b (see
 * "Inversions" above); 0 if none.
 */
unsigned int sl_bo_importance_rules(const struct sl_bo_prio *a,
				    const struct sl_bo_prio *b,
				    unsigned int rules)
{
	int ca = a->policy_class, cb = b->policy_class;
	bool a_rt = ca == SL_BO_CLASS_RT || ca == SL_BO_CLASS_DL;
	bool b_rt = cb == SL_BO_CLASS_RT || cb == SL_BO_CLASS_DL;
	bool normal = ca == SL_BO_CLASS_NORMAL && cb == SL_BO_CLASS_NORMAL;
	unsigned int m = 0;

	if (rules & SL_BO_RULE_RT) {
		if (a_rt && !b_rt)
			m |= SL_BO_RULE_RT;
		else if (ca == SL_BO_CLASS_DL && cb == SL_BO_CLASS_RT)
			m |= SL_BO_RULE_RT;
		else if (ca == SL_BO_CLASS_RT && cb == SL_BO_CLASS_RT &&
			 a->rt_prio > b->rt_prio)
			m |= SL_BO_RULE_RT;
	}
	if ((rules & SL_BO_RULE_WEIGHT) && normal && a->weight > b->weight)
		m |= SL_BO_RULE_WEIGHT;
	if ((rules & SL_BO_RULE_IDLE) && (ca == SL_BO_CLASS_NORMAL || a_rt) &&
	    cb == SL_BO_CLASS_IDLE)
		m |= SL_BO_RULE_IDLE;
	if ((rules & SL_BO_RULE_CGROUP) && normal &&
	    a->cgroup_weight > b->cgroup_weight)
		m |= SL_BO_RULE_CGROUP;
	return m;
}

/**
 * sl_bo_more_important - whether one task is more important than another
 * @a: the first task's importance
 * @b: the second's
 * @rules: SL_BO_RULE_* to try
 *
 * Return: true if any rule of @rules says @a is more important than @b.
 */
bool sl_bo_more_important(const struct sl_bo_prio *a,
			  const struct sl_bo_prio *b, unsigned int rules)
{
	return sl_bo_importance_rules(a, b, rules) != 0;
}

/* --- entries ---------------------------------------------------------------- */

static void sl_bo_set_info(struct sl_bo_task *t, const struct sl_bo_task_info *in)
{
	t->pid = in->pid;
	sl_bo_copy_comm(t->comm, in->comm);
	t->state = in->state;
	t->cpu = in->cpu;
	sl_bo_copy_prio(&t->prio, &in->prio);
}

/* whether task entry @t already says what @in says */
static bool sl_bo_same_info(const struct sl_bo_task *t, const struct sl_bo_task_info *in)
{
	unsigned int i;

	if (t->pid != in->pid || t->state != in->state || t->cpu != in->cpu ||
	    !sl_bo_same_prio(&t->prio, &in->prio))
		return false;
	/* as sl_bo_copy_comm() would store it */
	for (i = 0; i < SL_BO_COMM_LEN - 1 && in->comm[i]; i++)
		if (t->comm[i] != in->comm[i])
			return false;
	return t->comm[i] == 0;
}

/*
 * A new task entry for @key, from @in, or if NULL: pid 0, no comm, state
 * @state, unknown CPU, normal class at nice 0 in a default cgroup.
 */
static u32 sl_bo_task_new(struct sl_bo_graph *g, u64 key,
			  const struct sl_bo_task_info *in, unsigned int state)
{
	u32 ti = sl_bo_insert(&g->tt, key);
	struct sl_bo_task *t;

	if (ti == SL_BO_NIL)
		return SL_BO_NIL;
	t = &g->tasks[ti];
	t->lock = SL_BO_NIL;
	t->wprev = SL_BO_NIL;
	t->wnext = SL_BO_NIL;
	t->nr_owned = 0;
	t->owned = SL_BO_NIL;
	t->visit = 0;
	t->qnext = SL_BO_NIL;
	t->qdist = 0;
	if (in) {
		sl_bo_set_info(t, in);
	} else {
		t->pid = 0;
		sl_bo_copy_comm(t->comm, "");
		t->state = state;
		t->cpu = -1;
		t->prio.policy_class = SL_BO_CLASS_NORMAL;
		t->prio.rt_prio = 0;
		t->prio.weight = 1024;
		t->prio.cgroup_weight = 100;
	}
	return ti;
}

/* forget task @ti if it neither waits nor owns */
static void sl_bo_task_put(struct sl_bo_graph *g, u32 ti)
{
	struct sl_bo_task *t = &g->tasks[ti];

	if (t->h.key && t->lock == SL_BO_NIL && !t->nr_owned)
		sl_bo_remove(&g->tt, ti);
}

/*
 * Make @owner (0: none) the owner of lock @li, creating its entry from @oi
 * if needed (or taking none if there is no room), refreshing it from @oi
 * otherwise. The previous owner is forgotten if that was its last reason.
 */
static void sl_bo_set_owner(struct sl_bo_graph *g, u32 li, u64 owner,
			    const struct sl_bo_task_info *oi)
{
	struct sl_bo_lock *l = &g->locks[li];
	u32 old = l->owner, oti = SL_BO_NIL;

	if (owner) {
		oti = sl_bo_find(&g->tt, owner);
		if (oti == SL_BO_NIL) {
			oti = sl_bo_task_new(g, owner, oi, SL_BO_RUNNING);
			if (oti == SL_BO_NIL)
				g->nr_dropped++;
		} else if (oi) {
			sl_bo_set_info(&g->tasks[oti], oi);
		}
	}
	if (oti == old)
		return;
	if (old != SL_BO_NIL) {
		/* off the old owner's list of locks */
		if (l->oprev != SL_BO_NIL)
			g->locks[l->oprev].onext = l->onext;
		else
			g->tasks[old].owned = l->onext;
		if (l->onext != SL_BO_NIL)
			g->locks[l->onext].oprev = l->oprev;
	}
	l->owner = oti;
	l->oprev = SL_BO_NIL;
	l->onext = SL_BO_NIL;
	if (oti != SL_BO_NIL) {
		struct sl_bo_task *o = &g->tasks[oti];

		o->nr_owned++;
		l->onext = o->owned;
		if (o->owned != SL_BO_NIL)
			g->locks[o->owned].oprev = li;
		o->owned = li;
	}
	if (old != SL_BO_NIL) {
		g->tasks[old].nr_owned--;
		sl_bo_task_put(g, old);
	}
}

static u32 sl_bo_lock_new(struct sl_bo_graph *g, u64 key)
{
	u32 li = sl_bo_insert(&g->lt, key);

	if (li == SL_BO_NIL)
		return SL_BO_NIL;
	g->locks[li].owner = SL_BO_NIL;
	g->locks[li].oprev = SL_BO_NIL;
	g->locks[li].onext = SL_BO_NIL;
	g->locks[li].nr_waiters = 0;
	g->locks[li].waiters = SL_BO_NIL;
	g->locks[li].kind = SL_BO_MUTEX;
	return li;
}

/* forget lock @li, and its owner, if nobody waits on it */
static void sl_bo_lock_put(struct sl_bo_graph *g, u32 li)
{
	struct sl_bo_lock *l = &g->locks[li];

	if (!l->h.key || l->nr_waiters)
		return;
	sl_bo_set_owner(g, li, 0, NULL);
	sl_bo_remove(&g->lt, li);
}

/* task @ti started (@in) or stopped waiting: the waiting hint of its bucket */
static void sl_bo_wait_hint(struct sl_bo_graph *g, u32 ti, bool in)
{
	u64 key = g->tasks[ti].h.key;

	sl_bo_hint_update(&g->tt, &g->tasks[sl_bo_bucket(&g->tt, key)].whint, key, in, true);
}

/* task @ti starts waiting on lock @li at the graph's now */
static void sl_bo_wait_attach(struct sl_bo_graph *g, u32 ti, u32 li)
{
	struct sl_bo_task *t = &g->tasks[ti];
	struct sl_bo_lock *l = &g->locks[li];
	struct sl_bo_wait *w = &t->w;
	unsigned int c;

	t->lock = li;
	l->nr_waiters++;
	t->wprev = SL_BO_NIL;
	t->wnext = l->waiters;
	if (l->waiters != SL_BO_NIL)
		g->tasks[l->waiters].wprev = ti;
	l->waiters = ti;
	g->nr_waits++;
	sl_bo_wait_hint(g, ti, true);

	w->begin_ns = g->now;
	w->since_ns = g->now;
	for (c = 0; c < SL_BO_NR_CATS; c++) {
		w->cat_ns[c] = 0;
		w->head_ns[c] = 0;
	}
	w->inv_ns = 0;
	w->seg_begin_ns = 0;
	w->cat = SL_BO_CAT_UNOWNED;
	w->head = SL_BO_CAT_UNOWNED;
	w->inv_now = 0;
	w->inv_rules = 0;
	w->depth = 0;
	w->max_depth = 0;
	w->cycle = false;
	w->in_seg = false;
	for (c = 0; c < SL_BO_NR_PROXY; c++)
		w->proxy[c] = 0;
	sl_bo_clear_snap(&w->cur);
	sl_bo_clear_snap(&w->best);
}

/* task @ti stops waiting; neither it nor its lock is freed here */
static void sl_bo_wait_detach(struct sl_bo_graph *g, u32 ti)
{
	struct sl_bo_task *t = &g->tasks[ti];
	struct sl_bo_lock *l = &g->locks[t->lock];

	if (t->wprev != SL_BO_NIL)
		g->tasks[t->wprev].wnext = t->wnext;
	else
		l->waiters = t->wnext;
	if (t->wnext != SL_BO_NIL)
		g->tasks[t->wnext].wprev = t->wprev;
	t->wprev = SL_BO_NIL;
	t->wnext = SL_BO_NIL;
	l->nr_waiters--;
	t->lock = SL_BO_NIL;
	t->w.in_seg = false;
	g->nr_waits--;
	sl_bo_wait_hint(g, ti, false);
}

/* --- chains and categories ------------------------------------------------ */

enum sl_bo_walk_end {
	SL_BO_WALK_HEAD,	/* the last task does not wait */
	SL_BO_WALK_UNOWNED,	/* the last task waits on an unowned lock */
	SL_BO_WALK_CYCLE,	/* the last task's lock is owned by an earlier one */
	SL_BO_WALK_DEEP,	/* SL_BO_MAX_DEPTH tasks, and it goes on */
};

struct sl_bo_walk {
	u32 task[SL_BO_MAX_DEPTH];	/* slots, from the waiter */
	unsigned int depth;
	unsigned int end;		/* enum sl_bo_walk_end */
};

/*
 * The lock task @ti is blocked on: SL_BO_NIL if none, and also if that
 * lock's owner is @ti itself. The owner word names a waiter as soon as the
 * lock is handed off to it or it takes it, a moment before the end of its
 * wait is seen: from then on it holds the lock, it is no longer blocked
 * (and a waiter behind it is not on a cycle).
 */
static u32 sl_bo_blocked_on(const struct sl_bo_graph *g, u32 ti)
{
	u32 li = g->tasks[ti].lock;

	return li != SL_BO_NIL && g->locks[li].owner == ti ? SL_BO_NIL : li;
}

static void sl_bo_walk(const struct sl_bo_graph *g, u32 ti, struct sl_bo_walk *wk)
{
	const struct sl_bo_lock *l;
	unsigned int k;
	u32 li;

	wk->depth = 0;
	for (;;) {
		for (k = 0; k < wk->depth; k++) {
			if (wk->task[k] == ti) {
				wk->end = SL_BO_WALK_CYCLE;
				return;
			}
		}
		if (wk->depth == SL_BO_MAX_DEPTH) {
			wk->end = SL_BO_WALK_DEEP;
			return;
		}
		wk->task[wk->depth++] = ti;
		li = sl_bo_blocked_on(g, ti);
		if (li == SL_BO_NIL) {
			wk->end = SL_BO_WALK_HEAD;
			return;
		}
		l = &g->locks[li];
		if (l->owner == SL_BO_NIL) {
			wk->end = SL_BO_WALK_UNOWNED;
			return;
		}
		ti = l->owner;
	}
}

/* whether lock @li is on a cycle of at most SL_BO_MAX_DEPTH tasks */
static bool sl_bo_on_cycle(const struct sl_bo_graph *g, u32 li)
{
	u32 ti = g->locks[li].owner;
	unsigned int n;

	for (n = 0; n < SL_BO_MAX_DEPTH && ti != SL_BO_NIL; n++) {
		u32 next = sl_bo_blocked_on(g, ti);

		if (next == li)
			return true;
		if (next == SL_BO_NIL)
			return false;
		ti = g->locks[next].owner;
	}
	return false;
}

/* the category of a task not waiting on a tracked lock, for a waiter on @cpu */
static unsigned int sl_bo_state_cat(const struct sl_bo_task *o, int cpu)
{
	bool local = cpu >= 0 && o->cpu == cpu;

	switch (o->state) {
	case SL_BO_RUNNING:
		return local ? SL_BO_CAT_RUN_LOCAL : SL_BO_CAT_RUN_REMOTE;
	case SL_BO_PROXY:
		return SL_BO_CAT_PROXY;
	case SL_BO_RUNNABLE:
		return local ? SL_BO_CAT_PREEMPTED : SL_BO_CAT_RUNNABLE_REMOTE;
	default:
		return SL_BO_CAT_SLEEPING;
	}
}

static bool sl_bo_stalled(unsigned int cat)
{
	return cat == SL_BO_CAT_PREEMPTED || cat == SL_BO_CAT_RUNNABLE_REMOTE ||
	       cat == SL_BO_CAT_SLEEPING;
}

static void sl_bo_snap_take(const struct sl_bo_graph *g,
			    const struct sl_bo_walk *wk, unsigned int head_cat,
			    struct sl_bo_snap *s)
{
	unsigned int i;

	sl_bo_clear_snap(s);
	s->at_ns = g->now;
	s->depth = wk->depth;
	s->head_cat = head_cat;
	s->nr = wk->depth < SL_BO_SNAP_DEPTH ? wk->depth : SL_BO_SNAP_DEPTH;
	for (i = 0; i < s->nr; i++) {
		const struct sl_bo_task *t = &g->tasks[wk->task[i]];
		struct sl_bo_snap_link *l = &s->link[i];

		l->lock = t->lock != SL_BO_NIL ? g->locks[t->lock].h.key : 0;
		l->weight = t->prio.weight;
		l->pid = t->pid;
		l->cpu = t->cpu;
		l->policy_class = t->prio.policy_class;
		l->rt_prio = t->prio.rt_prio;
		l->state = t->state;
		sl_bo_copy_comm(l->comm, t->comm);
	}
}

/* account wait @w up to the graph's now, in the categories it has been in */
static void sl_bo_wait_catch_up(const struct sl_bo_graph *g, struct sl_bo_wait *w)
{
	u64 dt;

	if (g->now <= w->since_ns)
		return;
	dt = g->now - w->since_ns;
	w->since_ns = g->now;
	w->cat_ns[w->cat] += dt;
	w->head_ns[w->head] += dt;
	if (w->inv_now) {
		w->inv_ns += dt;
		w->inv_rules |= w->inv_now;
	}
}

/* recompute the categories of the wait of task @ti from the graph */
static void sl_bo_wait_update(struct sl_bo_graph *g, u32 ti)
{
	struct sl_bo_task *t = &g->tasks[ti];
	struct sl_bo_wait *w = &t->w;
	const struct sl_bo_lock *l = &g->locks[t->lock];
	const struct sl_bo_task *head;
	struct sl_bo_walk wk;
	bool stalled;

	sl_bo_wait_catch_up(g, w);
	g->nr_updates++;
	sl_bo_walk(g, ti, &wk);
	w->depth = wk.depth;
	if (wk.depth > w->max_depth)
		w->max_depth = wk.depth;
	if (wk.end == SL_BO_WALK_CYCLE)
		w->cycle = true;

	if (l->owner == SL_BO_NIL)
		w->cat = SL_BO_CAT_UNOWNED;
	else if (sl_bo_blocked_on(g, l->owner) != SL_BO_NIL)
		w->cat = SL_BO_CAT_BLOCKED;
	else
		w->cat = sl_bo_state_cat(&g->tasks[l->owner], t->cpu);

	head = &g->tasks[wk.task[wk.depth - 1]];
	if (wk.end == SL_BO_WALK_HEAD)
		w->head = sl_bo_state_cat(head, t->cpu);
	else if (wk.end == SL_BO_WALK_UNOWNED)
		w->head = SL_BO_CAT_UNOWNED;
	else
		w->head = SL_BO_CAT_BLOCKED;

	stalled = sl_bo_stalled(w->head);
	w->inv_now = stalled ? sl_bo_importance_rules(&t->prio, &head->prio, g->rules) : 0;

	if (stalled && !w->in_seg) {
		w->in_seg = true;
		w->seg_begin_ns = g->now;
		sl_bo_snap_take(g, &wk, w->head, &w->cur);
	} else if (!stalled && w->in_seg) {
		w->in_seg = false;
		if (g->now - w->seg_begin_ns > w->best.len_ns) {
			sl_bo_copy_snap(&w->best, &w->cur);
			w->best.len_ns = g->now - w->seg_begin_ns;
		}
	}
}

/*
 * The graph's clock moves to @now (waits are accounted lazily, from their
 * since_ns, when they are recomputed or read).
 */
static void sl_bo_advance(struct sl_bo_graph *g, u64 now)
{
	if (now > g->now)
		g->now = now;
}

/* --- update passes (see "Work per call") ---------------------------------- */

static void sl_bo_pass_begin(struct sl_bo_graph *g)
{
	u32 i;

	if (++g->pass == 0) {
		/* wrapped: no mark may look current */
		for (i = 0; i < g->tt.size; i++)
			g->tasks[i].visit = 0;
		g->pass = 1;
	}
	g->qhead = SL_BO_NIL;
	g->qtail = SL_BO_NIL;
}

/*
 * Task @ti, reached at distance @d in this pass (unless it was already):
 * its wait is recomputed now, and it is queued if waits can be behind it
 * (it owns tracked locks) for sl_bo_pass_end() to go on from it.
 */
static void sl_bo_reach(struct sl_bo_graph *g, u32 ti, u32 d)
{
	struct sl_bo_task *t = &g->tasks[ti];

	if (!t->h.key || t->visit == g->pass)
		return;
	t->visit = g->pass;
	if (t->lock != SL_BO_NIL)
		sl_bo_wait_update(g, ti);
	if (t->owned == SL_BO_NIL || d + 1 >= SL_BO_MAX_DEPTH)
		return;
	t->qdist = d;
	t->qnext = SL_BO_NIL;
	if (g->qtail == SL_BO_NIL)
		g->qhead = ti;
	else
		g->tasks[g->qtail].qnext = ti;
	g->qtail = ti;
}

/*
 * Something of task @ti changed (@ti may be SL_BO_NIL): its wait, and those
 * whose chain it is in. Called once the event's changes are made (entries
 * without a reason to be tracked may still go after).
 */
static void sl_bo_touch_task(struct sl_bo_graph *g, u32 ti)
{
	if (ti != SL_BO_NIL)
		sl_bo_reach(g, ti, 0);
}

/* lock @li's owner changed: the waits of its waiters, and those behind them */
static void sl_bo_touch_lock(struct sl_bo_graph *g, u32 li)
{
	u32 ti;

	if (li == SL_BO_NIL || !g->locks[li].h.key)
		return;
	for (ti = g->locks[li].waiters; ti != SL_BO_NIL; ti = g->tasks[ti].wnext)
		sl_bo_reach(g, ti, 0);
}

/*
 * Recompute every wait whose chain contains a task touched in this pass,
 * at most SL_BO_MAX_DEPTH - 1 links before it: breadth-first from the
 * touched tasks (recomputed when touched) along the reverse edges (a
 * task, the locks it owns, their waiters), each task at most once. Tasks
 * that own nothing are never queued: an event about a waiter nobody waits
 * behind costs its one update.
 */
static void sl_bo_pass_end(struct sl_bo_graph *g)
{
	while (g->qhead != SL_BO_NIL) {
		u32 ti = g->qhead, li, wi;
		struct sl_bo_task *t = &g->tasks[ti];

		g->qhead = t->qnext;
		if (g->qhead == SL_BO_NIL)
			g->qtail = SL_BO_NIL;
		if (!t->h.key)
			continue;
		for (li = t->owned; li != SL_BO_NIL; li = g->locks[li].onext)
			for (wi = g->locks[li].waiters; wi != SL_BO_NIL; wi = g->tasks[wi].wnext)
				sl_bo_reach(g, wi, t->qdist + 1);
	}
}

/*
 * The record of task @ti's wait as if it ended at @now (not before the
 * graph's now): the time since the graph's now in the current categories.
 */
static void sl_bo_fill_record(const struct sl_bo_graph *g, u32 ti, u64 now,
			      unsigned int end, struct sl_bo_wait_record *rec)
{
	const struct sl_bo_task *t = &g->tasks[ti];
	const struct sl_bo_wait *w = &t->w;
	const struct sl_bo_lock *l = &g->locks[t->lock];
	u64 end_ns = now > g->now ? now : g->now;
	u64 dt = end_ns > w->since_ns ? end_ns - w->since_ns : 0;
	unsigned int c;

	rec->waiter = t->h.key;
	rec->lock = l->h.key;
	rec->kind = l->kind;
	rec->pid = t->pid;
	sl_bo_copy_comm(rec->comm, t->comm);
	sl_bo_copy_prio(&rec->prio, &t->prio);
	rec->begin_ns = w->begin_ns;
	rec->end_ns = end_ns;
	rec->duration_ns = end_ns - w->begin_ns;
	rec->acquired = end == SL_BO_END_ACQUIRED;
	rec->end = end;
	for (c = 0; c < SL_BO_NR_CATS; c++) {
		rec->cat_ns[c] = w->cat_ns[c] + (c == w->cat ? dt : 0);
		rec->head_ns[c] = w->head_ns[c] + (c == w->head ? dt : 0);
	}
	rec->depth = w->depth;
	rec->max_depth = w->max_depth;
	rec->cycle = w->cycle;
	rec->inv_ns = w->inv_ns;
	rec->inv_rules = w->inv_rules;
	for (c = 0; c < SL_BO_NR_PROXY; c++)
		rec->proxy[c] = w->proxy[c];
	if (w->inv_now && dt) {
		rec->inv_ns += dt;
		rec->inv_rules |= w->inv_now;
	}
	if (w->in_seg && end_ns - w->seg_begin_ns > w->best.len_ns) {
		sl_bo_copy_snap(&rec->snap, &w->cur);
		rec->snap.len_ns = end_ns - w->seg_begin_ns;
	} else {
		sl_bo_copy_snap(&rec->snap, &w->best);
	}
}

/* --- the API ---------------------------------------------------------------- */

/**
 * sl_bo_init - an empty graph on the caller's tables
 * @g: the graph
 * @tasks: @max_tasks task entries, owned by the caller
 * @max_tasks: their number (0 is allowed: nothing is ever tracked)
 * @locks: @max_locks lock entries, owned by the caller
 * @max_locks: their number
 *
 * The tables are cleared (O(@max_tasks + @max_locks)); the clock starts
 * at 0 and every inversion rule is enabled (g->rules).
 */
void sl_bo_init(struct sl_bo_graph *g, struct sl_bo_task *tasks, u32 max_tasks,
		struct sl_bo_lock *locks, u32 max_locks)
{
	u32 i;

	g->tasks = tasks;
	g->locks = locks;
	sl_bo_table_init(&g->tt, tasks, max_tasks, sizeof(*tasks));
	sl_bo_table_init(&g->lt, locks, max_locks, sizeof(*locks));
	for (i = 0; i < g->tt.size; i++) {
		tasks[i].whint = 0;
		tasks[i].visit = 0;
	}
	g->nr_waits = 0;
	g->pass = 0;
	g->qhead = SL_BO_NIL;
	g->qtail = SL_BO_NIL;
	g->nr_updates = 0;
	g->now = 0;
	g->rules = SL_BO_RULES_ALL;
	g->cycles_seen = 0;
	g->nr_dropped = 0;
	g->nr_replaced = 0;
}

/**
 * sl_bo_wait_begin - a task starts waiting on a lock
 * @g: the graph
 * @waiter: the task's key, not 0
 * @wi: what is known of it (refreshes a tracked entry); NULL: defaults
 *	for a new one (sleeping, unknown CPU, nice 0)
 * @lock: the lock's key, not 0
 * @kind: enum sl_bo_kind
 * @owner: the lock's owner as read now, 0 if none (may be @waiter)
 * @oi: what is known of the owner, as @wi; NULL: a new owner runs
 * @now: when
 *
 * A waiter already waiting on another lock ends that wait first, without a
 * record (nr_replaced); already waiting on @lock, only the entries are
 * refreshed and the wait goes on.
 *
 * Return: 0; -SL_BO_EINVAL for a 0 key; -SL_BO_ENOSPC if the waiter, the
 * lock or the owner found no room: then the wait is not tracked.
 */
int sl_bo_wait_begin(struct sl_bo_graph *g, u64 waiter,
		     const struct sl_bo_task_info *wi, u64 lock, unsigned int kind,
		     u64 owner, const struct sl_bo_task_info *oi, u64 now)
{
	u32 ti, li, need = 0;
	bool was_cycle = false, same;

	if (!waiter || !lock)
		return -SL_BO_EINVAL;
	sl_bo_advance(g, now);
	sl_bo_pass_begin(g);
	ti = sl_bo_find(&g->tt, waiter);
	li = sl_bo_find(&g->lt, lock);
	if (ti != SL_BO_NIL && g->tasks[ti].lock != SL_BO_NIL && g->tasks[ti].lock != li) {
		u32 old = g->tasks[ti].lock;

		sl_bo_wait_detach(g, ti);
		g->nr_replaced++;
		sl_bo_lock_put(g, old);
		sl_bo_task_put(g, ti);
		ti = sl_bo_find(&g->tt, waiter);
	}

	/* already waiting on @lock: a new owner finding no room is dropped */
	same = ti != SL_BO_NIL && li != SL_BO_NIL && g->tasks[ti].lock == li;
	if (ti == SL_BO_NIL)
		need++;
	if (owner && owner != waiter && sl_bo_find(&g->tt, owner) == SL_BO_NIL)
		need++;
	if (!same && (g->tt.size - g->tt.nr < need ||
		      (li == SL_BO_NIL && g->lt.nr == g->lt.size))) {
		g->nr_dropped++;
		/* its previous wait may have ended: the waits behind it */
		sl_bo_touch_task(g, ti);
		sl_bo_pass_end(g);
		return -SL_BO_ENOSPC;
	}

	if (ti == SL_BO_NIL)
		ti = sl_bo_task_new(g, waiter, wi, SL_BO_SLEEPING);
	else if (wi)
		sl_bo_set_info(&g->tasks[ti], wi);
	if (li == SL_BO_NIL)
		li = sl_bo_lock_new(g, lock);
	else
		was_cycle = sl_bo_on_cycle(g, li);
	g->locks[li].kind = kind;
	if (g->tasks[ti].lock == SL_BO_NIL)
		sl_bo_wait_attach(g, ti, li);
	sl_bo_set_owner(g, li, owner, oi);
	if (!was_cycle && sl_bo_on_cycle(g, li))
		g->cycles_seen++;
	/* the waiter (in the lock's waiters), the lock's owner, who was refreshed */
	sl_bo_touch_lock(g, li);
	sl_bo_touch_task(g, g->locks[li].owner);
	sl_bo_pass_end(g);
	return 0;
}

/**
 * sl_bo_owner - a lock's owner was seen
 * @g: the graph
 * @lock: the lock's key; ignored if nobody waits on it
 * @owner: the owner's key, 0 if released
 * @oi: what is known of the owner (refreshes a tracked entry); NULL:
 *	defaults for a new one (running, unknown CPU, nice 0)
 * @now: when
 */
void sl_bo_owner(struct sl_bo_graph *g, u64 lock, u64 owner,
		 const struct sl_bo_task_info *oi, u64 now)
{
	u32 li = sl_bo_find(&g->lt, lock), cur;
	bool was_cycle;

	if (li == SL_BO_NIL)
		return;
	sl_bo_advance(g, now);
	/* the same owner, nothing new about it: no wait can change */
	cur = g->locks[li].owner;
	if (cur == SL_BO_NIL ? !owner :
	    g->tasks[cur].h.key == owner && (!oi || sl_bo_same_info(&g->tasks[cur], oi)))
		return;
	sl_bo_pass_begin(g);
	was_cycle = sl_bo_on_cycle(g, li);
	sl_bo_set_owner(g, li, owner, oi);
	if (!was_cycle && sl_bo_on_cycle(g, li))
		g->cycles_seen++;
	sl_bo_touch_lock(g, li);
	sl_bo_touch_task(g, g->locks[li].owner);
	sl_bo_pass_end(g);
}

/**
 * sl_bo_task_state - a task changed state or CPU
 * @g: the graph
 * @task: its key; ignored at once if not tracked
 * @state: enum sl_bo_state
 * @cpu: its CPU (where it runs, is queued, or last ran)
 * @now: when
 */
void sl_bo_task_state(struct sl_bo_graph *g, u64 task, unsigned int state,
		      int cpu, u64 now)
{
	struct sl_bo_task *t;
	u32 ti;

	if (!g->tt.nr)
		return;
	ti = sl_bo_find(&g->tt, task);
	if (ti == SL_BO_NIL)
		return;
	t = &g->tasks[ti];
	if (t->state == state && t->cpu == cpu)
		return;
	sl_bo_advance(g, now);
	t->state = state;
	t->cpu = cpu;
	sl_bo_pass_begin(g);
	sl_bo_touch_task(g, ti);
	sl_bo_pass_end(g);
}

/**
 * sl_bo_proxy_event - count a proxy-execution decision against a wait
 * @g: the graph
 * @task: the waiting task the decision was about (its key)
 * @what: enum sl_bo_proxy
 *
 * Return: whether @task was waiting (and the decision counted). O(1).
 */
bool sl_bo_proxy_event(struct sl_bo_graph *g, u64 task, unsigned int what)
{
	u32 ti;

	if (what >= SL_BO_NR_PROXY || !g->tt.nr)
		return false;
	ti = sl_bo_find(&g->tt, task);
	if (ti == SL_BO_NIL || g->tasks[ti].lock == SL_BO_NIL)
		return false;
	g->tasks[ti].w.proxy[what]++;
	return true;
}

/**
 * sl_bo_task_prio - a task changed importance
 * @g: the graph
 * @task: its key; ignored at once if not tracked
 * @p: the new importance, copied
 * @now: when
 */
void sl_bo_task_prio(struct sl_bo_graph *g, u64 task,
		     const struct sl_bo_prio *p, u64 now)
{
	struct sl_bo_task *t;
	u32 ti;

	if (!g->tt.nr)
		return;
	ti = sl_bo_find(&g->tt, task);
	if (ti == SL_BO_NIL)
		return;
	t = &g->tasks[ti];
	if (sl_bo_same_prio(&t->prio, p))
		return;
	sl_bo_advance(g, now);
	sl_bo_copy_prio(&t->prio, p);
	sl_bo_pass_begin(g);
	sl_bo_touch_task(g, ti);
	sl_bo_pass_end(g);
}

/**
 * sl_bo_set_rules - change the inversion rules
 * @g: the graph
 * @rules: SL_BO_RULE_* (g->rules)
 * @now: when: every wait is accounted up to then with the old rules
 *
 * Every wait is recomputed: O(T) slots and a chain walk per wait.
 */
void sl_bo_set_rules(struct sl_bo_graph *g, unsigned int rules, u64 now)
{
	u32 ti;

	if (g->rules == rules)
		return;
	sl_bo_advance(g, now);
	g->rules = rules;
	for (ti = 0; ti < g->tt.size; ti++)
		if (g->tasks[ti].h.key && g->tasks[ti].lock != SL_BO_NIL)
			sl_bo_wait_update(g, ti);
}

/**
 * sl_bo_wait_end - a task stopped waiting on a lock
 * @g: the graph
 * @waiter: the task's key
 * @lock: the lock's key
 * @acquired: it took the lock, and is now its owner
 * @now: when
 * @rec: the wait's record (may be NULL)
 *
 * The waiter and the lock are forgotten if nothing else keeps them: a lock
 * with no more waiters goes at once, its owner too if it has no other
 * reason to be tracked.
 *
 * Return: false, changing nothing, if @waiter was not waiting on @lock.
 */
bool sl_bo_wait_end(struct sl_bo_graph *g, u64 waiter, u64 lock, bool acquired,
		    u64 now, struct sl_bo_wait_record *rec)
{
	u32 ti = sl_bo_find(&g->tt, waiter), li;

	if (ti == SL_BO_NIL || g->tasks[ti].lock == SL_BO_NIL)
		return false;
	li = g->tasks[ti].lock;
	if (g->locks[li].h.key != lock)
		return false;
	sl_bo_advance(g, now);
	if (rec)
		sl_bo_fill_record(g, ti, g->now,
				  acquired ? SL_BO_END_ACQUIRED : SL_BO_END_FAILED, rec);
	sl_bo_pass_begin(g);
	sl_bo_wait_detach(g, ti);
	if (acquired)
		sl_bo_set_owner(g, li, waiter, NULL);
	/*
	 * The waits behind the waiter; if it acquired the lock, the lock's other
	 * waiters are behind it now. (Not acquired: they are behind the lock's
	 * owner, which did not change.)
	 */
	sl_bo_touch_task(g, ti);
	sl_bo_lock_put(g, li);
	sl_bo_task_put(g, ti);
	sl_bo_pass_end(g);
	return true;
}

/*
 * Spinning waiters. A waiter first spins while the lock's owner runs on
 * another CPU (optimistic spinning, with preemption off); only if that
 * fails does it queue and sleep. It may still be switched out between the
 * two (a failed spin reschedules when asked to) and carry on elsewhere:
 * the caller then enters the wait at that switch. Most
 * short waits end while spinning, and need no place in the graph: their
 * whole length is run_remote (the spin stops as soon as the owner is off
 * its CPU), or unowned if the lock had no owner when the spin began. The
 * caller keeps such a wait aside and either ends it with
 * sl_bo_spin_record(), or enters it into the graph when the waiter queues
 * (sl_bo_wait_begin()) and adds the time spun with sl_bo_wait_spun().
 */

/**
 * sl_bo_wait_spun - a new wait had spun before it was entered
 * @g: the graph
 * @waiter: its waiter, just entered by sl_bo_wait_begin()
 * @spun_ns: how long it spun before; the wait begins that much earlier
 * @owned: the lock had an owner (else the time is unowned)
 */
void sl_bo_wait_spun(struct sl_bo_graph *g, u64 waiter, u64 spun_ns, bool owned)
{
	u32 ti = sl_bo_find(&g->tt, waiter);
	struct sl_bo_wait *w;
	unsigned int c = owned ? SL_BO_CAT_RUN_REMOTE : SL_BO_CAT_UNOWNED;

	if (ti == SL_BO_NIL || g->tasks[ti].lock == SL_BO_NIL)
		return;
	w = &g->tasks[ti].w;
	w->begin_ns -= spun_ns;
	w->cat_ns[c] += spun_ns;
	w->head_ns[c] += spun_ns;
	if (w->max_depth < (owned ? 2U : 1U))
		w->max_depth = owned ? 2 : 1;
}

/**
 * sl_bo_spin_record - the record of a wait that ended while spinning
 * @waiter: the waiter's key
 * @wi: what is known of it
 * @lock: the lock's key
 * @kind: enum sl_bo_kind
 * @owned: the lock had an owner when the spin began
 * @begin_ns: when it began
 * @end_ns: when it ended
 * @acquired: the lock was taken
 * @rec: filled
 */
void sl_bo_spin_record(u64 waiter, const struct sl_bo_task_info *wi, u64 lock,
		       unsigned int kind, bool owned, u64 begin_ns, u64 end_ns,
		       bool acquired, struct sl_bo_wait_record *rec)
{
	unsigned int c, cat = owned ? SL_BO_CAT_RUN_REMOTE : SL_BO_CAT_UNOWNED;
	u64 d = end_ns > begin_ns ? end_ns - begin_ns : 0;

	rec->waiter = waiter;
	rec->lock = lock;
	rec->kind = kind;
	rec->pid = wi->pid;
	sl_bo_copy_comm(rec->comm, wi->comm);
	sl_bo_copy_prio(&rec->prio, &wi->prio);
	rec->begin_ns = begin_ns;
	rec->end_ns = begin_ns + d;
	rec->duration_ns = d;
	rec->acquired = acquired;
	rec->end = acquired ? SL_BO_END_ACQUIRED : SL_BO_END_FAILED;
	for (c = 0; c < SL_BO_NR_CATS; c++)
		rec->cat_ns[c] = rec->head_ns[c] = c == cat ? d : 0;
	rec->depth = owned ? 2 : 1;
	rec->max_depth = rec->depth;
	rec->cycle = false;
	rec->inv_rules = 0;
	rec->inv_ns = 0;
	sl_bo_clear_snap(&rec->snap);
}

/**
 * sl_bo_task_exit - a task exits
 * @g: the graph
 * @task: its key; ignored if not tracked
 * @now: when
 * @rec: the record of its wait, if it was waiting (may be NULL)
 *
 * Its wait ends (SL_BO_END_EXIT), the locks it owned are left unowned, and
 * it is forgotten.
 *
 * Return: true if it was waiting (@rec filled).
 */
bool sl_bo_task_exit(struct sl_bo_graph *g, u64 task, u64 now,
		     struct sl_bo_wait_record *rec)
{
	u32 ti = sl_bo_find(&g->tt, task), li;
	bool waited = false;

	if (ti == SL_BO_NIL)
		return false;
	sl_bo_advance(g, now);
	sl_bo_pass_begin(g);
	li = g->tasks[ti].lock;
	if (li != SL_BO_NIL) {
		if (rec)
			sl_bo_fill_record(g, ti, g->now, SL_BO_END_EXIT, rec);
		waited = true;
		sl_bo_wait_detach(g, ti);
		sl_bo_lock_put(g, li);
	}
	/* the locks it owned (its entry is still there if it owned any) */
	while (g->tasks[ti].h.key && g->tasks[ti].owned != SL_BO_NIL) {
		li = g->tasks[ti].owned;
		sl_bo_set_owner(g, li, 0, NULL);
		sl_bo_touch_lock(g, li);
	}
	sl_bo_task_put(g, ti);
	sl_bo_pass_end(g);
	return waited;
}

/**
 * sl_bo_chain - the chain of a task, from it to its end
 * @g: the graph
 * @waiter: the task's key
 * @out: the links, from @waiter on: each task, the lock it waits on and
 *	that lock's owner (the next link's task)
 * @max: room in @out
 * @cycle: set to whether the chain ends in a cycle (may be NULL): then the
 *	last link's lock is owned by an earlier link's task
 *
 * The chain ends at a task that does not wait (lock 0), at an unowned lock
 * (the last link's owner 0), in a cycle, or at SL_BO_MAX_DEPTH links (the
 * last link's lock and owner set, no cycle).
 *
 * Return: the links written: at most @max; 0 if @waiter is not tracked,
 * 1 if it is but does not wait.
 */
int sl_bo_chain(const struct sl_bo_graph *g, u64 waiter, struct sl_bo_link *out,
		int max, bool *cycle)
{
	u32 ti = sl_bo_find(&g->tt, waiter);
	struct sl_bo_walk wk;
	int i, n;

	if (cycle)
		*cycle = false;
	if (ti == SL_BO_NIL || max <= 0)
		return 0;
	sl_bo_walk(g, ti, &wk);
	if (cycle)
		*cycle = wk.end == SL_BO_WALK_CYCLE;
	n = (int)wk.depth < max ? (int)wk.depth : max;
	for (i = 0; i < n; i++) {
		const struct sl_bo_task *t = &g->tasks[wk.task[i]];
		struct sl_bo_link *o = &out[i];

		o->task = t->h.key;
		o->lock = 0;
		o->owner = 0;
		o->kind = 0;
		if (t->lock != SL_BO_NIL) {
			const struct sl_bo_lock *l = &g->locks[t->lock];

			o->lock = l->h.key;
			o->kind = l->kind;
			if (l->owner != SL_BO_NIL)
				o->owner = g->tasks[l->owner].h.key;
		}
		o->state = t->state;
		o->pid = t->pid;
		o->cpu = t->cpu;
		sl_bo_copy_prio(&o->prio, &t->prio);
		sl_bo_copy_comm(o->comm, t->comm);
	}
	return n;
}

/**
 * sl_bo_lock_of - the lock a task waits on
 * @g: the graph
 * @task: the task's key
 *
 * Return: the lock's key, 0 if @task is not tracked or does not wait (the
 * first link's lock of sl_bo_chain(), without walking the chain).
 */
u64 sl_bo_lock_of(const struct sl_bo_graph *g, u64 task)
{
	u32 ti = sl_bo_find(&g->tt, task);

	if (ti == SL_BO_NIL || g->tasks[ti].lock == SL_BO_NIL)
		return 0;
	return g->locks[g->tasks[ti].lock].h.key;
}

/**
 * sl_bo_next_wait - the next wait in progress, by task slot
 * @g: the graph
 * @pos: the slot to look from (0 to start), moved past the wait found
 * @now: the instant to read the wait at (not before g->now, which it is
 *	taken as otherwise); the graph is not changed
 * @rec: its record so far (end SL_BO_END_NONE)
 *
 * Return: false when there are no more.
 */
bool sl_bo_next_wait(const struct sl_bo_graph *g, u32 *pos, u64 now,
		     struct sl_bo_wait_record *rec)
{
	u32 i;

	for (i = *pos; i < g->tt.size; i++) {
		const struct sl_bo_task *t = &g->tasks[i];

		if (t->h.key && t->lock != SL_BO_NIL) {
			sl_bo_fill_record(g, i, now, SL_BO_END_NONE, rec);
			*pos = i + 1;
			return true;
		}
	}
	*pos = g->tt.size;
	return false;
}

/* the histogram bucket of a wait length of @ns: sl_log2_us_bucket() */
unsigned int sl_bo_hist_bucket(u64 ns)
{
	return sl_log2_us_bucket(ns, SL_BO_HIST_BUCKETS);
}

/**
 * sl_bo_stats_reset - zero the stats
 * @st: the stats
 */
void sl_bo_stats_reset(struct sl_bo_stats *st)
{
	unsigned int i;

	st->count = 0;
	st->acquired = 0;
	st->cycles = 0;
	st->inversions = 0;
	st->total_ns = 0;
	st->max_ns = 0;
	st->inv_ns = 0;
	for (i = 0; i < SL_BO_HIST_BUCKETS; i++)
		st->hist[i] = 0;
	for (i = 0; i < SL_BO_NR_CATS; i++) {
		st->cat_ns[i] = 0;
		st->head_ns[i] = 0;
	}
	for (i = 0; i < SL_BO_NR_PROXY; i++)
		st->proxy[i] = 0;
}

/**
 * sl_bo_stats_add - add a wait to the stats
 * @st: the stats
 * @rec: the wait
 */
void sl_bo_stats_add(struct sl_bo_stats *st, const struct sl_bo_wait_record *rec)
{
	unsigned int i;

	st->count++;
	if (rec->acquired)
		st->acquired++;
	if (rec->cycle)
		st->cycles++;
	if (rec->inv_ns) {
		st->inversions++;
		st->inv_ns += rec->inv_ns;
	}
	st->total_ns += rec->duration_ns;
	if (rec->duration_ns > st->max_ns)
		st->max_ns = rec->duration_ns;
	st->hist[sl_bo_hist_bucket(rec->duration_ns)]++;
	for (i = 0; i < SL_BO_NR_CATS; i++) {
		st->cat_ns[i] += rec->cat_ns[i];
		st->head_ns[i] += rec->head_ns[i];
	}
	for (i = 0; i < SL_BO_NR_PROXY; i++)
		st->proxy[i] += rec->proxy[i];
}
