// SPDX-License-Identifier: GPL-2.0
/*
 * cpu_signals: the kernel's own per-CPU CFS signals, read from struct rq.
 *
 * The first feature, and the proof that private scheduler structures are
 * reached through BTF-derived layouts (see compat.h): util_avg, util_est,
 * nr_running and capacity are read from each CPU's struct rq at the
 * offsets generated for the target kernel.
 *
 * Reading: the report (debugfs cpu_signals/report) reads every CPU's values
 * when it is read, without taking the remote rq lock: each value is one
 * aligned word, so a read is a consistent snapshot of that word though not
 * of the whole rq.
 *
 * Sampling: while enabled, a delayed work reads every online CPU each
 * period_ms, emits the schedlab:cpu_signals trace event and keeps per-CPU
 * sample count, min, max and sum of util_avg (reset on enable), which the
 * report prints next to the live values.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/cpumask.h>

#include "cpu_signals.h"
#include "schedlab_trace.h"

struct cpu_stats {
	u64 samples;
	u64 util_min, util_max, util_sum;
};

static s64 period_ms = 100;
static struct cpu_stats *stats;	/* nr_cpu_ids entries, written by the work only */
static struct delayed_work sample_work;

void sl_read_cpu_signals(int cpu, struct sl_cpu_signals *s)
{
	void *rq = sl_cpu_rq(cpu);

	s->nr_running = SL_READ(rq, rq__nr_running);
#if SL_HAS_rq__cfs__h_nr_running
	s->cfs_h_nr = SL_READ(rq, rq__cfs__h_nr_running);
#elif SL_HAS_rq__cfs__h_nr_queued
	s->cfs_h_nr = SL_READ(rq, rq__cfs__h_nr_queued);
#else
	s->cfs_h_nr = SL_SIGNAL_NONE;
#endif
	s->util_avg = SL_READ(rq, rq__cfs__avg__util_avg);
#if SL_HAS_rq__cfs__avg__util_est__enqueued
	s->util_est = SL_READ(rq, rq__cfs__avg__util_est__enqueued);
#elif SL_HAS_rq__cfs__avg__util_est
	/* one word since 6.9; bit 31 is the UTIL_AVG_UNCHANGED flag */
	s->util_est = SL_READ(rq, rq__cfs__avg__util_est) & 0x7fffffffULL;
#else
	s->util_est = SL_SIGNAL_NONE;
#endif
	s->capacity = SL_READ(rq, rq__cpu_capacity);
#if SL_HAS_rq__cpu_capacity_orig
	s->capacity_orig = SL_READ(rq, rq__cpu_capacity_orig);
#else
	s->capacity_orig = SL_SIGNAL_NONE;
#endif
}

static void sample_fn(struct work_struct *work)
{
	struct sl_cpu_signals s;
	int cpu;

	for_each_online_cpu(cpu) {
		struct cpu_stats *st = &stats[cpu];

		sl_read_cpu_signals(cpu, &s);
		trace_cpu_signals(cpu, s.nr_running, s.util_avg, s.util_est,
				  s.capacity);
		if (!st->samples || s.util_avg < st->util_min)
			WRITE_ONCE(st->util_min, s.util_avg);
		if (s.util_avg > st->util_max)
			WRITE_ONCE(st->util_max, s.util_avg);
		WRITE_ONCE(st->util_sum, st->util_sum + s.util_avg);
		WRITE_ONCE(st->samples, st->samples + 1);
	}
	schedule_delayed_work(&sample_work,
			      msecs_to_jiffies(READ_ONCE(period_ms)) ?: 1);
}

static int cpu_signals_init(struct sl_feature *f)
{
	stats = kcalloc(nr_cpu_ids, sizeof(*stats), GFP_KERNEL);
	if (!stats)
		return -ENOMEM;
	INIT_DELAYED_WORK(&sample_work, sample_fn);
	return 0;
}

static void cpu_signals_exit(struct sl_feature *f)
{
	kfree(stats);
	stats = NULL;
}

static int cpu_signals_enable(struct sl_feature *f)
{
	memset(stats, 0, nr_cpu_ids * sizeof(*stats));
	schedule_delayed_work(&sample_work, 0);
	return 0;
}

static void cpu_signals_disable(struct sl_feature *f)
{
	cancel_delayed_work_sync(&sample_work);
}

static void put_value(struct seq_file *m, u64 v)
{
	if (v == SL_SIGNAL_NONE)
		seq_printf(m, " %8s", "-");
	else
		seq_printf(m, " %8llu", v);
}

static int report_show(struct seq_file *m, void *v)
{
	bool sampling = sl_feature_enabled(&cpu_signals_feature);
	struct sl_cpu_signals s;
	int cpu;

	seq_printf(m, "# live values read from struct rq; sampler %s (period_ms=%lld)\n",
		   sampling ? "on" : "off", READ_ONCE(period_ms));
	seq_printf(m, "%-4s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n",
		   "cpu", "nr_run", "cfs_nr", "util_avg", "util_est", "capacity",
		   "cap_orig", "samples", "util_min", "util_max", "util_mean");
	for_each_online_cpu(cpu) {
		const struct cpu_stats *st = &stats[cpu];
		u64 n = READ_ONCE(st->samples);

		sl_read_cpu_signals(cpu, &s);
		seq_printf(m, "%-4d", cpu);
		put_value(m, s.nr_running);
		put_value(m, s.cfs_h_nr);
		put_value(m, s.util_avg);
		put_value(m, s.util_est);
		put_value(m, s.capacity);
		put_value(m, s.capacity_orig);
		put_value(m, n);
		put_value(m, n ? READ_ONCE(st->util_min) : SL_SIGNAL_NONE);
		put_value(m, n ? READ_ONCE(st->util_max) : SL_SIGNAL_NONE);
		put_value(m, n ? div64_u64(READ_ONCE(st->util_sum), n) : SL_SIGNAL_NONE);
		seq_putc(m, '\n');
	}
	return 0;
}

/*
 * A buffer the size of the whole report from the start (two header lines,
 * 95 characters per CPU): seq_file would otherwise run report_show() again
 * each time it doubles a buffer that was too small (beyond ~40 CPUs).
 */
static int report_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, report_show, inode->i_private,
				256 + 100 * nr_cpu_ids);
}

static const struct file_operations report_fops = {
	.owner = THIS_MODULE,
	.open = report_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static int cpu_signals_debugfs(struct sl_feature *f, struct dentry *dir)
{
	debugfs_create_file("report", 0444, dir, NULL, &report_fops);
	return 0;
}

static const struct sl_param cpu_signals_params[] = {
	{
		.name = "period_ms",
		.help = "sampling period of the trace event and statistics",
		.value = &period_ms, .min = 1, .max = 10000, .live = true,
	},
	{ }
};

struct sl_feature cpu_signals_feature = {
	.name = "cpu_signals",
	.summary = "per-CPU CFS util_avg, util_est, nr_running and capacity from struct rq",
	.needs = SL_CAP(SL_CAP_RUNQUEUES),
	.init = cpu_signals_init,
	.exit = cpu_signals_exit,
	.enable = cpu_signals_enable,
	.disable = cpu_signals_disable,
	.debugfs = cpu_signals_debugfs,
	.params = cpu_signals_params,
};
