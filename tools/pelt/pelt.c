// SPDX-License-Identifier: GPL-2.0
/*
 * pelt: PELT response-time calculator on top of module/pelt_core.c.
 *
 *   pelt rampup UTIL            ms (1 decimal) to ramp from 0 to UTIL
 *   pelt util-after UTIL MS     util reached after running MS more from UTIL
 *   pelt margin [--tick-ms N] [--cap C]...
 *                               per capacity, the largest util that is still
 *                               below the capacity after one more tick, the
 *                               time to ramp up to it, and the mainline 80%
 *                               threshold (capacity * 1024 / 1280)
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

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pelt rampup UTIL\n"
		"       pelt util-after UTIL MS\n"
		"       pelt margin [--tick-ms N] [--cap C]...\n"
		"\n"
		"  rampup      time in ms to ramp util_avg from 0 to UTIL (0..1024)\n"
		"              running all the time at full capacity\n"
		"  util-after  util_avg reached from UTIL after running MS more\n"
		"  margin      per capacity: the largest util still below it after\n"
		"              one more tick (default 4 ms, HZ=250), the time to\n"
		"              ramp up to it, and the mainline 80%% threshold;\n"
		"              --cap adds a capacity (1..1024), repeatable\n");
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

static int cmd_margin(int argc, char **argv)
{
	unsigned long caps[MAX_CAPS], cap, thr, mainline;
	const char *tick_arg = "4";
	u64 tick_ns;
	int ncaps = 0, i, j;

	for (i = 0; i < (int)ARRAY_SIZE(default_caps); i++)
		caps[ncaps++] = default_caps[i];

	for (i = 0; i < argc; i++) {
		const char *opt = argv[i], *val = NULL;
		size_t len = strcspn(opt, "=");

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
			if (parse_ulong(val, 1, SL_PELT_CAPACITY_SCALE, &cap))
				return bad("--cap must be an integer in 1..1024, not '%s'",
					   val);
			if (ncaps == MAX_CAPS)
				return bad("at most %d capacities", MAX_CAPS);
			caps[ncaps++] = cap;
		} else {
			return bad("margin: unknown argument '%s'", opt);
		}
		if (opt[len] != '=')
			i++;
	}
	if (parse_ms(tick_arg, 0, MAX_TICK_MS, &tick_ns) ||
	    (tick_ns >> SL_PELT_UNIT_SHIFT) == 0)
		return bad("--tick-ms must be a number of ms in (0, %.0f], not '%s'",
			   MAX_TICK_MS, tick_arg);

	/* sorted, without duplicates */
	qsort(caps, ncaps, sizeof(caps[0]), cmp_ulong);
	for (i = 0, j = 0; i < ncaps; i++)
		if (!j || caps[i] != caps[j - 1])
			caps[j++] = caps[i];
	ncaps = j;

	printf("# tick %s ms (%llu ns), PELT period %llu ns, y^%d = 1/2\n",
	       tick_arg, (unsigned long long)tick_ns,
	       (unsigned long long)SL_PELT_PERIOD_NS, SL_PELT_HALFLIFE);
	printf("# threshold: largest util still below capacity after one more tick\n");
	printf("# rampup_ms: time to ramp from util 0 to threshold\n");
	printf("# mainline: capacity * 1024 / 1280 (fits_capacity, 80%%)\n");
	printf("%8s %9s %6s %9s %8s %6s\n", "capacity", "threshold", "%",
	       "rampup_ms", "mainline", "%");
	for (i = 0; i < ncaps; i++) {
		cap = caps[i];
		mainline = cap * 1024 / 1280;
		if (!sl_pelt_fits_before_tick(0, cap, tick_ns)) {
			/* even util 0 is past the capacity within a tick */
			printf("%8lu %9s %6s %9s %8lu %6.1f\n", cap, "-", "-", "-",
			       mainline, 100.0 * mainline / cap);
			continue;
		}
		thr = sl_pelt_margin_threshold(cap, tick_ns);
		printf("%8lu %9lu %6.1f %9.1f %8lu %6.1f\n", cap, thr,
		       100.0 * thr / cap, sl_pelt_approx_runtime(thr) / 1e6,
		       mainline, 100.0 * mainline / cap);
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
