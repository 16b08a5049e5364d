/* SPDX-License-Identifier: GPL-2.0 */
/*
 * schedlab reports: one declaration, two forms (docs/reporting.md).
 *
 * A report declares its columns once (name, unit, kind) and fills rows of
 * values from a snapshot; the layer renders each debugfs report twice:
 *   <name>       the human text: "# " note lines, a header line of column
 *                names (units as name suffixes: _us, _ns), one padded row
 *                per line, "-" for a missing value, strings (comm included)
 *                as one token (space -> '_', unprintable -> '?');
 *   <name>.json  one JSON document: {"schema", "feature", "report",
 *                "layout", "columns", "units", "meta", "notes", "rows",
 *                "trailer"}; a missing value is null, strings exact (JSON
 *                escapes, bytes >= 0x80 as \u00XX).
 * Layouts: TABLE (header and rows), RECORD (one row, printed in text as
 * "name value" lines: the stats files), LINES (rows printed in text by the
 * report's own text_row(), for the chains' arrow notation; the JSON is
 * the same as a table's).
 *
 * The layer owns the seq_file iterator: position 0 takes the snapshot
 * (take(), once per pass: reads of any size and seq_file's retries with a
 * bigger buffer print the same snapshot) and prints the head, positions
 * 1..n one row each, n + 1 the end. Rows are filled one at a time from the
 * snapshot, in process context, outside any lock the report's take() used.
 */
#ifndef SCHEDLAB_REPORT_H
#define SCHEDLAB_REPORT_H

#include <linux/types.h>
#include <linux/sched.h>
#include "report_core.h"

struct seq_file;
struct dentry;
struct sl_feature;

enum sl_rkind {
	SL_RK_U64,	/* unsigned integer */
	SL_RK_S64,	/* signed integer */
	SL_RK_STR,	/* a string; text: one token */
	SL_RK_COMM,	/* a task's comm (same rules as STR; named for the docs) */
	SL_RK_HEX,	/* a u64 as 0x...; JSON: a string (addresses exceed 2^53) */
	SL_RK_SYM,	/* a kernel address, as its symbol (%ps; text: without " [module]") */
	SL_RK_LIST,	/* u64 array; text: a,b,c; JSON: [a,b,c] */
	SL_RK_LINKS,	/* a chain, struct sl_rlink array; JSON: array of objects */
};

#define SL_RCOL_LEFT	0x1	/* text: left-aligned (keys, names) */
#define SL_RCOL_TAIL	0x2	/* LINES text: "name value" after " | " */
#define SL_RCOL_NONZERO	0x4	/* LINES text tail: omitted when 0 */

struct sl_rcol {
	const char *name;	/* with the unit suffix: total_us */
	const char *unit;	/* "us", "ns", "ms", "util" (0..1024 scale), NULL */
	u8 kind;		/* enum sl_rkind */
	u8 width;		/* text: minimum width */
	u8 flags;		/* SL_RCOL_* */
};

/* one link of a chain: a task, and the lock it waits on (0: none) */
struct sl_rlink {
	pid_t pid;
	int cpu;		/* -1: unknown */
	const char *class;	/* "idle", "normal", "rt", "dl"; NULL: unknown */
	int rt_prio;		/* -1 unless rt */
	long weight;		/* nice weight; -1: unknown */
	long cgroup_weight;	/* -1: unknown */
	const char *state;	/* "R", "r", "S", "spinning" */
	u64 lock;
	char comm[TASK_COMM_LEN];	/* "": unknown */
};

struct sl_rval {
	union {
		u64 u;
		s64 s;
		const char *str;
		struct {
			const u64 *v;
			u32 n;
		} list;
		struct {
			const struct sl_rlink *l;
			u32 n;
		} links;
	};
	bool none;		/* missing: "-" in text, null in JSON */
};

static inline void sl_rv_u64(struct sl_rval *v, u64 x)
{
	v->u = x;
	v->none = false;
}

static inline void sl_rv_s64(struct sl_rval *v, s64 x)
{
	v->s = x;
	v->none = false;
}

static inline void sl_rv_str(struct sl_rval *v, const char *s)
{
	v->str = s;
	v->none = !s;
}

static inline void sl_rv_none(struct sl_rval *v)
{
	v->none = true;
}

static inline void sl_rv_list(struct sl_rval *v, const u64 *x, u32 n)
{
	v->list.v = x;
	v->list.n = n;
	v->none = false;
}

static inline void sl_rv_links(struct sl_rval *v, const struct sl_rlink *l, u32 n)
{
	v->links.l = l;
	v->links.n = n;
	v->none = false;
}

enum sl_rlayout { SL_RL_TABLE, SL_RL_RECORD, SL_RL_LINES };

/* what head()/tail() write to: notes (both forms) and facts (JSON "meta") */
struct sl_rhead;

__printf(2, 3) void sl_rnote(struct sl_rhead *h, const char *fmt, ...);
void sl_rfact_u64(struct sl_rhead *h, const char *key, u64 v);
void sl_rfact_s64(struct sl_rhead *h, const char *key, s64 v);
void sl_rfact_str(struct sl_rhead *h, const char *key, const char *v);
void sl_rfact_bool(struct sl_rhead *h, const char *key, bool v);
/* a list of u64 values, given one at a time: begin, item..., end */
void sl_rfact_list_begin(struct sl_rhead *h, const char *key);
void sl_rfact_list_item(struct sl_rhead *h, u64 v);
void sl_rfact_list_end(struct sl_rhead *h);

struct sl_report {
	const char *feature;		/* the JSON's "feature" */
	const char *name;		/* the text file; JSON: name.json */
	umode_t mode;			/* of both files */
	bool json_only;			/* the text file is the caller's own */
	enum sl_rlayout layout;
	const struct sl_rcol *cols;
	unsigned int ncols;
	size_t priv_size;		/* the report's per-open state, zeroed */

	/* optional: allocate/free what priv points to */
	int (*open)(void *priv);
	void (*release)(void *priv);
	/* the snapshot for a pass; returns the number of rows, or -errno */
	long (*take)(void *priv);
	/* optional: notes and facts before the rows, notes after */
	void (*head)(void *priv, struct sl_rhead *h);
	void (*tail)(void *priv, struct sl_rhead *h);
	/* row @i (0..n-1) of the snapshot into @v (ncols values) */
	void (*row)(void *priv, unsigned long i, struct sl_rval *v);
	/* LINES layout: the text of a row (the layer adds the newline) */
	void (*text_row)(struct seq_file *m, void *priv, const struct sl_rval *v);
};

/* Both files of @r in @dir. */
void sl_report_create(struct dentry *dir, const struct sl_report *r);

/* text helpers for text_row(): one value as the table would print it */
void sl_rtext_value(struct seq_file *m, const struct sl_rcol *c,
		    const struct sl_rval *v);
void sl_rtext_str(struct seq_file *m, const char *s);
void sl_rtext_comm(struct seq_file *m, const char *comm);	/* at most TASK_COMM_LEN bytes */

#endif /* SCHEDLAB_REPORT_H */
