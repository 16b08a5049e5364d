// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of module/report_core.h, the byte rules of the reporting
 * convention. With no argument: the text token rule, checked byte by byte
 * (TAP lines). With "json": every byte 0..255 inside a comm-like string,
 * escaped, as one JSON document {"strings": [...], "bytes": [[...], ...]}
 * that the shell test decodes with Python's json module (an independent
 * parser) and compares with the bytes.
 */
#include <stdio.h>
#include <string.h>
#include <ctype.h>
#include "report_core.h"
#include "../lib/tap.h"

static void put_json_str(const unsigned char *s, size_t len)
{
	char out[6];
	size_t i;

	putchar('"');
	for (i = 0; i < len; i++)
		fwrite(out, 1, sl_json_escape_byte(s[i], out), stdout);
	putchar('"');
}

int main(int argc, char **argv)
{
	unsigned char s[8];
	int c, bad;

	if (argc > 1 && !strcmp(argv[1], "json")) {
		fputs("{\"strings\":[", stdout);
		for (c = 0; c < 256; c++) {
			/* the byte between a quote and a backslash, as in a hostile comm */
			s[0] = 'a';
			s[1] = '"';
			s[2] = c;
			s[3] = '\\';
			s[4] = 'z';
			put_json_str(s, 5);
			putchar(c < 255 ? ',' : ']');
		}
		fputs(",\"bytes\":[", stdout);
		for (c = 0; c < 256; c++)
			printf("[97,34,%d,92,122]%s", c, c < 255 ? "," : "]");
		puts("}");
		return 0;
	}
	bad = 0;
	for (c = 0; c < 256; c++) {
		char t = sl_text_byte(c);

		if (isspace((unsigned char)t) || t < 0x21 || t > 0x7e)
			bad++;
		else if (c > 0x20 && c < 0x7f && t != c)
			bad++;
	}
	tap(!bad, "text: every byte becomes one printable non-space character, printable ones themselves (%d wrong)", bad);
	tap(sl_text_byte(' ') == '_' && sl_text_byte('\t') == '?' && sl_text_byte(0xe9) == '?',
	    "text: space -> '_', tab and 0xe9 -> '?'");
	bad = 0;
	for (c = 0; c < 256; c++) {
		char out[6];
		unsigned int n = sl_json_escape_byte(c, out), i;

		for (i = 0; i < n; i++)
			if ((unsigned char)out[i] < 0x20 || (unsigned char)out[i] > 0x7e)
				bad++;
		if (n == 1 && (out[0] == '"' || out[0] == '\\'))
			bad++;
	}
	tap(!bad, "json: escapes are printable ASCII, no bare quote or backslash (%d wrong)", bad);
	return tap_failures ? 1 : 0;
}
