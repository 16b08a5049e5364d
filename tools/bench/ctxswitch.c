// SPDX-License-Identifier: GPL-2.0
/*
 * ctxswitch: two processes ping-pong one byte over a pair of pipes, forcing
 * a context switch per hop, for a given time. Prints "round_trips N" and the
 * rate. Used as a context-switch load by the tests and by the benchmarks.
 *
 * usage: ctxswitch SECONDS [CPU]   (CPU: pin both processes to it)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(2);
	}
}

int main(int argc, char **argv)
{
	int ping[2], pong[2], cpu = -1;
	double secs, start, end;
	unsigned long long n = 0;
	char c = 0;
	pid_t child;

	secs = argc >= 2 ? atof(argv[1]) : 0;
	if (argc < 2 || argc > 3 || secs <= 0) {
		fprintf(stderr, "usage: %s SECONDS [CPU]\n", argv[0]);
		return 2;
	}
	if (argc == 3)
		cpu = atoi(argv[2]);
	if (pipe(ping) || pipe(pong)) {
		perror("pipe");
		return 2;
	}
	pin(cpu);
	child = fork();
	if (child < 0) {
		perror("fork");
		return 2;
	}
	if (child == 0) {
		/* echo every byte back until the parent closes its end or dies */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(ping[1]);
		close(pong[0]);
		while (read(ping[0], &c, 1) == 1)
			if (write(pong[1], &c, 1) != 1)
				break;
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);
	start = now();
	end = start + secs;
	do {
		int i;

		for (i = 0; i < 256; i++) {
			if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1) {
				perror("ping-pong");
				return 2;
			}
		}
		n += 256;
	} while (now() < end);
	secs = now() - start;
	close(ping[1]);
	waitpid(child, NULL, 0);
	printf("round_trips %llu\nseconds %.3f\nround_trips_per_sec %.0f\n", n, secs, n / secs);
	return 0;
}
