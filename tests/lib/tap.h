/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Results of the C test programs: "ok - ..." / "not ok - ..." lines and
 * "# ..." diagnostics on stdout, flushed at once (a guest may die mid-run).
 * The shell script that runs the program numbers the lines into TAP
 * (tests/lib/tap.sh); tap_failures says whether any check failed.
 */
#ifndef SCHEDLAB_TEST_TAP_H
#define SCHEDLAB_TEST_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_failures;

static void __attribute__((format(printf, 2, 3), unused))
tap(int pass, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", pass ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!pass)
		tap_failures++;
}

static void __attribute__((format(printf, 1, 2), unused))
tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

#endif /* SCHEDLAB_TEST_TAP_H */
