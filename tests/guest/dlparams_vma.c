// SPDX-License-Identifier: GPL-2.0
/*
 * dlparams_vma: the mapped page of /dev/dlparams under every VMA operation
 * a user can apply to it.
 *
 *   dlparams_vma [-u UID] roads ROUNDS
 *	Each round takes every road that duplicates, moves, splits or zaps the
 *	mapping: fork after MADV_DOFORK (child exits first, or unmaps first),
 *	mremap to a new address, MADV_DONTNEED then a read, mprotect, a second
 *	mmap by the same thread, growth and MREMAP_DONTUNMAP (refused). -u
 *	drops to that uid/gid first (an unprivileged user can do all of it).
 *	Before the page's lifetime was reference-counted, the fork and mremap
 *	roads freed the entry twice: a panic from an RCU callback.
 *
 *   dlparams_vma deadline SYSFS_ENABLED
 *	As root: a SCHED_DEADLINE thread's page through those roads keeps
 *	being refreshed and describes that thread; leaving SCHED_DEADLINE,
 *	and disabling the feature (SYSFS_ENABLED is its enabled file), mark it
 *	DLPARAMS_F_NOT_UPDATED with DLPARAMS_F_RUNNING cleared; coming back
 *	clears the mark.
 *
 *   dlparams_vma access
 *	As root: who may read whose values. A SCHED_DEADLINE thread that
 *	dropped to uid 1001 reads its own values (read(), ioctl() by its TID,
 *	the page); a process of uid 1000 asking for them by TID gets EPERM
 *	(or EACCES) with its buffer untouched; root gets them.
 *
 *   dlparams_vma mapper SECONDS
 *	As root, for the reload stress: a SCHED_DEADLINE thread that opens
 *	/dev/dlparams, maps its page, reads it across a few switches, unmaps
 *	and closes, over and over (the device comes and goes with the module:
 *	ENOENT is expected); prints how many rounds mapped a page.
 *
 * The shell test checks dlparams/stats afterwards: no page or mapping left.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../tools/lib/dlparams.h"
#include "../../tools/lib/dl_util.h"
#include "../lib/tap.h"

#define PG 4096

static sigjmp_buf bus_jmp;
static const char *volatile stage = "start";

/* a hang becomes a failure that says where (the shell test has a timeout too) */
static void on_alarm(int sig)
{
	char msg[160];
	int n = snprintf(msg, sizeof(msg), "not ok - still in stage '%s' after the watchdog's time\n",
			 stage);

	(void)sig;
	if (write(1, msg, n) < 0)
		_exit(3);
	_exit(3);
}
static volatile sig_atomic_t in_probe;

static void on_fault(int sig)
{
	if (in_probe)
		siglongjmp(bus_jmp, sig);
	_exit(128 + sig);
}

/* Read the page's seq at @p; 0 and *@sig set if the access faulted. */
static unsigned int touch(const void *p, int *sig)
{
	unsigned int v = 0;
	int s;

	*sig = 0;
	s = sigsetjmp(bus_jmp, 1);
	if (s) {
		in_probe = 0;
		*sig = s;
		return 0;
	}
	in_probe = 1;
	v = ((const volatile struct dlparams_page *)p)->seq;
	in_probe = 0;
	return v;
}

static void *map_page(int fd)
{
	return mmap(NULL, PG, PROT_READ, MAP_SHARED, fd, 0);
}

/* A free address to move to: reserve a page, then release it. */
static void *free_address(void)
{
	void *p = mmap(NULL, PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p, PG);
	return p;
}

struct road_counts {
	long rounds, dofork_ok, dofork_refused, forks, moves, zaps, protects,
	     busy, grow_refused, dontunmap_refused, faults, unexpected;
	int dofork_errno;
};

/* read the page at @p: a fault is counted against the road */
static void count_fault(struct road_counts *c, const void *p)
{
	int sig;

	touch(p, &sig);
	if (sig)
		c->faults++;
}

static void unexpected(struct road_counts *c, const char *what, int err)
{
	if (c->unexpected++ < 5)
		tap_diag("unexpected: %s: %s", what, strerror(err));
}

/* fork with the mapping inherited; the child exits first or unmaps first */
static void road_fork(struct road_counts *c, int fd, int child_unmaps)
{
	void *p = map_page(fd);
	pid_t pid;
	int st, sig, inherited;

	if (p == MAP_FAILED) {
		unexpected(c, "mmap", errno);
		return;
	}
	inherited = madvise(p, PG, MADV_DOFORK) == 0;
	if (inherited) {
		c->dofork_ok++;
	} else {
		c->dofork_refused++;
		c->dofork_errno = errno;
	}
	pid = fork();
	if (pid == 0) {
		/* not inherited (VM_DONTCOPY): the address is unmapped here */
		touch(p, &sig);
		if (!inherited)
			_exit(sig == SIGSEGV ? 0 : 12);
		if (sig)
			_exit(10);
		if (child_unmaps && munmap(p, PG))
			_exit(11);
		_exit(0);
	}
	if (pid < 0) {
		unexpected(c, "fork", errno);
	} else {
		waitpid(pid, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			if (c->unexpected < 5)
				tap_diag("child status 0x%x", st);
			unexpected(c, "child", EIO);
		}
		c->forks++;
	}
	count_fault(c, p);
	if (munmap(p, PG))
		unexpected(c, "munmap", errno);
}

static void road_mremap(struct road_counts *c, int fd)
{
	void *p = map_page(fd), *to = free_address(), *q;

	if (p == MAP_FAILED || !to) {
		unexpected(c, "mmap", errno);
		return;
	}
	q = mremap(p, PG, PG, MREMAP_MAYMOVE | MREMAP_FIXED, to);
	if (q == MAP_FAILED) {
		unexpected(c, "mremap move", errno);
		munmap(p, PG);
		return;
	}
	c->moves += q == to;
	count_fault(c, q);
	/* grow: refused (VM_DONTEXPAND) */
	if (mremap(q, PG, 2 * PG, MREMAP_MAYMOVE) == MAP_FAILED)
		c->grow_refused++;
	else
		unexpected(c, "mremap grow accepted", 0);
#ifdef MREMAP_DONTUNMAP
	{
		void *r = mremap(q, PG, PG, MREMAP_MAYMOVE | MREMAP_DONTUNMAP);

		if (r == MAP_FAILED)
			c->dontunmap_refused++;
		else
			munmap(r, PG);	/* a kernel that allows it: a copy */
	}
#endif
	if (munmap(q, PG))
		unexpected(c, "munmap", errno);
}

static void road_zap_protect(struct road_counts *c, int fd)
{
	void *p = map_page(fd), *p2;

	if (p == MAP_FAILED) {
		unexpected(c, "mmap", errno);
		return;
	}
	if (madvise(p, PG, MADV_DONTNEED))
		unexpected(c, "MADV_DONTNEED", errno);
	else
		c->zaps++;
	count_fault(c, p);
	if (mprotect(p, PG, PROT_WRITE) == 0)
		unexpected(c, "mprotect PROT_WRITE accepted", 0);
	if (mprotect(p, PG, PROT_NONE) || mprotect(p, PG, PROT_READ))
		unexpected(c, "mprotect", errno);
	else
		c->protects++;
	count_fault(c, p);
	/* one page per thread */
	p2 = map_page(fd);
	if (p2 == MAP_FAILED && errno == EBUSY)
		c->busy++;
	else if (p2 != MAP_FAILED)
		munmap(p2, PG);
	if (munmap(p, PG))
		unexpected(c, "munmap", errno);
}

static int roads(int rounds)
{
	struct road_counts c = { 0 };
	struct sigaction sa = { .sa_handler = on_fault };
	int fd, i;

	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	fd = open(DLPARAMS_DEVICE, O_RDONLY | O_CLOEXEC);
	tap(fd >= 0, "open %s as uid %d", DLPARAMS_DEVICE, (int)getuid());
	if (fd < 0)
		return 1;
	for (i = 0; i < rounds; i++) {
		road_fork(&c, fd, 0);
		road_fork(&c, fd, 1);
		road_mremap(&c, fd);
		road_zap_protect(&c, fd);
		c.rounds++;
	}
	close(fd);
	tap_diag("rounds %ld: MADV_DOFORK accepted %ld, refused %ld (%s); forks %ld, moves %ld, zaps %ld, mprotect cycles %ld",
		 c.rounds, c.dofork_ok, c.dofork_refused,
		 c.dofork_refused ? strerror(c.dofork_errno) : "-",
		 c.forks, c.moves, c.zaps, c.protects);
	tap(c.unexpected == 0, "every road behaved as documented (%ld unexpected results)", c.unexpected);
	tap(c.faults == 0, "the page stayed readable after every operation (%ld faults)", c.faults);
	tap(c.forks == 2L * rounds, "%ld forks with the mapping", c.forks);
	tap(c.moves == rounds, "%ld of %d mremap moves landed at the requested address", c.moves, rounds);
	tap(c.dofork_ok + c.dofork_refused == 2L * rounds &&
	    (c.dofork_refused == 0 || c.dofork_ok == 0),
	    "MADV_DOFORK answered the same way every time");
	tap(c.zaps == rounds && c.protects == rounds, "MADV_DONTNEED and mprotect cycles done");
	tap(c.grow_refused == rounds, "growing the mapping refused (%ld)", c.grow_refused);
	tap(c.busy == rounds, "a second mmap by the same thread: EBUSY (%ld)", c.busy);
	return 0;
}

static int drop_to(int uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return -errno;
	return 0;
}

/* --- a deadline thread's page --------------------------------------------- */

struct snap {
	struct dlparams_page v;
};

static void read_page(const void *p, struct dlparams_page *out)
{
	const volatile struct dlparams_page *pg = p;
	unsigned long tries = 0;
	unsigned int s;

	do {
		s = pg->seq;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		memcpy(out, (const void *)pg, sizeof(*out));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		/* a writer holds the counter odd for a few stores: never this long */
		if (++tries == 100000000UL) {
			tap(0, "page sequence counter stuck at %u", s);
			_exit(4);
		}
	} while ((s & 1) || s != pg->seq);
}

/* sleep a few times: each sleep switches the thread out and in */
static void switches(void)
{
	int i;

	for (i = 0; i < 3; i++)
		usleep(2000);
}

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * SCHED_DEADLINE with SCHED_FLAG_RESET_ON_FORK: a deadline task may not
 * fork or create threads otherwise (EAGAIN); its children start as
 * SCHED_OTHER.
 */
static int become_deadline(void)
{
	struct dl_sched_attr a = {
		.size = sizeof(a), .sched_policy = SCHED_DEADLINE,
		.sched_flags = 1,	/* SCHED_FLAG_RESET_ON_FORK */
		.sched_runtime = 2000000, .sched_deadline = 10000000,
		.sched_period = 10000000,
	};

	return syscall(SYS_sched_setattr, 0, &a, 0) ? -errno : 0;
}

/* @tid (0: this thread) to SCHED_OTHER */
static int to_other(pid_t tid)
{
	struct sched_param sp = { 0 };

	return sched_setscheduler(tid, SCHED_OTHER, &sp) ? -errno : 0;
}

/*
 * Leaving SCHED_DEADLINE and coming back: the kernel can strand the thread.
 * A thread whose budget has run out when the switch out accounts it leaves
 * throttled, with its replenishment timer armed. The timer fires while the
 * thread is not a deadline task and does nothing (dl_throttled stays set);
 * the inactive timer that would clear it at the 0-lag instant is cancelled
 * by the switch back; and the enqueue skips a throttled entity without a
 * replenishment. The thread is then runnable and on no run queue: it never
 * runs again, and no signal, SIGKILL included, can end it. Seen on Debian's
 * 7.3 under TCG (a vCPU descheduled for a few ms overruns a 2 ms budget)
 * without schedlab loaded: 22 of 300 cycles of leave, 12 ms asleep and
 * return stranded the thread (docs/dlparams.md).
 *
 * So the test leaves with a fresh budget (sched_yield() ends the current
 * one; the thread comes back at the start of its next period), and comes
 * back with a rescuer watching: a thread stranded for RESCUE_AFTER_MS is
 * switched to SCHED_OTHER from outside (which makes it runnable again) and
 * the return is retried after its 0-lag instant has passed. A rescue is
 * reported, not failed: it is the kernel's bug, not schedlab's.
 */
#define RESCUE_AFTER_MS 5000

static int leave_deadline(void)
{
	sched_yield();
	return to_other(0);
}

struct rescuer {
	pid_t tid;
	volatile int back;	/* the return to SCHED_DEADLINE completed */
	int rescued;
};

static void *rescue(void *arg)
{
	struct rescuer *r = arg;
	int ms;

	for (ms = 0; ms < RESCUE_AFTER_MS && !r->back; ms += 10)
		usleep(10000);
	if (!r->back)
		r->rescued = to_other(r->tid) == 0;
	return NULL;
}

static int return_to_deadline(void)
{
	int tries, ret = -EAGAIN;

	for (tries = 0; tries < 3; tries++) {
		struct rescuer r = { .tid = gettid() };
		pthread_t th;

		if (pthread_create(&th, NULL, rescue, &r))
			return -EAGAIN;
		ret = become_deadline();
		r.back = 1;
		pthread_join(th, NULL);
		if (!r.rescued)
			return ret;
		tap_diag("the kernel stranded this thread on its return to SCHED_DEADLINE (a stale throttle): rescued after %d ms, retrying",
			 RESCUE_AFTER_MS);
	}
	return ret;
}

struct mapper {
	int fd, ret;
	struct dlparams_page v;
};

/* a thread that is not SCHED_DEADLINE maps a page while the feature is off */
static void *map_while_off(void *arg)
{
	struct mapper *m = arg;
	void *p = map_page(m->fd);

	if (p == MAP_FAILED) {
		m->ret = -errno;
		return NULL;
	}
	read_page(p, &m->v);
	munmap(p, PG);
	m->ret = 0;
	return NULL;
}

static int deadline(const char *enabled)
{
	struct dlparams_page a, b;
	struct mapper m = { 0 };
	pthread_t th;
	unsigned int tid = gettid();
	void *p, *q, *to;
	int fd, ret, pfd[2], qfd[2];
	pid_t pid;

	ret = become_deadline();
	tap(ret == 0, "SCHED_DEADLINE 2/10 ms (%s)", ret ? strerror(-ret) : "ok");
	if (ret)
		return 1;
	fd = open(DLPARAMS_DEVICE, O_RDONLY | O_CLOEXEC);
	p = fd < 0 ? MAP_FAILED : map_page(fd);
	tap(p != MAP_FAILED, "page mapped");
	if (p == MAP_FAILED)
		return 1;
	switches();
	read_page(p, &a);
	tap(a.version == DLPARAMS_PAGE_VERSION && a.tid == tid &&
	    !(a.flags & DLPARAMS_F_NOT_UPDATED) && a.dl_runtime_ns == 2000000,
	    "published for this thread (tid %u, updates %u, flags 0x%x)", a.tid, a.updates, a.flags);

	stage = "mremap";
	/* moved: the same page, still refreshed */
	to = free_address();
	q = mremap(p, PG, PG, MREMAP_MAYMOVE | MREMAP_FIXED, to);
	tap(q == to, "mremap moved the page");
	if (q != MAP_FAILED)
		p = q;
	switches();
	read_page(p, &b);
	tap(b.tid == tid && b.updates > a.updates,
	    "after the move: refreshed (updates %u -> %u)", a.updates, b.updates);

	stage = "MADV_DONTNEED";
	/* zapped: mapped again at the next access, the same page */
	madvise(p, PG, MADV_DONTNEED);
	read_page(p, &a);
	tap(a.tid == tid && a.updates >= b.updates,
	    "after MADV_DONTNEED: the same page (updates %u -> %u)", b.updates, a.updates);

	stage = "fork";
	/* inherited (where the kernel allows it): the child sees the parent thread's page */
	if (madvise(p, PG, MADV_DOFORK)) {
		tap_diag("MADV_DOFORK refused here (%s): no inherited page to check", strerror(errno));
	} else if (pipe(pfd) == 0 && pipe(qfd) == 0) {
		char ch = 0;

		pid = fork();
		if (pid == 0) {
			struct dlparams_page c0, c1;

			close(qfd[0]);
			close(pfd[1]);
			read_page(p, &c0);
			if (write(qfd[1], &ch, 1) != 1 || read(pfd[0], &ch, 1) != 1)
				_exit(3);
			read_page(p, &c1);
			_exit(c0.tid == tid && c1.tid == tid && c1.updates > c0.updates ? 0 : 4);
		}
		/* the child's ends closed here: a child that dies cannot leave us waiting */
		close(qfd[1]);
		close(pfd[0]);
		if (pid > 0 && read(qfd[0], &ch, 1) == 1) {
			switches();
			ret = write(pfd[1], &ch, 1);
		}
		if (pid > 0)
			waitpid(pid, &ret, 0);
		else
			ret = -1;
		tap(pid > 0 && WIFEXITED(ret) && WEXITSTATUS(ret) == 0,
		    "a child inheriting the page sees the parent thread's updates (exit %d)",
		    WIFEXITED(ret) ? WEXITSTATUS(ret) : -1);
		close(pfd[1]);
		close(qfd[0]);
	}

	stage = "leaving SCHED_DEADLINE";
	/* leaves SCHED_DEADLINE: marked at its next switch, running cleared */
	ret = leave_deadline();
	switches();
	read_page(p, &a);
	tap(ret == 0 && (a.flags & DLPARAMS_F_NOT_UPDATED) && !(a.flags & DLPARAMS_F_RUNNING) &&
	    a.dl_runtime_ns == 2000000,
	    "left SCHED_DEADLINE: NOT_UPDATED, not RUNNING, last values kept (flags 0x%x)", a.flags);
	switches();
	read_page(p, &b);
	tap(b.updates == a.updates, "no further updates while not SCHED_DEADLINE (%u, %u)",
	    a.updates, b.updates);
	stage = "back to SCHED_DEADLINE";
	ret = return_to_deadline();
	switches();
	read_page(p, &a);
	tap(ret == 0 && !(a.flags & DLPARAMS_F_NOT_UPDATED) && a.updates > b.updates,
	    "back in SCHED_DEADLINE: refreshed again, mark cleared (flags 0x%x)", a.flags);

	stage = "disable";
	/* the feature disabled: every page marked at once */
	ret = write_file(enabled, "0");
	read_page(p, &a);
	tap(ret == 0 && (a.flags & DLPARAMS_F_NOT_UPDATED) && !(a.flags & DLPARAMS_F_RUNNING),
	    "feature disabled: the page says NOT_UPDATED at once (flags 0x%x)", a.flags);
	switches();
	read_page(p, &b);
	tap(b.updates == a.updates, "no updates while disabled");
	stage = "mapping while disabled";
	/* an fd opened before: a page mapped now is marked from the start */
	m.fd = fd;
	pthread_create(&th, NULL, map_while_off, &m);
	pthread_join(th, NULL);
	tap(m.ret == 0 && (m.v.flags & DLPARAMS_F_NOT_UPDATED),
	    "mapped while disabled: NOT_UPDATED from the start (ret %d, flags 0x%x)", m.ret, m.v.flags);
	stage = "enable";
	ret = write_file(enabled, "1");
	switches();
	read_page(p, &a);
	tap(ret == 0 && !(a.flags & DLPARAMS_F_NOT_UPDATED) && a.updates > b.updates,
	    "re-enabled: refreshed again (flags 0x%x)", a.flags);
	munmap(p, PG);
	close(fd);
	return 0;
}


/* --- who may read whose values -------------------------------------------- */

static int ask_tid(int fd, pid_t tid, struct dlparams *p)
{
	memset(p, 0xa5, sizeof(*p));
	p->size = sizeof(*p);
	p->tid = tid;
	return ioctl(fd, DLPARAMS_IOC_GET_TID, p) ? -errno : 0;
}

/* the owner: SCHED_DEADLINE, then uid 1001; reports on @rep, waits on @go */
static void owner(int rep, int go)
{
	struct dlparams a, b;
	int fd, ok_read, ok_ioctl, ok_map;
	pid_t tid = gettid();
	char ch;
	void *p;

	if (become_deadline() || drop_to(1001))
		_exit(3);
	fd = open(DLPARAMS_DEVICE, O_RDONLY);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	ok_read = fd >= 0 && read(fd, &a, sizeof(a)) == sizeof(a) && a.tid == (unsigned int)tid;
	ok_ioctl = fd >= 0 && ask_tid(fd, tid, &b) == 0 && b.tid == (unsigned int)tid;
	p = fd >= 0 ? map_page(fd) : MAP_FAILED;
	switches();
	ok_map = p != MAP_FAILED && ((const struct dlparams_page *)p)->tid == (unsigned int)tid;
	ch = ok_read | ok_ioctl << 1 | ok_map << 2;
	if (write(rep, &tid, sizeof(tid)) != sizeof(tid) || write(rep, &ch, 1) != 1)
		_exit(4);
	if (read(go, &ch, 1) < 0)
		_exit(5);
	_exit(0);
}

static int access_rules(void)
{
	int rep[2], go[2], st, fd, ret;
	struct dlparams v;
	pid_t pid, tid = 0, other;
	char ch = 0;

	if (pipe(rep) || pipe(go))
		return 1;
	pid = fork();
	if (pid == 0)
		owner(rep[1], go[0]);
	if (read(rep[0], &tid, sizeof(tid)) != sizeof(tid) || read(rep[0], &ch, 1) != 1) {
		tap(0, "the owner (SCHED_DEADLINE, uid 1001) started");
		return 1;
	}
	tap(ch & 1, "uid 1001 reads its own values with read()");
	tap(ch & 2, "uid 1001 reads its own values with ioctl() by its TID");
	tap(ch & 4, "uid 1001's page describes itself");
	/* another user, another process */
	other = fork();
	if (other == 0) {
		struct dlparams p;
		int e;

		if (drop_to(1000))
			_exit(3);
		fd = open(DLPARAMS_DEVICE, O_RDONLY);
		e = fd < 0 ? -1 : ask_tid(fd, tid, &p);
		/* nothing written: the fill pattern past size and tid */
		_exit((e == -EPERM || e == -EACCES) && p.cpu == (int)0xa5a5a5a5 ? 0 : 2);
	}
	waitpid(other, &st, 0);
	tap(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "uid 1000 asking for uid 1001's thread: EPERM/EACCES, buffer untouched (status %d)",
	    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	fd = open(DLPARAMS_DEVICE, O_RDONLY);
	ret = fd < 0 ? -errno : ask_tid(fd, tid, &v);
	tap(ret == 0 && v.tid == (unsigned int)tid && v.dl_runtime_ns == 2000000,
	    "root reads uid 1001's thread (%s)", ret ? strerror(-ret) : "ok");
	if (fd >= 0)
		close(fd);
	if (write(go[1], &ch, 1) != 1)
		return 1;
	waitpid(pid, &st, 0);
	return 0;
}

static int mapper(int seconds)
{
	struct dlparams_page v;
	long rounds = 0, mapped = 0, bad = 0;
	uint64_t end = dl_mono() + (uint64_t)seconds * 1000000000ULL;
	int fd, ret;
	void *p;

	ret = become_deadline();
	tap(ret == 0, "mapper is SCHED_DEADLINE (%s)", ret ? strerror(-ret) : "ok");
	while ((uint64_t)dl_mono() < end) {
		rounds++;
		fd = open(DLPARAMS_DEVICE, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			usleep(5000);
			continue;
		}
		p = map_page(fd);
		close(fd);	/* the mapping keeps the file */
		if (p == MAP_FAILED) {
			usleep(5000);
			continue;
		}
		mapped++;
		switches();
		read_page(p, &v);
		if (v.version == DLPARAMS_PAGE_VERSION && v.tid != (unsigned int)gettid())
			bad++;
		munmap(p, PG);
		usleep(5000);
	}
	tap_diag("mapper: %ld rounds, %ld with a page", rounds, mapped);
	tap(bad == 0, "mapper: every published page described the mapping thread (%ld not)", bad);
	return 0;
}

int main(int argc, char **argv)
{
	int uid = -1, ret;

	if (argc > 2 && !strcmp(argv[1], "-u")) {
		uid = atoi(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (uid >= 0) {
		ret = drop_to(uid);
		tap(ret == 0, "dropped to uid %d", uid);
		if (ret)
			return 1;
	}
	signal(SIGALRM, on_alarm);
	if (getenv("DLPARAMS_VMA_WATCHDOG_S"))
		alarm(atoi(getenv("DLPARAMS_VMA_WATCHDOG_S")));
	if (argc == 3 && !strcmp(argv[1], "roads"))
		ret = roads(atoi(argv[2]));
	else if (argc == 3 && !strcmp(argv[1], "deadline"))
		ret = deadline(argv[2]);
	else if (argc == 2 && !strcmp(argv[1], "access"))
		ret = access_rules();
	else if (argc == 3 && !strcmp(argv[1], "mapper"))
		ret = mapper(atoi(argv[2]));
	else {
		fprintf(stderr, "usage: %s [-u UID] roads ROUNDS | deadline SYSFS_ENABLED | access | mapper SECONDS\n", argv[0]);
		return 2;
	}
	return ret || tap_failures ? 1 : 0;
}
