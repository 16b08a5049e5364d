// SPDX-License-Identifier: GPL-2.0
/*
 * dlparams: /dev/dlparams, the current SCHED_DEADLINE parameters of a
 * thread (ABI: include/uapi/linux/schedlab_dlparams.h).
 *
 * The values. A deadline task's leftover runtime is p->dl.runtime as of the
 * last accounting (update_curr_dl()), which happened at p->se.exec_start on
 * the rq's task clock. If the task is running now, it has run since then:
 *
 *	now_task     = rq->clock_task + (sched_clock_cpu(cpu) - rq->clock)
 *	runtime_left = dl.runtime - (now_task - se.exec_start)
 *
 * which is what an accounting pass would compute (no frequency or capacity
 * scaling on the tested kernels, no IRQ time accounting), without taking the
 * rq lock, calling schedule() or accounting on the task's behalf; it works
 * for a task running on another CPU. dl.deadline is an rq_clock time;
 * rq_clock follows sched_clock_cpu(), so
 *
 *	deadline_mono = dl.deadline - sched_clock_cpu(cpu) + ktime_get_ns()
 *
 * The fields are read without the rq lock: a read is retried while the rq
 * clock or the task's exec_start/runtime change under it, or while the rq
 * lock is held at the end of it. The last check matters: accounting
 * (update_curr_dl(), under the rq lock) writes se.exec_start, then does
 * cgroup accounting, then writes dl.runtime. A reader that sees the new
 * exec_start with the old runtime sees two values that never held together
 * and is off by the whole accounted delta, up to a tick. That window is
 * short on hardware, but a virtual CPU can be descheduled inside it: seen
 * as a 4 ms error under emulation. Every write is under the rq lock: a
 * write after the first read shows in the re-reads, unless its section
 * still holds the lock at the end, so values re-read equal with the lock
 * free at the end were consistent. (With core
 * scheduling active on the core, the kernel takes the core's rq lock, not
 * this one: there only the re-read checks remain.) After
 * SNAPSHOT_TRIES failed tries the last read is used and the result says
 * DLPARAMS_F_STALE: runtime_left_ns is then as of the last accounting
 * (at most a tick old); debugfs stats counts these.
 *
 * read() is the thread asking about itself, so it is running on this CPU:
 * with preemption off, one sched_clock read gives the task clock, and the
 * CLOCK_MONOTONIC time comes from a per-CPU pair (sched_clock, monotonic)
 * read together at most SELF_CLOCK_PAIR_AGE ago. Over that span the two
 * clocks drift apart by NTP's slew at most (500 ppm: 0.5 us per ms), far
 * below the tick-level precision of the values. The user buffer is read
 * and written in one user-access section.
 *
 * The fast path. A thread may mmap() one read-only page. While the feature
 * is enabled, a sched_switch probe republishes the page (under a sequence
 * counter) whenever that thread is switched in or out: the runtime at a
 * reference CLOCK_MONOTONIC instant, whether it is running, and the deadline.
 * Userspace then needs only clock_gettime() (vDSO) to compute the leftover
 * runtime at any instant. Pages are found from the probe through an RCU
 * hash keyed by task; the probe does nothing unless a deadline task with a
 * page is involved. A page that will no longer be refreshed says so
 * (DLPARAMS_F_NOT_UPDATED): its thread was seen leaving SCHED_DEADLINE at a
 * switch, or the feature was disabled. Lifetimes and writers: see
 * "mapped pages" below.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": dlparams: " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/refcount.h>
#include <linux/hashtable.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/task.h>
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/capability.h>
#include <linux/uaccess.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/percpu.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <uapi/linux/sched.h>
#include <uapi/linux/schedlab_dlparams.h>

#include "dlparams.h"
#include "report.h"

struct dl_snapshot {
	u64 runtime_at_acct;	/* dl.runtime */
	u64 exec_start;		/* task clock of the last accounting */
	u64 now_task;		/* task clock now */
	u64 deadline;		/* rq_clock */
	u64 sched_clock_now;
	u64 mono_now;
	bool running;
	bool throttled;
	bool stale;		/* no consistent read: as of the last accounting */
	int cpu;
};

/* statistics, shown in debugfs; per CPU so that readers share no line */
struct dl_stats {
	u64 reads, ioctls, publishes, marks, retries, stale;
};
static DEFINE_PER_CPU(struct dl_stats, dl_stats);
static atomic_t nr_pages;


/* --- reading a task's values ------------------------------------------- */

static bool is_deadline(struct task_struct *p)
{
	return READ_ONCE(p->policy) == SCHED_DEADLINE;
}

#define SELF_CLOCK_PAIR_AGE NSEC_PER_MSEC

#define CLOCK_PAIR_MAX_SPREAD (10 * NSEC_PER_USEC)

/*
 * sched_clock_cpu(@cpu) and CLOCK_MONOTONIC at one instant. Interrupts are
 * off, but a (virtual) CPU can still stall between two reads: bracket the
 * monotonic read by two sched_clock reads and retry while they are far
 * apart; the pair is the bracket's midpoint.
 */
static void clock_pair_read(int cpu, u64 *sched, u64 *mono)
{
	unsigned long flags;
	u64 before, after;
	int tries = 0;

	local_irq_save(flags);
	do {
		before = sl_sched_clock_cpu(cpu);
		*mono = ktime_get_ns();
		after = sl_sched_clock_cpu(cpu);
	} while (after - before > CLOCK_PAIR_MAX_SPREAD && ++tries < 4);
	local_irq_restore(flags);
	*sched = before + (after - before) / 2;
}

struct clock_pair {
	u64 sched;	/* sched_clock_cpu() of this CPU */
	u64 mono;	/* ktime_get_ns() at the same moment */
};
static DEFINE_PER_CPU(struct clock_pair, clock_pair);

/* CLOCK_MONOTONIC at @sched_now, a sched_clock reading of this CPU; preemption off */
static u64 mono_at(u64 sched_now)
{
	struct clock_pair *cp = this_cpu_ptr(&clock_pair);

	/* unsigned: a pair from the future (clock reset) is refreshed too */
	if (sched_now - cp->sched >= SELF_CLOCK_PAIR_AGE)
		clock_pair_read(smp_processor_id(), &cp->sched, &cp->mono);
	return cp->mono + (sched_now - cp->sched);
}

/*
 * Read @p's values without its rq lock (see the top of this file). @self:
 * @p is current, running on this CPU with preemption off (read()).
 */
#define SNAPSHOT_TRIES 8

/* Is @rq's lock held (by anyone)? false where the layout lacks it. */
static bool rq_lock_held(void *rq)
{
#if SL_HAS_rq____lock
	BUILD_BUG_ON(SL_SZ_rq____lock != sizeof(raw_spinlock_t));
	return raw_spin_is_locked((raw_spinlock_t *)SL_PTR(rq, rq____lock));
#else
	return false;
#endif
}

/* who reads, which decides how a read is validated */
enum snap_ctx {
	SNAP_SELF,	/* @p is current, preemption off: read() */
	SNAP_REMOTE,	/* any task, no lock held: ioctl(), mmap() */
	SNAP_RQ_LOCKED,	/* this CPU holds @p's rq lock: the sched_switch probe */
};

static void snapshot(struct task_struct *p, struct dl_snapshot *s, enum snap_ctx ctx)
{
	bool self = ctx == SNAP_SELF;
	int tries;

	s->stale = false;
	for (tries = 0; tries < SNAPSHOT_TRIES; tries++) {
		void *rq;
		u64 clock, clock_task, exec_start;

		s->cpu = self ? smp_processor_id() : task_cpu(p);
		rq = sl_cpu_rq(s->cpu);
		clock = SL_READ(rq, rq__clock);
		/* clock before the rest; pairs with the re-check below */
		smp_rmb();
		clock_task = SL_READ(rq, rq__clock_task);
		exec_start = READ_ONCE(p->se.exec_start);
		s->runtime_at_acct = READ_ONCE(p->dl.runtime);
		s->deadline = READ_ONCE(p->dl.deadline);
		s->throttled = p->dl.dl_throttled;
		s->running = self || (void *)SL_READ(rq, rq__curr) == (void *)p;
		if (self) {
			s->sched_clock_now = sl_sched_clock_cpu(s->cpu);
			s->mono_now = mono_at(s->sched_clock_now);
		} else {
			clock_pair_read(s->cpu, &s->sched_clock_now, &s->mono_now);
		}
		/* the reads above before the re-reads that validate them */
		smp_rmb();
		s->exec_start = exec_start;
		/* under the rq lock nothing can change: the first read holds */
		if (ctx == SNAP_RQ_LOCKED) {
			s->now_task = clock_task + (s->sched_clock_now - clock);
			return;
		}
		if (!rq_lock_held(rq) &&
		    SL_READ(rq, rq__clock) == clock &&
		    READ_ONCE(p->se.exec_start) == exec_start &&
		    READ_ONCE(p->dl.runtime) == s->runtime_at_acct &&
		    task_cpu(p) == s->cpu) {
			s->now_task = clock_task + (s->sched_clock_now - clock);
			return;
		}
		this_cpu_inc(dl_stats.retries);
	}
	/* still moving after every try: the last accounting's values, flagged */
	s->now_task = s->exec_start;
	s->stale = true;
	this_cpu_inc(dl_stats.stale);
}

/* Every field of @out is written: no memset on the read() path. */
static void fill(struct task_struct *p, pid_t tid, const struct dl_snapshot *s,
		 struct dlparams *out)
{
	s64 left = (s64)s->runtime_at_acct;

	if (s->running && s->now_task > s->exec_start)
		left -= (s64)(s->now_task - s->exec_start);
	out->size = 0;
	out->tid = tid;
	out->cpu = s->cpu;
	out->runtime_left_ns = left;
	out->deadline_ns = s->deadline - s->sched_clock_now + s->mono_now;
	out->now_ns = s->mono_now;
	out->dl_runtime_ns = p->dl.dl_runtime;
	out->dl_deadline_ns = p->dl.dl_deadline;
	out->dl_period_ns = p->dl.dl_period;
	out->flags = (s->throttled ? DLPARAMS_F_THROTTLED : 0) |
		     (s->running ? DLPARAMS_F_RUNNING : 0) |
		     ((s64)(out->deadline_ns - out->now_ns) < 0 ? DLPARAMS_F_DEADLINE_MISSED : 0) |
		     (s->stale ? DLPARAMS_F_STALE : 0);
	BUILD_BUG_ON(sizeof(*out) != DLPARAMS_SIZE_VER0);
}

static int task_values(struct task_struct *p, struct dlparams *out)
{
	struct dl_snapshot s;

	if (!is_deadline(p))
		return -ENODATA;
	snapshot(p, &s, SNAP_REMOTE);
	fill(p, task_pid_vnr(p), &s, out);
	return 0;
}

/*
 * Copy the caller's size, validate it, and copy back min(size, ours) of
 * @val. Nothing is written unless everything is valid.
 */
static int get_user_size(const void __user *ubuf, size_t buflen, u32 *size)
{
	if (buflen < DLPARAMS_SIZE_VER0)
		return -EINVAL;
	if (get_user(*size, (const u32 __user *)ubuf))
		return -EFAULT;
	if (*size < DLPARAMS_SIZE_VER0 || *size > buflen)
		return -EINVAL;
	return 0;
}

static int put_values(void __user *ubuf, u32 size, struct dlparams *val)
{
	u32 n = min_t(u32, size, sizeof(*val));

	val->size = n;
	if (copy_to_user(ubuf, val, n))
		return -EFAULT;
	if (size > n && clear_user((char __user *)ubuf + n, size - n))
		return -EFAULT;
	return n;
}

/* --- read(): the calling thread ------------------------------------------ */

static ssize_t dlparams_read(struct file *file, char __user *ubuf, size_t count,
			     loff_t *ppos)
{
	struct dl_snapshot s;
	struct dlparams val;
	u32 size, n;

	/* get_user_size() and put_values(), in user-access sections */
	if (count < DLPARAMS_SIZE_VER0)
		return -EINVAL;
	if (!user_access_begin(ubuf, count))
		return -EFAULT;
	unsafe_get_user(size, (u32 __user *)ubuf, efault);
	user_access_end();
	if (size < DLPARAMS_SIZE_VER0 || size > count)
		return -EINVAL;
	if (!is_deadline(current))
		return -ENODATA;
	preempt_disable();
	snapshot(current, &s, SNAP_SELF);
	this_cpu_inc(dl_stats.reads);
	preempt_enable();
	/* current's own pid cannot change under it: no RCU needed */
	fill(current, pid_vnr(task_pid(current)), &s, &val);
	n = min_t(u32, size, sizeof(val));
	val.size = n;
	if (!user_access_begin(ubuf, n))
		return -EFAULT;
	unsafe_copy_to_user(ubuf, (const char *)&val, n, efault);
	user_access_end();
	if (size > n && clear_user(ubuf + n, size - n))
		return -EFAULT;
	return n;
efault:
	user_access_end();
	return -EFAULT;
}

/* --- permission --------------------------------------------------------- */

typedef bool (*ptrace_may_access_t)(struct task_struct *task, unsigned int mode);
static ptrace_may_access_t may_access;

/*
 * ptrace_may_access() is not exported. It is used through kallsyms where
 * it can be called; otherwise only the caller's own thread group and
 * CAP_SYS_PTRACE holders may read another thread (stricter, never looser).
 */
static bool may_read(struct task_struct *p)
{
	if (same_thread_group(p, current))
		return true;
	if (may_access)
		return may_access(p, PTRACE_MODE_READ_REALCREDS);
	return capable(CAP_SYS_PTRACE);
}

static long dlparams_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *ubuf = (void __user *)arg;
	struct task_struct *p;
	struct dlparams val;
	u32 size, tid;
	int ret;

	/*
	 * The size bits of the command follow the caller's struct, so that a
	 * binary built against a later, larger struct dlparams still matches.
	 */
	if (_IOC_TYPE(cmd) != _IOC_TYPE(DLPARAMS_IOC_GET_TID) ||
	    _IOC_NR(cmd) != _IOC_NR(DLPARAMS_IOC_GET_TID) ||
	    _IOC_DIR(cmd) != _IOC_DIR(DLPARAMS_IOC_GET_TID))
		return -ENOTTY;
	ret = get_user_size(ubuf, _IOC_SIZE(cmd), &size);
	if (ret)
		return ret;
	if (get_user(tid, (const u32 __user *)ubuf + 1))
		return -EFAULT;
	if (!tid || tid > PID_MAX_LIMIT)
		return -ESRCH;
	rcu_read_lock();
	p = get_pid_task(find_vpid(tid), PIDTYPE_PID);
	rcu_read_unlock();
	if (!p)
		return -ESRCH;
	if (!may_read(p))
		ret = -EPERM;
	else
		ret = task_values(p, &val);
	put_task_struct(p);
	if (ret)
		return ret;
	this_cpu_inc(dl_stats.ioctls);
	ret = put_values(ubuf, size, &val);
	return ret < 0 ? ret : 0;
}

/* --- mapped pages -------------------------------------------------------- */

/*
 * One entry per thread that mapped a page. Lifetime: the entry is shared by
 * every VMA that maps its page. mmap() creates it with one reference; any
 * VMA operation that duplicates or moves the mapping (fork after
 * MADV_DOFORK, mremap, a split) runs .open on the new VMA, which takes a
 * reference, and every VMA's .close drops one. The last .close unhashes the
 * entry and frees it after a grace period (the probe looks entries up under
 * RCU). The entry holds a reference on its task; the page itself is also
 * referenced by every PTE that maps it, so it outlives the entry as long as
 * a mapping needs it.
 *
 * Writers of a page. Once hashed, a page is written only by the
 * sched_switch probe, under the rq lock of the CPU its thread is switching
 * on: a thread is switched in or out on one CPU at a time, so there is one
 * writer at a time. mmap() publishes the first values before hashing the
 * entry, and disable marks pages after the probe is unregistered and
 * synchronised: neither runs beside the probe on the same page.
 */
struct dl_page {
	struct hlist_node node;
	struct task_struct *task;	/* holds a reference */
	struct dlparams_page *pg;
	refcount_t vmas;		/* VMAs that map pg */
	bool says_deadline;		/* last published as a deadline thread */
	struct rcu_head rcu;
};

#define DL_PAGE_HASH_BITS 6
static DEFINE_HASHTABLE(dl_pages, DL_PAGE_HASH_BITS);
/* hash writers, dl_updating */
static DEFINE_SPINLOCK(dl_pages_lock);
/* the probe is registered: pages are kept up to date */
static bool dl_updating;
static atomic_t nr_mappings;

static struct dl_page *find_page(struct task_struct *p)
{
	struct dl_page *e;

	hash_for_each_possible_rcu(dl_pages, e, node, (unsigned long)p)
		if (e->task == p)
			return e;
	return NULL;
}

/* Begin and end one update of @pg (the page's sequence counter). */
static void page_write_begin(struct dlparams_page *pg)
{
	WRITE_ONCE(pg->seq, pg->seq + 1);
	/* odd seq visible before the fields change (reader: smp_rmb) */
	smp_wmb();
}

static void page_write_end(struct dlparams_page *pg)
{
	pg->updates++;
	/* fields visible before seq becomes even again */
	smp_wmb();
	WRITE_ONCE(pg->seq, pg->seq + 1);
}

/*
 * Publish @p's values into its page: from the sched_switch probe with @p's
 * rq locked (SNAP_RQ_LOCKED: no retry), and from mmap() before the entry
 * is hashed (SNAP_REMOTE).
 */
static void publish(struct dl_page *e, struct task_struct *p, bool running,
		    enum snap_ctx ctx)
{
	struct dlparams_page *pg = e->pg;
	struct dlparams v;
	struct dl_snapshot s;

	snapshot(p, &s, ctx);
	s.running = running;
	fill(p, task_pid_vnr(p), &s, &v);
	page_write_begin(pg);
	pg->version = DLPARAMS_PAGE_VERSION;
	pg->flags = v.flags;
	pg->cpu = v.cpu;
	pg->runtime_ns = v.runtime_left_ns;
	pg->ref_ns = v.now_ns;
	pg->deadline_ns = v.deadline_ns;
	pg->dl_runtime_ns = v.dl_runtime_ns;
	pg->dl_deadline_ns = v.dl_deadline_ns;
	pg->dl_period_ns = v.dl_period_ns;
	pg->tid = v.tid;
	page_write_end(pg);
	e->says_deadline = true;
	this_cpu_inc(dl_stats.publishes);
}

/*
 * The page will not be refreshed (its thread left SCHED_DEADLINE, or the
 * feature is off): say so, and stop the runtime from running down in
 * userspace's arithmetic. The last values stay.
 */
static void mark_not_updated(struct dl_page *e)
{
	struct dlparams_page *pg = e->pg;

	page_write_begin(pg);
	pg->flags = (pg->flags & ~DLPARAMS_F_RUNNING) | DLPARAMS_F_NOT_UPDATED;
	page_write_end(pg);
	e->says_deadline = false;
	this_cpu_inc(dl_stats.marks);
}

/* @p switches in (@running) or out; rq locked */
static void switch_update(struct task_struct *p, bool running)
{
	struct dl_page *e = find_page(p);

	if (!e)
		return;
	if (is_deadline(p))
		publish(e, p, running, SNAP_RQ_LOCKED);
	else if (e->says_deadline)
		mark_not_updated(e);
}

/*
 * Cost while pages exist: two hash-bucket looks per switch (an empty
 * bucket is one load); a page is written only for its own thread.
 */
static void probe_sched_switch(void *data, bool preempt, struct task_struct *prev,
			       struct task_struct *next, unsigned int prev_state)
{
	if (!atomic_read(&nr_pages))
		return;
	switch_update(prev, false);
	switch_update(next, true);
}

static void free_page_rcu(struct rcu_head *rcu)
{
	struct dl_page *e = container_of(rcu, struct dl_page, rcu);

	put_task_struct(e->task);
	free_page((unsigned long)e->pg);
	kfree(e);
}

/* a VMA that maps @e's page was made from another (fork, mremap, split) */
static void dlparams_vm_open(struct vm_area_struct *vma)
{
	struct dl_page *e = vma->vm_private_data;

	refcount_inc(&e->vmas);
	atomic_inc(&nr_mappings);
}

static void dlparams_vm_close(struct vm_area_struct *vma)
{
	struct dl_page *e = vma->vm_private_data;

	atomic_dec(&nr_mappings);
	if (!refcount_dec_and_test(&e->vmas))
		return;
	spin_lock(&dl_pages_lock);
	hash_del_rcu(&e->node);
	atomic_dec(&nr_pages);
	spin_unlock(&dl_pages_lock);
	call_rcu(&e->rcu, free_page_rcu);
}

/*
 * The PTE was zapped (MADV_DONTNEED, or a copy at fork that took no PTEs):
 * map the same page again. VM_MIXEDMAP is set by the first insertion, so
 * vm_insert_page() needs no write lock on the mm here.
 */
static vm_fault_t dlparams_vm_fault(struct vm_fault *vmf)
{
	struct dl_page *e = vmf->vma->vm_private_data;
	int ret;

	ret = vm_insert_page(vmf->vma, vmf->vma->vm_start, virt_to_page(e->pg));
	if (ret == -ENOMEM)
		return VM_FAULT_OOM;
	/* -EBUSY: a concurrent fault mapped it first */
	if (ret && ret != -EBUSY)
		return VM_FAULT_SIGBUS;
	return VM_FAULT_NOPAGE;
}

static const struct vm_operations_struct dlparams_vm_ops = {
	.open = dlparams_vm_open,
	.close = dlparams_vm_close,
	.fault = dlparams_vm_fault,
};

static int dlparams_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct dl_page *e;
	int ret;

	if (vma->vm_pgoff || vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	/* One page per thread; only the thread itself adds its own entry. */
	rcu_read_lock();
	e = find_page(current);
	rcu_read_unlock();
	if (e)
		return -EBUSY;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->pg = (struct dlparams_page *)get_zeroed_page(GFP_KERNEL);
	if (!e->pg) {
		kfree(e);
		return -ENOMEM;
	}
	sl_vma_flags_update(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP,
			    VM_MAYWRITE | VM_MAYEXEC);
	/* The mapping takes its own reference on the page. */
	ret = vm_insert_page(vma, vma->vm_start, virt_to_page(e->pg));
	if (ret) {
		free_page((unsigned long)e->pg);
		kfree(e);
		return ret;
	}
	e->task = get_task_struct(current);
	refcount_set(&e->vmas, 1);
	vma->vm_private_data = e;
	vma->vm_ops = &dlparams_vm_ops;
	atomic_inc(&nr_mappings);

	/* first values, before the probe can find the page (one writer) */
	if (is_deadline(current))
		publish(e, current, true, SNAP_REMOTE);
	spin_lock(&dl_pages_lock);
	/* disabled (an fd opened before): nothing will refresh the page */
	if (!dl_updating)
		mark_not_updated(e);
	hash_add_rcu(dl_pages, &e->node, (unsigned long)current);
	atomic_inc(&nr_pages);
	spin_unlock(&dl_pages_lock);
	return 0;
}

/*
 * Reads of /dev/dlparams are answers to a question, not file access worth
 * reporting to fanotify/inotify watchers: skip the notification cost on
 * this hot path where the kernel lets a file opt out.
 */
static int dlparams_open(struct inode *inode, struct file *file)
{
#ifdef FMODE_NONOTIFY
	file->f_mode |= FMODE_NONOTIFY;
#endif
	/* no position: read() and ioctl() always describe "now" */
	return stream_open(inode, file);
}

static const struct file_operations dlparams_fops = {
	.owner = THIS_MODULE,
	.open = dlparams_open,
	.read = dlparams_read,
	.unlocked_ioctl = dlparams_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = dlparams_mmap,
	.llseek = noop_llseek,
};

static struct miscdevice dlparams_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "dlparams",
	.fops = &dlparams_fops,
	.mode = 0666,
};

/* --- feature ------------------------------------------------------------- */

static int dlparams_init(struct sl_feature *f)
{
	may_access = (ptrace_may_access_t)sl_lookup_function("ptrace_may_access");
	if (!may_access)
		pr_info("ptrace_may_access() not callable: other threads readable by CAP_SYS_PTRACE only\n");
	return 0;
}

static void dlparams_exit(struct sl_feature *f)
{
	/* pages freed by call_rcu() run module code: wait for them */
	rcu_barrier();
}

static int dlparams_enable(struct sl_feature *f)
{
	int ret;

	ret = sl_tracepoint_register("sched_switch", probe_sched_switch, NULL);
	if (ret)
		return ret;
	ret = misc_register(&dlparams_dev);
	if (ret) {
		sl_tracepoint_unregister("sched_switch", probe_sched_switch, NULL);
		tracepoint_synchronize_unregister();
		return ret;
	}
	spin_lock(&dl_pages_lock);
	dl_updating = true;
	spin_unlock(&dl_pages_lock);
	return 0;
}

static void dlparams_disable(struct sl_feature *f)
{
	struct dl_page *e;
	int bkt;

	misc_deregister(&dlparams_dev);
	sl_tracepoint_unregister("sched_switch", probe_sched_switch, NULL);
	tracepoint_synchronize_unregister();
	/*
	 * Pages stay mapped (their VMAs hold the module) but go stale: say
	 * so. The probe is gone, so this is each page's only writer.
	 */
	spin_lock(&dl_pages_lock);
	dl_updating = false;
	hash_for_each(dl_pages, bkt, e, node)
		if (e->says_deadline)
			mark_not_updated(e);
	spin_unlock(&dl_pages_lock);
}

/* the statistics: one record (report.h) */
struct stats_snap {
	u64 v[8];
};

static const struct sl_rcol stats_cols[] = {
	{ "reads", NULL, SL_RK_U64 },
	{ "ioctls", NULL, SL_RK_U64 },
	{ "publishes", NULL, SL_RK_U64 },
	{ "marks", NULL, SL_RK_U64 },
	{ "retries", NULL, SL_RK_U64 },
	{ "stale", NULL, SL_RK_U64 },
	{ "pages", NULL, SL_RK_U64 },
	{ "mappings", NULL, SL_RK_U64 },
	{ "ptrace_may_access", NULL, SL_RK_STR },
	{ "rq_lock_checked", NULL, SL_RK_STR },
};

static long stats_take(void *priv)
{
	struct stats_snap *st = priv;

	st->v[0] = sl_percpu_sum(&dl_stats, offsetof(struct dl_stats, reads));
	st->v[1] = sl_percpu_sum(&dl_stats, offsetof(struct dl_stats, ioctls));
	st->v[2] = sl_percpu_sum(&dl_stats, offsetof(struct dl_stats, publishes));
	st->v[3] = sl_percpu_sum(&dl_stats, offsetof(struct dl_stats, marks));
	st->v[4] = sl_percpu_sum(&dl_stats, offsetof(struct dl_stats, retries));
	st->v[5] = sl_percpu_sum(&dl_stats, offsetof(struct dl_stats, stale));
	st->v[6] = atomic_read(&nr_pages);
	st->v[7] = atomic_read(&nr_mappings);
	return 1;
}

static void stats_head(void *priv, struct sl_rhead *h)
{
	sl_rnote(h, "ptrace_may_access: kallsyms (reached) or cap_sys_ptrace_only; rq_lock_checked: no when rq.__lock is not in the layout");
}

static void stats_row(void *priv, unsigned long i, struct sl_rval *v)
{
	struct stats_snap *st = priv;
	int k;

	for (k = 0; k < ARRAY_SIZE(st->v); k++)
		sl_rv_u64(&v[k], st->v[k]);
	sl_rv_str(&v[8], may_access ? "kallsyms" : "cap_sys_ptrace_only");
	sl_rv_str(&v[9], SL_HAS_rq____lock ? "yes" : "no");
}

static const struct sl_report stats_report = {
	.feature = "dlparams",
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

static int dlparams_debugfs(struct sl_feature *f, struct dentry *dir)
{
	sl_report_create(dir, &stats_report);
	return 0;
}

struct sl_feature dlparams_feature = {
	.name = "dlparams",
	.summary = "/dev/dlparams: leftover runtime and absolute deadline of SCHED_DEADLINE threads",
	.needs = SL_CAP(SL_CAP_RUNQUEUES) | SL_CAP(SL_CAP_TP_SCHED_SWITCH) |
		 SL_CAP(SL_CAP_RQ_CLOCK),
	.init = dlparams_init,
	.exit = dlparams_exit,
	.enable = dlparams_enable,
	.disable = dlparams_disable,
	.debugfs = dlparams_debugfs,
};
