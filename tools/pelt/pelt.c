// SPDX-License-Identifier: GPL-2.0
/*
 * pelt: PELT response-time calculator on top of module/pelt_core.c.
 *
 *   pelt rampup UTIL            ms (1 decimal) to ramp from 0 to UTIL
 *   pelt util-after UTIL MS     util reached after running MS more from UTIL
 *   pelt margin [--tick-ms N] [--cap C]... [--rfc-caps]
 *                               the migration-margin table of the
 *                               response-time RFC: per capacity, the util
 *                               above which a task must leave the CPU, with
 *                               no tick and with a tick of N ms, beside the
 *                               mainline 80% threshold (capacity * 1024 /
 *                               1280); see sl_pelt_margin_threshold() in
 *                               module/pelt_core.c for the definition
 *
 * Bad arguments: a message on stderr and exit status 2.
 *
 * Build: cc -O2 -Wall -Wextra -Werror -Imodule -o build/host/pelt \
 *		tools/pelt/pelt.c module/pelt_core.c
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pelt_core.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_CAPS	64
#define MAX_TICK_MS	1000.0
#define MAX_RUN_MS	1000000.0

static const unsigned long default_caps[] = {
	160, 256, 384, 512, 640, 768, 896, 1024,
};

/* the capacities of the RFC's published table: 0..384 and 704..752 by 16 */
#define RFC_LOW_MAX	384
#define RFC_HIGH_MIN	704
#define RFC_HIGH_MAX	752
#define RFC_STEP	16

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pelt rampup UTIL\n"
		"       pelt util-after UTIL MS\n"
		"       pelt margin [--tick-ms N] [--cap C]... [--rfc-caps]\n"
		"\n"
		"  rampup      time in ms to ramp util_avg from 0 to UTIL (0..1024)\n"
		"              running all the time at full capacity\n"
		"  util-after  util_avg reached from UTIL after running MS more\n"
		"  margin      per capacity: the migration threshold (a util above\n"
		"              it must leave the CPU) with no tick and with a tick\n"
		"              of N ms (default 4, HZ=250; 0 allowed), its margin,\n"
		"              and the mainline 80%% threshold; --cap adds a\n"
		"              capacity (0..1024), repeatable; --rfc-caps adds the\n"
		"              capacities of the response-time RFC's table\n");
}

static int __attribute__((format(printf, 1, 2))) bad(const char *fmt, ...)
{
	va_list ap;

	fputs("pelt: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n(pelt --help for usage)\n", stderr);
	return 2;
}

/* A decimal integer in [lo, hi], nothing else. */
static int parse_ulong(const char *s, unsigned long lo, unsigned long hi,
		       unsigned long *out)
{
	char *end;
	long v;

	if (!s || !*s || *s == ' ' || *s == '+')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0 || (unsigned long)v < lo ||
	    (unsigned long)v > hi)
		return -1;
	*out = (unsigned long)v;
	return 0;
}

/* A non-negative decimal number of ms in [lo, hi], returned in ns. */
static int parse_ms(const char *s, double lo, double hi, u64 *ns)
{
	char *end;
	double v;

	if (!s || !*s || !strchr("0123456789.", *s))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	/* NaN fails both comparisons, inf the upper one */
	if (errno || *end || !(v >= lo && v <= hi))
		return -1;
	*ns = (u64)(v * 1e6 + 0.5);
	return 0;
}

static int cmd_rampup(int argc, char **argv)
{
	unsigned long util;

	if (argc != 1)
		return bad("rampup takes one argument: UTIL");
	if (parse_ulong(argv[0], 0, SL_PELT_CAPACITY_SCALE, &util))
		return bad("UTIL must be an integer in 0..1024, not '%s'",
			   argv[0]);
	printf("%.1f\n", sl_pelt_approx_runtime(util) / 1e6);
	return 0;
}

static int cmd_util_after(int argc, char **argv)
{
	unsigned long util;
	u64 ns;

	if (argc != 2)
		return bad("util-after takes two arguments: UTIL MS");
	if (parse_ulong(argv[0], 0, SL_PELT_CAPACITY_SCALE, &util))
		return bad("UTIL must be an integer in 0..1024, not '%s'",
			   argv[0]);
	if (parse_ms(argv[1], 0, MAX_RUN_MS, &ns))
		return bad("MS must be a number of ms in 0..%.0f, not '%s'",
			   MAX_RUN_MS, argv[1]);
	printf("%lu\n", sl_pelt_approx_util_avg(util, ns));
	return 0;
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* 100 * part / whole truncated to 2 decimals, as the RFC prints it */
static void print_pct(unsigned long part, unsigned long whole)
{
	unsigned long h = whole ? part * 10000 / whole : 0;

	printf(" %3lu.%02lu", h / 100, h % 100);
}

static int add_cap(unsigned long *caps, int *ncaps, unsigned long cap)
{
	if (*ncaps == MAX_CAPS)
		return bad("at most %d capacities", MAX_CAPS);
	caps[(*ncaps)++] = cap;
	return 0;
}

static int cmd_margin(int argc, char **argv)
{
	unsigned long caps[MAX_CAPS], cap, thr0, thr, mainline;
	const char *tick_arg = "4";
	u64 tick_ns, ramp, window;
	int ncaps = 0, i, j;

	for (i = 0; i < (int)ARRAY_SIZE(default_caps); i++)
		caps[ncaps++] = default_caps[i];

	for (i = 0; i < argc; i++) {
		const char *opt = argv[i], *val = NULL;
		size_t len = strcspn(opt, "=");

		if (!strcmp(opt, "--rfc-caps")) {
			for (cap = 0; cap <= RFC_HIGH_MAX; cap += RFC_STEP)
				if ((cap <= RFC_LOW_MAX || cap >= RFC_HIGH_MIN) &&
				    add_cap(caps, &ncaps, cap))
					return 2;
			continue;
		}
		if (opt[len] == '=')
			val = opt + len + 1;
		else if (i + 1 < argc)
			val = argv[i + 1];

		if (len == strlen("--tick-ms") && !strncmp(opt, "--tick-ms", len)) {
			if (!val)
				return bad("--tick-ms needs a value");
			tick_arg = val;
		} else if (len == strlen("--cap") && !strncmp(opt, "--cap", len)) {
			if (!val)
				return bad("--cap needs a value");
			if (parse_ulong(val, 0, SL_PELT_CAPACITY_SCALE, &cap))
				return bad("--cap must be an integer in 0..1024, not '%s'",
					   val);
			if (add_cap(caps, &ncaps, cap))
				return 2;
		} else {
			return bad("margin: unknown argument '%s'", opt);
		}
		if (opt[len] != '=')
			i++;
	}
	if (parse_ms(tick_arg, 0, MAX_TICK_MS, &tick_ns))
		return bad("--tick-ms must be a number of ms in [0, %.0f], not '%s'",
			   MAX_TICK_MS, tick_arg);

	/* sorted, without duplicates */
	qsort(caps, ncaps, sizeof(caps[0]), cmp_ulong);
	for (i = 0, j = 0; i < ncaps; i++)
		if (!j || caps[i] != caps[j - 1])
			caps[j++] = caps[i];
	ncaps = j;

	printf("# tick %s ms (%llu ns, %llu us), PELT period %llu ns, y^%d = 1/2\n",
	       tick_arg, (unsigned long long)tick_ns,
	       (unsigned long long)(tick_ns / 1000),
	       (unsigned long long)SL_PELT_PERIOD_NS, SL_PELT_HALFLIFE);
	printf("# ramp: whole PELT periods to ramp util from 0 to the capacity at full speed\n");
	printf("# window_ms: PELT time a task accrues on this CPU before it must move,\n");
	printf("#   (ramp * 1000 us - tick) * capacity / 1024, in 1024 ns units\n");
	printf("# threshold: util reached from 0 in the window, one update (a util above\n");
	printf("#   it does not fit); threshold0: the same without a tick\n");
	printf("# %%: of the capacity, truncated to 2 decimals; margin: capacity - threshold\n");
	printf("# mainline: capacity * 1024 / 1280 (fits_capacity, 80%%)\n");
	printf("%8s %5s %10s %7s %9s %7s %6s %9s %8s %7s\n", "capacity", "ramp",
	       "threshold0", "%", "threshold", "%", "margin", "window_ms",
	       "mainline", "%");
	for (i = 0; i < ncaps; i++) {
		cap = caps[i];
		mainline = cap * 1024 / 1280;
		ramp = sl_pelt_approx_runtime(cap) >> SL_PELT_PERIOD_NS_SHIFT;
		thr0 = sl_pelt_margin_threshold(cap, 0);
		thr = sl_pelt_margin_threshold(cap, tick_ns);
		window = sl_pelt_margin_window(cap, tick_ns);
		printf("%8lu %5llu %10lu", cap, (unsigned long long)ramp, thr0);
		print_pct(thr0, cap);
		printf(" %9lu", thr);
		print_pct(thr, cap);
		printf(" %6lu %9.3f %8lu", cap - thr,
		       (double)(window << SL_PELT_UNIT_SHIFT) / 1e6, mainline);
		print_pct(mainline, cap);
		putchar('\n');
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "rampup"))
		return cmd_rampup(argc - 2, argv + 2);
	if (!strcmp(cmd, "util-after"))
		return cmd_util_after(argc - 2, argv + 2);
	if (!strcmp(cmd, "margin"))
		return cmd_margin(argc - 2, argv + 2);
	return bad("unknown command '%s'", cmd);
}
