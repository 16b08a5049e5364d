/* SPDX-License-Identifier: GPL-2.0 */
/*
 * schedlab: the feature framework.
 *
 * Every experiment is a struct sl_feature, defined in its own file pair
 * (module/<name>.c, module/<name>.h) and listed once in sl_features[] in
 * core.c. The core gives each feature:
 *   - a sysfs directory /sys/kernel/schedlab/<name>/ with "enabled" (0/1),
 *     "available" (read-only) and the feature's integer parameters, every
 *     write parsed strictly and range-checked (-EINVAL, nothing changed);
 *   - a debugfs directory /sys/kernel/debug/schedlab/<name>/ for its reports;
 *   - a line in the status report saying whether it is available and, if
 *     not, which capability (compat.h) this kernel lacks.
 * A feature whose needs are not met is never enabled; the module still loads
 * and the other features work.
 */
#ifndef SCHEDLAB_H
#define SCHEDLAB_H

#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include "compat.h"

#define SL_VERSION "0.1.0"

struct sl_feature;
struct dentry;

/*
 * An integer parameter, stored in *value, written through sysfs.
 * Parameters with live = false can only change while the feature is off
 * (-EBUSY otherwise); on_change, if set, runs under the feature lock after
 * a live change and may refuse it (the old value is then restored).
 */
/*
 * A feature's parameter: a sysfs file under the feature's directory.
 * Integer: *value in [min, max]. String (str_size != 0): printable ASCII,
 * shorter than str_size; the empty string (or a lone newline) clears it;
 * the core validates, then set_str() parses and publishes it (readers in
 * probes need the feature's own synchronisation) or refuses it with an
 * errno, changing nothing, and get_str() reads it back.
 */
#define SL_PARAM_STR_MAX	256
struct sl_param {
	const char *name;
	const char *help;
	s64 *value;
	s64 min, max;
	bool live;
	int (*on_change)(struct sl_feature *f, const struct sl_param *p);
	size_t str_size;
	int (*set_str)(struct sl_feature *f, const char *val);
	void (*get_str)(struct sl_feature *f, char *buf, size_t size);
};

struct sl_feature {
	const char *name;
	const char *summary;
	u64 needs;			/* SL_CAP() bits */

	/*
	 * init: at load, when needs are met; may allocate, may fail (the
	 * feature is then unavailable with its error). exit: at unload.
	 * enable/disable: under the feature lock, from sysfs or at unload.
	 * debugfs: create report files in dir (at load, when available).
	 */
	int (*init)(struct sl_feature *f);
	void (*exit)(struct sl_feature *f);
	int (*enable)(struct sl_feature *f);
	void (*disable)(struct sl_feature *f);
	int (*debugfs)(struct sl_feature *f, struct dentry *dir);

	const struct sl_param *params;	/* terminated by a zeroed entry */

	/* owned by the core */
	struct kobject *kobj;
	struct dentry *dir;
	struct mutex lock;
	bool available;
	bool enabled;
	bool initialised;
	char why[160];
};

/* Whether the feature is currently enabled (lockless, for reports). */
/* Sum over all CPUs of the u64 at @offset in the per-CPU struct at @base. */
u64 sl_percpu_sum_u64(const void __percpu *base, size_t offset);
#define sl_percpu_sum(base, offset) sl_percpu_sum_u64((const void __percpu *)(base), offset)

/*
 * A feature's debugfs "reset" file in @dir (root, write-only): a write of
 * "1" (a trailing newline allowed) calls @reset, which returns 0 or an
 * errno for the write; anything else is -EINVAL (-EFAULT) and changes
 * nothing.
 */
void sl_debugfs_reset_file(struct dentry *dir, int (*reset)(void));

static inline bool sl_feature_enabled(const struct sl_feature *f)
{
	return READ_ONCE(f->enabled);
}

#endif /* SCHEDLAB_H */
