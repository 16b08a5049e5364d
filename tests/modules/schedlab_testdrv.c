// SPDX-License-Identifier: GPL-2.0
/*
 * schedlab_testdrv: a test-only module that builds kernel mutex wait chains
 * with a known ground truth, for the in-guest tests of schedlab's blocked_on
 * feature (tests/modules/README.md has the command language and examples).
 *
 * debugfs, /sys/kernel/debug/schedlab_testdrv/:
 *   addr    the locks, "m0 0x<address>" a line; for a ww_mutex the address
 *           of its embedded struct mutex (&ww->base)
 *   cmd     one command a write: spawn, start, reset
 *   log     the ground truth: a line per executed step
 *           "NAME STEP OP ARG RET T_START_NS T_END_NS" (local_clock()), and
 *           "NAME pid=PID" when a worker starts
 *   status  the workers, their state and pids
 *
 * A worker is a kthread created at spawn (bound to its CPU, with its
 * scheduling policy) that sleeps until start, then runs its program once.
 * Programs are checked at spawn: every lock taken is released by the end of
 * the program, no lock is taken twice, ww steps are inside wwbegin..wwend.
 * Programs of different workers can still deadlock each other (A: lock m0,
 * lock m1; B: lock m1, lock m0): that is the caller's responsibility.
 *
 * Unloading stops the workers: one not started never runs, a running one
 * stops at its next step (busy and wait steps are cut short) and releases
 * what it holds. A worker still not done after 90 s can only be waiting
 * for a lock in a deadlock between programs: the module then WARNs and
 * leaks the memory of those workers and of the log. The stuck kthreads
 * stay blocked forever (nobody releases their locks), so the code and the
 * locks going away with the module are never used again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/completion.h>
#include <linux/ctype.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/prio.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/ww_mutex.h>
#include <uapi/linux/sched/types.h>	/* struct sched_attr */

#define TDRV_NR_M		8	/* m0..m7 */
#define TDRV_NR_W		4	/* w0..w3 */
#define TDRV_MAX_WORKERS	16
#define TDRV_MAX_STEPS		64
#define TDRV_NAME_LEN		16	/* TASK_COMM_LEN: the name is the comm */
#define TDRV_ARG_LEN		24	/* "NAME:STEP" */
#define TDRV_CMD_MAX		1024
#define TDRV_MAX_MS		10000	/* a sleep; all busy steps of a program */
#define TDRV_MAX_STORM_MS	60000	/* a storm */
#define TDRV_TIMEOUT		(90 * HZ)	/* reset and unload */
#define TDRV_LOG_MAX		4096
#define TDRV_FIFO_DEFAULT	(MAX_RT_PRIO / 2)	/* what sched_set_fifo() uses */

/*
 * The locks: one static object each, so that they have a symbol (%ps) and
 * a lock class of their own.
 */
static DEFINE_MUTEX(testdrv_m0);
static DEFINE_MUTEX(testdrv_m1);
static DEFINE_MUTEX(testdrv_m2);
static DEFINE_MUTEX(testdrv_m3);
static DEFINE_MUTEX(testdrv_m4);
static DEFINE_MUTEX(testdrv_m5);
static DEFINE_MUTEX(testdrv_m6);
static DEFINE_MUTEX(testdrv_m7);
/* wound-wait: DEFINE_WD_CLASS would be wait-die */
static DEFINE_WW_CLASS(testdrv_ww_class);
static struct ww_mutex testdrv_w0;
static struct ww_mutex testdrv_w1;
static struct ww_mutex testdrv_w2;
static struct ww_mutex testdrv_w3;

static struct mutex * const tdrv_m[TDRV_NR_M] = {
	&testdrv_m0, &testdrv_m1, &testdrv_m2, &testdrv_m3,
	&testdrv_m4, &testdrv_m5, &testdrv_m6, &testdrv_m7,
};

static struct ww_mutex * const tdrv_w[TDRV_NR_W] = {
	&testdrv_w0, &testdrv_w1, &testdrv_w2, &testdrv_w3,
};

enum tdrv_op {
	/* program steps */
	TDRV_LOCK,
	TDRV_UNLOCK,
	TDRV_WWBEGIN,
	TDRV_WWLOCK,
	TDRV_WWUNLOCK,
	TDRV_WWEND,
	TDRV_BUSY,
	TDRV_SLEEP,
	TDRV_WAIT,
	TDRV_MARK,
	TDRV_STORM,
	TDRV_RWSTORM,
	TDRV_NR_STEP_OPS,
	/* log only */
	TDRV_WWBACKOFF = TDRV_NR_STEP_OPS,	/* a ww lock released after -EDEADLK */
	TDRV_PID,				/* "NAME pid=PID" */
};

static const char * const tdrv_op_names[] = {
	[TDRV_LOCK] = "lock",
	[TDRV_UNLOCK] = "unlock",
	[TDRV_WWBEGIN] = "wwbegin",
	[TDRV_WWLOCK] = "wwlock",
	[TDRV_WWUNLOCK] = "wwunlock",
	[TDRV_WWEND] = "wwend",
	[TDRV_BUSY] = "busy",
	[TDRV_SLEEP] = "sleep",
	[TDRV_WAIT] = "wait",
	[TDRV_MARK] = "mark",
	[TDRV_STORM] = "storm",
	[TDRV_RWSTORM] = "rwstorm",
	[TDRV_WWBACKOFF] = "wwbackoff",
	[TDRV_PID] = "pid",
};

/* the number of arguments of each program step */
static const unsigned char tdrv_op_nargs[TDRV_NR_STEP_OPS] = {
	[TDRV_LOCK] = 1, [TDRV_UNLOCK] = 1, [TDRV_WWLOCK] = 1,
	[TDRV_WWUNLOCK] = 1, [TDRV_BUSY] = 1, [TDRV_SLEEP] = 1, [TDRV_WAIT] = 2,
	[TDRV_STORM] = 2, [TDRV_RWSTORM] = 1,
};

enum tdrv_state {
	TDRV_NEW,	/* waiting for start */
	TDRV_RUNNING,
	TDRV_DONE,
	TDRV_ABORTED,	/* stopped by unload or reset */
};

static const char * const tdrv_state_names[] = {
	[TDRV_NEW] = "waiting-to-start",
	[TDRV_RUNNING] = "running",
	[TDRV_DONE] = "done",
	[TDRV_ABORTED] = "aborted",
};

struct tdrv_worker;

struct tdrv_step {
	enum tdrv_op op;
	unsigned int arg;		/* lock index, milliseconds, or wait's step */
	unsigned int ms;		/* storm */
	struct tdrv_worker *target;	/* wait */
};

struct tdrv_worker {
	char name[TDRV_NAME_LEN];
	int cpu;			/* -1: not bound */
	int policy;
	int prio;
	int nice;
	struct task_struct *task;	/* exits only at kthread_stop() */
	pid_t pid;
	unsigned int nsteps;
	struct tdrv_step steps[TDRV_MAX_STEPS];
	/* completed (or skipped) step i: what "wait NAME i" waits for */
	struct completion step_done[TDRV_MAX_STEPS];
	struct completion done;		/* the program is over */
	bool go;			/* released by start (under tdrv_ctl_lock) */
	bool abort;			/* never started: exit (under tdrv_ctl_lock) */
	int state;			/* enum tdrv_state */
	int cur;			/* the step being executed */
	unsigned int deadlocks;		/* -EDEADLK from wwlock */
	/* the worker's own, while it runs */
	unsigned long held_m;
	unsigned long held_w;
	bool in_tx;
	bool ww_skip;			/* after -EDEADLK, up to wwend */
	struct ww_acquire_ctx ctx;
};

struct tdrv_log_entry {
	char name[TDRV_NAME_LEN];
	char arg[TDRV_ARG_LEN];
	enum tdrv_op op;
	int step;
	int ret;
	pid_t pid;
	u64 t_start;
	u64 t_end;
};

/* commands, the workers array, start and reset */
static DEFINE_MUTEX(tdrv_ctl_lock);
static struct tdrv_worker *tdrv_workers[TDRV_MAX_WORKERS];
static unsigned int tdrv_nr;
static bool tdrv_resetting;	/* a reset is waiting without tdrv_ctl_lock */
static bool tdrv_log_stale;	/* reset done: the next spawn clears the log */
static bool tdrv_aborting;	/* unloading: running workers stop */
static DECLARE_WAIT_QUEUE_HEAD(tdrv_start_wq);

/* the log: entries appended by the workers */
static DEFINE_SPINLOCK(tdrv_log_lock);
static struct tdrv_log_entry *tdrv_log;
static unsigned int tdrv_log_len;
static unsigned int tdrv_log_dropped;

static struct dentry *tdrv_dir;

static void tdrv_log_add(const struct tdrv_worker *w, int step, enum tdrv_op op,
			 const char *arg, int ret, u64 t_start, u64 t_end)
{
	struct tdrv_log_entry *e;

	spin_lock(&tdrv_log_lock);
	if (tdrv_log_len < TDRV_LOG_MAX) {
		e = &tdrv_log[tdrv_log_len++];
		strscpy(e->name, w->name, sizeof(e->name));
		strscpy(e->arg, arg, sizeof(e->arg));
		e->op = op;
		e->step = step;
		e->ret = ret;
		e->pid = w->pid;
		e->t_start = t_start;
		e->t_end = t_end;
	} else {
		tdrv_log_dropped++;
	}
	spin_unlock(&tdrv_log_lock);
}

static void tdrv_log_clear(void)
{
	spin_lock(&tdrv_log_lock);
	tdrv_log_len = 0;
	tdrv_log_dropped = 0;
	spin_unlock(&tdrv_log_lock);
}

static void tdrv_step_arg(const struct tdrv_step *s, char *buf, size_t len)
{
	switch (s->op) {
	case TDRV_LOCK:
	case TDRV_UNLOCK:
		snprintf(buf, len, "m%u", s->arg);
		break;
	case TDRV_STORM:
		snprintf(buf, len, "m%u:%u", s->arg, s->ms);
		break;
	case TDRV_WWLOCK:
	case TDRV_WWUNLOCK:
		snprintf(buf, len, "w%u", s->arg);
		break;
	case TDRV_BUSY:
	case TDRV_SLEEP:
	case TDRV_RWSTORM:
		snprintf(buf, len, "%u", s->arg);
		break;
	case TDRV_WAIT:
		snprintf(buf, len, "%s:%u", s->target->name, s->arg);
		break;
	default:
		strscpy(buf, "-", len);
		break;
	}
}

/*
 * Spin for @ms of wall time, never sleeping, preemptible as a user task
 * would be: on a fully preemptible kernel (the x86 guests boot
 * preempt=full) anywhere, cond_resched() doing nothing; on one that is
 * not (Debian's arm64 kernels: PREEMPT_VOLUNTARY, no PREEMPT_DYNAMIC) at
 * every turn, else the worker would hold its CPU for the whole @ms.
 */
static void tdrv_busy(unsigned int ms)
{
	u64 end = ktime_get_ns() + (u64)ms * NSEC_PER_MSEC;

	while (ktime_get_ns() < end && !READ_ONCE(tdrv_aborting)) {
		cpu_relax();
		cond_resched();
	}
}

/*
 * Take and release mutex @idx as fast as possible for @ms of wall time,
 * holding it a microsecond each time, busy (a waiter on another CPU spins;
 * one on the owner's CPU, preempted or not, queues and sleeps), and asleep
 * one time in 16 (every waiter queues and sleeps). With several workers on
 * the same lock, nearly every cycle is a contended wait. Returns the
 * number of cycles.
 */
static int tdrv_storm(unsigned int idx, unsigned int ms)
{
	u64 end = ktime_get_ns() + (u64)ms * NSEC_PER_MSEC;
	unsigned int n = 0;

	while (ktime_get_ns() < end && !READ_ONCE(tdrv_aborting) && n < INT_MAX) {
		mutex_lock(tdrv_m[idx]);
		if (n % 16 == 15)
			usleep_range(5, 10);
		else
			udelay(1);
		mutex_unlock(tdrv_m[idx]);
		n++;
		cond_resched();
	}
	return n;
}

/*
 * Contention on a lock that is not a mutex: for @ms of wall time, take the
 * driver's rwsem for writing, asleep 5-10 us inside (so that a writer
 * waiting for it sleeps too, and does not spin: every contended cycle goes
 * through the slow path's contention_begin/contention_end), then for
 * reading. Returns the number of times the write lock was found taken
 * (down_write_trylock() failed before down_write()).
 */
static DECLARE_RWSEM(testdrv_rw);

static int tdrv_rwstorm(unsigned int ms)
{
	u64 end = ktime_get_ns() + (u64)ms * NSEC_PER_MSEC;
	unsigned int n = 0;

	while (ktime_get_ns() < end && !READ_ONCE(tdrv_aborting) && n < INT_MAX) {
		if (!down_write_trylock(&testdrv_rw)) {
			n++;
			down_write(&testdrv_rw);
		}
		usleep_range(5, 10);
		up_write(&testdrv_rw);
		down_read(&testdrv_rw);
		udelay(1);
		up_read(&testdrv_rw);
		cond_resched();
	}
	return n;
}

static int tdrv_exec(struct tdrv_worker *w, const struct tdrv_step *s)
{
	int ret;

	switch (s->op) {
	case TDRV_LOCK:
		mutex_lock(tdrv_m[s->arg]);
		__set_bit(s->arg, &w->held_m);
		return 0;
	case TDRV_UNLOCK:
		__clear_bit(s->arg, &w->held_m);
		mutex_unlock(tdrv_m[s->arg]);
		return 0;
	case TDRV_WWBEGIN:
		ww_acquire_init(&w->ctx, &testdrv_ww_class);
		w->in_tx = true;
		w->ww_skip = false;
		return 0;
	case TDRV_WWLOCK:
		ret = ww_mutex_lock(tdrv_w[s->arg], &w->ctx);
		if (!ret)
			__set_bit(s->arg, &w->held_w);
		return ret;
	case TDRV_WWUNLOCK:
		__clear_bit(s->arg, &w->held_w);
		ww_mutex_unlock(tdrv_w[s->arg]);
		return 0;
	case TDRV_WWEND:
		ww_acquire_fini(&w->ctx);
		w->in_tx = false;
		w->ww_skip = false;
		return 0;
	case TDRV_BUSY:
		tdrv_busy(s->arg);
		return 0;
	case TDRV_SLEEP:
		msleep(s->arg);
		return 0;
	case TDRV_WAIT:
		return wait_for_completion_state(&s->target->step_done[s->arg], TASK_IDLE);
	case TDRV_STORM:
		return tdrv_storm(s->arg, s->ms);
	case TDRV_RWSTORM:
		return tdrv_rwstorm(s->arg);
	default:
		return 0;
	}
}

/* -EDEADLK: release every ww lock held, as a wounded transaction does. */
static void tdrv_ww_backoff(struct tdrv_worker *w, int step)
{
	char arg[TDRV_ARG_LEN];
	unsigned int i;
	u64 t0, t1;

	WRITE_ONCE(w->deadlocks, w->deadlocks + 1);
	for_each_set_bit(i, &w->held_w, TDRV_NR_W) {
		t0 = local_clock();
		ww_mutex_unlock(tdrv_w[i]);
		t1 = local_clock();
		snprintf(arg, sizeof(arg), "w%u", i);
		tdrv_log_add(w, step, TDRV_WWBACKOFF, arg, 0, t0, t1);
	}
	w->held_w = 0;
	w->ww_skip = true;
}

/* Unloading: give back whatever the program still holds. */
static void tdrv_release_all(struct tdrv_worker *w)
{
	unsigned int i;

	for_each_set_bit(i, &w->held_w, TDRV_NR_W)
		ww_mutex_unlock(tdrv_w[i]);
	w->held_w = 0;
	if (w->in_tx)
		ww_acquire_fini(&w->ctx);
	w->in_tx = false;
	for_each_set_bit(i, &w->held_m, TDRV_NR_M)
		mutex_unlock(tdrv_m[i]);
	w->held_m = 0;
}

/* Run the program; false if stopped by unloading. */
static bool tdrv_run(struct tdrv_worker *w)
{
	char arg[TDRV_ARG_LEN];
	unsigned int i;
	u64 t0, t1;
	int ret;

	for (i = 0; i < w->nsteps; i++) {
		const struct tdrv_step *s = &w->steps[i];

		if (READ_ONCE(tdrv_aborting))
			return false;
		WRITE_ONCE(w->cur, i);
		/* after -EDEADLK, no ww lock is taken or released until wwend */
		if (!(w->ww_skip && (s->op == TDRV_WWLOCK || s->op == TDRV_WWUNLOCK))) {
			t0 = local_clock();
			ret = tdrv_exec(w, s);
			t1 = local_clock();
			tdrv_step_arg(s, arg, sizeof(arg));
			tdrv_log_add(w, i, s->op, arg, ret, t0, t1);
			if (s->op == TDRV_WWLOCK && ret == -EDEADLK)
				tdrv_ww_backoff(w, i);
		}
		complete_all(&w->step_done[i]);
	}
	return true;
}

static int tdrv_thread(void *data)
{
	struct tdrv_worker *w = data;
	bool finished = false;
	unsigned int i;

	wait_event_idle(tdrv_start_wq, READ_ONCE(w->go) || READ_ONCE(w->abort));
	if (READ_ONCE(w->go)) {
		WRITE_ONCE(w->state, TDRV_RUNNING);
		tdrv_log_add(w, -1, TDRV_PID, "-", 0, 0, 0);
		finished = tdrv_run(w);
		tdrv_release_all(w);
	}
	WRITE_ONCE(w->state, finished ? TDRV_DONE : TDRV_ABORTED);
	/* steps not run: nobody waits for them forever */
	for (i = 0; i < w->nsteps; i++)
		complete_all(&w->step_done[i]);
	complete_all(&w->done);	/* waited for by reset, then by free */

	/* w may be freed from here on; stay until kthread_stop() */
	while (!kthread_should_stop()) {
		set_current_state(TASK_IDLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

/* ---- commands ---- */

static char *tdrv_token(char **s)
{
	char *p = skip_spaces(*s), *tok;

	if (!*p) {
		*s = p;
		return NULL;
	}
	tok = p;
	while (*p && !isspace(*p))
		p++;
	if (*p)
		*p++ = '\0';
	*s = p;
	return tok;
}

static struct tdrv_worker *tdrv_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < tdrv_nr; i++)
		if (!strcmp(tdrv_workers[i]->name, name))
			return tdrv_workers[i];
	return NULL;
}

/* "mK" / "wK": -EINVAL if not of that form, -ENOENT if no such lock */
static int tdrv_parse_lock(const char *tok, char kind, unsigned int nr, unsigned int *idx)
{
	unsigned int i;

	if (tok[0] != kind || !isdigit(tok[1]) || kstrtouint(tok + 1, 10, &i))
		return -EINVAL;
	if (i >= nr)
		return -ENOENT;
	*idx = i;
	return 0;
}

static int tdrv_parse_ms(const char *tok, unsigned int *ms)
{
	if (kstrtouint(tok, 10, ms) || *ms > TDRV_MAX_MS)
		return -EINVAL;
	return 0;
}

/* what the program holds at a point, to check it statically */
struct tdrv_check {
	unsigned long held_m;
	unsigned long held_w;
	bool in_tx;
	unsigned int busy_ms;
};

static int tdrv_parse_step(struct tdrv_step *s, char **args, struct tdrv_check *c)
{
	struct tdrv_worker *t;
	bool release;
	int ret;

	switch (s->op) {
	case TDRV_LOCK:
	case TDRV_UNLOCK:
		ret = tdrv_parse_lock(args[0], 'm', TDRV_NR_M, &s->arg);
		if (ret)
			return ret;
		release = s->op == TDRV_UNLOCK;
		if (test_bit(s->arg, &c->held_m) != release)
			return -EINVAL;	/* taken twice, or not held */
		__change_bit(s->arg, &c->held_m);
		return 0;
	case TDRV_WWBEGIN:
		if (c->in_tx)
			return -EINVAL;
		c->in_tx = true;
		return 0;
	case TDRV_WWLOCK:
	case TDRV_WWUNLOCK:
		ret = tdrv_parse_lock(args[0], 'w', TDRV_NR_W, &s->arg);
		if (ret)
			return ret;
		release = s->op == TDRV_WWUNLOCK;
		if (!c->in_tx || test_bit(s->arg, &c->held_w) != release)
			return -EINVAL;
		__change_bit(s->arg, &c->held_w);
		return 0;
	case TDRV_WWEND:
		if (!c->in_tx || c->held_w)
			return -EINVAL;
		c->in_tx = false;
		return 0;
	case TDRV_BUSY:
		ret = tdrv_parse_ms(args[0], &s->arg);
		if (ret)
			return ret;
		/* never more than that without scheduling (soft lockup, RCU stalls) */
		c->busy_ms += s->arg;
		return c->busy_ms > TDRV_MAX_MS ? -EINVAL : 0;
	case TDRV_SLEEP:
		return tdrv_parse_ms(args[0], &s->arg);
	case TDRV_RWSTORM:
		if (kstrtouint(args[0], 10, &s->arg) || s->arg > TDRV_MAX_STORM_MS)
			return -EINVAL;
		return 0;
	case TDRV_STORM:
		ret = tdrv_parse_lock(args[0], 'm', TDRV_NR_M, &s->arg);
		if (ret)
			return ret;
		if (test_bit(s->arg, &c->held_m) ||
		    kstrtouint(args[1], 10, &s->ms) || s->ms > TDRV_MAX_STORM_MS)
			return -EINVAL;
		return 0;
	case TDRV_WAIT:
		t = tdrv_find(args[0]);
		if (!t)
			return -ENOENT;
		if (kstrtouint(args[1], 10, &s->arg) || s->arg >= t->nsteps)
			return -EINVAL;
		s->target = t;
		return 0;
	default:
		return 0;
	}
}

static int tdrv_parse_program(struct tdrv_worker *w, char *prog)
{
	struct tdrv_check c = {};
	char *text, *args[2], *op;
	unsigned int i, n;
	int ret;

	while ((text = strsep(&prog, ";"))) {
		struct tdrv_step *s;

		op = tdrv_token(&text);
		if (!op)
			continue;	/* empty step: "a;;b", a trailing ';' */
		for (i = 0; i < TDRV_NR_STEP_OPS; i++)
			if (!strcmp(op, tdrv_op_names[i]))
				break;
		if (i == TDRV_NR_STEP_OPS || w->nsteps == TDRV_MAX_STEPS)
			return -EINVAL;
		s = &w->steps[w->nsteps++];
		s->op = i;
		n = tdrv_op_nargs[i];
		for (i = 0; i < n; i++) {
			args[i] = tdrv_token(&text);
			if (!args[i])
				return -EINVAL;
		}
		if (tdrv_token(&text))
			return -EINVAL;
		ret = tdrv_parse_step(s, args, &c);
		if (ret)
			return ret;
	}
	/* an empty program, or one that does not give back what it takes */
	if (!w->nsteps || c.held_m || c.in_tx)
		return -EINVAL;
	return 0;
}

static bool tdrv_valid_name(const char *name)
{
	size_t len = strlen(name), i;

	if (!len || len >= TDRV_NAME_LEN)
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum(name[i]) && !strchr("_-.", name[i]))
			return false;
	return true;
}

enum { TDRV_OPT_CPU, TDRV_OPT_POLICY, TDRV_OPT_PRIO, TDRV_OPT_NICE, TDRV_NR_OPTS };

static const char * const tdrv_opt_names[TDRV_NR_OPTS] = {
	[TDRV_OPT_CPU] = "cpu=",
	[TDRV_OPT_POLICY] = "policy=",
	[TDRV_OPT_PRIO] = "prio=",
	[TDRV_OPT_NICE] = "nice=",
};

/* the option @s starts with, or -1 if it starts the program */
static int tdrv_option(const char *s)
{
	int i;

	s = skip_spaces(s);
	for (i = 0; i < TDRV_NR_OPTS; i++)
		if (str_has_prefix(s, tdrv_opt_names[i]))
			return i;
	return -1;
}

/* -1 (not bound) or an online CPU */
static bool tdrv_valid_cpu(int cpu)
{
	if (cpu == -1)
		return true;
	return cpu >= 0 && cpu < nr_cpu_ids && cpu_online(cpu);
}

static int tdrv_parse_options(struct tdrv_worker *w, char **args)
{
	unsigned int seen = 0;
	char *val;
	int opt;

	w->cpu = -1;
	w->policy = SCHED_NORMAL;
	while ((opt = tdrv_option(*args)) >= 0) {
		val = tdrv_token(args) + strlen(tdrv_opt_names[opt]);
		if (seen & BIT(opt))
			return -EINVAL;
		seen |= BIT(opt);
		switch (opt) {
		case TDRV_OPT_CPU:
			if (kstrtoint(val, 10, &w->cpu) || !tdrv_valid_cpu(w->cpu))
				return -EINVAL;
			break;
		case TDRV_OPT_POLICY:
			if (!strcmp(val, "other"))
				w->policy = SCHED_NORMAL;
			else if (!strcmp(val, "fifo"))
				w->policy = SCHED_FIFO;
			else if (!strcmp(val, "idle"))
				w->policy = SCHED_IDLE;
			else
				return -EINVAL;
			break;
		case TDRV_OPT_PRIO:
			if (kstrtoint(val, 10, &w->prio))
				return -EINVAL;
			break;
		case TDRV_OPT_NICE:
			if (kstrtoint(val, 10, &w->nice))
				return -EINVAL;
			break;
		}
	}
	if (w->policy == SCHED_FIFO) {
		if (!(seen & BIT(TDRV_OPT_PRIO)))
			w->prio = TDRV_FIFO_DEFAULT;
		/* nice=0 is accepted, so that every spawn can name all options */
		if (w->prio < 1 || w->prio > MAX_RT_PRIO - 1 || w->nice)
			return -EINVAL;
	} else if (w->prio || w->nice < MIN_NICE || w->nice > MAX_NICE) {
		return -EINVAL;
	}
	return 0;
}

static int tdrv_set_policy(struct task_struct *p, const struct tdrv_worker *w)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = w->policy,
	};

	if (w->policy == SCHED_FIFO)
		attr.sched_priority = w->prio;
	else
		attr.sched_nice = w->nice;
	return sched_setattr_nocheck(p, &attr);
}

/* spawn NAME [cpu=C] [policy=other|fifo|idle] [prio=P] [nice=N] PROGRAM */
static int tdrv_spawn(char *args)
{
	struct task_struct *task;
	struct tdrv_worker *w;
	char *name;
	unsigned int i;
	int ret;

	name = tdrv_token(&args);
	if (!name || !tdrv_valid_name(name))
		return -EINVAL;
	if (tdrv_find(name))
		return -EEXIST;
	if (tdrv_nr == TDRV_MAX_WORKERS)
		return -ENOSPC;

	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	strscpy(w->name, name, sizeof(w->name));
	ret = tdrv_parse_options(w, &args);
	if (!ret)
		ret = tdrv_parse_program(w, args);
	if (ret)
		goto out_free;
	for (i = 0; i < w->nsteps; i++)
		init_completion(&w->step_done[i]);
	init_completion(&w->done);

	task = kthread_create(tdrv_thread, w, "%s", w->name);
	if (IS_ERR(task)) {
		ret = PTR_ERR(task);
		goto out_free;
	}
	if (w->cpu >= 0)
		kthread_bind(task, w->cpu);
	ret = tdrv_set_policy(task, w);
	if (ret) {
		kthread_stop(task);	/* never woken: the thread function does not run */
		goto out_free;
	}
	w->task = task;
	w->pid = task_pid_nr(task);

	if (tdrv_log_stale) {
		tdrv_log_clear();
		tdrv_log_stale = false;
	}
	tdrv_workers[tdrv_nr++] = w;
	wake_up_process(task);
	return 0;

out_free:
	kfree(w);
	return ret;
}

static int tdrv_start(void)
{
	unsigned int i;

	for (i = 0; i < tdrv_nr; i++)
		WRITE_ONCE(tdrv_workers[i]->go, true);
	wake_up_all(&tdrv_start_wq);
	return 0;
}

/*
 * Stop and free every worker; the started ones are done (or, unloading,
 * stopping). Those never started are told to exit. With tdrv_ctl_lock.
 */
static void tdrv_free_workers(void)
{
	unsigned int i;

	for (i = 0; i < tdrv_nr; i++)
		if (!tdrv_workers[i]->go)
			WRITE_ONCE(tdrv_workers[i]->abort, true);
	wake_up_all(&tdrv_start_wq);
	for (i = 0; i < tdrv_nr; i++) {
		wait_for_completion(&tdrv_workers[i]->done);
		kthread_stop(tdrv_workers[i]->task);
		kfree(tdrv_workers[i]);
		tdrv_workers[i] = NULL;
	}
	tdrv_nr = 0;
}

/*
 * Wait (killable, 90 s at most) for the started workers to finish, then
 * free all workers. Called with tdrv_ctl_lock, which is dropped while
 * waiting: the other commands fail with -EBUSY meanwhile, status works.
 */
static int tdrv_reset(void)
{
	unsigned long deadline = jiffies + TDRV_TIMEOUT;
	unsigned int i, n = tdrv_nr;
	long left = 1;

	tdrv_resetting = true;
	mutex_unlock(&tdrv_ctl_lock);
	/* the workers array does not change: spawn and reset need !tdrv_resetting */
	for (i = 0; i < n && left > 0; i++) {
		if (!tdrv_workers[i]->go)
			continue;
		left = wait_for_completion_killable_timeout(&tdrv_workers[i]->done,
							    max_t(long, deadline - jiffies, 1));
	}
	mutex_lock(&tdrv_ctl_lock);
	tdrv_resetting = false;
	if (left == 0)
		return -ETIMEDOUT;
	if (left < 0)
		return -EINTR;
	tdrv_free_workers();
	tdrv_log_stale = true;
	return 0;
}

/* ---- scale: many locks, many workers ---- */

#define TDRV_SCALE_MAX_LOCKS	4096
#define TDRV_SCALE_MAX_WORKERS	16384
#define TDRV_SCALE_MAX_MS	120000

struct tdrv_scale_worker {
	struct task_struct *task;
	u64 cycles;	/* lock/unlock cycles */
	u64 contended;	/* cycles whose mutex_trylock() failed first */
};

/* one run at a time; set up and freed under tdrv_ctl_lock */
static struct {
	struct mutex *locks;		/* nlocks, one array: a contiguous address range */
	atomic_t *coming;		/* nlocks: workers between announcing and taking it */
	atomic_t *taken;		/* nlocks: acquisitions */
	wait_queue_head_t *wq;		/* nlocks: the hand-over's two sides wait here */
	struct tdrv_scale_worker *w;	/* nworkers */
	unsigned int nlocks, nworkers, ms;
	u64 start_ns;
	atomic_t running;		/* workers still in their loop */
} tdrv_scale;

/*
 * Worker i takes lock i % nlocks (every lock has at least two workers) and
 * holds it, asleep, 5-10 ms and then until another worker of the lock has
 * announced that it is coming (or the run ends); it then releases it and
 * sleeps 1-2 ms without it, in a loop until the run's end. Timed sleeps
 * alone are not enough: in a loaded guest the wake-up latency dominates
 * both sleeps, the two workers of a lock fall into step, each taking it
 * while the other is away, and one CI run saw 218 contended cycles in a
 * million. A hand-over bounded at 100 ms did not help either: a saturated
 * guest (2,000 kthreads, 8,000 threads) woke workers hundreds of ms late.
 * The releasing worker comes back only once the one it released it for
 * has taken it: a woken waiter can be slower to run than the releaser's
 * 1-2 ms, which would otherwise take the lock straight back, uncontended
 * (half the cycles on the lab kernel). Both sides wait on the lock's wait
 * queue, woken by the other (polling would add to the load). Nearly every
 * cycle is then a contended wait, and as the holder is asleep the wait
 * sleeps too (no spinning): it goes through the mutex slow path. Then the
 * worker waits to be stopped.
 */
static bool tdrv_scale_over(u64 end)
{
	return ktime_get_ns() >= end || kthread_should_stop() || READ_ONCE(tdrv_aborting);
}

static int tdrv_scale_fn(void *arg)
{
	struct tdrv_scale_worker *w = arg;
	unsigned int lock = (w - tdrv_scale.w) % tdrv_scale.nlocks;
	struct mutex *m = &tdrv_scale.locks[lock];
	atomic_t *coming = &tdrv_scale.coming[lock];
	atomic_t *taken = &tdrv_scale.taken[lock];
	wait_queue_head_t *wq = &tdrv_scale.wq[lock];
	u64 end = tdrv_scale.start_ns + (u64)tdrv_scale.ms * NSEC_PER_MSEC;
	int mine;

	while (!tdrv_scale_over(end)) {
		atomic_inc(coming);
		if (!mutex_trylock(m)) {
			wake_up(wq);	/* the holder */
			WRITE_ONCE(w->contended, w->contended + 1);
			mutex_lock(m);
		}
		mine = atomic_inc_return(taken);
		atomic_dec(coming);
		wake_up(wq);	/* the worker that released it */
		usleep_range(5000, 10000);
		/* (the timeout: to see the run's end) */
		while (!atomic_read(coming) && !tdrv_scale_over(end))
			wait_event_idle_timeout(*wq, atomic_read(coming) ||
						kthread_should_stop() ||
						READ_ONCE(tdrv_aborting), HZ / 10);
		mutex_unlock(m);
		WRITE_ONCE(w->cycles, w->cycles + 1);
		while (atomic_read(taken) == mine && !tdrv_scale_over(end))
			wait_event_idle_timeout(*wq, atomic_read(taken) != mine ||
						kthread_should_stop() ||
						READ_ONCE(tdrv_aborting), HZ / 10);
		usleep_range(1000, 2000);
	}
	atomic_dec(&tdrv_scale.running);
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* stop every worker of the last run and free it all; tdrv_ctl_lock held */
static void tdrv_scale_free(void)
{
	unsigned int i;

	for (i = 0; tdrv_scale.w && i < tdrv_scale.nworkers; i++)
		if (tdrv_scale.w[i].task)
			kthread_stop(tdrv_scale.w[i].task);
	for (i = 0; tdrv_scale.locks && i < tdrv_scale.nlocks; i++)
		mutex_destroy(&tdrv_scale.locks[i]);
	kvfree(tdrv_scale.w);
	kvfree(tdrv_scale.locks);
	kvfree(tdrv_scale.coming);
	kvfree(tdrv_scale.taken);
	kvfree(tdrv_scale.wq);
	tdrv_scale.w = NULL;
	tdrv_scale.locks = NULL;
	tdrv_scale.coming = NULL;
	tdrv_scale.taken = NULL;
	tdrv_scale.wq = NULL;
	tdrv_scale.nlocks = 0;
	tdrv_scale.nworkers = 0;
	tdrv_scale.start_ns = 0;
}

/* "scale start": the prepared run starts now; tdrv_ctl_lock held */
static int tdrv_scale_go(void)
{
	unsigned int i;

	if (!tdrv_scale.w || tdrv_scale.start_ns)
		return -ENOENT;	/* none prepared, or started already */
	atomic_set(&tdrv_scale.running, tdrv_scale.nworkers);
	tdrv_scale.start_ns = ktime_get_ns();
	for (i = 0; i < tdrv_scale.nworkers; i++)
		wake_up_process(tdrv_scale.w[i].task);
	return 0;
}

/* "scale NLOCKS NWORKERS MS" (prepare) or "scale start"; tdrv_ctl_lock held */
static int tdrv_scale_cmd(char *buf)
{
	unsigned int nlocks, nworkers, ms, i;
	char *a[3];
	int ret;

	a[0] = tdrv_token(&buf);
	if (!a[0])
		return -EINVAL;
	if (!strcmp(a[0], "start"))
		return tdrv_token(&buf) ? -EINVAL : tdrv_scale_go();
	for (i = 1; i < 3; i++) {
		a[i] = tdrv_token(&buf);
		if (!a[i])
			return -EINVAL;
	}
	if (tdrv_token(&buf) || kstrtouint(a[0], 10, &nlocks) ||
	    kstrtouint(a[1], 10, &nworkers) || kstrtouint(a[2], 10, &ms))
		return -EINVAL;
	/* two workers per lock at least: a lone holder has no one to wait for */
	if (!nlocks || nlocks > TDRV_SCALE_MAX_LOCKS || nworkers < 2 * nlocks ||
	    nworkers > TDRV_SCALE_MAX_WORKERS || !ms || ms > TDRV_SCALE_MAX_MS)
		return -EINVAL;
	if (atomic_read(&tdrv_scale.running))
		return -EBUSY;
	tdrv_scale_free();
	tdrv_scale.locks = kvcalloc(nlocks, sizeof(*tdrv_scale.locks), GFP_KERNEL);
	tdrv_scale.coming = kvcalloc(nlocks, sizeof(*tdrv_scale.coming), GFP_KERNEL);
	tdrv_scale.taken = kvcalloc(nlocks, sizeof(*tdrv_scale.taken), GFP_KERNEL);
	tdrv_scale.wq = kvcalloc(nlocks, sizeof(*tdrv_scale.wq), GFP_KERNEL);
	tdrv_scale.w = kvcalloc(nworkers, sizeof(*tdrv_scale.w), GFP_KERNEL);
	if (!tdrv_scale.locks || !tdrv_scale.coming || !tdrv_scale.taken || !tdrv_scale.wq ||
	    !tdrv_scale.w) {
		tdrv_scale_free();
		return -ENOMEM;
	}
	tdrv_scale.nlocks = nlocks;
	tdrv_scale.nworkers = nworkers;
	tdrv_scale.ms = ms;
	for (i = 0; i < nlocks; i++) {
		mutex_init(&tdrv_scale.locks[i]);
		init_waitqueue_head(&tdrv_scale.wq[i]);
	}
	for (i = 0; i < nworkers; i++) {
		struct task_struct *t = kthread_create(tdrv_scale_fn, &tdrv_scale.w[i],
						       "tdscale%u", i);

		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			/* never woken: kthread_stop() ends them before their function */
			tdrv_scale_free();
			return ret;
		}
		tdrv_scale.w[i].task = t;
	}
	return 0;
}

static int tdrv_command(char *buf)
{
	char *cmd = tdrv_token(&buf);
	int ret;

	if (!cmd)
		return -EINVAL;
	if (strcmp(cmd, "spawn") && strcmp(cmd, "scale") && tdrv_token(&buf))
		return -EINVAL;	/* start and reset take no argument */
	ret = mutex_lock_interruptible(&tdrv_ctl_lock);
	if (ret)
		return ret;
	if (tdrv_resetting)
		ret = -EBUSY;
	else if (!strcmp(cmd, "spawn"))
		ret = tdrv_spawn(buf);
	else if (!strcmp(cmd, "start"))
		ret = tdrv_start();
	else if (!strcmp(cmd, "reset"))
		ret = tdrv_reset();
	else if (!strcmp(cmd, "scale"))
		ret = tdrv_scale_cmd(buf);
	else
		ret = -EINVAL;
	mutex_unlock(&tdrv_ctl_lock);
	return ret;
}

static ssize_t tdrv_cmd_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	char *buf;
	int ret;

	if (count > TDRV_CMD_MAX)
		return -E2BIG;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = tdrv_command(buf);
	kfree(buf);
	return ret ? ret : count;
}

static const struct file_operations tdrv_cmd_fops = {
	.owner = THIS_MODULE,
	.write = tdrv_cmd_write,
	.llseek = noop_llseek,
};

/* ---- read-only files ---- */

static int tdrv_addr_show(struct seq_file *m, void *v)
{
	unsigned int i;

	/* the raw addresses (as %px would), to match schedlab's reports: a test module */
	for (i = 0; i < TDRV_NR_M; i++)
		seq_printf(m, "m%u 0x%lx\n", i, (unsigned long)tdrv_m[i]);
	for (i = 0; i < TDRV_NR_W; i++)
		seq_printf(m, "w%u 0x%lx\n", i, (unsigned long)&tdrv_w[i]->base);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tdrv_addr);

static int tdrv_log_show(struct seq_file *m, void *v)
{
	struct tdrv_log_entry e;
	unsigned int i, dropped;

	seq_puts(m, "# clock local_clock\n");
	seq_puts(m, "# name step op arg ret t_start_ns t_end_ns\n");
	for (i = 0; ; i++) {
		spin_lock(&tdrv_log_lock);
		dropped = tdrv_log_dropped;
		if (i >= tdrv_log_len) {
			spin_unlock(&tdrv_log_lock);
			break;
		}
		e = tdrv_log[i];
		spin_unlock(&tdrv_log_lock);
		if (e.op == TDRV_PID)
			seq_printf(m, "%s pid=%d\n", e.name, e.pid);
		else
			seq_printf(m, "%s %d %s %s %d %llu %llu\n", e.name, e.step,
				   tdrv_op_names[e.op], e.arg, e.ret, e.t_start, e.t_end);
	}
	if (dropped)
		seq_printf(m, "# dropped %u\n", dropped);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tdrv_log);

static const char *tdrv_preempt_model(void)
{
	if (preempt_model_rt())
		return "rt";
	if (preempt_model_full())
		return "full";
#ifdef CONFIG_ARCH_HAS_PREEMPT_LAZY	/* 6.13+ */
	if (preempt_model_lazy())
		return "lazy";
#endif
	if (preempt_model_voluntary())
		return "voluntary";
	if (preempt_model_none())
		return "none";
	return "unknown";
}

static const char *tdrv_policy_name(int policy)
{
	switch (policy) {
	case SCHED_FIFO:
		return "fifo";
	case SCHED_IDLE:
		return "idle";
	default:
		return "other";
	}
}

static int tdrv_status_show(struct seq_file *m, void *v)
{
	char arg[TDRV_ARG_LEN];
	unsigned int i;
	int ret, state, cur;

	ret = mutex_lock_interruptible(&tdrv_ctl_lock);
	if (ret)
		return ret;
	seq_printf(m, "# preempt %s\n", tdrv_preempt_model());
	seq_printf(m, "# workers %u max %u%s\n", tdrv_nr, TDRV_MAX_WORKERS,
		   tdrv_resetting ? " resetting" : "");
	for (i = 0; i < tdrv_nr; i++) {
		const struct tdrv_worker *w = tdrv_workers[i];

		state = READ_ONCE(w->state);
		seq_printf(m, "%s pid=%d cpu=%d policy=%s prio=%d nice=%d steps=%u state=%s",
			   w->name, w->pid, w->cpu, tdrv_policy_name(w->policy), w->prio,
			   w->nice, w->nsteps, tdrv_state_names[state]);
		if (state == TDRV_RUNNING) {
			cur = READ_ONCE(w->cur);
			tdrv_step_arg(&w->steps[cur], arg, sizeof(arg));
			seq_printf(m, " step=%d op=%s arg=%s", cur,
				   tdrv_op_names[w->steps[cur].op], arg);
		}
		seq_printf(m, " edeadlk=%u\n", READ_ONCE(w->deadlocks));
	}
	mutex_unlock(&tdrv_ctl_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tdrv_status);

static int tdrv_scale_show(struct seq_file *m, void *v)
{
	u64 cycles = 0, contended = 0;
	unsigned int i;
	int ret;

	ret = mutex_lock_interruptible(&tdrv_ctl_lock);
	if (ret)
		return ret;
	for (i = 0; i < tdrv_scale.nworkers; i++) {
		cycles += READ_ONCE(tdrv_scale.w[i].cycles);
		contended += READ_ONCE(tdrv_scale.w[i].contended);
	}
	seq_printf(m, "locks %u\nworkers %u\nms %u\nstarted %d\nrunning %d\n",
		   tdrv_scale.nlocks, tdrv_scale.nworkers, tdrv_scale.ms, !!tdrv_scale.start_ns,
		   atomic_read(&tdrv_scale.running));
	/* the locks' address range [lock_lo, lock_hi), raw as in addr */
	seq_printf(m, "lock_lo 0x%lx\nlock_hi 0x%lx\n", (unsigned long)tdrv_scale.locks,
		   (unsigned long)(tdrv_scale.locks + tdrv_scale.nlocks));
	seq_printf(m, "cycles %llu\ncontended %llu\n", cycles, contended);
	mutex_unlock(&tdrv_ctl_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tdrv_scale);

static int __init tdrv_init(void)
{
	unsigned int i;

	for (i = 0; i < TDRV_NR_W; i++)
		ww_mutex_init(tdrv_w[i], &testdrv_ww_class);
	tdrv_log = kvcalloc(TDRV_LOG_MAX, sizeof(*tdrv_log), GFP_KERNEL);
	if (!tdrv_log)
		return -ENOMEM;
	tdrv_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(tdrv_dir)) {
		kvfree(tdrv_log);
		return PTR_ERR(tdrv_dir);
	}
	debugfs_create_file("addr", 0400, tdrv_dir, NULL, &tdrv_addr_fops);
	debugfs_create_file("cmd", 0200, tdrv_dir, NULL, &tdrv_cmd_fops);
	debugfs_create_file("log", 0400, tdrv_dir, NULL, &tdrv_log_fops);
	debugfs_create_file("status", 0400, tdrv_dir, NULL, &tdrv_status_fops);
	debugfs_create_file("scale", 0400, tdrv_dir, NULL, &tdrv_scale_fops);
	return 0;
}

static void __exit tdrv_exit(void)
{
	unsigned long deadline = jiffies + TDRV_TIMEOUT;
	unsigned int i, j, stuck = 0;

	/* waits for the file operations in progress: no command runs after this */
	debugfs_remove_recursive(tdrv_dir);

	mutex_lock(&tdrv_ctl_lock);
	WRITE_ONCE(tdrv_aborting, true);
	for (i = 0; i < tdrv_nr; i++) {
		struct tdrv_worker *w = tdrv_workers[i];

		if (!w->go)
			WRITE_ONCE(w->abort, true);
		/* release the wait steps */
		for (j = 0; j < w->nsteps; j++)
			complete_all(&w->step_done[j]);
	}
	wake_up_all(&tdrv_start_wq);
	for (i = 0; i < tdrv_nr; i++) {
		struct tdrv_worker *w = tdrv_workers[i];

		if (!wait_for_completion_timeout(&w->done, max_t(long, deadline - jiffies, 1))) {
			stuck++;	/* leaked: it may still write to itself */
			continue;
		}
		kthread_stop(w->task);
		kfree(w);
	}
	tdrv_nr = 0;
	tdrv_scale_free();	/* tdrv_aborting: they leave their loops */
	mutex_unlock(&tdrv_ctl_lock);
	/* or the stuck ones would log into freed memory if they ever woke up */
	if (!WARN(stuck, pr_fmt("%u workers deadlocked at unload, leaking them and the log\n"),
		  stuck))
		kvfree(tdrv_log);
}

module_init(tdrv_init);
module_exit(tdrv_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("schedlab test driver: kernel mutex wait chains with a known ground truth");
