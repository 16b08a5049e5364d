// SPDX-License-Identifier: GPL-2.0
/*
 * sl_load: small, exactly shaped CPU loads for the signals experiments.
 *
 *   sl_load [-n COMM] [-s US] [-u MAX] [-d MS] spin MS         busy for MS ms of wall time
 *   sl_load [-n COMM] [-d MS] duty RUN_MS PERIOD_MS MS  every PERIOD_MS, burn
 *                                    RUN_MS of CPU time, then sleep to the next
 *                                    period; for MS ms
 *   sl_load [-n COMM] [-d MS] threads N PERIOD_MS MS   N more threads (with
 *                                    the process's comm), each waking every
 *                                    PERIOD_MS for MS ms (PERIOD_MS 0: not at
 *                                    all); then all sleep until killed. Prints
 *                                    "ready" once all N are started.
 *
 * -n sets the task's comm (for schedlab's filter_comm); -s asks for a
 * custom fair slice of US microseconds (sched_setattr's sched_runtime for
 * SCHED_OTHER, where the kernel supports it; exit 3 if refused); -u caps
 * the task's utilization at MAX (0..1024, sched_setattr's uclamp_max,
 * policy and nice kept; exit 3 if refused: a kernel without
 * CONFIG_UCLAMP_TASK); -d sleeps MS ms
 * first, so that loads started together (exec is slow under emulation)
 * begin at a known moment. Pin, renice or
 * make it real-time with taskset, nice and chrt. Exit status 2 on bad
 * arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>

/* struct sched_attr (uapi; version 0 is 48 bytes, the clamps make 56) */
struct sl_sched_attr {
	unsigned int size, sched_policy;
	unsigned long long sched_flags;
	int sched_nice;
	unsigned int sched_priority;
	unsigned long long sched_runtime, sched_deadline, sched_period;
	unsigned int sched_util_min, sched_util_max;
};

/* uapi/linux/sched.h */
#define SL_SCHED_FLAG_KEEP_POLICY	0x08
#define SL_SCHED_FLAG_KEEP_PARAMS	0x10
#define SL_SCHED_FLAG_UTIL_CLAMP_MAX	0x40

/* uclamp_max for this task, keeping its policy and parameters */
static int set_uclamp_max(long max)
{
	struct sl_sched_attr at = {
		.size = sizeof(at),
		.sched_flags = SL_SCHED_FLAG_KEEP_POLICY | SL_SCHED_FLAG_KEEP_PARAMS |
			       SL_SCHED_FLAG_UTIL_CLAMP_MAX,
		.sched_util_max = (unsigned int)max,
	};

	return syscall(SYS_sched_setattr, 0, &at, 0);
}

/* a custom slice for this task, keeping its policy (SCHED_OTHER) and nice */
static int set_slice_us(long us)
{
	struct sl_sched_attr at = {
		.size = 48,	/* version 0: no clamps touched */
		.sched_policy = 0,
		.sched_nice = getpriority(PRIO_PROCESS, 0),
		.sched_runtime = us * 1000ULL,
	};

	return syscall(SYS_sched_setattr, 0, &at, 0);
}

static long long ns_of(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int num(const char *s, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	return errno || end == s || *end || *out < 0 || *out > 3600 * 1000;
}

static int usage(void)
{
	fprintf(stderr, "usage: sl_load [-n COMM] [-s SLICE_US] [-u UCLAMP_MAX] [-d MS] spin MS | duty RUN_MS PERIOD_MS MS | threads N PERIOD_MS MS\n");
	return 2;
}

static long period_ms, for_ms;

static void *sleeper(void *arg)
{
	long long start = ns_of(CLOCK_MONOTONIC), next = start;
	struct timespec ts;

	(void)arg;
	while (period_ms && next - start < for_ms * 1000000LL) {
		next += period_ms * 1000000LL;
		ts.tv_sec = next / 1000000000LL;
		ts.tv_nsec = next % 1000000000LL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	for (;;)
		pause();
	return NULL;
}

static int threads(long n)
{
	pthread_attr_t attr;
	pthread_t t;
	long i;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < n; i++) {
		int err = pthread_create(&t, &attr, sleeper, NULL);

		if (err) {
			fprintf(stderr, "sl_load: thread %ld: %s\n", i, strerror(err));
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	long a, b, c;
	int i = 1;

	if (argc > i + 1 && !strcmp(argv[i], "-n")) {
		prctl(PR_SET_NAME, argv[i + 1]);
		i += 2;
	}
	if (argc > i + 1 && !strcmp(argv[i], "-s")) {
		if (num(argv[i + 1], &a) || !a)
			return usage();
		if (set_slice_us(a)) {
			perror("sl_load: sched_setattr (custom slice)");
			return 3;
		}
		i += 2;
	}
	if (argc > i + 1 && !strcmp(argv[i], "-u")) {
		if (num(argv[i + 1], &a) || a > 1024)
			return usage();
		if (set_uclamp_max(a)) {
			perror("sl_load: sched_setattr (uclamp_max)");
			return 3;
		}
		i += 2;
	}
	if (argc > i + 1 && !strcmp(argv[i], "-d")) {
		struct timespec d;

		if (num(argv[i + 1], &a))
			return usage();
		d.tv_sec = a / 1000;
		d.tv_nsec = (a % 1000) * 1000000L;
		nanosleep(&d, NULL);
		i += 2;
	}
	if (argc - i == 2 && !strcmp(argv[i], "spin") && !num(argv[i + 1], &a)) {
		long long end = ns_of(CLOCK_MONOTONIC) + a * 1000000LL;

		while (ns_of(CLOCK_MONOTONIC) < end)
			;
		return 0;
	}
	if (argc - i == 4 && !strcmp(argv[i], "duty") && !num(argv[i + 1], &a) &&
	    !num(argv[i + 2], &b) && !num(argv[i + 3], &c) && b > 0 && a <= b) {
		long long start = ns_of(CLOCK_MONOTONIC), next = start;
		struct timespec ts;

		while (next - start < c * 1000000LL) {
			long long end = ns_of(CLOCK_THREAD_CPUTIME_ID) + a * 1000000LL;

			while (ns_of(CLOCK_THREAD_CPUTIME_ID) < end)
				;
			next += b * 1000000LL;
			ts.tv_sec = next / 1000000000LL;
			ts.tv_nsec = next % 1000000000LL;
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
		return 0;
	}
	if (argc - i == 4 && !strcmp(argv[i], "threads") && !num(argv[i + 1], &a) &&
	    !num(argv[i + 2], &period_ms) && !num(argv[i + 3], &for_ms))
		return threads(a);
	return usage();
}
