// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of module/blocked_on_core.c: chains of tasks blocked on
 * mutexes, scripted event by event with chosen nanosecond timestamps,
 * checked against
 *  - the time split of every wait worked out by hand from the script
 *    (which task the waiter is behind, what it does, for how long);
 *  - the importance rules written out as a table of expected masks;
 *  - a reference model of the graph in this file (true owners, true task
 *    states, chains walked again here) driven by the same random events
 *    as the core, compared after every step;
 *  - structural invariants of the tables (counts, no entry without a
 *    reason to exist, empty when nothing waits).
 * Prints "ok - ..." / "not ok - ..." lines; exit 1 if any failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blocked_on_core.h"
#include "../lib/tap.h"

#define US 1000ULL
#define MS 1000000ULL
#define T0 (1000 * MS)		/* start of every scenario */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* keys that look like kernel pointers */
#define TK(n) (0xffff888100000000ULL + (u64)(n) * 0x2c0)
#define LK(n) (0xffffffffa0000000ULL + (u64)(n) * 0x40)

#define RL SL_BO_CAT_RUN_LOCAL
#define RR SL_BO_CAT_RUN_REMOTE
#define PRE SL_BO_CAT_PREEMPTED
#define RRQ SL_BO_CAT_RUNNABLE_REMOTE
#define SL SL_BO_CAT_SLEEPING
#define BL SL_BO_CAT_BLOCKED
#define UN SL_BO_CAT_UNOWNED
#define PX SL_BO_CAT_PROXY
#define NC SL_BO_NR_CATS

#define R_RT SL_BO_RULE_RT
#define R_W SL_BO_RULE_WEIGHT
#define R_I SL_BO_RULE_IDLE
#define R_CG SL_BO_RULE_CGROUP

static const struct sl_bo_prio P_NICE0 = { SL_BO_CLASS_NORMAL, 0, 1024, 100 };
static const struct sl_bo_prio P_NICE19 = { SL_BO_CLASS_NORMAL, 0, 15, 100 };
static const struct sl_bo_prio P_RT50 = { SL_BO_CLASS_RT, 50, 1024, 100 };

static struct sl_bo_task tasks[256];
static struct sl_bo_lock locks[256];
static struct sl_bo_graph g;

static void fresh(void)
{
	memset(tasks, 0xa5, sizeof(tasks));	/* init must not rely on zeroed memory */
	memset(locks, 0x5a, sizeof(locks));
	sl_bo_init(&g, tasks, ARRAY_SIZE(tasks), locks, ARRAY_SIZE(locks));
}

static struct sl_bo_task_info info(int pid, unsigned int state, int cpu,
				   const struct sl_bo_prio *p)
{
	struct sl_bo_task_info in;

	memset(&in, 0, sizeof(in));
	in.pid = pid;
	snprintf(in.comm, sizeof(in.comm), "task-%d", pid);
	in.state = state;
	in.cpu = cpu;
	in.prio = *p;
	return in;
}

static const char *cats_str(const u64 *c)
{
	static char buf[4][160];
	static int which;
	static const char *name[NC] = { "rl", "rr", "pre", "rrq", "sl", "bl", "un" };
	char *b = buf[which++ & 3];
	int i, len = 0;

	b[0] = 0;
	for (i = 0; i < NC; i++)
		if (c[i])
			len += snprintf(b + len, 160 - len, "%s%s=%.3f", len ? " " : "",
					name[i], c[i] / 1e6);
	return b;
}

static int same_cats(const u64 *a, const u64 *b)
{
	return memcmp(a, b, NC * sizeof(u64)) == 0;
}

static u64 cat_sum(const u64 *c)
{
	u64 s = 0;
	int i;

	for (i = 0; i < NC; i++)
		s += c[i];
	return s;
}

static int counts(u32 nt, u32 nl, u32 nw)
{
	return sl_bo_nr_tasks(&g) == nt && sl_bo_nr_locks(&g) == nl && sl_bo_nr_waits(&g) == nw;
}

static int empty(void)
{
	return counts(0, 0, 0);
}

/* the in-progress record of @waiter at @now, via the iterator */
static int read_wait(u64 waiter, u64 now, struct sl_bo_wait_record *out)
{
	struct sl_bo_wait_record rec;
	u32 pos;

	sl_bo_for_each_wait(&g, pos, now, &rec) {
		if (rec.waiter == waiter) {
			*out = rec;
			return 1;
		}
	}
	return 0;
}

/* a record's times: exact cat[] and head[] and duration */
static int rec_times(const struct sl_bo_wait_record *r, u64 begin, u64 end,
		     const u64 *cat, const u64 *head)
{
	int ok = r->begin_ns == begin && r->end_ns == end && r->duration_ns == end - begin &&
		 same_cats(r->cat_ns, cat) && same_cats(r->head_ns, head) &&
		 cat_sum(r->cat_ns) == r->duration_ns && cat_sum(r->head_ns) == r->duration_ns;

	if (!ok)
		tap_diag("got begin +%.3f end +%.3f dur %.3f cat {%s} head {%s}; want cat {%s} head {%s}",
			 (r->begin_ns - T0) / 1e6, (r->end_ns - T0) / 1e6, r->duration_ns / 1e6,
			 cats_str(r->cat_ns), cats_str(r->head_ns), cats_str(cat), cats_str(head));
	return ok;
}

/* 1. one waiter, one owner doing four different things */
static void test_single(void)
{
	struct sl_bo_task_info wi = info(100, SL_BO_SLEEPING, 0, &P_NICE0);
	struct sl_bo_task_info oi = info(200, SL_BO_RUNNING, 0, &P_NICE0);
	struct sl_bo_wait_record rec, cur;
	u64 want[NC] = { 0 }, so_far[NC] = { 0 };
	int ok;

	fresh();
	ok = sl_bo_wait_begin(&g, TK(1), &wi, LK(1), SL_BO_MUTEX, TK(2), &oi, T0) == 0;
	tap(ok && counts(2, 1, 1), "single: wait begins: 2 tasks, 1 lock, 1 wait");
	sl_bo_task_state(&g, TK(2), SL_BO_RUNNABLE, 0, T0 + 2 * MS);	/* preempted */
	sl_bo_task_state(&g, TK(2), SL_BO_SLEEPING, 0, T0 + 5 * MS);
	sl_bo_task_state(&g, TK(2), SL_BO_RUNNING, 1, T0 + 6 * MS);	/* remote */
	sl_bo_task_state(&g, TK(3), SL_BO_RUNNING, 0, T0 + 6 * MS + 1);	/* untracked */
	sl_bo_task_prio(&g, TK(3), &P_RT50, T0 + 6 * MS + 2);
	tap(counts(2, 1, 1) && g.now == T0 + 6 * MS,
	    "single: events about an untracked task are ignored (no entry, clock not moved)");

	so_far[RL] = 2 * MS;
	so_far[PRE] = 3 * MS;
	so_far[SL] = 1 * MS;
	so_far[RR] = 1 * MS;
	ok = read_wait(TK(1), T0 + 7 * MS, &cur) && cur.end == SL_BO_END_NONE &&
	     rec_times(&cur, T0, T0 + 7 * MS, so_far, so_far) && g.now == T0 + 6 * MS;
	tap(ok, "single: in progress at +7 ms: rl 2, pre 3, sl 1, rr 1 ms (read does not move the clock)");

	ok = sl_bo_wait_end(&g, TK(1), LK(1), true, T0 + 10 * MS, &rec);
	want[RL] = 2 * MS;
	want[PRE] = 3 * MS;
	want[SL] = 1 * MS;
	want[RR] = 4 * MS;
	tap(ok && rec_times(&rec, T0, T0 + 10 * MS, want, want),
	    "single: record: 10 ms = rl 2 + pre 3 + sl 1 + rr 4 ms, head[] the same");
	tap(rec.acquired && rec.end == SL_BO_END_ACQUIRED && rec.waiter == TK(1) &&
	    rec.lock == LK(1) && rec.kind == SL_BO_MUTEX && rec.pid == 100 &&
	    !strcmp(rec.comm, "task-100") && rec.prio.weight == 1024 && rec.max_depth == 2 &&
	    rec.depth == 2 && !rec.cycle && rec.inv_ns == 0 && rec.inv_rules == 0,
	    "single: record: acquired, waiter/lock/pid/comm/prio, depth 2, no cycle, no inversion");
	/* stalled from +2 (preempted) to +6 (running again): one stretch of 4 ms */
	tap(rec.snap.len_ns == 4 * MS && rec.snap.at_ns == T0 + 2 * MS && rec.snap.depth == 2 &&
	    rec.snap.nr == 2 && rec.snap.head_cat == PRE &&
	    rec.snap.link[0].pid == 100 && rec.snap.link[0].lock == LK(1) &&
	    rec.snap.link[1].pid == 200 && rec.snap.link[1].state == SL_BO_RUNNABLE &&
	    rec.snap.link[1].cpu == 0 && rec.snap.link[1].lock == 0 &&
	    !strcmp(rec.snap.link[1].comm, "task-200"),
	    "single: snapshot of the 4 ms stalled stretch (preempted then sleeping) from +2 ms");
	tap(empty(), "single: after the acquire (a lock nobody waits for is dropped) the tables are empty");
	tap(!sl_bo_wait_end(&g, TK(1), LK(1), true, T0 + 11 * MS, &rec) && empty(),
	    "single: ending the wait again: false");
}

/*
 * 1b. proxy execution: the owner runs as the waiter's proxy (state PROXY),
 * preempted, then as itself elsewhere; decisions counted on the waiter's
 * wait only, into its record and the stats.
 */
static void test_proxy(void)
{
	struct sl_bo_task_info wi = info(100, SL_BO_SLEEPING, 0, &P_NICE0);
	struct sl_bo_task_info oi = info(200, SL_BO_RUNNABLE, 0, &P_NICE19);
	struct sl_bo_wait_record rec;
	struct sl_bo_stats st;
	u64 want[NC] = { 0 };
	int ok;

	fresh();
	ok = sl_bo_wait_begin(&g, TK(1), &wi, LK(1), SL_BO_MUTEX, TK(2), &oi, T0) == 0;
	sl_bo_task_state(&g, TK(2), SL_BO_PROXY, 0, T0 + 1 * MS);
	ok &= sl_bo_proxy_event(&g, TK(1), SL_BO_PROXY_RUN);
	ok &= sl_bo_proxy_event(&g, TK(1), SL_BO_PROXY_RUN);
	ok &= sl_bo_proxy_event(&g, TK(1), SL_BO_PROXY_MIGRATE);
	tap(ok && !sl_bo_proxy_event(&g, TK(2), SL_BO_PROXY_RUN) &&
	    !sl_bo_proxy_event(&g, TK(3), SL_BO_PROXY_RUN) &&
	    !sl_bo_proxy_event(&g, TK(1), SL_BO_NR_PROXY),
	    "proxy: decisions count against a waiting task only (not its owner, not untracked, not a bad kind)");
	sl_bo_task_state(&g, TK(2), SL_BO_RUNNABLE, 0, T0 + 4 * MS);
	sl_bo_task_state(&g, TK(2), SL_BO_RUNNING, 1, T0 + 5 * MS);
	ok = sl_bo_wait_end(&g, TK(1), LK(1), true, T0 + 6 * MS, &rec);
	want[PRE] = 2 * MS;	/* +0..+1 and +4..+5 */
	want[PX] = 3 * MS;
	want[RR] = 1 * MS;
	tap(ok && rec_times(&rec, T0, T0 + 6 * MS, want, want),
	    "proxy: record: 6 ms = preempted 2 + proxy 3 + run_remote 1 ms (proxy is its own category)");
	/* the owner ran as a proxy: not a stalled stretch, no inversion then */
	tap(rec.snap.len_ns == 1 * MS && rec.inv_ns == 2 * MS,
	    "proxy: running as a proxy is not stalled: longest stall 1 ms, inversion 2 ms (preempted only)");
	tap(rec.proxy[SL_BO_PROXY_RUN] == 2 && rec.proxy[SL_BO_PROXY_MIGRATE] == 1 &&
	    rec.proxy[SL_BO_PROXY_DEACT] == 0, "proxy: record: 2 runs, 1 migration, 0 deactivations");
	sl_bo_stats_reset(&st);
	sl_bo_stats_add(&st, &rec);
	sl_bo_stats_add(&st, &rec);
	tap(st.proxy[SL_BO_PROXY_RUN] == 4 && st.proxy[SL_BO_PROXY_MIGRATE] == 2 &&
	    st.cat_ns[PX] == 6 * MS, "proxy: stats add the decisions and the proxy time");
	tap(empty(), "proxy: tables empty after the wait");
}

/* 2. W1 -> L1 -> O1 -> L2 -> O2 -> L3 -> O3 */
static void test_chain(void)
{
	struct sl_bo_task_info w1 = info(1, SL_BO_SLEEPING, 0, &P_NICE0);
	struct sl_bo_task_info o1 = info(11, SL_BO_SLEEPING, 1, &P_NICE0);
	struct sl_bo_task_info o2 = info(12, SL_BO_SLEEPING, 3, &P_NICE0);
	struct sl_bo_task_info o3 = info(13, SL_BO_RUNNING, 0, &P_NICE0);
	struct sl_bo_wait_record rec, r1, r2;
	struct sl_bo_link ch[SL_BO_MAX_DEPTH];
	u64 c[NC] = { 0 }, h[NC] = { 0 };
	bool cyc = true;
	int n, ok;

	fresh();
	ok = !sl_bo_wait_begin(&g, TK(12), &o2, LK(3), SL_BO_MUTEX, TK(13), &o3, T0);
	ok &= !sl_bo_wait_begin(&g, TK(11), &o1, LK(2), SL_BO_MUTEX, TK(12), &o2, T0);
	ok &= !sl_bo_wait_begin(&g, TK(1), &w1, LK(1), SL_BO_MUTEX, TK(11), &o1, T0);
	n = sl_bo_chain(&g, TK(1), ch, SL_BO_MAX_DEPTH, &cyc);
	ok &= n == 4 && !cyc &&
	      ch[0].task == TK(1) && ch[0].lock == LK(1) && ch[0].owner == TK(11) && ch[0].pid == 1 &&
	      ch[1].task == TK(11) && ch[1].lock == LK(2) && ch[1].owner == TK(12) &&
	      ch[2].task == TK(12) && ch[2].lock == LK(3) && ch[2].owner == TK(13) &&
	      ch[3].task == TK(13) && ch[3].lock == 0 && ch[3].owner == 0 && ch[3].pid == 13 &&
	      ch[3].state == SL_BO_RUNNING && ch[3].cpu == 0 && !strcmp(ch[3].comm, "task-13");
	tap(ok && counts(4, 3, 3), "chain: W1, O1, O2, O3 in order (depth 4, no cycle); 4 tasks, 3 locks, 3 waits");
	tap(sl_bo_chain(&g, TK(1), ch, 2, NULL) == 2 && ch[1].task == TK(11) &&
	    sl_bo_chain(&g, TK(13), ch, 8, &cyc) == 1 && ch[0].lock == 0 && !cyc &&
	    sl_bo_chain(&g, TK(99), ch, 8, &cyc) == 0,
	    "chain: truncated to max; from the head: itself only; untracked: 0");

	sl_bo_task_state(&g, TK(13), SL_BO_RUNNABLE, 0, T0 + 1 * MS);
	sl_bo_task_state(&g, TK(13), SL_BO_RUNNABLE, 2, T0 + 3 * MS);
	c[BL] = 3 * MS + 500 * US;
	h[RL] = 1 * MS;
	h[PRE] = 2 * MS;
	h[RRQ] = 500 * US;
	tap(read_wait(TK(1), T0 + 3 * MS + 500 * US, &rec) &&
	    rec_times(&rec, T0, T0 + 3 * MS + 500 * US, c, h),
	    "chain: W1 blocked while O1 waits; head[] follows O3: rl 1, pre 2, rrq 0.5 ms");

	/* O3 hands L3 to O2, which runs on CPU 1 */
	ok = sl_bo_wait_end(&g, TK(12), LK(3), true, T0 + 4 * MS, &r2);
	sl_bo_task_state(&g, TK(12), SL_BO_RUNNING, 1, T0 + 4 * MS);
	memset(c, 0, sizeof(c));
	c[RR] = 1 * MS;		/* O3 running on CPU 0, O2's is 3 */
	c[RRQ] = 3 * MS;
	tap(ok && rec_times(&r2, T0, T0 + 4 * MS, c, c) && r2.max_depth == 2 && r2.acquired,
	    "chain: O2's wait on L3: rr 1, rrq 3 ms, depth 2");
	n = sl_bo_chain(&g, TK(1), ch, SL_BO_MAX_DEPTH, &cyc);
	tap(n == 3 && !cyc && ch[2].task == TK(12) && ch[2].lock == 0 && counts(3, 2, 2),
	    "chain: L3 released to O2: W1's chain is W1, O1, O2; O3 and L3 forgotten (3 tasks, 2 locks)");

	/* O2 hands L2 to O1, which runs on W1's CPU, then sleeps */
	ok = sl_bo_wait_end(&g, TK(11), LK(2), true, T0 + 6 * MS, &r1);
	sl_bo_task_state(&g, TK(11), SL_BO_RUNNING, 0, T0 + 6 * MS);
	memset(c, 0, sizeof(c));
	memset(h, 0, sizeof(h));
	c[BL] = 4 * MS;
	c[RL] = 2 * MS;
	h[RR] = 1 * MS;
	h[RRQ] = 3 * MS;
	h[RL] = 2 * MS;
	tap(ok && rec_times(&r1, T0, T0 + 6 * MS, c, h) && r1.max_depth == 3,
	    "chain: O1's wait on L2: bl 4, rl 2 ms; head rr 1, rrq 3, rl 2 ms; depth 3");
	tap(counts(2, 1, 1) && sl_bo_chain(&g, TK(1), ch, 8, NULL) == 2,
	    "chain: L2 released to O1: O2 forgotten; W1's chain is W1, O1");
	sl_bo_task_state(&g, TK(11), SL_BO_SLEEPING, 0, T0 + 7 * MS);
	ok = sl_bo_wait_end(&g, TK(1), LK(1), true, T0 + 9 * MS, &rec);
	memset(c, 0, sizeof(c));
	memset(h, 0, sizeof(h));
	c[BL] = 6 * MS;
	c[RL] = 1 * MS;
	c[SL] = 2 * MS;
	h[RL] = 2 * MS;		/* O3 0..1, O1 6..7 */
	h[PRE] = 2 * MS;
	h[RRQ] = 1 * MS;
	h[RR] = 2 * MS;		/* O2 on CPU 1 */
	h[SL] = 2 * MS;
	tap(ok && rec_times(&rec, T0, T0 + 9 * MS, c, h) && rec.max_depth == 4 && rec.depth == 2,
	    "chain: W1: bl 6, rl 1, sl 2 ms; head rl 2, pre 2, rrq 1, rr 2, sl 2 ms; max depth 4");
	tap(rec.snap.len_ns == 3 * MS && rec.snap.at_ns == T0 + 1 * MS && rec.snap.depth == 4 &&
	    rec.snap.nr == 4 && rec.snap.head_cat == PRE && rec.snap.link[3].pid == 13 &&
	    rec.snap.link[3].state == SL_BO_RUNNABLE && rec.snap.link[2].lock == LK(3) &&
	    rec.snap.link[1].lock == LK(2),
	    "chain: W1's snapshot: the 3 ms stretch from +1 ms (O3 preempted), 4 links (not the 2 ms sleep)");
	tap(empty(), "chain: tables empty at the end");
}

/* 3. three waiters on one lock */
static void test_tree(void)
{
	struct sl_bo_task_info oi = info(50, SL_BO_RUNNABLE, 0, &P_NICE0);
	struct sl_bo_wait_record ra, rb, rc, a0, b0, c0, a1, b1, c1;
	struct sl_bo_link ch[4];
	u64 c[NC] = { 0 };
	int i, ok = 1;

	fresh();
	for (i = 0; i < 3; i++) {
		struct sl_bo_task_info wi = info(60 + i, SL_BO_SLEEPING, 0, &P_NICE0);

		ok &= !sl_bo_wait_begin(&g, TK(60 + i), &wi, LK(5), SL_BO_MUTEX, TK(50), &oi,
					T0 + i * MS);
	}
	tap(ok && counts(4, 1, 3),
	    "tree: three waiters on one lock: 4 tasks, 1 lock, 3 waits");
	ok = read_wait(TK(60), T0 + 2 * MS, &a0) && read_wait(TK(61), T0 + 2 * MS, &b0) &&
	     read_wait(TK(62), T0 + 2 * MS, &c0) && read_wait(TK(60), T0 + 5 * MS, &a1) &&
	     read_wait(TK(61), T0 + 5 * MS, &b1) && read_wait(TK(62), T0 + 5 * MS, &c1);
	tap(ok && a1.cat_ns[PRE] - a0.cat_ns[PRE] == 3 * MS &&
	    b1.cat_ns[PRE] - b0.cat_ns[PRE] == 3 * MS && c1.cat_ns[PRE] - c0.cat_ns[PRE] == 3 * MS &&
	    a1.cat_ns[PRE] == 5 * MS && b1.cat_ns[PRE] == 4 * MS && c1.cat_ns[PRE] == 3 * MS,
	    "tree: owner preempted: all three gain the same 3 ms of pre from +2 to +5 ms (5, 4, 3 in all)");

	sl_bo_task_state(&g, TK(50), SL_BO_RUNNING, 0, T0 + 5 * MS);
	ok = sl_bo_wait_end(&g, TK(60), LK(5), true, T0 + 6 * MS, &ra);
	sl_bo_task_state(&g, TK(60), SL_BO_RUNNING, 0, T0 + 6 * MS);
	c[PRE] = 5 * MS;
	c[RL] = 1 * MS;
	tap(ok && rec_times(&ra, T0, T0 + 6 * MS, c, c), "tree: first waiter gets it: pre 5, rl 1 ms");
	tap(sl_bo_chain(&g, TK(61), ch, 4, NULL) == 2 && ch[0].owner == TK(60) &&
	    ch[1].task == TK(60) && sl_bo_chain(&g, TK(62), ch, 4, NULL) == 2 &&
	    ch[1].task == TK(60) && counts(3, 1, 2),
	    "tree: the other two now wait on the new owner; the old one is forgotten");
	sl_bo_task_state(&g, TK(60), SL_BO_SLEEPING, 0, T0 + 8 * MS);
	ok = sl_bo_wait_end(&g, TK(61), LK(5), true, T0 + 9 * MS, &rb);
	sl_bo_task_state(&g, TK(61), SL_BO_RUNNING, 1, T0 + 9 * MS);
	memset(c, 0, sizeof(c));
	c[PRE] = 4 * MS;
	c[RL] = 3 * MS;
	c[SL] = 1 * MS;
	tap(ok && rec_times(&rb, T0 + 1 * MS, T0 + 9 * MS, c, c), "tree: second: pre 4, rl 3, sl 1 ms");
	ok = sl_bo_wait_end(&g, TK(62), LK(5), true, T0 + 10 * MS, &rc);
	memset(c, 0, sizeof(c));
	c[PRE] = 3 * MS;
	c[RL] = 3 * MS;
	c[SL] = 1 * MS;
	c[RR] = 1 * MS;
	tap(ok && rec_times(&rc, T0 + 2 * MS, T0 + 10 * MS, c, c),
	    "tree: third: pre 3, rl 3, sl 1, rr 1 ms");
	tap(empty(), "tree: tables empty at the end");
}

/* 4. the owner changes under a waiter: steal, release, new owner */
static void test_steal(void)
{
	struct sl_bo_task_info wi = info(70, SL_BO_SLEEPING, 0, &P_NICE0);
	struct sl_bo_task_info o1 = info(71, SL_BO_RUNNING, 1, &P_NICE0);
	struct sl_bo_task_info o2 = info(72, SL_BO_RUNNING, 0, &P_NICE0);
	struct sl_bo_task_info o3 = info(73, SL_BO_RUNNABLE, 0, &P_NICE0);
	struct sl_bo_wait_record rec;
	u64 c[NC] = { 0 };
	int ok;

	fresh();
	sl_bo_owner(&g, LK(7), TK(71), &o1, T0);
	tap(empty() && g.now == 0, "steal: the owner of a lock nobody waits on is not tracked");
	ok = !sl_bo_wait_begin(&g, TK(70), &wi, LK(7), SL_BO_MUTEX, TK(71), &o1, T0);
	sl_bo_owner(&g, LK(7), TK(72), &o2, T0 + 2 * MS);
	ok &= counts(2, 1, 1);
	sl_bo_owner(&g, LK(7), 0, NULL, T0 + 5 * MS);
	ok &= counts(1, 1, 1);
	sl_bo_owner(&g, LK(7), TK(73), &o3, T0 + 6 * MS);
	ok &= counts(2, 1, 1);
	tap(ok, "steal: each owner replaces the last, which is forgotten; released: only the waiter");
	ok = sl_bo_wait_end(&g, TK(70), LK(7), false, T0 + 9 * MS, &rec);
	c[RR] = 2 * MS;
	c[RL] = 3 * MS;
	c[UN] = 1 * MS;
	c[PRE] = 3 * MS;
	tap(ok && rec_times(&rec, T0, T0 + 9 * MS, c, c) && !rec.acquired &&
	    rec.end == SL_BO_END_FAILED,
	    "steal: rr 2, rl 3 (stolen), un 1 (released), pre 3 ms; not acquired");
	tap(empty(), "steal: tables empty at the end");
}

/*
 * 4b. a handoff: the owner word names the first waiter (it has the lock)
 * a moment before the end of its wait is seen. It is the owner then, not
 * blocked, and the second waiter is not on a cycle.
 */
static void test_handoff(void)
{
	struct sl_bo_task_info w1 = info(91, SL_BO_SLEEPING, 0, &P_NICE0);
	struct sl_bo_task_info w2 = info(92, SL_BO_SLEEPING, 0, &P_NICE0);
	struct sl_bo_task_info o = info(90, SL_BO_RUNNING, 1, &P_NICE0);
	struct sl_bo_task_info w1r = info(91, SL_BO_RUNNABLE, 0, &P_NICE0);
	struct sl_bo_wait_record r1, r2;
	struct sl_bo_link ch[8];
	bool cyc = true;
	u64 c1[NC] = { 0 }, c2[NC] = { 0 };
	int ok;

	fresh();
	ok = !sl_bo_wait_begin(&g, TK(91), &w1, LK(9), SL_BO_MUTEX, TK(90), &o, T0);
	ok &= !sl_bo_wait_begin(&g, TK(92), &w2, LK(9), SL_BO_MUTEX, TK(90), &o, T0);
	/* O hands the lock to W1, woken on CPU 0 (W2's) */
	sl_bo_owner(&g, LK(9), TK(91), &w1r, T0 + 2 * MS);
	ok &= sl_bo_chain(&g, TK(92), ch, 8, &cyc) == 2 && !cyc && ch[1].task == TK(91);
	tap(ok && sl_bo_cycles_seen(&g) == 0,
	    "handoff: W2 -> W1 (the new owner, still in its wait): depth 2, no cycle");
	ok = sl_bo_wait_end(&g, TK(91), LK(9), true, T0 + 3 * MS, &r1);
	sl_bo_task_state(&g, TK(91), SL_BO_RUNNING, 0, T0 + 3 * MS);
	ok &= sl_bo_wait_end(&g, TK(92), LK(9), true, T0 + 4 * MS, &r2);
	c1[RR] = 2 * MS;
	c1[PRE] = 1 * MS;
	c2[RR] = 2 * MS;
	c2[PRE] = 1 * MS;
	c2[RL] = 1 * MS;
	tap(ok && rec_times(&r1, T0, T0 + 3 * MS, c1, c1) && rec_times(&r2, T0, T0 + 4 * MS, c2, c2),
	    "handoff: W1 rr 2, pre 1 ms (its own lock); W2 rr 2, pre 1 (W1 runnable), rl 1 ms");
	tap(empty() && sl_bo_cycles_seen(&g) == 0, "handoff: tables empty, no cycle seen");
}

/* 4c. waits that spun first: ended while spinning, or entered after */
static void test_spin(void)
{
	struct sl_bo_task_info w = info(95, SL_BO_RUNNING, 0, &P_NICE0);
	struct sl_bo_task_info o = info(96, SL_BO_RUNNING, 1, &P_NICE0);
	struct sl_bo_wait_record rec;
	u64 c[NC] = { 0 };
	int ok;

	fresh();
	memset(&rec, 0xa5, sizeof(rec));
	sl_bo_spin_record(TK(95), &w, LK(30), SL_BO_MUTEX, true, T0, T0 + 7 * MS, true, &rec);
	c[RR] = 7 * MS;
	tap(rec_times(&rec, T0, T0 + 7 * MS, c, c) && rec.acquired && rec.end == SL_BO_END_ACQUIRED &&
	    rec.pid == 95 && !strcmp(rec.comm, "task-95") && rec.depth == 2 && rec.max_depth == 2 &&
	    !rec.cycle && !rec.inv_rules && !rec.inv_ns && rec.snap.nr == 0 && rec.snap.len_ns == 0 &&
	    empty(),
	    "spin: a wait that ended spinning: all of it rr (owner on another CPU), graph untouched");
	sl_bo_spin_record(TK(95), &w, LK(30), SL_BO_MUTEX, false, T0, T0 + 1 * MS, false, &rec);
	memset(c, 0, sizeof(c));
	c[UN] = 1 * MS;
	tap(rec_times(&rec, T0, T0 + 1 * MS, c, c) && !rec.acquired && rec.depth == 1,
	    "spin: no owner when it began: un, depth 1; not acquired");

	/* spun 3 ms, then queued: the wait begins 3 ms earlier, rr */
	ok = !sl_bo_wait_begin(&g, TK(95), &w, LK(30), SL_BO_MUTEX, TK(96), &o, T0 + 3 * MS);
	sl_bo_wait_spun(&g, TK(95), 3 * MS, true);
	sl_bo_task_state(&g, TK(96), SL_BO_RUNNABLE, 0, T0 + 4 * MS);
	ok &= sl_bo_wait_end(&g, TK(95), LK(30), true, T0 + 6 * MS, &rec);
	memset(c, 0, sizeof(c));
	c[RR] = 4 * MS;
	c[PRE] = 2 * MS;
	tap(ok && rec_times(&rec, T0, T0 + 6 * MS, c, c) && rec.max_depth == 2 && empty(),
	    "spin: spun 3 ms, then queued: begins at the spin, rr 3 + 1, pre 2 ms");
	sl_bo_wait_spun(&g, TK(95), 1 * MS, true);
	tap(empty(), "spin: time spun for a task not waiting: ignored");
}

/* 5. a ww_mutex waiter in the middle of a chain is wounded */
static void test_wound(void)
{
	struct sl_bo_task_info a = info(80, SL_BO_SLEEPING, 0, &P_NICE0);
	struct sl_bo_task_info b = info(81, SL_BO_SLEEPING, 1, &P_NICE0);
	struct sl_bo_task_info c = info(82, SL_BO_RUNNING, 2, &P_NICE0);
	struct sl_bo_wait_record ra, rb;
	struct sl_bo_link ch[8];
	u64 w[NC] = { 0 }, h[NC] = { 0 };
	int ok;

	fresh();
	ok = !sl_bo_wait_begin(&g, TK(81), &b, LK(12), SL_BO_WW_MUTEX, TK(82), &c, T0);
	ok &= !sl_bo_wait_begin(&g, TK(80), &a, LK(11), SL_BO_MUTEX, TK(81), &b, T0);
	ok &= sl_bo_chain(&g, TK(80), ch, 8, NULL) == 3 && ch[1].kind == SL_BO_WW_MUTEX;
	ok &= sl_bo_wait_end(&g, TK(81), LK(12), false, T0 + 3 * MS, &rb);
	sl_bo_task_state(&g, TK(81), SL_BO_RUNNABLE, 0, T0 + 3 * MS);
	w[RR] = 3 * MS;
	tap(ok && rec_times(&rb, T0, T0 + 3 * MS, w, w) && !rb.acquired &&
	    rb.end == SL_BO_END_FAILED && rb.kind == SL_BO_WW_MUTEX,
	    "wound: the middle waiter's ww_mutex wait ends, not acquired: rr 3 ms");
	tap(sl_bo_chain(&g, TK(80), ch, 8, NULL) == 2 && ch[1].task == TK(81) && ch[1].lock == 0 &&
	    counts(2, 1, 1),
	    "wound: the edge is gone: chain A, B; C and its lock forgotten (2 tasks, 1 lock, 1 wait)");
	ok = sl_bo_wait_end(&g, TK(80), LK(11), true, T0 + 5 * MS, &ra);
	memset(w, 0, sizeof(w));
	w[BL] = 3 * MS;
	w[PRE] = 2 * MS;
	h[RR] = 3 * MS;
	h[PRE] = 2 * MS;
	tap(ok && rec_times(&ra, T0, T0 + 5 * MS, w, h) && ra.max_depth == 3,
	    "wound: A: bl 3, pre 2 ms (B woken on A's CPU); head rr 3, pre 2 ms");
	tap(empty(), "wound: tables empty at the end");
}

/* 6. deadlocks, and a chain too deep */
static void test_cycle(void)
{
	struct sl_bo_task_info a = info(90, SL_BO_SLEEPING, 0, &P_NICE0);
	struct sl_bo_task_info b = info(91, SL_BO_RUNNING, 1, &P_NICE0);
	struct sl_bo_task_info bs = info(91, SL_BO_SLEEPING, 1, &P_NICE0);
	struct sl_bo_task_info cc = info(92, SL_BO_SLEEPING, 0, &P_NICE0);
	struct sl_bo_wait_record ra, rb, rc, rec;
	struct sl_bo_link ch[64];
	u64 w[NC] = { 0 }, h[NC] = { 0 };
	bool cyc = false;
	int i, n, ok;

	fresh();
	ok = !sl_bo_wait_begin(&g, TK(90), &a, LK(21), SL_BO_MUTEX, TK(91), &b, T0);
	ok &= sl_bo_cycles_seen(&g) == 0;
	ok &= !sl_bo_wait_begin(&g, TK(91), &bs, LK(22), SL_BO_MUTEX, TK(90), &a, T0 + 1 * MS);
	n = sl_bo_chain(&g, TK(90), ch, 64, &cyc);
	tap(ok && sl_bo_cycles_seen(&g) == 1 && n == 2 && cyc && ch[0].task == TK(90) &&
	    ch[1].task == TK(91) && ch[1].lock == LK(22) && ch[1].owner == TK(90),
	    "cycle: A -> L1 -> B -> L2 -> A: flagged, cycles_seen 1, chain A, B (B's lock owned by A)");
	ok = !sl_bo_wait_begin(&g, TK(92), &cc, LK(21), SL_BO_MUTEX, TK(91), &bs, T0 + 2 * MS);
	sl_bo_owner(&g, LK(21), TK(91), NULL, T0 + 3 * MS);
	n = sl_bo_chain(&g, TK(92), ch, 64, &cyc);
	tap(ok && sl_bo_cycles_seen(&g) == 1 && n == 3 && cyc && ch[2].task == TK(90),
	    "cycle: C waiting behind it sees the cycle (C, B, A) but forms none; same owner again: none");

	ok = sl_bo_wait_end(&g, TK(90), LK(21), false, T0 + 4 * MS, &ra);
	w[RR] = 1 * MS;
	w[BL] = 3 * MS;
	tap(ok && rec_times(&ra, T0, T0 + 4 * MS, w, w) && ra.cycle && ra.max_depth == 2,
	    "cycle: A gives up: rr 1 ms, then bl 3 ms in both splits; cycle recorded");
	ok = sl_bo_wait_end(&g, TK(91), LK(22), true, T0 + 5 * MS, &rb);
	memset(w, 0, sizeof(w));
	w[BL] = 3 * MS;
	w[SL] = 1 * MS;
	tap(ok && rec_times(&rb, T0 + 1 * MS, T0 + 5 * MS, w, w) && rb.cycle,
	    "cycle: B: bl 3 ms in the cycle, then A sleeping 1 ms; cycle recorded");
	ok = sl_bo_wait_end(&g, TK(92), LK(21), true, T0 + 6 * MS, &rc);
	memset(w, 0, sizeof(w));
	w[BL] = 3 * MS;
	w[SL] = 1 * MS;
	h[BL] = 2 * MS;
	h[SL] = 2 * MS;
	tap(ok && rec_times(&rc, T0 + 2 * MS, T0 + 6 * MS, w, h) && rc.cycle && rc.max_depth == 3,
	    "cycle: C: bl 3, sl 1 ms; head bl 2 (cycle), sl 2 ms");
	tap(empty(), "cycle: tables empty once the waits end");

	/*
	 * a task named the owner of the lock it waits on: it was just given
	 * the lock (handoff), the end of its wait not seen yet; not a cycle
	 */
	ok = !sl_bo_wait_begin(&g, TK(93), &a, LK(23), SL_BO_MUTEX, TK(93), &a, T0 + 10 * MS);
	n = sl_bo_chain(&g, TK(93), ch, 64, &cyc);
	ok &= n == 1 && !cyc && ch[0].owner == TK(93) && sl_bo_cycles_seen(&g) == 1 &&
	      counts(1, 1, 1);
	ok &= sl_bo_wait_end(&g, TK(93), LK(23), false, T0 + 11 * MS, &rec);
	tap(ok && rec.duration_ns == 1 * MS && rec.cat_ns[BL] == 0 && !rec.cycle && empty(),
	    "cycle: the owner of its own lock (handed off): no cycle, not blocked, then empty");

	/* 40 tasks in a line: T0 waits on T1's lock, ..., T39 runs */
	ok = 1;
	for (i = 38; i >= 0; i--) {
		struct sl_bo_task_info wi = info(300 + i, SL_BO_SLEEPING, 0, &P_NICE0);
		struct sl_bo_task_info oi = info(301 + i, i == 38 ? SL_BO_RUNNING : SL_BO_SLEEPING,
						 0, &P_NICE0);

		ok &= !sl_bo_wait_begin(&g, TK(300 + i), &wi, LK(300 + i), SL_BO_MUTEX,
					TK(301 + i), &oi, T0 + 20 * MS);
	}
	n = sl_bo_chain(&g, TK(300), ch, 64, &cyc);
	ok &= n == SL_BO_MAX_DEPTH && !cyc && ch[31].task == TK(331) && ch[31].lock == LK(331) &&
	      ch[31].owner == TK(332);
	n = sl_bo_chain(&g, TK(308), ch, 64, &cyc);
	ok &= n == SL_BO_MAX_DEPTH && ch[31].task == TK(339) && ch[31].lock == 0;
	tap(ok && counts(40, 39, 39),
	    "depth: 40 tasks in a line: the chain stops at SL_BO_MAX_DEPTH (32) links, no cycle");
	ok = read_wait(TK(307), T0 + 21 * MS, &rec) && rec.head_ns[BL] == 1 * MS &&
	     rec.cat_ns[BL] == 1 * MS && rec.max_depth == 32;
	ok &= read_wait(TK(308), T0 + 21 * MS, &rec) && rec.head_ns[RL] == 1 * MS &&
	      rec.max_depth == 32;
	ok &= read_wait(TK(338), T0 + 21 * MS, &rec) && rec.cat_ns[RL] == 1 * MS;
	tap(ok, "depth: 33 tasks deep counts as bl in head[]; 32 deep reaches the running head (rl)");
	for (i = 0; i <= 38; i++)
		sl_bo_wait_end(&g, TK(300 + i), LK(300 + i), false, T0 + 22 * MS, NULL);
	tap(empty() && sl_bo_cycles_seen(&g) == 1, "depth: tables empty at the end, no cycle counted");
}

/* the worst moment among equal stretches; unknown CPUs; default infos */
static void test_snapshot(void)
{
	struct sl_bo_task_info w = info(800, SL_BO_SLEEPING, 0, &P_NICE0);
	struct sl_bo_task_info o = info(801, SL_BO_RUNNABLE, 0, &P_NICE0);
	struct sl_bo_wait_record rec;
	struct sl_bo_link ch[4];
	int ok;

	fresh();
	ok = !sl_bo_wait_begin(&g, TK(800), &w, LK(80), SL_BO_MUTEX, TK(801), &o, T0);
	sl_bo_task_state(&g, TK(801), SL_BO_RUNNING, 0, T0 + 2 * MS);
	sl_bo_task_state(&g, TK(801), SL_BO_SLEEPING, 0, T0 + 3 * MS);
	sl_bo_task_state(&g, TK(801), SL_BO_RUNNING, 0, T0 + 5 * MS);
	sl_bo_task_state(&g, TK(801), SL_BO_RUNNABLE, 2, T0 + 6 * MS);
	ok &= read_wait(TK(800), T0 + 8 * MS, &rec) && rec.snap.at_ns == T0 &&
	      rec.snap.len_ns == 2 * MS && rec.snap.head_cat == PRE &&
	      rec.snap.link[1].state == SL_BO_RUNNABLE;
	tap(ok, "snapshot: three stretches of 2 ms (pre, sl, rrq still open): the first one");
	ok = read_wait(TK(800), T0 + 9 * MS, &rec) && rec.snap.at_ns == T0 + 6 * MS &&
	     rec.snap.len_ns == 3 * MS && rec.snap.head_cat == RRQ && rec.snap.link[1].cpu == 2;
	ok &= sl_bo_wait_end(&g, TK(800), LK(80), true, T0 + 9 * MS, &rec) &&
	      rec.snap.at_ns == T0 + 6 * MS && rec.snap.len_ns == 3 * MS;
	tap(ok && empty(), "snapshot: the open stretch once longer (3 ms, rrq from +6 ms), read and in the record");

	/* no info: waiter sleeping, owner running, both on an unknown CPU, nice 0 */
	ok = !sl_bo_wait_begin(&g, TK(802), NULL, LK(81), SL_BO_MUTEX, TK(803), NULL, T0 + 10 * MS);
	ok &= sl_bo_chain(&g, TK(802), ch, 4, NULL) == 2 && ch[0].state == SL_BO_SLEEPING &&
	      ch[0].cpu < 0 && ch[0].pid == 0 && ch[0].comm[0] == 0 &&
	      ch[1].state == SL_BO_RUNNING && ch[1].cpu < 0 &&
	      ch[1].prio.policy_class == SL_BO_CLASS_NORMAL && ch[1].prio.weight == 1024 &&
	      ch[1].prio.cgroup_weight == 100;
	ok &= sl_bo_wait_end(&g, TK(802), LK(81), false, T0 + 11 * MS, &rec) &&
	      rec.cat_ns[RR] == 1 * MS && rec.inv_ns == 0;
	tap(ok && empty(), "defaults without info: waiter sleeping, owner running, CPUs unknown (-1 is never local: rr)");
}

/* 7a. the rules, one case at a time */
static void test_rules(void)
{
	static const struct {
		struct sl_bo_prio a, b;
		unsigned int mask;	/* rules by which a is more important, all enabled */
		const char *what;
	} t[] = {
		{ { 2, 50, 1024, 100 }, { 1, 0, 15, 100 }, R_RT, "rt 50 > nice 19" },
		{ { 1, 0, 15, 100 }, { 2, 50, 1024, 100 }, 0, "nice 19 < rt 50" },
		{ { 2, 50, 1024, 100 }, { 2, 10, 1024, 100 }, R_RT, "rt 50 > rt 10" },
		{ { 2, 10, 1024, 100 }, { 2, 50, 1024, 100 }, 0, "rt 10 < rt 50" },
		{ { 2, 50, 1024, 100 }, { 2, 50, 1024, 100 }, 0, "rt 50 = rt 50" },
		{ { 3, 0, 1024, 100 }, { 2, 99, 1024, 100 }, R_RT, "dl > rt 99" },
		{ { 2, 99, 1024, 100 }, { 3, 0, 1024, 100 }, 0, "rt 99 < dl" },
		{ { 3, 0, 1024, 100 }, { 3, 0, 1024, 100 }, 0, "dl = dl" },
		{ { 3, 0, 1024, 100 }, { 1, 0, 1024, 100 }, R_RT, "dl > nice 0" },
		{ { 3, 0, 1024, 100 }, { 0, 0, 3, 100 }, R_RT | R_I, "dl > idle" },
		{ { 2, 1, 1024, 100 }, { 0, 0, 3, 100 }, R_RT | R_I, "rt 1 > idle" },
		{ { 1, 0, 1024, 100 }, { 1, 0, 15, 100 }, R_W, "nice 0 > nice 19" },
		{ { 1, 0, 15, 100 }, { 1, 0, 1024, 100 }, 0, "nice 19 < nice 0" },
		{ { 1, 0, 1024, 100 }, { 1, 0, 1024, 100 }, 0, "nice 0 = nice 0" },
		{ { 1, 0, 15, 100 }, { 0, 0, 3, 100 }, R_I, "nice 19 > idle" },
		{ { 0, 0, 3, 100 }, { 1, 0, 15, 100 }, 0, "idle < nice 19" },
		{ { 0, 0, 1024, 100 }, { 0, 0, 3, 100 }, 0, "idle vs idle: weight does not count" },
		{ { 1, 0, 1024, 200 }, { 1, 0, 1024, 100 }, R_CG, "cgroup 200 > cgroup 100" },
		{ { 1, 0, 1024, 100 }, { 1, 0, 1024, 200 }, 0, "cgroup 100 < cgroup 200" },
		{ { 1, 0, 88761, 10000 }, { 1, 0, 15, 1 }, R_W | R_CG, "nice -20 in a heavy cgroup" },
		{ { 1, 0, 15, 10000 }, { 1, 0, 88761, 1 }, R_CG, "heavy cgroup, light task" },
		{ { 2, 50, 1024, 10000 }, { 1, 0, 15, 1 }, R_RT, "rt: no weight or cgroup rule" },
	};
	unsigned int i, r, bad = 0;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		int ok = sl_bo_importance_rules(&t[i].a, &t[i].b, SL_BO_RULES_ALL) == t[i].mask &&
			 sl_bo_more_important(&t[i].a, &t[i].b, SL_BO_RULES_ALL) == !!t[i].mask;

		/* each rule alone gives its own bit of the mask, nothing else */
		for (r = 1; r <= SL_BO_RULES_ALL; r <<= 1)
			ok &= sl_bo_importance_rules(&t[i].a, &t[i].b, r) == (t[i].mask & r) &&
			      sl_bo_more_important(&t[i].a, &t[i].b, r) == !!(t[i].mask & r);
		ok &= sl_bo_importance_rules(&t[i].a, &t[i].b, 0) == 0;
		if (!ok) {
			bad++;
			tap_diag("rules: %s: got 0x%x, want 0x%x", t[i].what,
				 sl_bo_importance_rules(&t[i].a, &t[i].b, SL_BO_RULES_ALL), t[i].mask);
		}
	}
	tap(!bad, "rules: %zu cases, all rules and each rule alone: expected masks", ARRAY_SIZE(t));
}

/* 7b. inversions in waits */
static void test_inversion(void)
{
	struct sl_bo_task_info w = info(400, SL_BO_SLEEPING, 0, &P_RT50);
	struct sl_bo_task_info o = info(401, SL_BO_RUNNABLE, 0, &P_NICE19);
	struct sl_bo_wait_record rec;
	u64 c[NC] = { 0 };
	int pass, ok;

	for (pass = 0; pass < 2; pass++) {
		fresh();
		if (pass)
			g.rules = SL_BO_RULES_ALL & ~SL_BO_RULE_RT;
		ok = !sl_bo_wait_begin(&g, TK(400), &w, LK(40), SL_BO_MUTEX, TK(401), &o, T0);
		sl_bo_task_state(&g, TK(401), SL_BO_RUNNING, 0, T0 + 4 * MS);
		sl_bo_task_state(&g, TK(401), SL_BO_RUNNABLE, 1, T0 + 5 * MS);
		ok &= sl_bo_wait_end(&g, TK(400), LK(40), true, T0 + 7 * MS, &rec);
		memset(c, 0, sizeof(c));
		c[PRE] = 4 * MS;
		c[RL] = 1 * MS;
		c[RRQ] = 2 * MS;
		ok &= rec_times(&rec, T0, T0 + 7 * MS, c, c);
		ok &= rec.snap.len_ns == 4 * MS && rec.snap.at_ns == T0 &&
		      rec.snap.link[0].policy_class == SL_BO_CLASS_RT &&
		      rec.snap.link[0].rt_prio == 50 && rec.snap.link[1].weight == 15 &&
		      rec.snap.link[1].state == SL_BO_RUNNABLE && rec.snap.head_cat == PRE;
		if (!pass)
			tap(ok && rec.inv_rules == R_RT && rec.inv_ns == 6 * MS,
			    "inversion: rt 50 behind a nice 19 owner, preempted 4 ms and runnable remote 2 ms: rules RT, 6 ms (not the 1 ms it ran)");
		else
			tap(ok && rec.inv_rules == 0 && rec.inv_ns == 0,
			    "inversion: the same with the RT rule disabled: no inversion (snapshot kept)");
	}

	/* weight: nice 0 behind nice 19, which sleeps 3 ms */
	fresh();
	w = info(402, SL_BO_SLEEPING, 0, &P_NICE0);
	o = info(403, SL_BO_SLEEPING, 2, &P_NICE19);
	ok = !sl_bo_wait_begin(&g, TK(402), &w, LK(41), SL_BO_MUTEX, TK(403), &o, T0);
	ok &= sl_bo_wait_end(&g, TK(402), LK(41), true, T0 + 3 * MS, &rec);
	tap(ok && rec.inv_rules == R_W && rec.inv_ns == 3 * MS && rec.cat_ns[SL] == 3 * MS,
	    "inversion: nice 0 behind a sleeping nice 19: rules WEIGHT, 3 ms");

	/* a priority change mid-wait: equal, then the owner drops to nice 19 */
	fresh();
	o = info(403, SL_BO_RUNNABLE, 0, &P_NICE0);
	ok = !sl_bo_wait_begin(&g, TK(402), &w, LK(41), SL_BO_MUTEX, TK(403), &o, T0);
	sl_bo_task_prio(&g, TK(403), &P_NICE19, T0 + 2 * MS);
	ok &= sl_bo_wait_end(&g, TK(402), LK(41), true, T0 + 5 * MS, &rec);
	tap(ok && rec.inv_rules == R_W && rec.inv_ns == 3 * MS && rec.cat_ns[PRE] == 5 * MS,
	    "inversion: owner reniced to 19 after 2 ms preempted: 3 ms of the 5 are an inversion");

	/* the head counts, not the direct owner: rt 50 -> rt 10 (waits) -> nice 0 */
	fresh();
	{
		struct sl_bo_prio rt10 = { SL_BO_CLASS_RT, 10, 1024, 100 };
		struct sl_bo_task_info b = info(405, SL_BO_SLEEPING, 1, &rt10);
		struct sl_bo_task_info h = info(406, SL_BO_RUNNABLE, 3, &P_NICE0);

		w = info(404, SL_BO_SLEEPING, 0, &P_RT50);
		ok = !sl_bo_wait_begin(&g, TK(405), &b, LK(43), SL_BO_MUTEX, TK(406), &h, T0);
		ok &= !sl_bo_wait_begin(&g, TK(404), &w, LK(42), SL_BO_MUTEX, TK(405), &b, T0);
		sl_bo_task_state(&g, TK(406), SL_BO_RUNNING, 3, T0 + 2 * MS);
		ok &= sl_bo_wait_end(&g, TK(405), LK(43), true, T0 + 3 * MS, NULL);
		/* the head is now rt 10 (running on CPU 1), then preempted there */
		sl_bo_task_state(&g, TK(405), SL_BO_RUNNABLE, 1, T0 + 3 * MS);
		ok &= sl_bo_wait_end(&g, TK(404), LK(42), true, T0 + 4 * MS, &rec);
		tap(ok && rec.inv_rules == R_RT && rec.inv_ns == 3 * MS &&
		    rec.cat_ns[BL] == 3 * MS && rec.cat_ns[RRQ] == 1 * MS &&
		    rec.head_ns[RRQ] == 3 * MS && rec.head_ns[RR] == 1 * MS,
		    "inversion: by the chain's head: nice 0 runnable 2 ms, then rt 10 runnable 1 ms: RT, 3 ms");
	}
	tap(empty(), "inversion: tables empty at the end");
}

/* 8. exits */
static void test_exits(void)
{
	struct sl_bo_task_info w = info(500, SL_BO_SLEEPING, 0, &P_NICE0);
	struct sl_bo_task_info o = info(501, SL_BO_RUNNING, 1, &P_NICE0);
	struct sl_bo_task_info m = info(502, SL_BO_SLEEPING, 0, &P_NICE0);
	struct sl_bo_task_info h = info(503, SL_BO_RUNNING, 0, &P_NICE0);
	struct sl_bo_wait_record rec, rm;
	u64 c[NC] = { 0 }, hd[NC] = { 0 };
	int ok;

	fresh();
	ok = !sl_bo_wait_begin(&g, TK(500), &w, LK(50), SL_BO_MUTEX, TK(501), &o, T0);
	ok &= !sl_bo_task_exit(&g, TK(501), T0 + 2 * MS, &rec);
	ok &= counts(1, 1, 1);
	ok &= sl_bo_wait_end(&g, TK(500), LK(50), true, T0 + 3 * MS, &rec);
	c[RR] = 2 * MS;
	c[UN] = 1 * MS;
	tap(ok && rec_times(&rec, T0, T0 + 3 * MS, c, c) && empty(),
	    "exit: the owner exits: the lock is unowned (rr 2, un 1 ms); empty at the end");

	ok = !sl_bo_wait_begin(&g, TK(500), &w, LK(50), SL_BO_MUTEX, TK(501), &o, T0 + 10 * MS);
	ok &= sl_bo_task_exit(&g, TK(500), T0 + 14 * MS, &rec);
	memset(c, 0, sizeof(c));
	c[RR] = 4 * MS;
	tap(ok && rec_times(&rec, T0 + 10 * MS, T0 + 14 * MS, c, c) && !rec.acquired &&
	    rec.end == SL_BO_END_EXIT && empty(),
	    "exit: the waiter exits: record ends as an exit (rr 4 ms); owner and lock forgotten");

	/* the middle of a chain exits: its wait ends, its lock is left unowned */
	ok = !sl_bo_wait_begin(&g, TK(502), &m, LK(52), SL_BO_MUTEX, TK(503), &h, T0 + 20 * MS);
	ok &= !sl_bo_wait_begin(&g, TK(500), &w, LK(51), SL_BO_MUTEX, TK(502), &m, T0 + 20 * MS);
	ok &= sl_bo_task_exit(&g, TK(502), T0 + 22 * MS, &rm);
	memset(c, 0, sizeof(c));
	c[RL] = 2 * MS;
	ok &= rec_times(&rm, T0 + 20 * MS, T0 + 22 * MS, c, c) && rm.end == SL_BO_END_EXIT;
	{
		struct sl_bo_link ch[4];

		ok &= sl_bo_chain(&g, TK(500), ch, 4, NULL) == 1 && ch[0].lock == LK(51) &&
		      ch[0].owner == 0;
	}
	tap(ok && counts(1, 1, 1),
	    "exit: the middle of a chain exits: its record (rl 2 ms); its lock unowned, its head and lock forgotten");
	ok = sl_bo_wait_end(&g, TK(500), LK(51), false, T0 + 23 * MS, &rec);
	memset(c, 0, sizeof(c));
	c[BL] = 2 * MS;
	c[UN] = 1 * MS;
	hd[RL] = 2 * MS;
	hd[UN] = 1 * MS;
	tap(ok && rec_times(&rec, T0 + 20 * MS, T0 + 23 * MS, c, hd) && empty(),
	    "exit: the first waiter: bl 2, un 1 ms (head rl 2, un 1 ms); empty at the end");
	tap(!sl_bo_task_exit(&g, TK(599), T0 + 24 * MS, &rec) && empty(),
	    "exit: an untracked task: nothing");
}

/* events stamped before the graph's clock */
static void test_clock(void)
{
	struct sl_bo_task_info w = info(600, SL_BO_SLEEPING, 0, &P_NICE0);
	struct sl_bo_task_info x = info(602, SL_BO_SLEEPING, 0, &P_NICE0);
	struct sl_bo_task_info o = info(601, SL_BO_RUNNING, 1, &P_NICE0);
	struct sl_bo_wait_record rw, rx;
	u64 c[NC] = { 0 };
	int ok;

	fresh();
	ok = !sl_bo_wait_begin(&g, TK(600), &w, LK(60), SL_BO_MUTEX, TK(601), &o, T0 + 5 * MS);
	sl_bo_task_state(&g, TK(601), SL_BO_RUNNABLE, 1, T0 + 3 * MS);
	ok &= !sl_bo_wait_begin(&g, TK(602), &x, LK(60), SL_BO_MUTEX, TK(601), NULL, T0 + 4 * MS);
	ok &= sl_bo_wait_end(&g, TK(600), LK(60), true, T0 + 6 * MS, &rw);
	ok &= sl_bo_wait_end(&g, TK(602), LK(60), true, T0 + 7 * MS, &rx);
	c[RRQ] = 1 * MS;
	ok &= rec_times(&rw, T0 + 5 * MS, T0 + 6 * MS, c, c);
	c[SL] = 1 * MS;
	ok &= rec_times(&rx, T0 + 5 * MS, T0 + 7 * MS, c, c);
	tap(ok && empty(), "clock: events stamped before the graph's now happen at now");
}

/* 9. full tables */
static void test_capacity(void)
{
	static struct sl_bo_task st[4];
	static struct sl_bo_lock sk[2];
	struct sl_bo_task_info in = info(700, SL_BO_SLEEPING, 0, &P_NICE0);
	struct sl_bo_link ch[8];
	int ok;

	sl_bo_init(&g, st, 4, sk, 2);
	ok = !sl_bo_wait_begin(&g, TK(1), &in, LK(1), SL_BO_MUTEX, TK(2), &in, T0);
	ok &= !sl_bo_wait_begin(&g, TK(3), &in, LK(1), SL_BO_MUTEX, TK(2), &in, T0);
	ok &= !sl_bo_wait_begin(&g, TK(4), &in, LK(2), SL_BO_MUTEX, TK(3), &in, T0);
	tap(ok && counts(4, 2, 3), "capacity: 4 tasks and 2 locks fill the tables");
	ok = sl_bo_wait_begin(&g, TK(5), &in, LK(1), SL_BO_MUTEX, TK(2), &in, T0 + 1) == -SL_BO_ENOSPC;
	ok &= sl_bo_wait_begin(&g, TK(5), &in, LK(3), SL_BO_MUTEX, 0, NULL, T0 + 2) == -SL_BO_ENOSPC;
	ok &= counts(4, 2, 3) && g.nr_dropped == 2;
	/* TK(1) leaves L1 (still waited on by TK(3)) for L3: no lock slot */
	ok &= sl_bo_wait_begin(&g, TK(1), &in, LK(3), SL_BO_MUTEX, 0, NULL, T0 + 3) == -SL_BO_ENOSPC;
	ok &= g.nr_dropped == 3 && g.nr_replaced == 1 && counts(3, 2, 2);
	tap(ok, "capacity: no room for a task or a lock: -ENOSPC, nothing changed (a waiter's old wait still ends)");
	ok = sl_bo_wait_begin(&g, TK(6), &in, LK(2), SL_BO_MUTEX, TK(3), &in, T0 + 4) == 0;
	ok &= counts(4, 2, 3);
	sl_bo_owner(&g, LK(2), TK(7), &in, T0 + 5);	/* no room for the new owner */
	ok &= g.nr_dropped == 4 && counts(4, 2, 3) &&
	      sl_bo_chain(&g, TK(4), ch, 8, NULL) == 1 && ch[0].owner == 0;
	tap(ok, "capacity: room freed is used again; an owner with no room is taken as none");
	ok = !sl_bo_wait_end(&g, TK(5), LK(1), true, T0 + 8, NULL);
	ok &= !sl_bo_wait_end(&g, TK(1), LK(3), true, T0 + 8, NULL);
	ok &= sl_bo_wait_end(&g, TK(3), LK(1), true, T0 + 8, NULL);
	ok &= sl_bo_wait_end(&g, TK(4), LK(2), false, T0 + 8, NULL);
	ok &= sl_bo_wait_end(&g, TK(6), LK(2), false, T0 + 8, NULL);
	tap(ok && empty(), "capacity: a dropped wait is not found; after the others end, empty");

	sl_bo_init(&g, st, 0, sk, 0);
	ok = sl_bo_wait_begin(&g, TK(1), &in, LK(1), SL_BO_MUTEX, 0, NULL, T0) == -SL_BO_ENOSPC;
	sl_bo_owner(&g, LK(1), TK(2), NULL, T0);
	sl_bo_task_state(&g, TK(1), SL_BO_RUNNING, 0, T0);
	ok &= !sl_bo_wait_end(&g, TK(1), LK(1), true, T0, NULL) && empty() &&
	      sl_bo_wait_begin(&g, 0, &in, LK(1), SL_BO_MUTEX, 0, NULL, T0) == -SL_BO_EINVAL &&
	      sl_bo_wait_begin(&g, TK(1), &in, 0, SL_BO_MUTEX, 0, NULL, T0) == -SL_BO_EINVAL;
	tap(ok, "capacity: empty tables track nothing; 0 keys are -EINVAL");
}

/*
 * The core updates only the waits whose chain holds what an event changed.
 * The old way, every wait re-walked after every event, on a copy of the
 * graph (sl_bo_set_rules() recomputes every wait; toggled there and back at
 * the graph's own now, no time passes, so it changes nothing but what is
 * stale): every wait's live state and record must be the same in both.
 */
static int same_as_full_rewalk(const struct sl_bo_graph *gr, const char **why)
{
	static struct sl_bo_task ct[1024];
	static struct sl_bo_lock cl[1024];
	static struct sl_bo_graph c;
	struct sl_bo_wait_record a, b;
	u32 i, pa = 0, pb = 0;
	unsigned int rules = gr->rules;

	if (gr->tt.size > 1024 || gr->lt.size > 1024)
		return *why = "test tables too big", 0;
	memcpy(ct, gr->tasks, gr->tt.size * sizeof(ct[0]));
	memcpy(cl, gr->locks, gr->lt.size * sizeof(cl[0]));
	c = *gr;
	c.tasks = ct;
	c.locks = cl;
	c.tt.base = ct;
	c.lt.base = cl;
	sl_bo_set_rules(&c, rules == 1 ? 2 : 1, c.now);
	sl_bo_set_rules(&c, rules, c.now);
	for (i = 0; i < gr->tt.size; i++) {
		const struct sl_bo_wait *x = &gr->tasks[i].w, *y = &ct[i].w;

		if (!gr->tasks[i].h.key || gr->tasks[i].lock == SL_BO_NIL)
			continue;
		if (x->cat != y->cat || x->head != y->head || x->inv_now != y->inv_now ||
		    x->depth != y->depth || x->max_depth != y->max_depth || x->cycle != y->cycle ||
		    x->in_seg != y->in_seg || (x->in_seg && x->seg_begin_ns != y->seg_begin_ns))
			return *why = "a wait's categories differ from a full re-walk", 0;
	}
	for (;;) {
		bool na = sl_bo_next_wait(gr, &pa, gr->now, &a);
		bool nb = sl_bo_next_wait(&c, &pb, gr->now, &b);

		if (na != nb)
			return *why = "not the same waits as a full re-walk", 0;
		if (!na)
			return 1;
		if (a.waiter != b.waiter || a.duration_ns != b.duration_ns ||
		    !same_cats(a.cat_ns, b.cat_ns) || !same_cats(a.head_ns, b.head_ns) ||
		    a.inv_ns != b.inv_ns || a.inv_rules != b.inv_rules || a.depth != b.depth ||
		    a.max_depth != b.max_depth || a.cycle != b.cycle ||
		    a.snap.len_ns != b.snap.len_ns || a.snap.at_ns != b.snap.at_ns ||
		    a.snap.depth != b.snap.depth || a.snap.head_cat != b.snap.head_cat)
			return *why = "a wait's record differs from a full re-walk", 0;
	}
}

/* waits recomputed by one call */
#define UPDATES(call) ({ u64 u0_ = g.nr_updates; call; g.nr_updates - u0_; })

/* 9b. the work of an event: only the waits whose chain holds what changed */
static void test_work(void)
{
	struct sl_bo_task_info wi, oi;
	const char *why = "";
	int i, ok = 1;
	u64 n1, n2, n3, n4, n5;

	/* 100 waits, each on its own lock with its own owner */
	fresh();
	for (i = 0; i < 100; i++) {
		wi = info(800 + i, SL_BO_SLEEPING, i % 4, &P_NICE0);
		oi = info(900 + i, SL_BO_RUNNING, (i + 1) % 4, &P_NICE19);
		ok &= !sl_bo_wait_begin(&g, TK(800 + i), &wi, LK(800 + i), SL_BO_MUTEX,
					TK(900 + i), &oi, T0);
	}
	n1 = UPDATES(sl_bo_task_state(&g, TK(950), SL_BO_RUNNABLE, 1, T0 + 1 * MS));
	n2 = UPDATES(sl_bo_task_state(&g, TK(850), SL_BO_SLEEPING, 3, T0 + 2 * MS));
	n3 = UPDATES(sl_bo_task_prio(&g, TK(960), &P_RT50, T0 + 3 * MS));
	n4 = UPDATES(sl_bo_owner(&g, LK(870), 0, NULL, T0 + 4 * MS));
	n5 = UPDATES(sl_bo_task_state(&g, TK(5000), SL_BO_RUNNABLE, 1, T0 + 5 * MS));
	tap_diag("100 independent waits: recomputed %llu, %llu, %llu, %llu, %llu",
		 (unsigned long long)n1, (unsigned long long)n2, (unsigned long long)n3,
		 (unsigned long long)n4, (unsigned long long)n5);
	ok &= same_as_full_rewalk(&g, &why);
	ok &= sl_bo_lock_of(&g, TK(5000)) == 0 && sl_bo_lock_of(&g, TK(950)) == 0 &&
	      sl_bo_lock_of(&g, TK(850)) == LK(850);
	tap(ok && n1 == 1 && n2 == 1 && n3 == 1 && n4 == 1 && n5 == 0,
	    "work: of 100 independent waits, an owner's state, a waiter's CPU, an owner's priority, a release each recompute 1 wait; an untracked task none; the same as a full re-walk%s%s",
	    ok ? "" : ": ", ok ? "" : why);
	for (i = 0; i < 100; i++)
		sl_bo_task_exit(&g, TK(800 + i), T0 + 6 * MS, NULL);

	/* a tree: 10 waiters on one lock, the owner itself waits behind a running head */
	fresh();
	oi = info(1, SL_BO_RUNNING, 0, &P_NICE0);
	wi = info(2, SL_BO_SLEEPING, 1, &P_NICE0);
	ok = !sl_bo_wait_begin(&g, TK(2), &wi, LK(2), SL_BO_MUTEX, TK(1), &oi, T0);
	for (i = 0; i < 10; i++) {
		struct sl_bo_task_info w = info(10 + i, SL_BO_SLEEPING, i % 2, &P_RT50);

		ok &= !sl_bo_wait_begin(&g, TK(10 + i), &w, LK(1), SL_BO_MUTEX, TK(2), &wi, T0);
	}
	/* and 20 waits elsewhere */
	for (i = 0; i < 20; i++) {
		wi = info(100 + i, SL_BO_SLEEPING, 0, &P_NICE0);
		oi = info(200 + i, SL_BO_RUNNING, 1, &P_NICE0);
		ok &= !sl_bo_wait_begin(&g, TK(100 + i), &wi, LK(100 + i), SL_BO_MUTEX,
					TK(200 + i), &oi, T0);
	}
	n1 = UPDATES(sl_bo_task_state(&g, TK(1), SL_BO_RUNNABLE, 0, T0 + 1 * MS));
	n2 = UPDATES(sl_bo_task_state(&g, TK(13), SL_BO_RUNNABLE, 0, T0 + 2 * MS));
	n3 = UPDATES(sl_bo_wait_end(&g, TK(2), LK(2), true, T0 + 3 * MS, NULL));
	tap_diag("tree of 11 waits beside 20 others: recomputed %llu, %llu, %llu",
		 (unsigned long long)n1, (unsigned long long)n2, (unsigned long long)n3);
	ok &= same_as_full_rewalk(&g, &why);
	tap(ok && n1 == 11 && n2 == 1 && n3 == 10,
	    "work: the head of a tree of 11 waits: 11 recomputed, not the 20 others; a leaf: 1; the middle acquires: its 10 waiters%s%s",
	    ok ? "" : ": ", ok ? "" : why);
	for (i = 0; i < 300; i++)
		sl_bo_task_exit(&g, TK(i), T0 + 4 * MS, NULL);

	/* 40 tasks in a line: the head's state reaches only SL_BO_MAX_DEPTH - 1 waiters */
	fresh();
	for (i = 38; i >= 0; i--) {
		wi = info(300 + i, SL_BO_SLEEPING, 0, &P_NICE0);
		oi = info(301 + i, i == 38 ? SL_BO_RUNNING : SL_BO_SLEEPING, 0, &P_NICE0);
		ok &= !sl_bo_wait_begin(&g, TK(300 + i), &wi, LK(300 + i), SL_BO_MUTEX,
					TK(301 + i), &oi, T0);
	}
	n1 = UPDATES(sl_bo_task_state(&g, TK(339), SL_BO_RUNNABLE, 0, T0 + 1 * MS));
	ok &= same_as_full_rewalk(&g, &why);
	tap(ok && n1 == SL_BO_MAX_DEPTH - 1,
	    "work: the head of a line of 40: the %llu waits that see it (SL_BO_MAX_DEPTH - 1), the same as a full re-walk%s%s",
	    (unsigned long long)n1, ok ? "" : ": ", ok ? "" : why);
	for (i = 0; i < 40; i++)
		sl_bo_task_exit(&g, TK(300 + i), T0 + 2 * MS, NULL);
	tap(empty(), "work: tables empty at the end");
}

/* 10. random events against a reference model */

struct rtask {
	struct sl_bo_task_info in;	/* the truth */
	int waits;			/* lock, or -1 */
	u64 begin, cat[NC], head[NC], inv;
	unsigned int c, h, inv_now, rules, maxd;
	bool cycle, in_seg;
	u64 seg_begin, best_len, best_at;
};

#define MAXT 64
#define MAXL 32

static struct rtask rt[MAXT];
static int rown[MAXL];
static int nrt, nrl;
static u64 rnow;
static unsigned int rrules;

static u64 rng;
static u64 xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const struct sl_bo_prio prios[] = {
	{ SL_BO_CLASS_IDLE, 0, 3, 100 },
	{ SL_BO_CLASS_NORMAL, 0, 15, 100 },
	{ SL_BO_CLASS_NORMAL, 0, 1024, 100 },
	{ SL_BO_CLASS_NORMAL, 0, 88761, 100 },
	{ SL_BO_CLASS_NORMAL, 0, 1024, 1000 },
	{ SL_BO_CLASS_NORMAL, 0, 1024, 50 },
	{ SL_BO_CLASS_RT, 1, 1024, 100 },
	{ SL_BO_CLASS_RT, 50, 1024, 100 },
	{ SL_BO_CLASS_RT, 99, 1024, 100 },
	{ SL_BO_CLASS_DL, 0, 1024, 100 },
};

/* the rules from their definitions, by ranks */
static unsigned int ref_rules(const struct sl_bo_prio *a, const struct sl_bo_prio *b,
			      unsigned int rules)
{
	int ra = a->policy_class == 3 ? 1000 : a->policy_class == 2 ? a->rt_prio : -1;
	int rb = b->policy_class == 3 ? 1000 : b->policy_class == 2 ? b->rt_prio : -1;
	int nn = a->policy_class == 1 && b->policy_class == 1;
	unsigned int m = 0;

	if ((rules & R_RT) && ra >= 0 && ra > rb)
		m |= R_RT;
	if ((rules & R_W) && nn && a->weight > b->weight)
		m |= R_W;
	if ((rules & R_I) && a->policy_class >= 1 && b->policy_class == 0)
		m |= R_I;
	if ((rules & R_CG) && nn && a->cgroup_weight > b->cgroup_weight)
		m |= R_CG;
	return m;
}

static unsigned int ref_state_cat(const struct sl_bo_task_info *o, int cpu)
{
	int local = cpu >= 0 && o->cpu == cpu;

	if (o->state == SL_BO_RUNNING)
		return local ? RL : RR;
	if (o->state == SL_BO_RUNNABLE)
		return local ? PRE : RRQ;
	return SL;
}

enum { E_HEAD, E_UNOWNED, E_CYCLE, E_DEEP };

/* the lock @t is blocked on, -1 if none or if @t owns it (handed off) */
static int ref_blocked_on(int t)
{
	return rt[t].waits >= 0 && rown[rt[t].waits] != t ? rt[t].waits : -1;
}

/* walk task @t's chain in the truth: depth, how it ends, its last task */
static int ref_walk(int t, int *end, int *last)
{
	char seen[MAXT] = { 0 };
	int depth = 0, cur = t;

	for (;;) {
		if (seen[cur]) {
			*end = E_CYCLE;
			return depth;
		}
		if (depth == SL_BO_MAX_DEPTH) {
			*end = E_DEEP;
			return depth;
		}
		seen[cur] = 1;
		depth++;
		*last = cur;
		if (ref_blocked_on(cur) < 0) {
			*end = E_HEAD;
			return depth;
		}
		if (rown[rt[cur].waits] < 0) {
			*end = E_UNOWNED;
			return depth;
		}
		cur = rown[rt[cur].waits];
	}
}

static void ref_update(void)
{
	int t;

	for (t = 0; t < nrt; t++) {
		struct rtask *r = &rt[t];
		int end, last = t, depth, o;
		bool stalled;

		if (r->waits < 0)
			continue;
		depth = ref_walk(t, &end, &last);
		if ((unsigned int)depth > r->maxd)
			r->maxd = depth;
		if (end == E_CYCLE)
			r->cycle = true;
		o = rown[r->waits];
		r->c = o < 0 ? UN : ref_blocked_on(o) >= 0 ? BL : ref_state_cat(&rt[o].in, r->in.cpu);
		r->h = end == E_HEAD ? ref_state_cat(&rt[last].in, r->in.cpu) :
		       end == E_UNOWNED ? UN : BL;
		stalled = r->h == PRE || r->h == RRQ || r->h == SL;
		r->inv_now = stalled ? ref_rules(&r->in.prio, &rt[last].in.prio, rrules) : 0;
		if (stalled && !r->in_seg) {
			r->in_seg = true;
			r->seg_begin = rnow;
		} else if (!stalled && r->in_seg) {
			r->in_seg = false;
			if (rnow - r->seg_begin > r->best_len) {
				r->best_len = rnow - r->seg_begin;
				r->best_at = r->seg_begin;
			}
		}
	}
}

static void ref_advance(u64 now)
{
	u64 dt = now - rnow;
	int t;

	rnow = now;
	for (t = 0; t < nrt; t++) {
		struct rtask *r = &rt[t];

		if (r->waits < 0)
			continue;
		r->cat[r->c] += dt;
		r->head[r->h] += dt;
		if (r->inv_now && dt) {
			r->inv += dt;
			r->rules |= r->inv_now;
		}
	}
}

static void ref_start(int t, int l)
{
	struct rtask *r = &rt[t];

	r->waits = l;
	r->begin = rnow;
	memset(r->cat, 0, sizeof(r->cat));
	memset(r->head, 0, sizeof(r->head));
	r->inv = 0;
	r->rules = 0;
	r->maxd = 0;
	r->cycle = false;
	r->in_seg = false;
	r->best_len = 0;
	r->best_at = 0;
}

/* a record (ended now, or in progress) against the reference */
static int ref_rec_ok(int t, const struct sl_bo_wait_record *rec, unsigned int end)
{
	const struct rtask *r = &rt[t];
	u64 len = r->best_len, at = r->best_at;

	if (r->in_seg && rnow - r->seg_begin > len) {
		len = rnow - r->seg_begin;
		at = r->seg_begin;
	}
	return rec->waiter == TK(t) && r->waits >= 0 && rec->lock == LK(r->waits) &&
	       rec->begin_ns == r->begin && rec->end_ns == rnow &&
	       rec->duration_ns == rnow - r->begin && same_cats(rec->cat_ns, r->cat) &&
	       same_cats(rec->head_ns, r->head) && rec->inv_ns == r->inv &&
	       rec->inv_rules == r->rules && rec->max_depth == r->maxd &&
	       rec->cycle == r->cycle && rec->end == end &&
	       rec->acquired == (end == SL_BO_END_ACQUIRED) && rec->pid == r->in.pid &&
	       rec->snap.len_ns == len &&
	       (!len || (rec->snap.at_ns == at && rec->snap.nr >= 1 &&
			 rec->snap.link[0].pid == r->in.pid));
}

/*
 * Every bucket's hints, recomputed here from the keys: 0 if no key, the
 * key if one, SL_BO_HINT_MANY if more (whint: the waiting tasks' keys).
 */
static int hints_exact(const struct sl_bo_graph *gr)
{
	static u32 nt[1024], nw[1024], nl[1024];
	static u64 kt[1024], kw[1024], kl[1024];
	u32 i, b;

	memset(nt, 0, sizeof(nt));
	memset(nw, 0, sizeof(nw));
	memset(nl, 0, sizeof(nl));
	for (i = 0; i < gr->tt.size; i++) {
		const struct sl_bo_task *t = &gr->tasks[i];

		if (!t->h.key)
			continue;
		b = (u32)((t->h.key * 0x9e3779b97f4a7c15ULL) >> 32) % gr->tt.size;
		nt[b]++;
		kt[b] = t->h.key;
		if (t->lock != SL_BO_NIL) {
			nw[b]++;
			kw[b] = t->h.key;
		}
	}
	for (i = 0; i < gr->lt.size; i++) {
		const struct sl_bo_lock *l = &gr->locks[i];

		if (!l->h.key)
			continue;
		b = (u32)((l->h.key * 0x9e3779b97f4a7c15ULL) >> 32) % gr->lt.size;
		nl[b]++;
		kl[b] = l->h.key;
	}
	for (i = 0; i < gr->tt.size; i++) {
		const struct sl_bo_task *t = &gr->tasks[i];

		if (t->h.hint != (nt[i] > 1 ? SL_BO_HINT_MANY : nt[i] ? kt[i] : 0) ||
		    t->whint != (nw[i] > 1 ? SL_BO_HINT_MANY : nw[i] ? kw[i] : 0))
			return 0;
	}
	for (i = 0; i < gr->lt.size; i++)
		if (gr->locks[i].h.hint != (nl[i] > 1 ? SL_BO_HINT_MANY : nl[i] ? kl[i] : 0))
			return 0;
	return 1;
}

/* the tables' own consistency; @why says what broke */
static int graph_ok(const struct sl_bo_graph *gr, bool lookups, const char **why)
{
	static u32 owned[1024], waiters[1024];
	u32 i, nt = 0, nl = 0, nw = 0, n;

	if (gr->tt.size > 1024 || gr->lt.size > 1024)
		return *why = "test tables too big", 0;
	memset(owned, 0, sizeof(owned));
	memset(waiters, 0, sizeof(waiters));
	for (i = 0; i < gr->lt.size; i++) {
		const struct sl_bo_lock *l = &gr->locks[i];

		if (!l->h.key)
			continue;
		nl++;
		if (l->owner != SL_BO_NIL) {
			if (l->owner >= gr->tt.size || !gr->tasks[l->owner].h.key)
				return *why = "a lock owned by a free task slot", 0;
			owned[l->owner]++;
		}
	}
	for (i = 0; i < gr->tt.size; i++) {
		const struct sl_bo_task *t = &gr->tasks[i];

		if (!t->h.key)
			continue;
		nt++;
		if (t->lock != SL_BO_NIL) {
			if (t->lock >= gr->lt.size || !gr->locks[t->lock].h.key)
				return *why = "a task waits on a free lock slot", 0;
			waiters[t->lock]++;
			nw++;
			/* accounted lazily: up to since_ns, not after the graph's now */
			if (t->w.since_ns > gr->now ||
			    cat_sum(t->w.cat_ns) != t->w.since_ns - t->w.begin_ns ||
			    cat_sum(t->w.head_ns) != t->w.since_ns - t->w.begin_ns ||
			    t->w.inv_ns > t->w.since_ns - t->w.begin_ns)
				return *why = "a wait's split does not sum to its elapsed time", 0;
		}
		if (t->lock == SL_BO_NIL && !t->nr_owned)
			return *why = "a task entry with no reason to exist", 0;
		if (t->nr_owned != owned[i])
			return *why = "nr_owned differs from the locks owned", 0;
		if (lookups && sl_bo_chain(gr, t->h.key, NULL, 0, NULL) != 0)
			return *why = "chain with max 0 wrote something", 0;
	}
	for (i = 0; i < gr->lt.size; i++) {
		const struct sl_bo_lock *l = &gr->locks[i];

		if (l->h.key && (!l->nr_waiters || l->nr_waiters != waiters[i]))
			return *why = "a lock's waiter count is wrong (or 0)", 0;
	}
	if (nt != gr->tt.nr || nl != gr->lt.nr || nw != gr->nr_waits)
		return *why = "counts differ from the slots in use", 0;
	/* the reverse edges: each lock's list of waiters, each task's of locks owned */
	for (nw = 0, i = 0; i < gr->lt.size; i++) {
		const struct sl_bo_lock *l = &gr->locks[i];
		u32 prev = SL_BO_NIL, k;

		if (!l->h.key)
			continue;
		for (n = 0, k = l->waiters; k != SL_BO_NIL && n <= gr->tt.size; n++) {
			const struct sl_bo_task *t = &gr->tasks[k];

			if (!t->h.key || t->lock != i || t->wprev != prev)
				return *why = "a lock's list of waiters is broken", 0;
			prev = k;
			k = t->wnext;
		}
		if (n != l->nr_waiters)
			return *why = "a lock's list of waiters does not hold every waiter", 0;
		nw += n;
	}
	if (nw != gr->nr_waits)
		return *why = "the lists of waiters do not hold every wait", 0;
	for (i = 0; i < gr->tt.size; i++) {
		const struct sl_bo_task *t = &gr->tasks[i];
		u32 prev = SL_BO_NIL, k;

		if (!t->h.key)
			continue;
		for (n = 0, k = t->owned; k != SL_BO_NIL && n <= gr->lt.size; n++) {
			const struct sl_bo_lock *l = &gr->locks[k];

			if (!l->h.key || l->owner != i || l->oprev != prev)
				return *why = "a task's list of locks owned is broken", 0;
			prev = k;
			k = l->onext;
		}
		if (n != t->nr_owned)
			return *why = "a task's list of locks owned does not hold them all", 0;
	}
	/* the lockless hints: every tracked key, waiting task and waited-on lock says maybe */
	for (i = 0; i < gr->tt.size; i++) {
		const struct sl_bo_task *t = &gr->tasks[i];

		if (t->h.key && !sl_bo_maybe_tracked(gr, t->h.key))
			return *why = "a tracked task's hint says it is not", 0;
		if (t->h.key && t->lock != SL_BO_NIL &&
		    !sl_bo_maybe_waiting(gr, t->h.key, gr->locks[t->lock].h.key))
			return *why = "a waiting task's hint says it does not wait", 0;
	}
	if (lookups && !hints_exact(gr))
		return *why = "a hint is not what its bucket holds", 0;
	for (n = 0, i = gr->tt.free; i != SL_BO_NIL && n <= gr->tt.size; n++)
		i = gr->tasks[i].h.next;
	if (n != gr->tt.size - gr->tt.nr)
		return *why = "the free list of tasks is wrong", 0;
	if (lookups) {
		struct sl_bo_link ch[SL_BO_MAX_DEPTH];

		for (i = 0; i < gr->tt.size; i++) {
			const struct sl_bo_task *t = &gr->tasks[i];

			if (t->h.key && (sl_bo_chain(gr, t->h.key, ch, SL_BO_MAX_DEPTH, NULL) < 1 ||
					 ch[0].task != t->h.key))
				return *why = "a task in the table is not found by its key", 0;
			if (t->h.key && sl_bo_lock_of(gr, t->h.key) != ch[0].lock)
				return *why = "sl_bo_lock_of() is not the chain's first lock", 0;
		}
	}
	return 1;
}

static struct sl_bo_task_info rinfo(int t)
{
	return rt[t].in;
}

/* task @t's state and CPU change, told with the next event about it */
static void news(int t)
{
	rt[t].in.state = xorshift() % 3;
	rt[t].in.cpu = xorshift() % 4;
}

/*
 * @steps random events over @ntasks tasks and @nlocks locks on tables of
 * @tsz/@lsz slots; with @ref, everything is compared with the reference
 * (the tables must then be big enough), else only the structure is.
 */
static void stress(const char *name, u32 tsz, u32 lsz, int ntasks, int nlocks, int steps,
		   bool ref, unsigned int rules, u64 seed)
{
	static struct sl_bo_task st[MAXT];
	static struct sl_bo_lock sk[MAXL];
	struct sl_bo_wait_record rec;
	const char *why = "";
	int step, bad_struct = -1, bad_live = -1, bad_rec = -1, bad_ret = -1, bad_full = -1;
	const char *why_full = "";
	u64 full_updates = 0;
	long records = 0, cycles = 0, inversions = 0, deep = 0, live_checks = 0;
	unsigned int maxd = 0;
	u64 now = T0;
	int t, l, k;
	u32 pos;

	rng = seed;
	nrt = ntasks;
	nrl = nlocks;
	rnow = now;
	rrules = rules;
	sl_bo_init(&g, st, tsz, sk, lsz);
	g.rules = rules;
	for (t = 0; t < nrt; t++) {
		rt[t].in = info(1000 + t, xorshift() % 3, xorshift() % 4,
				&prios[xorshift() % ARRAY_SIZE(prios)]);
		rt[t].waits = -1;
	}
	for (l = 0; l < nrl; l++)
		rown[l] = xorshift() % 3 ? (int)(xorshift() % nrt) : -1;

	for (step = 0; step < steps; step++) {
		unsigned int r = xorshift() % 100;
		struct sl_bo_task_info wi, oi;
		bool ret, want;

		if (xorshift() % 8)
			now += 1 + xorshift() % (2 * MS);
		ref_advance(now);
		t = xorshift() % nrt;
		l = xorshift() % nrl;
		if (r < 22) {
			/* a task waiting already mostly does something else */
			if (rt[t].waits >= 0 && xorshift() % 4)
				goto state;
			/* what the caller reads of the waiter and the owner may be news */
			if (xorshift() % 2)
				news(t);
			if (rown[l] >= 0 && xorshift() % 2)
				news(rown[l]);
			wi = rinfo(t);
			if (rown[l] >= 0)
				oi = rinfo(rown[l]);
			ret = sl_bo_wait_begin(&g, TK(t), &wi, LK(l), xorshift() % 2,
					       rown[l] >= 0 ? TK(rown[l]) : 0,
					       rown[l] >= 0 ? &oi : NULL, now) == 0;
			if (ref && !ret && bad_ret < 0)
				bad_ret = step;
			if (rt[t].waits != l)
				ref_start(t, l);
		} else if (r < 42) {
			bool acq = xorshift() % 2;

			if (rt[t].waits < 0 || xorshift() % 16 == 0) {
				ret = sl_bo_wait_end(&g, TK(t), LK(l), acq, now, &rec);
				want = rt[t].waits == l;
			} else {
				l = rt[t].waits;
				ret = sl_bo_wait_end(&g, TK(t), LK(l), acq, now, &rec);
				want = true;
			}
			if (ref && ret != want && bad_ret < 0)
				bad_ret = step;
			if (rt[t].waits == l) {
				if (ref && ret && !ref_rec_ok(t, &rec, acq ? SL_BO_END_ACQUIRED :
							       SL_BO_END_FAILED) && bad_rec < 0)
					bad_rec = step;
				records++;
				if (ret) {
					cycles += rec.cycle;
					inversions += rec.inv_ns != 0;
					if (rec.max_depth > maxd)
						maxd = rec.max_depth;
				}
				rt[t].waits = -1;
				if (acq)
					rown[l] = t;
			}
		} else if (r < 50) {
			int o = xorshift() % 4 ? (int)(xorshift() % nrt) : -1;

			/* the owner's state and CPU as read then, if the core takes them */
			for (k = 0; o >= 0 && k < nrt; k++)
				if (rt[k].waits == l) {
					if (xorshift() % 2)
						news(o);
					break;
				}
			if (o >= 0)
				oi = rinfo(o);
			sl_bo_owner(&g, LK(l), o >= 0 ? TK(o) : 0, o >= 0 ? &oi : NULL, now);
			rown[l] = o;
		} else if (r < 85) {
state:
			rt[t].in.state = xorshift() % 3;
			rt[t].in.cpu = xorshift() % 4;
			sl_bo_task_state(&g, TK(t), rt[t].in.state, rt[t].in.cpu, now);
		} else if (r < 96) {
			rt[t].in.prio = prios[xorshift() % ARRAY_SIZE(prios)];
			sl_bo_task_prio(&g, TK(t), &rt[t].in.prio, now);
		} else {
			ret = sl_bo_task_exit(&g, TK(t), now, &rec);
			if (ref && ret != (rt[t].waits >= 0) && bad_ret < 0)
				bad_ret = step;
			if (rt[t].waits >= 0) {
				if (ref && ret && !ref_rec_ok(t, &rec, SL_BO_END_EXIT) && bad_rec < 0)
					bad_rec = step;
				records++;
				rt[t].waits = -1;
			}
			for (l = 0; l < nrl; l++)
				if (rown[l] == t)
					rown[l] = -1;
		}
		ref_update();

		if (bad_struct < 0 && !graph_ok(&g, step % 16 == 0, &why))
			bad_struct = step;
		/* what the old code recomputed: every wait, after every event that acted */
		full_updates += g.nr_waits;
		if (bad_full < 0 && !same_as_full_rewalk(&g, &why_full))
			bad_full = step;
		if (ref && bad_live < 0) {
			int n = 0;

			sl_bo_for_each_wait(&g, pos, now, &rec) {
				int k = (int)((rec.waiter - TK(0)) / (TK(1) - TK(0)));

				n++;
				if (k < 0 || k >= nrt || !ref_rec_ok(k, &rec, SL_BO_END_NONE))
					bad_live = step;
				if (rec.max_depth > maxd)
					maxd = rec.max_depth;
				deep += rec.depth > 2;
				live_checks++;
			}
			for (t = 0; t < nrt; t++)
				n -= rt[t].waits >= 0;
			if (n)
				bad_live = step;
		}
	}

	/* end every wait the core has, then everyone exits */
	{
		u64 keys[MAXT];
		int n = 0, i;

		sl_bo_for_each_wait(&g, pos, now, &rec)
			keys[n++] = rec.waiter;
		for (i = 0; i < n; i++) {
			struct sl_bo_link ch[1];

			if (sl_bo_chain(&g, keys[i], ch, 1, NULL) != 1 ||
			    !sl_bo_wait_end(&g, keys[i], ch[0].lock, false, now + MS, NULL))
				bad_ret = step;
		}
	}
	if (bad_struct < 0 && !graph_ok(&g, true, &why))
		bad_struct = step;
	for (t = 0; t < nrt; t++)
		sl_bo_task_exit(&g, TK(t), now + 2 * MS, NULL);

	tap_diag("%s: %ld records, %ld saw a cycle, %ld inversions, max depth %u, %ld live checks (%ld deeper than 2), cycles_seen %llu, dropped %llu, replaced %llu",
		 name, records, cycles, inversions, maxd, live_checks, deep,
		 (unsigned long long)g.cycles_seen, (unsigned long long)g.nr_dropped,
		 (unsigned long long)g.nr_replaced);
	tap(bad_struct < 0, "%s: %d random events: table invariants after every step%s%s", name,
	    steps, bad_struct < 0 ? "" : ": ", bad_struct < 0 ? "" : why);
	tap_diag("%s: waits recomputed %llu (a full re-walk after every step: %llu)", name,
		 (unsigned long long)g.nr_updates, (unsigned long long)full_updates);
	tap(bad_full < 0,
	    "%s: after every step, every wait (live state and record) equals a full re-walk of every chain (first bad: %d%s%s)",
	    name, bad_full, bad_full < 0 ? "" : ", ", bad_full < 0 ? "" : why_full);
	if (bad_struct >= 0)
		tap_diag("first broken at step %d", bad_struct);
	if (ref) {
		tap(bad_live < 0 && live_checks > 0,
		    "%s: every wait in progress equals the reference after every step (first bad: %d)",
		    name, bad_live);
		tap(bad_rec < 0 && records > 1000,
		    "%s: every record equals the reference: split, inversion, depth, cycle, snapshot (first bad: %d)",
		    name, bad_rec);
		tap(bad_ret < 0 && g.nr_dropped == 0,
		    "%s: return values as the reference says (first bad: %d)", name, bad_ret);
	} else {
		tap(bad_ret < 0 && g.nr_dropped > 0,
		    "%s: tables full %llu times; every wait the core has is found and ends",
		    name, (unsigned long long)g.nr_dropped);
	}
	tap(empty(), "%s: tables empty at the end", name);
}

/* 11. stats */
static void test_stats(void)
{
	static const struct {
		u64 ns;
		unsigned int bucket;
	} d[] = {
		{ 0, 0 }, { 999, 0 }, { 1000, 0 }, { 1999, 0 }, { 2000, 1 }, { 3999, 1 },
		{ 4000, 2 }, { 1 * MS, 9 }, { 1024 * US, 10 }, { 2047 * US, 10 },
		{ (1ULL << 22) * US, 22 }, { (1ULL << 23) * US - 1, 22 }, { (1ULL << 23) * US, 23 },
		{ 1000000000000000ULL, 23 },
	};
	struct sl_bo_stats st;
	struct sl_bo_wait_record rec;
	u64 hist[SL_BO_HIST_BUCKETS] = { 0 }, total = 0, maxv = 0;
	unsigned int i, c, bad = 0;
	int ok;

	for (i = 0; i < ARRAY_SIZE(d); i++) {
		if (sl_bo_hist_bucket(d[i].ns) != d[i].bucket) {
			bad++;
			tap_diag("bucket of %llu ns: %u, want %u", (unsigned long long)d[i].ns,
				 sl_bo_hist_bucket(d[i].ns), d[i].bucket);
		}
	}
	tap(!bad, "stats: histogram buckets: [2^i, 2^(i+1)) us, 0 below 2 us, the last open");

	memset(&st, 0xff, sizeof(st));
	sl_bo_stats_reset(&st);
	memset(&rec, 0, sizeof(rec));
	for (i = 0; i < ARRAY_SIZE(d); i++) {
		rec.duration_ns = d[i].ns;
		memset(rec.cat_ns, 0, sizeof(rec.cat_ns));
		memset(rec.head_ns, 0, sizeof(rec.head_ns));
		rec.cat_ns[i % NC] = d[i].ns;
		rec.head_ns[(i + 1) % NC] = d[i].ns;
		rec.acquired = i % 2;
		rec.cycle = i % 3 == 0;
		rec.inv_ns = i % 4 == 0 ? i * 10 : 0;
		sl_bo_stats_add(&st, &rec);
		hist[d[i].bucket]++;
		total += d[i].ns;
		if (d[i].ns > maxv)
			maxv = d[i].ns;
	}
	/* 14 records: acquired the 7 odd ones, cycles 0,3,6,9,12, inversions 4,8,12 */
	ok = st.count == ARRAY_SIZE(d) && st.acquired == 7 && st.cycles == 5 &&
	     st.inversions == 3 && st.inv_ns == 40 + 80 + 120 && st.total_ns == total &&
	     st.max_ns == maxv && !memcmp(st.hist, hist, sizeof(hist));
	for (c = 0; c < NC; c++) {
		u64 want_c = 0, want_h = 0;

		for (i = 0; i < ARRAY_SIZE(d); i++) {
			if (i % NC == c)
				want_c += d[i].ns;
			if ((i + 1) % NC == c)
				want_h += d[i].ns;
		}
		ok &= st.cat_ns[c] == want_c && st.head_ns[c] == want_h;
	}
	tap(ok, "stats: count, acquired, cycles, inversions, total, max, histogram, per-category totals");
}

int main(void)
{
	test_single();
	test_proxy();
	test_chain();
	test_tree();
	test_steal();
	test_handoff();
	test_spin();
	test_wound();
	test_cycle();
	test_rules();
	test_inversion();
	test_exits();
	test_clock();
	test_snapshot();
	test_capacity();
	test_work();
	stress("stress", MAXT, MAXL, 40, 24, 200000, true, SL_BO_RULES_ALL, 88172645463325252ULL);
	stress("stress, RT and CGROUP rules only", MAXT, MAXL, 24, 12, 50000, true,
	       SL_BO_RULE_RT | SL_BO_RULE_CGROUP, 0x9e3779b97f4a7c15ULL);
	stress("stress, small tables", 10, 5, 30, 15, 100000, false, SL_BO_RULES_ALL,
	       0x2545f4914f6cdd1dULL);
	test_stats();
	return tap_failures ? 1 : 0;
}
