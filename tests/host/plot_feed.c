// SPDX-License-Identifier: GPL-2.0
/*
 * plot_feed: schedlab's events without the module, for tests/host/test_plot.sh.
 * Each of its functions takes a record (struct rec) whose fields a uprobe
 * event of group "schedlab" fetches, named and typed as the module's event
 * (module/schedlab_trace.h), so that a trace.dat recorded from them reads
 * as one of schedlab run's.
 *   plot_feed offsets   each function's file offset: "NAME 0xOFFSET"
 *   plot_feed feed      calls them (a fixed sequence, 1 ms apart) and
 *                       prints each record it passed: "NAME v0 v1 ... [comm]"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct rec {
	long long v[13];	/* +0, +8, ... */
	char comm[16];		/* +104 */
};

#define FEED(name) \
	__attribute__((noinline)) void feed_##name(struct rec *r) \
	{ __asm__ volatile("" : : "r"(r) : "memory"); }
FEED(signals_task)
FEED(signals_cpu)
FEED(cpu_signals)
FEED(overutil)
FEED(mutex_wait_begin)
FEED(mutex_wait_end)
FEED(eevdf_violation)

static const struct { const char *name; void (*fn)(struct rec *); } fns[] = {
	{ "signals_task", feed_signals_task }, { "signals_cpu", feed_signals_cpu },
	{ "cpu_signals", feed_cpu_signals }, { "overutil", feed_overutil },
	{ "mutex_wait_begin", feed_mutex_wait_begin }, { "mutex_wait_end", feed_mutex_wait_end },
	{ "eevdf_violation", feed_eevdf_violation },
};

/* @fn's offset in the file mapped: from /proc/self/maps */
static long long file_offset(void *fn)
{
	unsigned long a = (unsigned long)fn, lo, hi, off;
	char line[512], perm[8];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %7s %lx", &lo, &hi, perm, &off) == 4 && a >= lo && a < hi) {
			fclose(f);
			return (long long)(a - lo + off);
		}
	if (f)
		fclose(f);
	return -1;
}

static void emit(int k, struct rec *r, int nv, int comm)
{
	int i;

	fns[k].fn(r);
	printf("%s", fns[k].name);
	for (i = 0; i < nv; i++)
		printf(" %lld", r->v[i]);
	if (comm)
		printf(" %s", r->comm);
	putchar('\n');
	nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
}

int main(int argc, char **argv)
{
	static const char * const comms[] = { "periodic", "nice0", "nice 10" };
	static const unsigned long long locks[] = { 0xffff888012345678ULL, 0xffffffff81234567ULL,
						    0xffff888000000040ULL };
	struct rec r;
	int i, j;

	if (argc == 2 && !strcmp(argv[1], "offsets")) {
		for (i = 0; i < (int)(sizeof(fns) / sizeof(fns[0])); i++)
			printf("%s 0x%llx\n", fns[i].name, file_offset((void *)fns[i].fn));
		return 0;
	}
	if (argc != 2 || strcmp(argv[1], "feed"))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < 40; i++) {
		/* signals_task: reason pid cpu util_avg util_est model burst waiting time, comm */
		for (j = 0; j < 3; j++) {
			memset(&r, 0, sizeof(r));
			r.v[0] = (i % 5 == 4) ? 0 : 1;	/* every 5th a dequeue: not drawn */
			r.v[1] = 1000 + j;
			r.v[2] = j % 2;
			r.v[3] = (i * 37 + j * 100) % 1024;
			r.v[4] = i % 7 == 3 ? -1 : (i * 29 + j) % 1024;	/* -1: no util_est */
			r.v[5] = (i * 13 + j) % 1024;
			r.v[6] = (i * 11 + 3 * j) % 1100;
			r.v[7] = (i * 5 + j) % 600;
			r.v[8] = (i * 17 + j) % 1024;
			snprintf(r.comm, sizeof(r.comm), "%s", comms[j]);
			emit(0, &r, 9, 1);
		}
		/* signals_cpu: cpu capacity cfs_util_avg model burst waiting time tasks */
		for (j = 0; j < 2; j++) {
			memset(&r, 0, sizeof(r));
			r.v[0] = j; r.v[1] = 1024; r.v[2] = (i * 41 + j) % 1024; r.v[3] = i * 3 + j;
			r.v[4] = i * 4 + j; r.v[5] = i * 2 + j; r.v[6] = i + j; r.v[7] = i % 4;
			emit(1, &r, 8, 0);
		}
		/* cpu_signals: cpu nr_running util_avg util_est capacity */
		for (j = 0; j < 2; j++) {
			memset(&r, 0, sizeof(r));
			r.v[0] = j; r.v[1] = (i + j) % 3; r.v[2] = (i * 23 + j) % 1024;
			r.v[3] = (i * 19 + j) % 1024; r.v[4] = j ? 512 : 1024;
			emit(2, &r, 5, 0);
		}
		/* overutil: cpu rule on util capacity, a change every 3rd round */
		if (i % 3 == 0) {
			memset(&r, 0, sizeof(r));
			/* rule 3 never on CPU 1: a lane empty in its panel */
			r.v[0] = (i / 3) % 3 - 1; r.v[1] = (i / 3) % 2 && r.v[0] != 1 ? 3 : 0;
			r.v[2] = (i / 3) % 4 < 2;
			r.v[3] = (i * 31) % 1024; r.v[4] = r.v[0] < 0 ? 0 : 1024;
			emit(3, &r, 5, 0);
		}
		/* mutex_wait_begin: pid lock owner_pid; _end: pid lock duration_us end max_depth cat_us[8] */
		if (i % 2 == 0) {
			memset(&r, 0, sizeof(r));
			r.v[0] = 2000 + i % 3; r.v[1] = (long long)locks[i % 3]; r.v[2] = 1;
			emit(4, &r, 3, 0);
			memset(&r, 0, sizeof(r));
			r.v[0] = 2000 + i % 3; r.v[1] = (long long)locks[i % 3];
			r.v[2] = 10 * i + 7; r.v[3] = 1 + i % 3; r.v[4] = i % 4;
			for (j = 0; j < 8; j++)
				r.v[5 + j] = (i + j) % 5 ? (10 * i + 7) / 8 + (j == 0 ? (10 * i + 7) % 8 : 0) : 0;
			emit(5, &r, 13, 0);
		}
		if (i % 10 == 0) {
			memset(&r, 0, sizeof(r));
			r.v[0] = i;
			emit(6, &r, 1, 0);
		}
	}
	return 0;
}
