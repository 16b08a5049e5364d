/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDLAB_BLOCKED_ON_CORE_H
#define SCHEDLAB_BLOCKED_ON_CORE_H

/*
 * blocked_on_core: which task waits on which mutex, who owns that mutex,
 * and what the owner (and the task at the end of the chain of owners) is
 * doing while the waiter waits. Kernel-agnostic: the module feeds it lock
 * and scheduler events, the host tests synthetic ones. The model, the
 * attribution of waiting time and the bounds on work per call are
 * described in blocked_on_core.c.
 *
 * All storage is the caller's: the task and lock tables are arrays given
 * to sl_bo_init(); nothing is allocated. The core does no locking: the
 * caller serializes every call on one graph.
 */
#include "pelt_core.h"
#ifdef __KERNEL__
#include <linux/compiler.h>
#include <linux/stddef.h>
#define SL_BO_READ_ONCE(x)	READ_ONCE(x)
#define SL_BO_WRITE_ONCE(x, v)	WRITE_ONCE(x, v)
#else
#include <stddef.h>
#define SL_BO_READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define SL_BO_WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#endif

/* errors, returned negated (the same values as the kernel's errno.h) */
#define SL_BO_EINVAL		22
#define SL_BO_ENOSPC		28

#define SL_BO_MAX_DEPTH		32	/* tasks in a chain, the waiter included */
#define SL_BO_SNAP_DEPTH	8	/* tasks kept in a worst-moment snapshot */
#define SL_BO_COMM_LEN		16	/* TASK_COMM_LEN */
#define SL_BO_HIST_BUCKETS	24	/* wait lengths: bucket i is [2^i, 2^(i+1)) us */
#define SL_BO_NIL		0xffffffffU	/* no table slot */
#define SL_BO_HINT_MANY		1ULL	/* a hint: two keys or more in the bucket */

enum sl_bo_state {
	SL_BO_RUNNING,		/* on a CPU */
	SL_BO_RUNNABLE,		/* enqueued, not running */
	SL_BO_SLEEPING,		/* dequeued (any other value counts as this) */
	SL_BO_PROXY,		/* on a CPU as a blocked waiter's proxy (proxy execution) */
};

enum sl_bo_kind {
	SL_BO_MUTEX,
	SL_BO_WW_MUTEX,
};

/* struct sl_bo_prio.policy_class */
enum sl_bo_class {
	SL_BO_CLASS_IDLE,	/* SCHED_IDLE */
	SL_BO_CLASS_NORMAL,	/* SCHED_NORMAL, SCHED_BATCH (CFS/EEVDF) */
	SL_BO_CLASS_RT,		/* SCHED_FIFO, SCHED_RR */
	SL_BO_CLASS_DL,		/* SCHED_DEADLINE */
};

/* Where a wait's time goes, by what the task delaying it does. */
enum sl_bo_cat {
	SL_BO_CAT_RUN_LOCAL,		/* running on the waiter's CPU */
	SL_BO_CAT_RUN_REMOTE,		/* running on another CPU */
	SL_BO_CAT_PREEMPTED,		/* runnable, not running, on the waiter's CPU */
	SL_BO_CAT_RUNNABLE_REMOTE,	/* runnable, not running, on another CPU */
	SL_BO_CAT_SLEEPING,		/* sleeping, not waiting on a tracked lock */
	SL_BO_CAT_BLOCKED,		/* waiting on a tracked lock itself */
	SL_BO_CAT_UNOWNED,		/* the lock has no known owner */
	SL_BO_CAT_PROXY,		/* running as a waiter's proxy (proxy execution) */
	SL_BO_NR_CATS
};

/* proxy-execution decisions counted against a wait (struct sl_bo_wait.proxy) */
enum sl_bo_proxy {
	SL_BO_PROXY_RUN,	/* its chain's owner picked to run with its (or a chain task's) context */
	SL_BO_PROXY_MIGRATE,	/* the waiter moved to its owner's CPU */
	SL_BO_PROXY_DEACT,	/* the waiter taken off the runqueue (owner asleep, no owner, waking) */
	SL_BO_NR_PROXY
};

/* how a wait ended (struct sl_bo_wait_record.end) */
enum sl_bo_end {
	SL_BO_END_NONE,		/* still waiting: sl_bo_next_wait() */
	SL_BO_END_ACQUIRED,	/* took the lock */
	SL_BO_END_FAILED,	/* gave up: signal, timeout, ww_mutex -EDEADLK */
	SL_BO_END_EXIT,		/* the waiter exited */
};

/* rules of sl_bo_more_important(), bits of struct sl_bo_graph.rules */
#define SL_BO_RULE_RT		(1U << 0)	/* dl > rt > the rest; higher rt_prio */
#define SL_BO_RULE_WEIGHT	(1U << 1)	/* both normal: higher nice weight */
#define SL_BO_RULE_IDLE		(1U << 2)	/* normal or above > SCHED_IDLE */
#define SL_BO_RULE_CGROUP	(1U << 3)	/* both normal: higher cgroup cpu.weight */
#define SL_BO_RULES_ALL		0xfU

struct sl_bo_prio {
	int policy_class;		/* enum sl_bo_class */
	int rt_prio;			/* 1..99 for rt (sched_priority: higher wins) */
	unsigned long weight;		/* load weight from nice: 1024 at nice 0 */
	unsigned long cgroup_weight;	/* effective cpu.weight of its cgroup, 1..10000 */
};

/* What the caller knows of a task when it reports it. */
struct sl_bo_task_info {
	int pid;
	char comm[SL_BO_COMM_LEN];	/* need not be NUL-terminated */
	unsigned int state;		/* enum sl_bo_state */
	int cpu;			/* negative: unknown, never "the waiter's CPU" */
	struct sl_bo_prio prio;
};

/* A task of a chain at the start of a wait's worst segment. */
struct sl_bo_snap_link {
	u64 lock;			/* the lock it waits on, 0 for the last */
	unsigned long weight;
	int pid;
	int cpu;
	int policy_class;
	int rt_prio;
	unsigned int state;
	char comm[SL_BO_COMM_LEN];
};

/*
 * The chain of a wait at the start of its longest stretch with the chain's
 * head not running (len_ns > 0; all zero if there was none).
 */
struct sl_bo_snap {
	u64 at_ns;			/* start of the stretch */
	u64 len_ns;			/* its length */
	unsigned int depth;		/* tasks in the chain then */
	unsigned int head_cat;		/* the head's category then */
	unsigned int nr;		/* links kept: min(depth, SL_BO_SNAP_DEPTH); link[nr..] are undefined */
	struct sl_bo_snap_link link[SL_BO_SNAP_DEPTH];
};

/* Bookkeeping of a wait in progress (in its waiter's task entry). */
struct sl_bo_wait {
	u64 begin_ns;
	u64 cat_ns[SL_BO_NR_CATS];	/* by the direct owner, up to since_ns */
	u64 head_ns[SL_BO_NR_CATS];	/* by the chain's head, up to since_ns */
	u64 inv_ns;			/* inversion time, up to since_ns */
	u64 since_ns;			/* cat_ns, head_ns, inv_ns count up to here */
	u64 seg_begin_ns;		/* start of the current stalled stretch */
	unsigned int cat, head;		/* the categories since since_ns */
	unsigned int inv_now;		/* rules matched since since_ns (0: none) */
	unsigned int inv_rules;		/* rules matched during some time > 0 */
	unsigned int depth, max_depth;	/* tasks in the chain: now, most seen */
	bool cycle;			/* the chain ended in a cycle at some time */
	bool in_seg;			/* the head is not running now */
	u64 proxy[SL_BO_NR_PROXY];	/* proxy-execution decisions (enum sl_bo_proxy) */
	struct sl_bo_snap cur;		/* chain at seg_begin_ns, if in_seg */
	struct sl_bo_snap best;		/* longest closed stalled stretch */
};

/*
 * Hash index of both tables (see "Tables" in blocked_on_core.c). hint (and
 * struct sl_bo_task.whint) describe the bucket numbered like this slot,
 * for lockless readers: 0 no key, the key if it is the only one,
 * SL_BO_HINT_MANY if there are more.
 */
struct sl_bo_hnode {
	u64 key;			/* 0: the slot is free */
	u32 next;			/* next slot of its bucket, or of the free list */
	u32 head;			/* first slot of the bucket numbered like this slot */
	u64 hint;			/* that bucket's keys, for lockless readers */
};

struct sl_bo_task {
	struct sl_bo_hnode h;		/* h.key: the caller's key (task_struct *) */
	u32 lock;			/* slot of the lock it waits on, or SL_BO_NIL */
	u32 wprev, wnext;		/* list of that lock's waiters */
	u32 nr_owned;			/* tracked locks it owns */
	u32 owned;			/* first of them (struct sl_bo_lock.onext) */
	u32 visit;			/* pass that reached it (graph->pass) */
	u32 qnext, qdist;		/* queue of that pass, distance in it */
	u64 whint;			/* h.hint, of the keys of waiting tasks only */
	int pid;
	int cpu;
	unsigned int state;
	struct sl_bo_prio prio;
	char comm[SL_BO_COMM_LEN];	/* NUL-terminated */
	struct sl_bo_wait w;		/* valid while lock != SL_BO_NIL */
};

struct sl_bo_lock {
	struct sl_bo_hnode h;		/* h.key: the caller's key (lock address) */
	u32 owner;			/* owner's task slot, or SL_BO_NIL (unowned) */
	u32 oprev, onext;		/* list of the locks of that owner */
	u32 nr_waiters;
	u32 waiters;			/* first of them (struct sl_bo_task.wnext) */
	unsigned int kind;		/* enum sl_bo_kind */
};

struct sl_bo_table {
	void *base;			/* the caller's array */
	u32 size, stride;		/* its length, its element size */
	u32 nr;				/* slots in use */
	u32 free;			/* first free slot, or SL_BO_NIL */
};

struct sl_bo_graph {
	struct sl_bo_task *tasks;
	struct sl_bo_lock *locks;
	struct sl_bo_table tt, lt;	/* their indexes */
	u32 nr_waits;
	u32 pass;			/* number of the current update pass */
	u32 qhead, qtail;		/* its queue of tasks */
	u64 nr_updates;			/* waits recomputed, all passes */
	u64 now;			/* latest timestamp seen: every wait is accounted to it */
	unsigned int rules;		/* SL_BO_RULE_* for inversions; init: all */
	u64 cycles_seen;		/* edges that closed a cycle of waits */
	u64 nr_dropped;			/* tasks or owners not tracked: tables full */
	u64 nr_replaced;		/* waits ended, unrecorded, by a new wait */
};

/* A task of a chain (sl_bo_chain()). */
struct sl_bo_link {
	u64 task;
	u64 lock;			/* the lock it waits on, 0 if none */
	u64 owner;			/* that lock's owner, 0 if none (or no lock) */
	unsigned int kind;		/* that lock's kind */
	unsigned int state;
	int pid;
	int cpu;
	struct sl_bo_prio prio;
	char comm[SL_BO_COMM_LEN];
};

/* A wait, ended (or in progress: end == SL_BO_END_NONE). */
struct sl_bo_wait_record {
	u64 waiter;			/* the waiter's key */
	u64 lock;
	unsigned int kind;
	int pid;
	char comm[SL_BO_COMM_LEN];
	struct sl_bo_prio prio;		/* the waiter's, at the end */
	u64 begin_ns, end_ns, duration_ns;
	bool acquired;
	unsigned int end;		/* enum sl_bo_end */
	u64 cat_ns[SL_BO_NR_CATS];	/* sums to duration_ns */
	u64 head_ns[SL_BO_NR_CATS];	/* sums to duration_ns; BLOCKED: cycle or too deep */
	unsigned int depth;		/* tasks in the chain at the end */
	unsigned int max_depth;		/* most tasks in the chain while waiting */
	bool cycle;			/* the chain ended in a cycle at some time */
	unsigned int inv_rules;		/* SL_BO_RULE_* that made it an inversion */
	u64 inv_ns;			/* inversion time */
	u64 proxy[SL_BO_NR_PROXY];	/* proxy-execution decisions (enum sl_bo_proxy) */
	struct sl_bo_snap snap;		/* the worst moment */
};

struct sl_bo_stats {
	u64 count;			/* waits */
	u64 acquired;			/* of which ended with the lock taken */
	u64 cycles;			/* of which saw a cycle */
	u64 inversions;			/* of which were inversions */
	u64 total_ns, max_ns, inv_ns;
	u64 hist[SL_BO_HIST_BUCKETS];	/* by duration */
	u64 cat_ns[SL_BO_NR_CATS];
	u64 head_ns[SL_BO_NR_CATS];
	u64 proxy[SL_BO_NR_PROXY];
};

void sl_bo_init(struct sl_bo_graph *g, struct sl_bo_task *tasks, u32 max_tasks,
		struct sl_bo_lock *locks, u32 max_locks);
int sl_bo_wait_begin(struct sl_bo_graph *g, u64 waiter,
		     const struct sl_bo_task_info *wi, u64 lock, unsigned int kind,
		     u64 owner, const struct sl_bo_task_info *oi, u64 now);
void sl_bo_owner(struct sl_bo_graph *g, u64 lock, u64 owner,
		 const struct sl_bo_task_info *oi, u64 now);
void sl_bo_task_state(struct sl_bo_graph *g, u64 task, unsigned int state,
		      int cpu, u64 now);
bool sl_bo_proxy_event(struct sl_bo_graph *g, u64 task, unsigned int what);
void sl_bo_task_prio(struct sl_bo_graph *g, u64 task,
		     const struct sl_bo_prio *p, u64 now);
void sl_bo_set_rules(struct sl_bo_graph *g, unsigned int rules, u64 now);
bool sl_bo_wait_end(struct sl_bo_graph *g, u64 waiter, u64 lock, bool acquired,
		    u64 now, struct sl_bo_wait_record *rec);
bool sl_bo_task_exit(struct sl_bo_graph *g, u64 task, u64 now,
		     struct sl_bo_wait_record *rec);
void sl_bo_wait_spun(struct sl_bo_graph *g, u64 waiter, u64 spun_ns, bool owned);
void sl_bo_spin_record(u64 waiter, const struct sl_bo_task_info *wi, u64 lock,
		       unsigned int kind, bool owned, u64 begin_ns, u64 end_ns,
		       bool acquired, struct sl_bo_wait_record *rec);

int sl_bo_chain(const struct sl_bo_graph *g, u64 waiter, struct sl_bo_link *out,
		int max, bool *cycle);
u64 sl_bo_lock_of(const struct sl_bo_graph *g, u64 task);
bool sl_bo_next_wait(const struct sl_bo_graph *g, u32 *pos, u64 now,
		     struct sl_bo_wait_record *rec);

unsigned int sl_bo_importance_rules(const struct sl_bo_prio *a,
				    const struct sl_bo_prio *b,
				    unsigned int rules);
bool sl_bo_more_important(const struct sl_bo_prio *a,
			  const struct sl_bo_prio *b, unsigned int rules);

unsigned int sl_bo_hist_bucket(u64 ns);
void sl_bo_stats_reset(struct sl_bo_stats *st);
void sl_bo_stats_add(struct sl_bo_stats *st, const struct sl_bo_wait_record *rec);

/*
 * Every wait in progress, as a record up to @now: pos starts at 0.
 * Work: at most the task table's size over the whole loop.
 */
#define sl_bo_for_each_wait(g, pos, now, rec) \
	for ((pos) = 0; sl_bo_next_wait((g), &(pos), (now), (rec)); )

static inline u32 sl_bo_nr_tasks(const struct sl_bo_graph *g)
{
	return g->tt.nr;
}

static inline u32 sl_bo_nr_locks(const struct sl_bo_graph *g)
{
	return g->lt.nr;
}

static inline u32 sl_bo_nr_waits(const struct sl_bo_graph *g)
{
	return g->nr_waits;
}

static inline u64 sl_bo_cycles_seen(const struct sl_bo_graph *g)
{
	return g->cycles_seen;
}

/* the hash bucket of @key in a table of @size slots (size > 0) */
static inline u32 sl_bo_bucket_of(u64 key, u32 size)
{
	return (u32)((key * 0x9e3779b97f4a7c15ULL) >> 32) % size;
}

/*
 * Lockless hints (no lock of the caller's held; see "Lockless hints" in
 * blocked_on_core.c): false means @key was not tracked (not waiting) at
 * some moment of the call, up to the ordering explained there; true means
 * maybe. The graph must not be re-initialised meanwhile.
 */
static inline u64 sl_bo_hint_of(const struct sl_bo_table *tb, u64 key, size_t off)
{
	u32 size = tb->size;
	const char *node;

	if (!size || !key)
		return 0;
	node = (const char *)tb->base + (unsigned long)sl_bo_bucket_of(key, size) * tb->stride;
	return SL_BO_READ_ONCE(*(const u64 *)(node + off));
}

static inline bool sl_bo_hint_match(u64 hint, u64 key)
{
	return hint && (hint == key || hint == SL_BO_HINT_MANY);
}

/* @task may be tracked (waits or owns a tracked lock) */
static inline bool sl_bo_maybe_tracked(const struct sl_bo_graph *g, u64 task)
{
	return sl_bo_hint_match(sl_bo_hint_of(&g->tt, task,
					      offsetof(struct sl_bo_task, h.hint)), task);
}

/* @task may be waiting (on any lock) */
static inline bool sl_bo_maybe_a_waiter(const struct sl_bo_graph *g, u64 task)
{
	return sl_bo_hint_match(sl_bo_hint_of(&g->tt, task,
					      offsetof(struct sl_bo_task, whint)), task);
}

/* @task may be waiting on @lock (each tested alone: a task waits, a lock is waited on) */
static inline bool sl_bo_maybe_waiting(const struct sl_bo_graph *g, u64 task, u64 lock)
{
	return sl_bo_hint_match(sl_bo_hint_of(&g->tt, task,
					      offsetof(struct sl_bo_task, whint)), task) &&
	       sl_bo_hint_match(sl_bo_hint_of(&g->lt, lock,
					      offsetof(struct sl_bo_lock, h.hint)), lock);
}

#endif /* SCHEDLAB_BLOCKED_ON_CORE_H */
