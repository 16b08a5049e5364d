// SPDX-License-Identifier: GPL-2.0
/*
 * periodic RUN_US PERIOD_US SECONDS
 *
 * A small periodic task for the smoke test's placement check: every
 * PERIOD_US it wakes (an absolute CLOCK_MONOTONIC timer: each wakeup is a
 * fresh placement decision of the scheduler), notes the CPU it woke on,
 * runs RUN_US of CPU time and sleeps again; after SECONDS it prints
 * "periodic pid PID", then "cpu N wakeups W" for each CPU it woke on and
 * "wakeups TOTAL". Built static for the guest's architecture (vm-smoke.sh).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAX_CPUS 64

static long long ns_of(const struct timespec *t)
{
	return t->tv_sec * 1000000000LL + t->tv_nsec;
}

static long long thread_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return ns_of(&t);
}

int main(int argc, char **argv)
{
	static long wakeups[MAX_CPUS];
	long long run_ns, period_ns, end_ns, total = 0;
	struct timespec next;
	int cpu;

	if (argc != 4) {
		fprintf(stderr, "usage: periodic RUN_US PERIOD_US SECONDS\n");
		return 2;
	}
	run_ns = atoll(argv[1]) * 1000;
	period_ns = atoll(argv[2]) * 1000;
	if (run_ns < 0 || period_ns <= run_ns || atoi(argv[3]) <= 0) {
		fprintf(stderr, "periodic: need 0 <= RUN_US < PERIOD_US and SECONDS > 0\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &next);
	end_ns = ns_of(&next) + atoll(argv[3]) * 1000000000LL;
	while (ns_of(&next) < end_ns) {
		long long until = thread_ns() + run_ns;

		cpu = sched_getcpu();
		if (cpu >= 0 && cpu < MAX_CPUS)
			wakeups[cpu]++;
		total++;
		while (thread_ns() < until)
			;
		next.tv_nsec += period_ns % 1000000000LL;
		next.tv_sec += period_ns / 1000000000LL + next.tv_nsec / 1000000000LL;
		next.tv_nsec %= 1000000000LL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	printf("periodic pid %d\n", (int)getpid());
	for (cpu = 0; cpu < MAX_CPUS; cpu++)
		if (wakeups[cpu])
			printf("cpu %d wakeups %ld\n", cpu, wakeups[cpu]);
	printf("wakeups %lld\n", total);
	return 0;
}
