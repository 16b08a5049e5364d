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
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/cpumask.h>

#include "cpu_signals.h"
#include "schedlab_trace.h"
#include "report.h"
#include "sched_fields.h"

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
	long v;

	s->nr_running = SL_READ(rq, rq__nr_running);
#if SL_HAS_rq__cfs__h_nr_running
	s->cfs_h_nr = SL_READ(rq, rq__cfs__h_nr_running);
#elif SL_HAS_rq__cfs__h_nr_queued
	s->cfs_h_nr = SL_READ(rq, rq__cfs__h_nr_queued);
#else
	s->cfs_h_nr = SL_SIGNAL_NONE;
#endif
	s->util_avg = SL_READ(rq, rq__cfs__avg__util_avg);
	v = sl_rq_util_est(rq);
	s->util_est = v < 0 ? SL_SIGNAL_NONE : v;
	s->capacity = SL_READ(rq, rq__cpu_capacity);
	v = sl_rq_capacity_orig(rq);
	s->capacity_orig = v < 0 ? SL_SIGNAL_NONE : v;
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

/*
 * The report: the live values of every online CPU, read at the start of a
 * pass into a snapshot (open allocates room for every CPU), with the
 * sampler's statistics.
 */
struct report_row {
	int cpu;
	struct sl_cpu_signals s;
	u64 samples, util_min, util_max, util_sum;
};

struct report_snap {
	struct report_row *rows;	/* nr_cpu_ids */
	bool sampling;
	s64 period_ms;
};

static const struct sl_rcol report_cols[] = {
	{ "cpu", NULL, SL_RK_S64, 4, SL_RCOL_LEFT },
	{ "nr_run", NULL, SL_RK_U64, 8 },
	{ "cfs_nr", NULL, SL_RK_U64, 8 },
	{ "util_avg", "util", SL_RK_U64, 8 },
	{ "util_est", "util", SL_RK_U64, 8 },
	{ "capacity", "util", SL_RK_U64, 8 },
	{ "cap_orig", "util", SL_RK_U64, 8 },
	{ "samples", NULL, SL_RK_U64, 8 },
	{ "util_min", "util", SL_RK_U64, 8 },
	{ "util_max", "util", SL_RK_U64, 8 },
	{ "util_mean", "util", SL_RK_U64, 8 },
};

static int report_open(void *priv)
{
	struct report_snap *r = priv;

	r->rows = kvcalloc(nr_cpu_ids, sizeof(*r->rows), GFP_KERNEL);
	return r->rows ? 0 : -ENOMEM;
}

static void report_release(void *priv)
{
	struct report_snap *r = priv;

	kvfree(r->rows);
}

static long report_take(void *priv)
{
	struct report_snap *r = priv;
	long n = 0;
	int cpu;

	r->sampling = sl_feature_enabled(&cpu_signals_feature);
	r->period_ms = READ_ONCE(period_ms);
	for_each_online_cpu(cpu) {
		const struct cpu_stats *st = &stats[cpu];
		struct report_row *row = &r->rows[n++];

		row->cpu = cpu;
		sl_read_cpu_signals(cpu, &row->s);
		row->samples = READ_ONCE(st->samples);
		row->util_min = READ_ONCE(st->util_min);
		row->util_max = READ_ONCE(st->util_max);
		row->util_sum = READ_ONCE(st->util_sum);
		if (n == nr_cpu_ids)
			break;
	}
	return n;
}

static void report_head(void *priv, struct sl_rhead *h)
{
	struct report_snap *r = priv;

	sl_rnote(h, "live values read from struct rq; sampler %s (period_ms=%lld)",
		 r->sampling ? "on" : "off", r->period_ms);
	sl_rfact_bool(h, "sampler", r->sampling);
	sl_rfact_s64(h, "period_ms", r->period_ms);
}

static void put(struct sl_rval *v, u64 x)
{
	if (x == SL_SIGNAL_NONE)
		sl_rv_none(v);
	else
		sl_rv_u64(v, x);
}

static void report_row(void *priv, unsigned long i, struct sl_rval *v)
{
	const struct report_row *row = &((struct report_snap *)priv)->rows[i];
	u64 n = row->samples;

	sl_rv_s64(&v[0], row->cpu);
	put(&v[1], row->s.nr_running);
	put(&v[2], row->s.cfs_h_nr);
	put(&v[3], row->s.util_avg);
	put(&v[4], row->s.util_est);
	put(&v[5], row->s.capacity);
	put(&v[6], row->s.capacity_orig);
	sl_rv_u64(&v[7], n);
	put(&v[8], n ? row->util_min : SL_SIGNAL_NONE);
	put(&v[9], n ? row->util_max : SL_SIGNAL_NONE);
	put(&v[10], n ? div64_u64(row->util_sum, n) : SL_SIGNAL_NONE);
}

static const struct sl_report report_report = {
	.feature = "cpu_signals",
	.name = "report",
	.mode = 0444,
	.layout = SL_RL_TABLE,
	.cols = report_cols,
	.ncols = ARRAY_SIZE(report_cols),
	.priv_size = sizeof(struct report_snap),
	.open = report_open,
	.release = report_release,
	.take = report_take,
	.head = report_head,
	.row = report_row,
};

static int cpu_signals_debugfs(struct sl_feature *f, struct dentry *dir)
{
	sl_report_create(dir, &report_report);
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
