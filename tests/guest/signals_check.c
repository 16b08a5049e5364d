// SPDX-License-Identifier: GPL-2.0
/*
 * signals_check: the timed scenarios of tests/guest/t60_signals.sh. One
 * process forks the loads (pinned to CPU 1, with nice or SCHED_FIFO as
 * needed) and reads /sys/kernel/debug/schedlab/signals/tasks at precise
 * moments: under emulation a shell's commands take too long to time them.
 * Prints "ok - ..." / "not ok - ..." lines and "# ..." diagnostics; exit 1
 * if a check failed, 2 if the scenario could not run.
 *
 * usage: signals_check always|nice|duty|hog
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../lib/tap.h"

#define TASKS "/sys/kernel/debug/schedlab/signals/tasks"
#define LOAD_CPU 1



static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

enum load { SPIN, DUTY };

/* fork a load on LOAD_CPU: SPIN for ms (0: until killed), or DUTY run/period */
static pid_t spawn(const char *comm, int nice, int fifo, enum load kind, long a, long b)
{
	pid_t pid = fork();
	cpu_set_t set;

	if (pid)
		return pid;
	prctl(PR_SET_NAME, comm);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	CPU_ZERO(&set);
	CPU_SET(LOAD_CPU, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(3);
	if (nice && setpriority(PRIO_PROCESS, 0, nice))
		_exit(3);
	if (fifo) {
		struct sched_param sp = { .sched_priority = fifo };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			_exit(3);
	}
	if (kind == SPIN) {
		long long end = now_ns() + a * 1000000LL;

		while (!a || now_ns() < end)
			;
	} else {
		long long next = now_ns();

		for (;;) {
			long long end = thread_cpu_ns() + a * 1000000LL;
			struct timespec ts;

			while (thread_cpu_ns() < end)
				;
			next += b * 1000000LL;
			ts.tv_sec = next / 1000000000LL;
			ts.tv_nsec = next % 1000000000LL;
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
	}
	_exit(0);
}

static void stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

struct row {
	int found;
	char state[8];
	long util_avg, model, burst, waiting, time, err_max, err_n;
};

/* @pid's row of the tasks table, columns found by their header names */
static int read_row(pid_t pid, struct row *r)
{
	const char *want[] = { "pid", "state", "util_avg", "model", "burst", "waiting",
			       "time", "err_max", "err_n" };
	int idx[9] = { 0 }, ncols = 0, i;
	char line[512];
	FILE *f = fopen(TASKS, "r");

	memset(r, 0, sizeof(*r));
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *tok[32], *save = NULL, *t;
		int n = 0;

		for (t = strtok_r(line, " \t\n", &save); t && n < 32; t = strtok_r(NULL, " \t\n", &save))
			tok[n++] = t;
		if (!n || tok[0][0] == '#')
			continue;
		if (!strcmp(tok[0], "pid")) {
			for (i = 0; i < 9; i++) {
				int j;

				for (j = 0; j < n; j++)
					if (!strcmp(tok[j], want[i]))
						idx[i] = j;
			}
			ncols = n;
			continue;
		}
		if (!ncols || n < ncols || atoi(tok[idx[0]]) != pid)
			continue;
		r->found = 1;
		snprintf(r->state, sizeof(r->state), "%s", tok[idx[1]]);
		r->util_avg = atol(tok[idx[2]]);
		r->model = atol(tok[idx[3]]);
		r->burst = atol(tok[idx[4]]);
		r->waiting = atol(tok[idx[5]]);
		r->time = atol(tok[idx[6]]);
		r->err_max = atol(tok[idx[7]]);
		r->err_n = atol(tok[idx[8]]);
	}
	fclose(f);
	return 0;
}

static void show(const char *what, const struct row *r)
{
	printf("# %s: %s state %s util_avg %ld model %ld util_burst %ld waiting_avg %ld time %ld err_max %ld err_n %ld\n",
	       what, r->found ? "tracked" : "NOT FOUND", r->state, r->util_avg, r->model,
	       r->burst, r->waiting, r->time, r->err_max, r->err_n);
}

static long long sched_cpu_ns(pid_t pid)
{
	char path[64];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* an always-running task: the model against the kernel's util_avg */
static void always(void)
{
	pid_t p = spawn("sl_spin", 0, 0, SPIN, 0, 0);
	struct row r;

	msleep(2500);
	read_row(p, &r);
	show("always running, 2.5 s", &r);
	tap(r.err_n >= 30,
	    "always-running task: %ld samples compared with the kernel's util_avg at its last update, after the model's first 50 ms",
	    r.err_n);
	tap(r.found && r.err_max <= 30,
	    "the model tracks the kernel's util_avg within 3%% of 1024 at every sample (max |diff| %ld)",
	    r.err_max);
	tap(r.model >= 900 && r.util_avg >= 900, "both near 1024 after 2.5 s (model %ld, kernel %ld)",
	    r.model, r.util_avg);
	stop(p);
	msleep(100);
	read_row(p, &r);
	tap(!r.found, "the task is forgotten when it exits");
}

/* nice 0 and nice 10 on one CPU */
static void nice_pair(void)
{
	pid_t p0 = spawn("sl_nice0", 0, 0, SPIN, 0, 0);
	pid_t p10 = spawn("sl_nice10", 10, 0, SPIN, 0, 0);
	struct row a0, a10, b0, b10;

	msleep(1000);
	read_row(p0, &a0);
	read_row(p10, &a10);
	msleep(1500);
	read_row(p0, &b0);
	read_row(p10, &b10);
	show("nice 0 at 1 s", &a0);
	show("nice 10 at 1 s", &a10);
	show("nice 0 at 2.5 s", &b0);
	show("nice 10 at 2.5 s", &b10);
	/*
	 * 1024:110 would give about 930:100; a loaded host delays the guest's
	 * ticks and stretches the nice 10 task's turns (seen: 970:261), so
	 * the test asks for a clear split, not the ratio.
	 */
	tap(b0.util_avg >= 700 && b10.util_avg <= 350 && b0.util_avg >= 5 * b10.util_avg / 2,
	    "the kernel's util_avg splits by weight (nice 0: %ld, nice 10: %ld; weights 1024:110; at least 2.5:1)",
	    b0.util_avg, b10.util_avg);
	tap(b0.burst >= 900 && b10.burst >= 900, "util_burst of both near 1024 (nice 0: %ld, nice 10: %ld)",
	    b0.burst, b10.burst);
	tap(b10.burst >= a10.burst, "util_burst of nice 10 kept rising (%ld -> %ld)", a10.burst, b10.burst);
	tap(b10.waiting >= 600, "nice 10 mostly waits: waiting_avg %ld", b10.waiting);
	stop(p0);
	stop(p10);
}

/* a lone periodic task: util_burst averaged vs the kernel's CPU time / wall time */
static void duty(void)
{
	pid_t p = spawn("sl_duty", 0, 0, DUTY, 4, 20);
	long long c0, c1, t0, t1, sum_b = 0, sum_w = 0, sum_u = 0;
	struct row r;
	long d;
	int n = 0;

	msleep(1000);
	c0 = sched_cpu_ns(p);
	t0 = now_ns();
	while (now_ns() - t0 < 2000000000LL) {
		msleep(37);	/* not a divisor of the period: samples every phase */
		read_row(p, &r);
		if (!r.found)
			continue;
		sum_b += r.burst;
		sum_w += r.waiting;
		sum_u += r.time;
		n++;
	}
	c1 = sched_cpu_ns(p);
	t1 = now_ns();
	stop(p);
	if (!n || c0 < 0 || c1 < 0) {
		tap(0, "periodic task sampled (%d samples)", n);
		return;
	}
	d = (long)((c1 - c0) * 1024 / (t1 - t0));
	printf("# 20%% duty task, %d samples over %lld ms: mean util_burst %lld, mean time util %lld, mean waiting_avg %lld; kernel CPU time / wall time %ld/1024\n",
	       n, (t1 - t0) / 1000000, sum_b / n, sum_u / n, sum_w / n, d);
	tap(labs((long)(sum_b / n) - d) <= 102,
	    "util_burst of a lone periodic task stays near its duty (mean %lld vs %ld, within 10%% of 1024)",
	    sum_b / n, d);
	tap(sum_w / n <= 100, "alone on its CPU it hardly waits (mean waiting_avg %lld)", sum_w / n);
}

/* a CFS task behind a SCHED_FIFO hog */
static void hog(void)
{
	pid_t v = spawn("sl_victim", 0, 0, SPIN, 0, 0), h;
	struct row a, b;

	msleep(1500);
	read_row(v, &a);
	h = spawn("sl_hog", 0, 50, SPIN, 3000, 0);
	msleep(1500);
	read_row(v, &b);
	show("victim before the hog", &a);
	show("victim 1.5 s behind a FIFO hog", &b);
	tap(b.waiting >= a.waiting + 400, "behind a FIFO hog waiting_avg rises (%ld -> %ld)",
	    a.waiting, b.waiting);
	tap(b.util_avg <= a.util_avg - 300, "while the kernel's util_avg falls (%ld -> %ld)",
	    a.util_avg, b.util_avg);
	waitpid(h, NULL, 0);
	stop(v);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 2)
		goto usage;
	if (!strcmp(argv[1], "always"))
		always();
	else if (!strcmp(argv[1], "nice"))
		nice_pair();
	else if (!strcmp(argv[1], "duty"))
		duty();
	else if (!strcmp(argv[1], "hog"))
		hog();
	else
		goto usage;
	return tap_failures ? 1 : 0;
usage:
	fprintf(stderr, "usage: signals_check always|nice|duty|hog\n");
	return 2;
}
