// SPDX-License-Identifier: GPL-2.0
/*
 * schedlab reports: the rendering layer (see report.h, docs/reporting.md).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/kallsyms.h>
#include <linux/string.h>

#include "report.h"

/* bumped when a document's shape changes (not when a report gains a column) */
#define SL_REPORT_SCHEMA	1

struct sl_rctx {
	const struct sl_report *r;
	bool json;
	long n;			/* rows in the snapshot */
	loff_t pos;		/* the position start()/next() returned */
	struct sl_rval *vals;
	void *priv;
};

enum { SL_RH_TEXT, SL_RH_FACTS, SL_RH_NOTES };

struct sl_rhead {
	struct seq_file *m;
	int phase;
	unsigned int count;	/* JSON: items written (for the commas) */
	unsigned int items;	/* JSON: items of the open list fact */
};

/* --- JSON pieces ----------------------------------------------------------- */

static void json_str_n(struct seq_file *m, const char *s, size_t len)
{
	char out[6];
	size_t i;

	seq_putc(m, '"');
	for (i = 0; i < len; i++)
		seq_write(m, out, sl_json_escape_byte(s[i], out));
	seq_putc(m, '"');
}

static void json_str(struct seq_file *m, const char *s)
{
	if (s)
		json_str_n(m, s, strlen(s));
	else
		seq_puts(m, "null");
}

static void json_comm(struct seq_file *m, const char *comm)
{
	if (comm && *comm)
		json_str_n(m, comm, strnlen(comm, TASK_COMM_LEN));
	else
		seq_puts(m, "null");
}

static void json_sym(struct seq_file *m, u64 addr)
{
	char sym[KSYM_SYMBOL_LEN];

	snprintf(sym, sizeof(sym), "%ps", (void *)(unsigned long)addr);
	json_str(m, sym);
}

static void json_link(struct seq_file *m, const struct sl_rlink *l)
{
	seq_printf(m, "{\"pid\":%d,\"comm\":", l->pid);
	json_comm(m, l->comm);
	seq_puts(m, ",\"class\":");
	json_str(m, l->class);
	if (l->rt_prio >= 0)
		seq_printf(m, ",\"rt_prio\":%d", l->rt_prio);
	else
		seq_puts(m, ",\"rt_prio\":null");
	if (l->weight >= 0)
		seq_printf(m, ",\"weight\":%ld", l->weight);
	else
		seq_puts(m, ",\"weight\":null");
	if (l->cgroup_weight >= 0)
		seq_printf(m, ",\"cgroup_weight\":%ld", l->cgroup_weight);
	else
		seq_puts(m, ",\"cgroup_weight\":null");
	seq_puts(m, ",\"state\":");
	json_str(m, l->state);
	if (l->cpu >= 0)
		seq_printf(m, ",\"cpu\":%d", l->cpu);
	else
		seq_puts(m, ",\"cpu\":null");
	if (l->lock) {
		seq_printf(m, ",\"lock\":\"0x%llx\",\"lock_sym\":", l->lock);
		json_sym(m, l->lock);
	} else {
		seq_puts(m, ",\"lock\":null,\"lock_sym\":null");
	}
	seq_putc(m, '}');
}

static void json_value(struct seq_file *m, const struct sl_rcol *c,
		       const struct sl_rval *v)
{
	u32 i;

	if (v->none) {
		seq_puts(m, "null");
		return;
	}
	switch (c->kind) {
	case SL_RK_U64:
		seq_printf(m, "%llu", v->u);
		break;
	case SL_RK_S64:
		seq_printf(m, "%lld", v->s);
		break;
	case SL_RK_STR:
		json_str(m, v->str);
		break;
	case SL_RK_COMM:
		json_comm(m, v->str);
		break;
	case SL_RK_HEX:
		seq_printf(m, "\"0x%llx\"", v->u);
		break;
	case SL_RK_SYM:
		json_sym(m, v->u);
		break;
	case SL_RK_LIST:
		seq_putc(m, '[');
		for (i = 0; i < v->list.n; i++)
			seq_printf(m, "%s%llu", i ? "," : "", v->list.v[i]);
		seq_putc(m, ']');
		break;
	case SL_RK_LINKS:
		seq_putc(m, '[');
		for (i = 0; i < v->links.n; i++) {
			if (i)
				seq_putc(m, ',');
			json_link(m, &v->links.l[i]);
		}
		seq_putc(m, ']');
		break;
	default:
		seq_puts(m, "null");
	}
}

/* --- text pieces ----------------------------------------------------------- */

static void pad(struct seq_file *m, int n)
{
	while (n-- > 0)
		seq_putc(m, ' ');
}

/* @s (at most @len bytes) as one token, padded to @width */
static void text_token(struct seq_file *m, const char *s, size_t len,
		       int width, bool left)
{
	size_t i;

	if (!s || !len || !*s) {
		s = SL_TEXT_NONE;
		len = strlen(s);
	}
	len = strnlen(s, len);
	if (!left)
		pad(m, width - (int)len);
	for (i = 0; i < len; i++)
		seq_putc(m, sl_text_byte(s[i]));
	if (left)
		pad(m, width - (int)len);
}

void sl_rtext_str(struct seq_file *m, const char *s)
{
	text_token(m, s, s ? strlen(s) : 0, 0, true);
}

void sl_rtext_comm(struct seq_file *m, const char *comm)
{
	text_token(m, comm, TASK_COMM_LEN, 0, true);
}

static void text_value_w(struct seq_file *m, const struct sl_rcol *c,
			 const struct sl_rval *v, int width)
{
	bool left = c->flags & SL_RCOL_LEFT;
	char buf[KSYM_SYMBOL_LEN];
	u32 i;

	if (v->none) {
		text_token(m, NULL, 0, width, left);
		return;
	}
	switch (c->kind) {
	case SL_RK_U64:
		snprintf(buf, sizeof(buf), "%llu", v->u);
		break;
	case SL_RK_S64:
		snprintf(buf, sizeof(buf), "%lld", v->s);
		break;
	case SL_RK_STR:
		text_token(m, v->str, v->str ? strlen(v->str) : 0, width, left);
		return;
	case SL_RK_COMM:
		text_token(m, v->str, TASK_COMM_LEN, width, left);
		return;
	case SL_RK_HEX:
		snprintf(buf, sizeof(buf), "0x%llx", v->u);
		break;
	case SL_RK_SYM:
		/* one token: "name [module]" loses its module part */
		snprintf(buf, sizeof(buf), "%ps", (void *)(unsigned long)v->u);
		strreplace(buf, ' ', '\0');
		break;
	case SL_RK_LIST:
		if (!v->list.n) {
			text_token(m, NULL, 0, width, left);
			return;
		}
		for (i = 0; i < v->list.n; i++)
			seq_printf(m, "%s%llu", i ? "," : "", v->list.v[i]);
		return;
	case SL_RK_LINKS:
		if (!v->links.n) {
			text_token(m, NULL, 0, width, left);
			return;
		}
		for (i = 0; i < v->links.n; i++)
			seq_printf(m, "%s%d", i ? "->" : "", v->links.l[i].pid);
		return;
	default:
		buf[0] = '\0';
	}
	text_token(m, buf, sizeof(buf), width, left);
}

void sl_rtext_value(struct seq_file *m, const struct sl_rcol *c,
		    const struct sl_rval *v)
{
	text_value_w(m, c, v, 0);
}

/* --- head and tail ------------------------------------------------------- */

void sl_rnote(struct sl_rhead *h, const char *fmt, ...)
{
	va_list args;
	char *s;

	if (h->phase == SL_RH_FACTS)
		return;
	va_start(args, fmt);
	if (h->phase == SL_RH_TEXT) {
		seq_puts(h->m, "# ");
		seq_vprintf(h->m, fmt, args);
		seq_putc(h->m, '\n');
	} else {
		s = kvasprintf(GFP_KERNEL, fmt, args);
		seq_puts(h->m, h->count++ ? ",\n" : "\n");
		json_str(h->m, s ? s : "(out of memory)");
		kfree(s);
	}
	va_end(args);
}

static bool fact_key(struct sl_rhead *h, const char *key)
{
	if (h->phase != SL_RH_FACTS)
		return false;
	seq_puts(h->m, h->count++ ? "," : "");
	json_str(h->m, key);
	seq_putc(h->m, ':');
	return true;
}

void sl_rfact_u64(struct sl_rhead *h, const char *key, u64 v)
{
	if (fact_key(h, key))
		seq_printf(h->m, "%llu", v);
}

void sl_rfact_s64(struct sl_rhead *h, const char *key, s64 v)
{
	if (fact_key(h, key))
		seq_printf(h->m, "%lld", v);
}

void sl_rfact_str(struct sl_rhead *h, const char *key, const char *v)
{
	if (fact_key(h, key))
		json_str(h->m, v);
}

void sl_rfact_bool(struct sl_rhead *h, const char *key, bool v)
{
	if (fact_key(h, key))
		seq_puts(h->m, v ? "true" : "false");
}

void sl_rfact_list_begin(struct sl_rhead *h, const char *key)
{
	if (fact_key(h, key))
		seq_putc(h->m, '[');
	h->items = 0;
}

void sl_rfact_list_item(struct sl_rhead *h, u64 v)
{
	if (h->phase == SL_RH_FACTS)
		seq_printf(h->m, "%s%llu", h->items++ ? "," : "", v);
}

void sl_rfact_list_end(struct sl_rhead *h)
{
	if (h->phase == SL_RH_FACTS)
		seq_putc(h->m, ']');
}

static void call_head(struct sl_rctx *c, struct seq_file *m,
		      void (*fn)(void *priv, struct sl_rhead *h), int phase)
{
	struct sl_rhead h = { .m = m, .phase = phase };

	if (fn)
		fn(c->priv, &h);
}

/* --- the iterator ---------------------------------------------------------- */

static const char * const layout_names[] = {
	[SL_RL_TABLE] = "table", [SL_RL_RECORD] = "record", [SL_RL_LINES] = "lines",
};

static int col_width(const struct sl_rcol *c)
{
	int len = strlen(c->name);

	return c->width > len ? c->width : len;
}

static void show_head(struct seq_file *m, struct sl_rctx *c)
{
	const struct sl_report *r = c->r;
	unsigned int i, n;

	if (!c->json) {
		call_head(c, m, r->head, SL_RH_TEXT);
		if (r->layout != SL_RL_TABLE)
			return;
		for (i = 0; i < r->ncols; i++) {
			const struct sl_rcol *col = &r->cols[i];

			if (i)
				seq_putc(m, ' ');
			text_token(m, col->name, strlen(col->name), col_width(col),
				   col->flags & SL_RCOL_LEFT);
		}
		seq_putc(m, '\n');
		return;
	}
	seq_printf(m, "{\"schema\":%d,\"feature\":", SL_REPORT_SCHEMA);
	json_str(m, r->feature);
	seq_puts(m, ",\"report\":");
	json_str(m, r->name);
	seq_printf(m, ",\"layout\":\"%s\",\n\"columns\":[", layout_names[r->layout]);
	for (i = 0; i < r->ncols; i++) {
		seq_puts(m, i ? "," : "");
		json_str(m, r->cols[i].name);
	}
	seq_puts(m, "],\n\"units\":{");
	for (i = 0, n = 0; i < r->ncols; i++) {
		if (!r->cols[i].unit)
			continue;
		seq_puts(m, n++ ? "," : "");
		json_str(m, r->cols[i].name);
		seq_putc(m, ':');
		json_str(m, r->cols[i].unit);
	}
	seq_puts(m, "},\n\"meta\":{");
	call_head(c, m, r->head, SL_RH_FACTS);
	seq_puts(m, "},\n\"notes\":[");
	call_head(c, m, r->head, SL_RH_NOTES);
	seq_puts(m, "],\n\"rows\":[\n");
}

static void show_end(struct seq_file *m, struct sl_rctx *c)
{
	if (!c->json) {
		call_head(c, m, c->r->tail, SL_RH_TEXT);
		return;
	}
	seq_puts(m, "],\n\"trailer\":[");
	call_head(c, m, c->r->tail, SL_RH_NOTES);
	seq_puts(m, "]}\n");
}

static void show_row(struct seq_file *m, struct sl_rctx *c, unsigned long i)
{
	const struct sl_report *r = c->r;
	unsigned int k;

	memset(c->vals, 0, r->ncols * sizeof(*c->vals));
	r->row(c->priv, i, c->vals);
	if (c->json) {
		seq_puts(m, i ? ",[" : "[");
		for (k = 0; k < r->ncols; k++) {
			if (k)
				seq_putc(m, ',');
			json_value(m, &r->cols[k], &c->vals[k]);
		}
		seq_puts(m, "]\n");
		return;
	}
	switch (r->layout) {
	case SL_RL_TABLE:
		for (k = 0; k < r->ncols; k++) {
			if (k)
				seq_putc(m, ' ');
			/* no trailing blanks after a left-aligned last column */
			text_value_w(m, &r->cols[k], &c->vals[k],
				     k + 1 < r->ncols || !(r->cols[k].flags & SL_RCOL_LEFT) ?
				     col_width(&r->cols[k]) : 0);
		}
		seq_putc(m, '\n');
		break;
	case SL_RL_RECORD:
		for (k = 0; k < r->ncols; k++) {
			seq_printf(m, "%s ", r->cols[k].name);
			text_value_w(m, &r->cols[k], &c->vals[k], 0);
			seq_putc(m, '\n');
		}
		break;
	case SL_RL_LINES:
		r->text_row(m, c->priv, c->vals);
		seq_putc(m, '\n');
		break;
	}
}

/* position 0: the head; 1..n: the rows; n + 1: the end */
static void *sl_r_at(struct sl_rctx *c, loff_t pos)
{
	if (pos > c->n + 1)
		return NULL;
	c->pos = pos;
	return c;
}

static void *sl_r_start(struct seq_file *m, loff_t *pos)
{
	struct sl_rctx *c = m->private;

	if (*pos == 0) {
		long n = c->r->take(c->priv);

		if (n < 0)
			return ERR_PTR(n);
		c->n = n;
	}
	return sl_r_at(c, *pos);
}

static void *sl_r_next(struct seq_file *m, void *v, loff_t *pos)
{
	return sl_r_at(m->private, ++*pos);
}

static void sl_r_stop(struct seq_file *m, void *v)
{
}

static int sl_r_show(struct seq_file *m, void *v)
{
	struct sl_rctx *c = v;

	if (c->pos == 0)
		show_head(m, c);
	else if (c->pos <= c->n)
		show_row(m, c, c->pos - 1);
	else
		show_end(m, c);
	return 0;
}

static const struct seq_operations sl_r_sops = {
	.start = sl_r_start,
	.next = sl_r_next,
	.stop = sl_r_stop,
	.show = sl_r_show,
};

static int sl_r_open(struct inode *inode, struct file *file, bool json)
{
	const struct sl_report *r = inode->i_private;
	struct sl_rctx *c;
	int ret;

	ret = seq_open_private(file, &sl_r_sops, sizeof(*c) + r->priv_size);
	if (ret)
		return ret;
	c = ((struct seq_file *)file->private_data)->private;
	c->r = r;
	c->json = json;
	c->priv = c + 1;
	c->vals = kcalloc(r->ncols, sizeof(*c->vals), GFP_KERNEL);
	ret = c->vals ? 0 : -ENOMEM;
	if (!ret && r->open) {
		ret = r->open(c->priv);
		if (ret)
			kfree(c->vals);
	}
	if (ret)
		seq_release_private(inode, file);
	return ret;
}

static int sl_r_open_text(struct inode *inode, struct file *file)
{
	return sl_r_open(inode, file, false);
}

static int sl_r_open_json(struct inode *inode, struct file *file)
{
	return sl_r_open(inode, file, true);
}

static int sl_r_release(struct inode *inode, struct file *file)
{
	struct sl_rctx *c = ((struct seq_file *)file->private_data)->private;

	if (c->r->release)
		c->r->release(c->priv);
	kfree(c->vals);
	return seq_release_private(inode, file);
}

static const struct file_operations sl_r_text_fops = {
	.owner = THIS_MODULE,
	.open = sl_r_open_text,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = sl_r_release,
};

static const struct file_operations sl_r_json_fops = {
	.owner = THIS_MODULE,
	.open = sl_r_open_json,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = sl_r_release,
};

void sl_report_create(struct dentry *dir, const struct sl_report *r)
{
	char name[64];

	if (!r->json_only)
		debugfs_create_file(r->name, r->mode, dir, (void *)r, &sl_r_text_fops);
	snprintf(name, sizeof(name), "%s.json", r->name);
	debugfs_create_file(name, r->mode, dir, (void *)r, &sl_r_json_fops);
}
