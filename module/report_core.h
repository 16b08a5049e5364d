/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDLAB_REPORT_CORE_H
#define SCHEDLAB_REPORT_CORE_H

/*
 * The byte-level rules of the reporting convention (docs/reporting.md),
 * shared by the module (report.c), the schedlab tool and the host tests:
 * no kernel or libc dependency.
 */

/*
 * JSON: @c as it appears inside a JSON string, written to @out (at most 6
 * bytes, not terminated); returns the length. Quote and backslash are
 * escaped, control bytes and DEL become \u00XX (\b \f \n \r \t for their
 * own), and every byte >= 0x80 is \u00XX too: a comm is bytes, not UTF-8,
 * so each byte is written as the code point of the same value (Latin-1),
 * which keeps the document valid UTF-8 and the bytes recoverable.
 */
static inline unsigned int sl_json_escape_byte(unsigned char c, char *out)
{
	static const char hex[] = "0123456789abcdef";

	switch (c) {
	case '"':
	case '\\':
		out[0] = '\\';
		out[1] = c;
		return 2;
	case '\b':
		out[0] = '\\';
		out[1] = 'b';
		return 2;
	case '\f':
		out[0] = '\\';
		out[1] = 'f';
		return 2;
	case '\n':
		out[0] = '\\';
		out[1] = 'n';
		return 2;
	case '\r':
		out[0] = '\\';
		out[1] = 'r';
		return 2;
	case '\t':
		out[0] = '\\';
		out[1] = 't';
		return 2;
	}
	if (c >= 0x20 && c < 0x7f) {
		out[0] = c;
		return 1;
	}
	out[0] = '\\';
	out[1] = 'u';
	out[2] = '0';
	out[3] = '0';
	out[4] = hex[c >> 4];
	out[5] = hex[c & 15];
	return 6;
}

/*
 * Text: @c as it appears in a human report, where every value is one
 * whitespace-free token: a space becomes '_', any other byte outside
 * printable ASCII (controls, DEL, >= 0x80) becomes '?'.
 */
static inline char sl_text_byte(unsigned char c)
{
	if (c == ' ')
		return '_';
	if (c < 0x21 || c > 0x7e)
		return '?';
	return c;
}

/* the one token for a value that does not exist, in every text report */
#define SL_TEXT_NONE	"-"

#endif /* SCHEDLAB_REPORT_CORE_H */
