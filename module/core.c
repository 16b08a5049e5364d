// SPDX-License-Identifier: GPL-2.0
/*
 * schedlab core: module load/unload, the feature table, sysfs control and
 * the debugfs status report. See schedlab.h for the feature framework.
 *
 * Locking: each feature has a mutex serialising enable/disable and parameter
 * writes. Unload removes the sysfs tree first (kernfs drains writers), then
 * disables and tears down every feature, then removes debugfs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/utsname.h>
#include <linux/string.h>
#include <linux/ctype.h>
#include <linux/uaccess.h>

#include "schedlab.h"
#include "report.h"
#include "cpu_signals.h"
#include "dlparams.h"
#include "signals.h"
#include "overutil.h"
#include "blocked_on.h"
#include "eevdf.h"
#include "perf.h"

/* The one table of experiments. */
static struct sl_feature *const sl_features[] = {
	&cpu_signals_feature,
	&dlparams_feature,
	&signals_feature,
	&overutil_feature,
	&blocked_on_feature,
	&eevdf_feature,
	&perf_feature,
};

static char *enable;
module_param(enable, charp, 0444);
MODULE_PARM_DESC(enable, "comma-separated features to enable at load (unknown or unavailable: load fails with -EINVAL)");

static struct kobject *sl_root_kobj;
static struct dentry *sl_debugfs_root;

/* --- sysfs ------------------------------------------------------------- */

struct sl_attr {
	struct kobj_attribute kattr;
	struct sl_feature *f;
	const struct sl_param *p;	/* NULL for enabled/available */
	struct list_head node;
};

static LIST_HEAD(sl_attrs);

static struct sl_attr *to_sl_attr(struct kobj_attribute *a)
{
	return container_of(a, struct sl_attr, kattr);
}

/*
 * Strict integer parsing for every sysfs write: one optional trailing
 * newline, nothing else; overflow is a bad value like any other.
 */
u64 sl_percpu_sum_u64(const void __percpu *base, size_t offset)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *(const u64 *)((const char *)per_cpu_ptr(base, cpu) + offset);
	return sum;
}

static int sl_parse_s64(const char *buf, size_t count, s64 *out)
{
	char tmp[32];

	if (count == 0 || count >= sizeof(tmp))
		return -EINVAL;
	/* an embedded NUL would end the number early: "1\0x" is not 1 */
	if (memchr(buf, '\0', count))
		return -EINVAL;
	memcpy(tmp, buf, count);
	tmp[count] = '\0';
	/* kstrtos64() itself takes one trailing newline, and only one */
	if (isspace(tmp[0]))
		return -EINVAL;
	return kstrtos64(tmp, 10, out) ? -EINVAL : 0;
}

static int sl_feature_set_enabled(struct sl_feature *f, bool on)
{
	int ret = 0;

	mutex_lock(&f->lock);
	if (on == f->enabled)
		goto out;
	if (on) {
		if (!f->available) {
			ret = -ENODEV;
			goto out;
		}
		ret = f->enable ? f->enable(f) : 0;
		if (!ret) {
			WRITE_ONCE(f->enabled, true);
			pr_info("%s enabled\n", f->name);
		}
	} else {
		if (f->disable)
			f->disable(f);
		WRITE_ONCE(f->enabled, false);
		pr_info("%s disabled\n", f->name);
	}
out:
	mutex_unlock(&f->lock);
	return ret;
}

static ssize_t enabled_show(struct kobject *k, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%d\n", sl_feature_enabled(to_sl_attr(a)->f));
}

static ssize_t enabled_store(struct kobject *k, struct kobj_attribute *a,
			     const char *buf, size_t count)
{
	s64 v;
	int ret = sl_parse_s64(buf, count, &v);

	if (ret)
		return ret;
	if (v != 0 && v != 1)
		return -EINVAL;
	ret = sl_feature_set_enabled(to_sl_attr(a)->f, v);
	return ret ? ret : count;
}

static ssize_t available_show(struct kobject *k, struct kobj_attribute *a, char *buf)
{
	struct sl_feature *f = to_sl_attr(a)->f;

	if (f->available)
		return sysfs_emit(buf, "1\n");
	return sysfs_emit(buf, "0 %s\n", f->why);
}

static ssize_t param_show(struct kobject *k, struct kobj_attribute *a, char *buf)
{
	const struct sl_param *p = to_sl_attr(a)->p;
	struct sl_feature *f = to_sl_attr(a)->f;
	char tmp[SL_PARAM_STR_MAX];

	if (!p->str_size)
		return sysfs_emit(buf, "%lld\n", READ_ONCE(*p->value));
	mutex_lock(&f->lock);
	p->get_str(f, tmp, min(sizeof(tmp), p->str_size));
	mutex_unlock(&f->lock);
	return sysfs_emit(buf, "%s\n", tmp);
}

static ssize_t reset_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	int (*reset)(void) = file->private_data;
	char buf[2];
	int ret;

	if (count == 0 || count > 2)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	if (buf[0] != '1' || (count == 2 && buf[1] != '\n'))
		return -EINVAL;
	ret = reset();
	return ret ? ret : count;
}

static const struct file_operations reset_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = reset_write,
	.llseek = noop_llseek,
};

void sl_debugfs_reset_file(struct dentry *dir, int (*reset)(void))
{
	debugfs_create_file("reset", 0200, dir, reset, &reset_fops);
}

/* A string parameter: printable ASCII, one optional trailing newline. */
static ssize_t param_store_str(struct sl_feature *f, const struct sl_param *p,
			       const char *buf, size_t count)
{
	char tmp[SL_PARAM_STR_MAX];
	size_t len = count, i;
	int ret;

	if (len && buf[len - 1] == '\n')
		len--;
	if (len >= min(sizeof(tmp), p->str_size))
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (buf[i] < 0x20 || buf[i] > 0x7e)
			return -EINVAL;
	memcpy(tmp, buf, len);
	tmp[len] = '\0';
	mutex_lock(&f->lock);
	if (f->enabled && !p->live) {
		mutex_unlock(&f->lock);
		return -EBUSY;
	}
	ret = p->set_str(f, tmp);
	mutex_unlock(&f->lock);
	return ret ? ret : count;
}

static ssize_t param_store(struct kobject *k, struct kobj_attribute *a,
			   const char *buf, size_t count)
{
	struct sl_attr *sa = to_sl_attr(a);
	const struct sl_param *p = sa->p;
	struct sl_feature *f = sa->f;
	s64 v, old;
	int ret;

	if (p->str_size)
		return param_store_str(f, p, buf, count);
	ret = sl_parse_s64(buf, count, &v);
	if (ret)
		return ret;
	if (v < p->min || v > p->max)
		return -EINVAL;
	mutex_lock(&f->lock);
	if (f->enabled && !p->live) {
		ret = -EBUSY;
		goto out;
	}
	old = *p->value;
	WRITE_ONCE(*p->value, v);
	if (f->enabled && p->on_change) {
		ret = p->on_change(f, p);
		if (ret)
			WRITE_ONCE(*p->value, old);
	}
out:
	mutex_unlock(&f->lock);
	return ret ? ret : count;
}

static int sl_add_attr(struct sl_feature *f, const struct sl_param *p,
		       const char *name, umode_t mode,
		       ssize_t (*show)(struct kobject *, struct kobj_attribute *, char *),
		       ssize_t (*store)(struct kobject *, struct kobj_attribute *,
					const char *, size_t))
{
	struct sl_attr *sa = kzalloc(sizeof(*sa), GFP_KERNEL);
	int ret;

	if (!sa)
		return -ENOMEM;
	sysfs_attr_init(&sa->kattr.attr);
	sa->kattr.attr.name = name;
	sa->kattr.attr.mode = mode;
	sa->kattr.show = show;
	sa->kattr.store = store;
	sa->f = f;
	sa->p = p;
	ret = sysfs_create_file(f->kobj, &sa->kattr.attr);
	if (ret) {
		kfree(sa);
		return ret;
	}
	list_add_tail(&sa->node, &sl_attrs);
	return 0;
}

static int sl_feature_sysfs(struct sl_feature *f)
{
	const struct sl_param *p;
	int ret;

	f->kobj = kobject_create_and_add(f->name, sl_root_kobj);
	if (!f->kobj)
		return -ENOMEM;
	ret = sl_add_attr(f, NULL, "enabled", 0644, enabled_show, enabled_store);
	if (!ret)
		ret = sl_add_attr(f, NULL, "available", 0444, available_show, NULL);
	for (p = f->params; !ret && p && p->name; p++)
		ret = sl_add_attr(f, p, p->name, 0644, param_show, param_store);
	return ret;
}

static void sl_sysfs_remove_all(void)
{
	struct sl_attr *sa, *tmp;
	size_t i;

	/* kobject_put removes the directory; kernfs drains active writers. */
	for (i = 0; i < ARRAY_SIZE(sl_features); i++) {
		if (sl_features[i]->kobj) {
			kobject_put(sl_features[i]->kobj);
			sl_features[i]->kobj = NULL;
		}
	}
	list_for_each_entry_safe(sa, tmp, &sl_attrs, node) {
		list_del(&sa->node);
		kfree(sa);
	}
	kobject_put(sl_root_kobj);
	sl_root_kobj = NULL;
}

static ssize_t version_show(struct kobject *k, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%s\n", SL_VERSION);
}

static struct kobj_attribute version_attr = __ATTR_RO(version);

/* --- debugfs status ------------------------------------------------------ */

static int status_show(struct seq_file *m, void *v)
{
	struct new_utsname *u = utsname();
	size_t i;
	int c;

	seq_printf(m, "schedlab %s\n", SL_VERSION);
	seq_printf(m, "kernel: %s %s\n", u->release, u->version);
	seq_printf(m, "layout: generated from the BTF of %s\n", SL_LAYOUT_KERNEL);
	seq_printf(m, "proxy_exec: %s\n",
		   !sl_cap_has(SL_CAP_PROXY_EXEC) ? "not built" :
		   sl_proxy_exec_enabled() ? "on" : "off");
	seq_puts(m, "capabilities:\n");
	for (c = 0; c < SL_NR_CAPS; c++)
		seq_printf(m, "  %-40s %-3s %s\n", sl_cap_name(c),
			   sl_cap_has(c) ? "yes" : "no", sl_cap_detail(c));
	seq_puts(m, "features:\n");
	for (i = 0; i < ARRAY_SIZE(sl_features); i++) {
		struct sl_feature *f = sl_features[i];

		seq_printf(m, "  %-16s available=%d enabled=%d %s\n", f->name,
			   f->available, sl_feature_enabled(f),
			   f->available ? f->summary : f->why);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(status);

/*
 * status.json: the same facts for programs (the schedlab tool): a row per
 * feature, the kernel and each capability in "meta".
 */
static long status_take(void *priv)
{
	return ARRAY_SIZE(sl_features);
}

static void status_head(void *priv, struct sl_rhead *h)
{
	struct new_utsname *u = utsname();
	int c;

	sl_rfact_str(h, "version", SL_VERSION);
	sl_rfact_str(h, "kernel", u->release);
	sl_rfact_str(h, "layout", SL_LAYOUT_KERNEL);
	sl_rfact_str(h, "proxy_exec", !sl_cap_has(SL_CAP_PROXY_EXEC) ? "not_built" :
		     sl_proxy_exec_enabled() ? "on" : "off");
	for (c = 0; c < SL_NR_CAPS; c++)
		sl_rfact_bool(h, sl_cap_name(c), sl_cap_has(c));
}

static const struct sl_rcol status_cols[] = {
	{ "feature", NULL, SL_RK_STR },
	{ "available", NULL, SL_RK_U64 },
	{ "enabled", NULL, SL_RK_U64 },
	{ "why", NULL, SL_RK_STR },
	{ "summary", NULL, SL_RK_STR },
};

static void status_row(void *priv, unsigned long i, struct sl_rval *v)
{
	struct sl_feature *f = sl_features[i];

	sl_rv_str(&v[0], f->name);
	sl_rv_u64(&v[1], f->available);
	sl_rv_u64(&v[2], sl_feature_enabled(f));
	sl_rv_str(&v[3], f->available ? NULL : f->why);
	sl_rv_str(&v[4], f->summary);
}

static const struct sl_report status_report = {
	.feature = "schedlab",
	.name = "status",
	.mode = 0444,
	.json_only = true,
	.layout = SL_RL_TABLE,
	.cols = status_cols,
	.ncols = ARRAY_SIZE(status_cols),
	.take = status_take,
	.head = status_head,
	.row = status_row,
};

/* --- load/unload ----------------------------------------------------------- */

static void sl_feature_check(struct sl_feature *f)
{
	size_t len = 0;
	int c;

	f->available = true;
	for (c = 0; c < SL_NR_CAPS; c++) {
		if (!(f->needs & SL_CAP(c)) || sl_cap_has(c))
			continue;
		if (f->available)
			len = scnprintf(f->why, sizeof(f->why), "missing:");
		f->available = false;
		len += scnprintf(f->why + len, sizeof(f->why) - len, " %s",
				 sl_cap_name(c));
	}
}

/*
 * Teardown runs in three steps so that no report reader or hook sees freed
 * state: disable every feature (hooks unregistered and synchronised), then
 * remove debugfs (waits for readers), then let each feature free its data.
 */
static void sl_features_disable_all(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sl_features); i++)
		sl_feature_set_enabled(sl_features[i], false);
}

static void sl_features_exit(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sl_features); i++) {
		struct sl_feature *f = sl_features[i];

		if (f->initialised && f->exit)
			f->exit(f);
		f->initialised = false;
	}
}

static void sl_teardown(void)
{
	sl_sysfs_remove_all();
	sl_features_disable_all();
	debugfs_remove_recursive(sl_debugfs_root);
	sl_debugfs_root = NULL;
	sl_features_exit();
	sl_compat_exit();
}

static int sl_enable_from_param(void)
{
	char *list, *cur, *name;
	size_t i;
	int ret = 0;

	if (!enable || !*enable)
		return 0;
	list = kstrdup(enable, GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	cur = list;
	while (!ret && (name = strsep(&cur, ",")) != NULL) {
		struct sl_feature *f = NULL;

		name = strim(name);
		if (!*name)
			continue;
		for (i = 0; i < ARRAY_SIZE(sl_features); i++)
			if (!strcmp(sl_features[i]->name, name))
				f = sl_features[i];
		if (!f) {
			pr_err("enable=: unknown feature '%s'\n", name);
			ret = -EINVAL;
		} else if (!f->available) {
			pr_err("enable=: feature '%s' unavailable: %s\n", name, f->why);
			ret = -EINVAL;
		} else {
			ret = sl_feature_set_enabled(f, true);
		}
	}
	kfree(list);
	return ret;
}

static int __init schedlab_init(void)
{
	size_t i;
	int ret;

	/*
	 * Every feature's lock first: the error path below disables every
	 * feature, which takes each lock, whichever step failed.
	 */
	for (i = 0; i < ARRAY_SIZE(sl_features); i++) {
		mutex_init(&sl_features[i]->lock);
		sl_features[i]->enabled = false;
	}

	ret = sl_compat_init();
	if (ret)
		return ret;

	sl_debugfs_root = debugfs_create_dir("schedlab", NULL);
	debugfs_create_file("status", 0444, sl_debugfs_root, NULL, &status_fops);
	sl_report_create(sl_debugfs_root, &status_report);

	sl_root_kobj = kobject_create_and_add("schedlab", kernel_kobj);
	if (!sl_root_kobj) {
		ret = -ENOMEM;
		goto err;
	}
	ret = sysfs_create_file(sl_root_kobj, &version_attr.attr);
	if (ret)
		goto err;

	for (i = 0; i < ARRAY_SIZE(sl_features); i++) {
		struct sl_feature *f = sl_features[i];

		sl_feature_check(f);
		if (f->available && f->init) {
			f->why[0] = '\0';
			ret = f->init(f);
			if (ret) {
				f->available = false;
				/* init may say why itself */
				if (!f->why[0])
					scnprintf(f->why, sizeof(f->why), "init failed: %d", ret);
			}
		}
		f->initialised = f->available;
		if (f->available) {
			f->dir = debugfs_create_dir(f->name, sl_debugfs_root);
			if (f->debugfs)
				f->debugfs(f, f->dir);
		}
		ret = sl_feature_sysfs(f);
		if (ret)
			goto err;
		pr_info("%s: %s\n", f->name, f->available ? "available" : f->why);
	}

	ret = sl_enable_from_param();
	if (ret)
		goto err;
	pr_info("loaded (%s)\n", SL_VERSION);
	return 0;

err:
	sl_teardown();
	return ret;
}

static void __exit schedlab_exit(void)
{
	sl_teardown();
	pr_info("unloaded\n");
}

module_init(schedlab_init);
module_exit(schedlab_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("schedlab: scheduler experiments on stock kernels");
MODULE_VERSION(SL_VERSION);
