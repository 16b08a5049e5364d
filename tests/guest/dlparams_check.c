// SPDX-License-Identifier: GPL-2.0
/*
 * dlparams_check: in-guest tests of /dev/dlparams ("ok - ..." / "not ok - ..."
 * lines on stdout, tests/lib/tap.h).
 *
 *   dlparams_check accuracy SAMPLES   every path against a reference, on a
 *                                     SCHED_DEADLINE thread spinning through
 *                                     its budget on the DL CPU
 *   dlparams_check remote SAMPLES     a DL thread on the DL CPU read from
 *                                     CPU 0
 *
 * The DL CPU is DLPARAMS_CPU (default 1), the only CPU of the cpuset
 * partition DLPARAMS_CGROUP (t50_dlparams.sh).
 *   dlparams_check errors             every error path
 *
 * The reference: sched_getattr(..., SCHED_GETATTR_FLAG_DL_DYNAMIC) where the
 * kernel has it (7.x). Elsewhere the thread's own CPU time
 * (CLOCK_THREAD_CPUTIME_ID): within one period the leftover runtime must
 * fall exactly as fast as CPU time is consumed, and successive deadlines
 * must be whole periods apart.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../tools/lib/dlparams.h"
#include "../../tools/lib/dl_util.h"
#include "../lib/tap.h"

#define FLAG_DL_DYNAMIC 0x01
#define US 1000LL
#define MS 1000000LL
#define TOLERANCE_NS (100 * US)
/* samples whose reference read took longer than this are not compared */
#define MAX_WINDOW_NS (200 * US)



static int64_t cputime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

/*
 * SCHED_DEADLINE tasks must be allowed on their whole root domain, so a DL
 * thread cannot simply be pinned to the DL CPU. The test script makes a
 * cgroup whose cpuset is an isolated partition of that CPU and names it in
 * DLPARAMS_CGROUP; dl_join_cgroup() puts the process on it alone.
 */

/* sched_getattr(DL_DYNAMIC): 0 and the values, or -errno */
static int dl_dynamic(pid_t tid, int64_t *runtime, uint64_t *deadline)
{
	struct dl_sched_attr a;

	memset(&a, 0, sizeof(a));
	if (syscall(SYS_sched_getattr, tid, &a, sizeof(a), FLAG_DL_DYNAMIC))
		return -errno;
	*runtime = (int64_t)a.sched_runtime;
	*deadline = a.sched_deadline;
	return 0;
}

static int64_t absll(int64_t v) { return v < 0 ? -v : v; }

/* --- accuracy ---------------------------------------------------------- */

#define R_NS (10 * MS)
#define P_NS (40 * MS)

struct path_err {
	const char *name;
	int64_t max_rt, max_dl, max_dl_raw;
	int stale;		/* samples flagged DLPARAMS_F_STALE, not compared */
	int n;
};

static void account(struct path_err *e, int64_t drt, int64_t ddl)
{
	if (absll(drt) > e->max_rt)
		e->max_rt = absll(drt);
	if (absll(ddl) > e->max_dl)
		e->max_dl = absll(ddl);
	e->n++;
}

static int accuracy(int samples)
{
	struct dlparams_handle h;
	struct path_err err[3] = { { .name = "mmap fast path" }, { .name = "read()" }, { .name = "ioctl(TID)" } };
	int have_dyn, i, got = 0, after_replenish = 0, periods = 0, ret;
	int64_t r0 = 0, last_sample = 0;
	uint64_t cur_deadline = 0, d0 = 0;
	int64_t cpu0 = 0, max_period_err = 0;
	int ratio_n = 0;
	int64_t cb[3], ca[3], slack0 = 0, max_slack = 0;
	int64_t rt_ref;
	uint64_t dl_ref;

	dl_join_cgroup();
	ret = dl_become(R_NS, P_NS, P_NS);
	tap(ret == 0, "sched_setattr(SCHED_DEADLINE, 10/40/40 ms): %s", strerror(-ret));
	if (ret)
		return 1;
	ret = dlparams_open(&h, DLPARAMS_OPEN_MAP);
	tap(ret == 0, "open and mmap /dev/dlparams: %s", strerror(-ret));
	if (ret)
		return 1;
	have_dyn = dl_dynamic(0, &rt_ref, &dl_ref) == 0;
	printf("# reference: %s\n", have_dyn ? "sched_getattr(SCHED_GETATTR_FLAG_DL_DYNAMIC)" :
	       "thread CPU time and period boundaries (no DL_DYNAMIC on this kernel)");

	while (got < samples) {
		struct dlparams v[3];
		int64_t t0, t1;
		int new_period;

		/* spread samples: one about every 700 us of spinning */
		if (dl_mono() - last_sample < 700 * US)
			continue;
		t0 = dl_mono();
		if (have_dyn && dl_dynamic(0, &rt_ref, &dl_ref))
			continue;
		t1 = dl_mono();
		/*
		 * Each path bracketed by two reads of the thread's CPU time:
		 * within a period, runtime + CPU time is constant.
		 */
		for (i = 0; i < 3; i++) {
			int r;

			cb[i] = cputime();
			r = i == 0 ? dlparams_self_fast(&h, &v[0]) :
			    i == 1 ? dlparams_self_read(&h, &v[1]) :
				     dlparams_tid(&h, gettid(), &v[2]);
			ca[i] = cputime();
			if (r) {
				tap(0, "a path failed: %s", strerror(-r));
				return 1;
			}
		}
		last_sample = dl_mono();
		new_period = v[1].deadline_ns != cur_deadline &&
			     absll((int64_t)(v[1].deadline_ns - cur_deadline)) > 5 * MS;
		if (new_period) {
			if (cur_deadline) {
				/* deadlines move by whole periods */
				int64_t d = v[1].deadline_ns - cur_deadline;
				int64_t off = d % P_NS;

				if (off > P_NS / 2)
					off -= P_NS;
				if (absll(off) > max_period_err)
					max_period_err = absll(off);
				after_replenish++;
			}
			cur_deadline = v[1].deadline_ns;
			periods++;
			r0 = v[1].runtime_left_ns;
			d0 = v[1].now_ns;
			cpu0 = (cb[1] + ca[1]) / 2;
			slack0 = (ca[1] - cb[1]) / 2;
		}
		for (i = 0; i < 3; i++) {
			/* as of the last accounting, by definition (t50 bounds how often) */
			if (v[i].flags & DLPARAMS_F_STALE) {
				err[i].stale++;
				continue;
			}
			if (have_dyn) {
				/*
				 * The syscall's value holds at some instant in
				 * [t0, t1]; ours at now_ns. While running,
				 * runtime falls 1:1 with time.
				 */
				int64_t mid = (t0 + t1) / 2;
				int64_t ours_at_mid = v[i].runtime_left_ns + ((int64_t)v[i].now_ns - mid);
				int64_t slack = (t1 - t0) / 2;
				int64_t drt = absll(ours_at_mid - rt_ref), ddl;

				/* a reference call that took long says nothing: skip it */
				if (slack > MAX_WINDOW_NS)
					continue;
				drt = drt > slack ? drt - slack : 0;
				if (slack > max_slack)
					max_slack = slack;
				if (v[i].deadline_ns != dl_ref && absll((int64_t)(v[i].deadline_ns - dl_ref)) > 5 * MS)
					continue;	/* a replenishment between the two reads */
				/*
				 * The kernel converts its deadline to
				 * CLOCK_MONOTONIC from two clock reads made
				 * somewhere in [t0, t1]: only what exceeds
				 * that window is a disagreement.
				 */
				ddl = absll((int64_t)(v[i].deadline_ns - dl_ref));
				if (ddl > err[i].max_dl_raw)
					err[i].max_dl_raw = ddl;
				account(&err[i], drt, ddl > t1 - t0 ? ddl - (t1 - t0) : 0);
			} else if (!new_period &&
				   absll((int64_t)(v[i].deadline_ns - cur_deadline)) < 5 * MS) {
				/* runtime consumed since the period's first sample = CPU time */
				int64_t used = r0 - v[i].runtime_left_ns;
				int64_t cpu = (cb[i] + ca[i]) / 2 - cpu0;
				int64_t slack = (ca[i] - cb[i]) / 2 + slack0;
				int64_t d = absll(used - cpu);

				if (slack > MAX_WINDOW_NS)
					continue;
				if (slack > max_slack)
					max_slack = slack;
				if (absll((int64_t)(v[i].deadline_ns - cur_deadline)) > err[i].max_dl_raw)
					err[i].max_dl_raw = absll((int64_t)(v[i].deadline_ns - cur_deadline));
				account(&err[i], d > slack ? d - slack : 0,
					(int64_t)(v[i].deadline_ns - cur_deadline));
				if (i == 1 && cpu > 5 * MS && ratio_n < 8) {
					printf("# runtime used %lld us vs CPU time %lld us in one period (ratio %.4f)\n",
					       (long long)used / US, (long long)cpu / US, (double)used / cpu);
					ratio_n++;
				}
			}
		}
		(void)d0;
		got++;
	}
	printf("# runtime differences are what exceeds the reference's own measurement window (half its duration, at most %lld us in the samples used; samples with a window over %lld us are not compared); deadline differences what exceeds the whole window (raw: without that)\n",
	       (long long)max_slack / US, (long long)MAX_WINDOW_NS / US);
	for (i = 0; i < 3; i++) {
		printf("# %-15s %d samples, max |runtime diff| %lld us, max |deadline diff| %lld us (%lld us raw); %d flagged stale\n",
		       err[i].name, err[i].n, (long long)err[i].max_rt / US,
		       (long long)err[i].max_dl / US, (long long)err[i].max_dl_raw / US, err[i].stale);
		tap(err[i].n >= samples / 2 && err[i].max_rt <= TOLERANCE_NS && err[i].max_dl <= TOLERANCE_NS,
		    "%s agrees with the reference within 100 us over %d samples (runtime: %lld us beyond the reference's own window of <= %lld us; deadline: %lld us)",
		    err[i].name, err[i].n, (long long)err[i].max_rt / US, (long long)max_slack / US,
		    (long long)err[i].max_dl / US);
	}
	tap(periods >= 5 && after_replenish >= 4, "samples spread over %d periods, %d right after a replenishment",
	    periods, after_replenish);
	tap(max_period_err <= TOLERANCE_NS, "successive deadlines are whole periods apart (max error %lld us)",
	    (long long)max_period_err / US);
	dlparams_close(&h);
	return 0;
}

/* the DL threads' CPU: DLPARAMS_CPU, else 1 */
static int dl_cpu(void)
{
	const char *c = getenv("DLPARAMS_CPU");

	return c && *c ? atoi(c) : 1;
}

/* --- remote: a DL thread on the DL CPU read from CPU 0 -------------------- */

struct shared {
	volatile int stop;
	volatile pid_t tid;
	volatile unsigned int seq;
	struct dlparams self;
	long switches;		/* the worker's context switches when it read self */
};

/* A child process on the DL CPU (its partition), SCHED_DEADLINE, publishing its own values. */
static void remote_worker(struct shared *sh)
{
	struct dlparams_handle h;
	struct dlparams v;

	dl_join_cgroup();
	if (dl_become(R_NS, P_NS, P_NS) || dlparams_open(&h, 0))
		_exit(1);
	sh->tid = gettid();
	while (!sh->stop) {
		struct rusage ru;

		if (dlparams_self_read(&h, &v))
			continue;
		getrusage(RUSAGE_THREAD, &ru);
		__atomic_add_fetch(&sh->seq, 1, __ATOMIC_RELEASE);
		sh->self = v;
		sh->switches = ru.ru_nvcsw + ru.ru_nivcsw;
		__atomic_add_fetch(&sh->seq, 1, __ATOMIC_RELEASE);
	}
	_exit(0);
}

static int remote(int samples)
{
	struct shared *sh;
	struct dlparams_handle h;
	pid_t child;
	int i, n = 0, on_dl_cpu = 0, running = 0, tries = 0, cpu = dl_cpu();
	int64_t max_err = 0;
	long sw1, sw2, k;
	int switched_out = 0, stale = 0;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || dlparams_open(&h, 0)) {
		tap(0, "set-up");
		return 1;
	}
	memset(sh, 0, sizeof(*sh));
	child = fork();
	if (child == 0)
		remote_worker(sh);
	pin(0);
	while (!sh->tid && tries++ < 5000)
		usleep(1000);
	tap(sh->tid != 0, "SCHED_DEADLINE worker started on CPU %d (tid %d)", cpu, sh->tid);
	for (i = 0; sh->tid && i < samples * 20 && n < samples; i++) {
		struct dlparams theirs, ours;
		unsigned int s1, s2;

		usleep(2000);
		do {
			s1 = __atomic_load_n(&sh->seq, __ATOMIC_ACQUIRE);
			theirs = sh->self;
			sw1 = sh->switches;
			s2 = __atomic_load_n(&sh->seq, __ATOMIC_ACQUIRE);
		} while ((s1 & 1) || s1 != s2);
		if (dlparams_tid(&h, sh->tid, &ours))
			continue;
		/*
		 * Between the worker's read and ours its runtime fell one for
		 * one with time, provided it kept the CPU: wait for its next
		 * publication and drop the pair if it was switched out.
		 */
		for (k = 0; k < 100000 && __atomic_load_n(&sh->seq, __ATOMIC_ACQUIRE) == s2; k++)
			;
		do {
			s1 = __atomic_load_n(&sh->seq, __ATOMIC_ACQUIRE);
			sw2 = sh->switches;
			s2 = __atomic_load_n(&sh->seq, __ATOMIC_ACQUIRE);
		} while ((s1 & 1) || s1 != s2);
		if (sw2 != sw1) {
			switched_out++;
			continue;
		}
		/* as of the last accounting, by definition (t50 bounds how often) */
		if (ours.flags & DLPARAMS_F_STALE) {
			stale++;
			continue;
		}
		on_dl_cpu += ours.cpu == cpu;
		running += !!(ours.flags & DLPARAMS_F_RUNNING);
		/* compare only when both describe one period, both running */
		if (absll((int64_t)(ours.deadline_ns - theirs.deadline_ns)) > 5 * MS ||
		    !(ours.flags & theirs.flags & DLPARAMS_F_RUNNING))
			continue;
		{
			int64_t expect = theirs.runtime_left_ns - ((int64_t)ours.now_ns - (int64_t)theirs.now_ns);
			int64_t e = absll(ours.runtime_left_ns - expect);

			if (e > max_err)
				max_err = e;
		}
		n++;
	}
	sh->stop = 1;
	waitpid(child, NULL, 0);
	printf("# remote: %d comparable samples, max |runtime diff| %lld us; cpu==%d in %d, RUNNING in %d; %d pairs dropped (worker switched out between them), %d flagged stale\n",
	       n, (long long)max_err / US, cpu, on_dl_cpu, running, switched_out, stale);
	tap(n >= samples, "%d reads from CPU 0 of the DL thread running on CPU %d", n, cpu);
	tap(on_dl_cpu >= n && n > 0, "reported CPU is %d (%d)", cpu, on_dl_cpu);
	tap(max_err <= TOLERANCE_NS, "remote values agree with the thread's own within 100 us (%lld us)",
	    (long long)max_err / US);
	dlparams_close(&h);
	return 0;
}

/* --- errors --------------------------------------------------------------- */

static int errors(void)
{
	struct dlparams_handle h;
	struct dlparams p, pat;
	char small[16];
	int fd, pfd[2];
	pid_t child, victim;
	void *m;
	long r;

	if (dlparams_open(&h, 0)) {
		tap(0, "open");
		return 1;
	}
	fd = h.fd;
	memset(&pat, 0xa5, sizeof(pat));

	/* not SCHED_DEADLINE */
	p = pat; p.size = sizeof(p);
	r = read(fd, &p, sizeof(p));
	tap(r < 0 && errno == ENODATA, "read() by a SCHED_OTHER thread: ENODATA");
	p.size = pat.size;
	tap(!memcmp(&p, &pat, sizeof(p)), "buffer untouched on ENODATA");
	tap(dlparams_tid(&h, getpid(), &p) == -ENODATA, "ioctl on a SCHED_OTHER thread: ENODATA");

	/* sizes */
	r = read(fd, small, sizeof(small));
	tap(r < 0 && errno == EINVAL, "read() into a 16-byte buffer: EINVAL");
	p = pat; p.size = 8;
	r = read(fd, &p, sizeof(p));
	tap(r < 0 && errno == EINVAL, "size field 8 (< DLPARAMS_SIZE_VER0): EINVAL");
	p = pat; p.size = sizeof(p) + 64;
	r = read(fd, &p, sizeof(p));
	tap(r < 0 && errno == EINVAL, "size field larger than the buffer: EINVAL");
	tap(ioctl(fd, _IOWR(DLPARAMS_IOC_MAGIC, 7, struct dlparams), &p) < 0 && errno == ENOTTY,
	    "unknown ioctl: ENOTTY");
	tap(ioctl(fd, _IOWR('x', 1, int), &p) < 0 && errno == ENOTTY, "foreign ioctl: ENOTTY");
	{
		/* a later binary with a larger struct gets the prefix it knows */
		unsigned char big[96];
		struct dlparams *bp = (struct dlparams *)big;

		memset(big, 0xa5, sizeof(big));
		bp->size = sizeof(big);
		bp->tid = getpid();
		tap(ioctl(fd, _IOWR(DLPARAMS_IOC_MAGIC, 1, unsigned char[96]), big) < 0 &&
		    errno == ENODATA, "96-byte ioctl (later ABI) reaches the driver: ENODATA for SCHED_OTHER");
	}
	tap(dlparams_tid(&h, 0x3ffffff0, &p) == -ESRCH, "nonexistent TID: ESRCH");
	tap(dlparams_tid(&h, 0, &p) == -ESRCH, "TID 0: ESRCH");

	/* mmap rules */
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	/* the fd is read-only: the VFS refuses before the driver (EACCES) */
	tap(m == MAP_FAILED && (errno == EACCES || errno == EPERM), "writable mapping refused: %s", strerror(errno));
	m = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
	tap(m == MAP_FAILED && errno == EINVAL, "two-page mapping: EINVAL");
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	tap(m != MAP_FAILED, "one read-only page maps");
	tap(mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED && errno == EBUSY,
	    "second page for the same thread: EBUSY");
	tap(mprotect(m, 4096, PROT_READ | PROT_WRITE) < 0, "mprotect to writable refused");
	munmap(m, 4096);
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	tap(m != MAP_FAILED, "remapping after munmap works");
	munmap(m, 4096);

	/* permission: an unprivileged user cannot read a root DL thread */
	if (pipe(pfd))
		return 1;
	victim = fork();
	if (victim == 0) {
		char c;

		if (dl_become(2 * MS, 20 * MS, 20 * MS))
			_exit(1);
		close(pfd[1]);
		if (read(pfd[0], &c, 1) < 0)	/* sleeps until the parent closes */
			_exit(1);
		_exit(0);
	}
	close(pfd[0]);
	usleep(100000);
	tap(dlparams_tid(&h, victim, &p) == 0 && p.dl_runtime_ns == 2 * MS,
	    "root reads the root DL thread (runtime %llu ns)", (unsigned long long)p.dl_runtime_ns);
	child = fork();
	if (child == 0) {
		struct dlparams_handle h2;
		struct dlparams q = pat;
		int ret;

		if (setgid(65534) || setuid(65534))
			_exit(3);
		if (dlparams_open(&h2, 0))
			_exit(4);
		q.size = sizeof(q);
		q.tid = victim;
		ret = ioctl(h2.fd, DLPARAMS_IOC_GET_TID, &q) < 0 ? errno : 0;
		q.size = pat.size; q.tid = pat.tid;
		if (memcmp(&q, &pat, sizeof(q)))
			_exit(5);
		_exit(ret == EPERM || ret == EACCES ? 0 : 2);
	}
	{
		int st;

		waitpid(child, &st, 0);
		tap(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "user nobody reading the root DL thread: EPERM, buffer untouched (child status %d)",
		    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	}
	close(pfd[1]);
	waitpid(victim, NULL, 0);
	dlparams_close(&h);
	return 0;
}

int main(int argc, char **argv)
{
	int ret = 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "accuracy"))
		ret = accuracy(argc > 2 ? atoi(argv[2]) : 300);
	else if (argc >= 2 && !strcmp(argv[1], "remote"))
		ret = remote(argc > 2 ? atoi(argv[2]) : 50);
	else if (argc >= 2 && !strcmp(argv[1], "errors"))
		ret = errors();
	else
		fprintf(stderr, "usage: %s accuracy|remote|errors [N]\n", argv[0]);
	return ret || tap_failures ? 1 : 0;
}
