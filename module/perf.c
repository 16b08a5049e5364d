// SPDX-License-Identifier: GPL-2.0
/*
 * perf: what performance level (and frequency) each policy would request,
 * per CPU, live (policies: perf_core.c, docs/perf.md).
 *
 *   max   the kernel's: schedutil on effective_cpu_util(), the runqueue's
 *         max-aggregated uclamp values, the fixed 1.25 headroom;
 *   time  the same util and bounds with a time-based headroom (the util
 *         reached within max(tick, update_delay_us));
 *   sum   uclamp sum aggregation: per task clamp(util) - util summed over
 *         the CPU's enqueued CFS tasks, their clamped util_est summed.
 * Beside them, eff_util (the mirror of the kernel's sched_cpu_util()) and
 * kernel_util, the kernel's own sched_cpu_util() called in the same
 * sample (found through kallsyms; "-" where it cannot be called safely):
 * the reference the mirror is checked against.
 *
 * Reading. Each CPU's struct rq is read without its lock, one aligned word
 * at a time (SL_READ), as cpu_signals does; the sum needs each enqueued
 * task's util and clamps: one walk over every thread under RCU
 * (for_each_process_thread), counting a task on task_cpu() when it is
 * queued (on_rq == 1) and not a delayed dequeue, a CFS task (neither RT
 * nor DL priority), and not the sampler itself. The walk is O(threads) in
 * process context, once per sample; nothing runs in the scheduler's
 * paths. Values read this way are a near-instant, not an atomic, view:
 * a task may be counted on the CPU it just left.
 *
 * Where. A sample is taken when a report is read (cpus, cpus.json: a
 * fresh sample of every online CPU per pass) and, while the feature is
 * enabled, every period_ms by a delayed work (system workqueue, on the
 * CPU that queued it), which emits one schedlab:perf_cpu event per online
 * CPU.
 *
 * The sampler's own CPU. The sampler (a kworker or the reader, clamps
 * 0..1024) is runnable on the CPU it runs on, and the kernel's max
 * aggregation counts it: read there, that CPU's rq uclamp_max would be
 * 1024 whatever its tasks' clamps. So that CPU is read from another one
 * (work_on_cpu()), while the sampler sleeps waiting for it: a sleeping
 * task has left its runqueue's clamp buckets (uclamp_rq_dec() at every
 * dequeue, a delayed one included). The price: a kworker runs for the
 * read on that other CPU. So this happens only while clamps are in use
 * (the kernel's sched_uclamp_used key); otherwise, and with one CPU
 * online, the row is read in place and says self=1.
 *
 * CPU hotplug: every sample is of the CPUs online at that moment; no
 * per-CPU state is kept.
 *
 * uclamp (SL_CAP_UCLAMP): without it (Debian 6.1 and 6.12 build no
 * CONFIG_UCLAMP_TASK) the runqueue clamps are the kernel's defaults 0 and
 * 1024, the uclamp columns and the sum policy are "-" and the status line
 * says why; eff_util, max and time still work. uclamp_is_used() is read
 * from the static key sched_uclamp_used through kallsyms where it exists.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": perf: " fmt

#include <linux/cpufreq.h>
#include <linux/cpumask.h>
#include <linux/jump_label.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/deadline.h>
#include <linux/sched/rt.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "perf.h"
#include "perf_core.h"
#include "report.h"
#include "sched_fields.h"
#include "schedlab_trace.h"

/* parameters (live) */
static s64 period_ms = 50;
static s64 max_freq_khz = 2000000;
static s64 nr_opps = 8;
static s64 update_delay_us;

static struct delayed_work sample_work;
static struct sl_perf_cpu *work_rows;	/* nr_cpu_ids, the sampler's */
static struct sl_perf_sum *work_sums;
static unsigned long (*kernel_cpu_util)(int cpu);
static struct static_key *uclamp_used_key;
static bool have_uclamp;

/* the headroom window: the tick, or the frequency update delay if longer */
static u64 window_ns(void)
{
	return max_t(u64, TICK_NSEC, (u64)READ_ONCE(update_delay_us) * NSEC_PER_USEC);
}

/* one CPU's struct rq into @in (lockless, word by word) */
static void read_rq(int cpu, struct sl_perf_in *in)
{
	void *rq = sl_cpu_rq(cpu);

	memset(in, 0, sizeof(*in));
	in->cap = sl_rq_capacity_orig_or_scale(rq);
	in->util_avg = SL_READ(rq, rq__cfs__avg__util_avg);
#if SL_HAS_rq__cfs__avg__runnable_avg
	in->runnable_avg = SL_READ(rq, rq__cfs__avg__runnable_avg);
#endif
	in->util_est = max_t(long, sl_rq_util_est(rq), 0);
#if SL_HAS_rq__avg_rt__util_avg
	in->rt = SL_READ(rq, rq__avg_rt__util_avg);
#endif
#if SL_HAS_rq__avg_dl__util_avg
	in->dl = SL_READ(rq, rq__avg_dl__util_avg);
#endif
#if SL_HAS_rq__avg_irq__util_avg
	in->irq = SL_READ(rq, rq__avg_irq__util_avg);
#endif
#if SL_HAS_rq__dl__running_bw
	in->bw_dl = sl_perf_bw_to_util(SL_READ(rq, rq__dl__running_bw));
#endif
#if SL_HAS_rq__rt__rt_queued && SL_HAS_rq__rt__rt_nr_running
	in->rt_runnable = SL_READ(rq, rq__rt__rt_queued) &&
			  SL_READ(rq, rq__rt__rt_nr_running);
#endif
	in->rq_uclamp_min = 0;
	in->rq_uclamp_max = SCHED_CAPACITY_SCALE;
	if (have_uclamp)
		sl_rq_uclamp(rq, &in->rq_uclamp_min, &in->rq_uclamp_max);
	in->uclamp_used = uclamp_used_key && static_key_enabled(uclamp_used_key);
}

/* --- the per-task sums (sum aggregation) --------------------------------- */

#if SL_HAS_task_struct__uclamp && SL_HAS_SIZE_uclamp_se && SL_HAS_uclamp_se__value && \
	SL_BITFIELD_uclamp_se__value
#define PERF_TASK_CLAMPS 1
static_assert(SL_BITS_IN_UNIT(uclamp_se__value));

/* p->uclamp[id].value: the effective clamp of an enqueued task */
static unsigned long task_clamp(struct task_struct *p, int id)
{
	char *se = (char *)p + SL_OFF_task_struct__uclamp + id * SL_SIZE_uclamp_se;

	return SL_READ_BITS(se, uclamp_se__value);
}

/* a task counted on its CPU: queued, not a delayed dequeue, CFS */
static bool task_counted(struct task_struct *p)
{
	if (!sl_task_queued(p) || p == current)
		return false;
	if (sl_task_delayed(p))
		return false;
	return !rt_prio(READ_ONCE(p->prio)) && !dl_prio(READ_ONCE(p->prio));
}
#else
#define PERF_TASK_CLAMPS 0
#endif

#if PERF_TASK_CLAMPS
static void count_task(struct sl_perf_sum *sums, struct task_struct *p)
{
	unsigned int cpu;

	if (!task_counted(p))
		return;
	cpu = task_cpu(p);
	if (cpu >= nr_cpu_ids)
		return;
	sl_perf_sum_add(&sums[cpu], SL_READ(p, task_struct__se__avg__util_avg),
			max_t(long, sl_task_util_est(p), 0), task_clamp(p, 0), task_clamp(p, 1));
}
#endif

/* every online CPU's sums, in @sums (nr_cpu_ids) */
static void walk_tasks(struct sl_perf_sum *sums)
{
#if PERF_TASK_CLAMPS
	struct task_struct *g, *p;

	memset(sums, 0, nr_cpu_ids * sizeof(*sums));
	/*
	 * for_each_process_thread() as an RCU walk, spelled out: the macro's
	 * lockdep condition names tasklist_lock, which is not exported (a
	 * module using it does not link on a lockdep kernel).
	 */
	rcu_read_lock();
	for (g = &init_task; (g = next_task(g)) != &init_task;)
		list_for_each_entry_rcu(p, &g->signal->thread_head, thread_node)
			count_task(sums, p);
	rcu_read_unlock();
#endif
}

/* --- a sample -------------------------------------------------------------- */

static void compute(struct sl_perf_cpu *c, u64 win, u64 fmax, unsigned int opps)
{
	unsigned long mn, mx;

	c->eff_util = sl_perf_effective(&c->in, sl_perf_cfs_util(&c->in, 0),
					c->in.rq_uclamp_min, c->in.rq_uclamp_max,
					&mn, &mx);
	sl_perf_max_policy(&c->in, &c->max);
	sl_perf_time_policy(&c->in, win, &c->time);
	c->max_khz = sl_perf_freq(c->max.perf, c->in.cap, fmax, opps);
	c->time_khz = sl_perf_freq(c->time.perf, c->in.cap, fmax, opps);
	if (c->has_uclamp) {
		sl_perf_sum_policy(&c->in, &c->sum, &c->sum_out);
		c->sum_khz = sl_perf_freq(c->sum_out.perf, c->in.cap, fmax, opps);
	}
}

/*
 * What the kernel itself has for @c->cpu beside schedlab's computation: the
 * frequency-invariance factor and its cpufreq policy's current frequency
 * (policy->cur, what scaling_cur_freq shows for a driver that picks from a
 * table: schedutil's last request there) and maximum. Process context.
 */
static void read_cpufreq(struct sl_perf_cpu *c)
{
	unsigned int cur = cpufreq_quick_get(c->cpu);
	unsigned int max = cpufreq_quick_get_max(c->cpu);

	c->freq_scale = sl_cpu_freq_scale(c->cpu);
	c->policy_cur_khz = cur ? (long)cur : -1;
	c->policy_max_khz = max ? (long)max : -1;
}

/* @c->cpu's runqueue and the kernel's own util for it */
static long read_cpu(void *arg)
{
	struct sl_perf_cpu *c = arg;

	read_rq(c->cpu, &c->in);
	c->kernel_util = kernel_cpu_util ? (long)kernel_cpu_util(c->cpu) : -1;
	read_cpufreq(c);
	return 0;
}

/* whether a task's clamps may be in use (the kernel's static key) */
static bool uclamp_in_use(void)
{
	return have_uclamp && (!uclamp_used_key || static_key_enabled(uclamp_used_key));
}

/*
 * @c->cpu, read without the sampler queued on it (see "The sampler's own
 * CPU"): from another online CPU if this is the CPU the sampler runs on
 * and clamps are in use (else every task's are 0..1024, the sampler's
 * change nothing, and no other CPU is disturbed).
 */
static void read_cpu_unseen(struct sl_perf_cpu *c)
{
	unsigned int other;

	if (c->cpu == raw_smp_processor_id() && uclamp_in_use()) {
		other = cpumask_any_but(cpu_online_mask, c->cpu);
		if (other < nr_cpu_ids) {
			work_on_cpu(other, read_cpu, c);
			return;
		}
	}
	read_cpu(c);
	/* preemptible: the sampler may have moved; this says where it ended */
	c->self = c->cpu == raw_smp_processor_id();
}

/*
 * Every online CPU into @rows (nr_cpu_ids), @sums the walk's scratch;
 * returns the number of rows. Process context, may sleep.
 */
static long sample(struct sl_perf_cpu *rows, struct sl_perf_sum *sums)
{
	u64 win = window_ns(), fmax = READ_ONCE(max_freq_khz);
	unsigned int opps = READ_ONCE(nr_opps);
	int cpu;
	long n = 0;

	if (have_uclamp)
		walk_tasks(sums);
	for_each_online_cpu(cpu) {
		struct sl_perf_cpu *c = &rows[n++];

		memset(c, 0, sizeof(*c));
		c->cpu = cpu;
		c->has_uclamp = have_uclamp;
		read_cpu_unseen(c);
		if (have_uclamp)
			c->sum = sums[cpu];
		compute(c, win, fmax, opps);
		if (n == nr_cpu_ids)
			break;
	}
	return n;
}

static void sample_fn(struct work_struct *work)
{
	long i, n = sample(work_rows, work_sums);

	for (i = 0; i < n; i++)
		trace_perf_cpu(&work_rows[i]);
	schedule_delayed_work(&sample_work, msecs_to_jiffies(READ_ONCE(period_ms)) ?: 1);
}

/* --- the report ------------------------------------------------------------ */

struct report_snap {
	struct sl_perf_cpu *rows;	/* nr_cpu_ids */
	struct sl_perf_sum *sums;
	bool sampling;
};

static const struct sl_rcol cpus_cols[] = {
	{ "cpu", NULL, SL_RK_S64, 4, SL_RCOL_LEFT },
	{ "self", NULL, SL_RK_U64, 4 },
	{ "cap", "util", SL_RK_U64, 5 },
	{ "util_avg", "util", SL_RK_U64, 8 },
	{ "runnable", "util", SL_RK_U64, 8 },
	{ "util_est", "util", SL_RK_U64, 8 },
	{ "rt", "util", SL_RK_U64, 4 },
	{ "dl", "util", SL_RK_U64, 4 },
	{ "irq", "util", SL_RK_U64, 4 },
	{ "bw_dl", "util", SL_RK_U64, 5 },
	{ "rq_umin", "util", SL_RK_U64, 7 },
	{ "rq_umax", "util", SL_RK_U64, 7 },
	{ "kernel_util", "util", SL_RK_U64, 11 },
	{ "eff_util", "util", SL_RK_U64, 8 },
	{ "max_util", "util", SL_RK_U64, 8 },
	{ "max_min", "util", SL_RK_U64, 7 },
	{ "max_max", "util", SL_RK_U64, 7 },
	{ "max_perf", "util", SL_RK_U64, 8 },
	{ "max_khz", "khz", SL_RK_U64, 8 },
	{ "time_perf", "util", SL_RK_U64, 9 },
	{ "time_khz", "khz", SL_RK_U64, 8 },
	{ "sum_tasks", NULL, SL_RK_U64, 9 },
	{ "sum_bias", "util", SL_RK_S64, 8 },
	{ "sum_est", "util", SL_RK_U64, 7 },
	{ "sum_util", "util", SL_RK_U64, 8 },
	{ "sum_perf", "util", SL_RK_U64, 8 },
	{ "sum_khz", "khz", SL_RK_U64, 8 },
	{ "freq_scale", "util", SL_RK_U64, 10 },
	{ "policy_cur_khz", "khz", SL_RK_U64, 14 },
	{ "policy_max_khz", "khz", SL_RK_U64, 14 },
};

static int cpus_open(void *priv)
{
	struct report_snap *r = priv;

	r->rows = kvcalloc(nr_cpu_ids, sizeof(*r->rows), GFP_KERNEL);
	r->sums = kvcalloc(nr_cpu_ids, sizeof(*r->sums), GFP_KERNEL);
	if (r->rows && r->sums)
		return 0;
	kvfree(r->rows);
	kvfree(r->sums);
	return -ENOMEM;
}

static void cpus_release(void *priv)
{
	struct report_snap *r = priv;

	kvfree(r->rows);
	kvfree(r->sums);
}

static long cpus_take(void *priv)
{
	struct report_snap *r = priv;

	r->sampling = sl_feature_enabled(&perf_feature);
	return sample(r->rows, r->sums);
}

static void cpus_head(void *priv, struct sl_rhead *h)
{
	struct report_snap *r = priv;
	u64 win = window_ns();

	sl_rnote(h, "sampled at this read; the reader's own CPU read from another while it slept (self=1: read in place, the reader counted)");
	sl_rnote(h, "max: kernel's max aggregation, 1.25 headroom; time: headroom = util after %llu us more running; sum: uclamp sum aggregation",
		 div_u64(win, NSEC_PER_USEC));
	sl_rnote(h, "frequencies: %lld kHz * perf / cap, then the lowest of %lld equal steps at or above it (0: none)",
		 READ_ONCE(max_freq_khz), READ_ONCE(nr_opps));
	if (!have_uclamp)
		sl_rnote(h, "no uclamp in this kernel (CONFIG_UCLAMP_TASK off): clamps 0..1024, no sum aggregation");
	if (!kernel_cpu_util)
		sl_rnote(h, "kernel_util: sched_cpu_util() not callable here (kallsyms/IBT)");
	sl_rnote(h, "the kernel's own: cap = the CPU's original capacity (%s); freq_scale = arch_freq_scale (%s); policy_cur_khz, policy_max_khz = its cpufreq policy's (scaling_cur_freq, scaling_max_freq; - without one)",
		 sl_cap_detail(SL_CAP_CPU_CAPACITY), sl_cap_detail(SL_CAP_FREQ_SCALE));
	sl_rfact_bool(h, "sampler", r->sampling);
	sl_rfact_s64(h, "period_ms", READ_ONCE(period_ms));
	sl_rfact_u64(h, "window_us", div_u64(win, NSEC_PER_USEC));
	sl_rfact_u64(h, "tick_us", div_u64(TICK_NSEC, NSEC_PER_USEC));
	sl_rfact_s64(h, "max_freq_khz", READ_ONCE(max_freq_khz));
	sl_rfact_s64(h, "nr_opps", READ_ONCE(nr_opps));
	sl_rfact_bool(h, "uclamp", have_uclamp);
	sl_rfact_str(h, "uclamp_used", !uclamp_used_key ? "unknown" :
		     static_key_enabled(uclamp_used_key) ? "yes" : "no");
	sl_rfact_bool(h, "kernel_util", kernel_cpu_util != NULL);
}

static void put_uc(struct sl_rval *v, bool has, u64 x)
{
	if (has)
		sl_rv_u64(v, x);
	else
		sl_rv_none(v);
}

static void cpus_row(void *priv, unsigned long i, struct sl_rval *v)
{
	const struct sl_perf_cpu *c = &((struct report_snap *)priv)->rows[i];
	bool uc = c->has_uclamp;

	sl_rv_s64(&v[0], c->cpu);
	sl_rv_u64(&v[1], c->self);
	sl_rv_u64(&v[2], c->in.cap);
	sl_rv_u64(&v[3], c->in.util_avg);
	sl_rv_u64(&v[4], c->in.runnable_avg);
	sl_rv_u64(&v[5], c->in.util_est);
	sl_rv_u64(&v[6], c->in.rt);
	sl_rv_u64(&v[7], c->in.dl);
	sl_rv_u64(&v[8], c->in.irq);
	sl_rv_u64(&v[9], c->in.bw_dl);
	put_uc(&v[10], uc, c->in.rq_uclamp_min);
	put_uc(&v[11], uc, c->in.rq_uclamp_max);
	put_uc(&v[12], c->kernel_util >= 0, c->kernel_util);
	sl_rv_u64(&v[13], c->eff_util);
	sl_rv_u64(&v[14], c->max.util);
	sl_rv_u64(&v[15], c->max.min);
	sl_rv_u64(&v[16], c->max.max);
	sl_rv_u64(&v[17], c->max.perf);
	sl_rv_u64(&v[18], c->max_khz);
	sl_rv_u64(&v[19], c->time.perf);
	sl_rv_u64(&v[20], c->time_khz);
	put_uc(&v[21], uc, c->sum.nr);
	if (uc)
		sl_rv_s64(&v[22], c->sum.bias);
	else
		sl_rv_none(&v[22]);
	put_uc(&v[23], uc, c->sum.util_est);
	put_uc(&v[24], uc, c->sum_out.util);
	put_uc(&v[25], uc, c->sum_out.perf);
	put_uc(&v[26], uc, c->sum_khz);
	put_uc(&v[27], c->freq_scale >= 0, c->freq_scale);
	put_uc(&v[28], c->policy_cur_khz >= 0, c->policy_cur_khz);
	put_uc(&v[29], c->policy_max_khz >= 0, c->policy_max_khz);
}

static const struct sl_report cpus_report = {
	.feature = "perf",
	.name = "cpus",
	.mode = 0444,
	.layout = SL_RL_TABLE,
	.cols = cpus_cols,
	.ncols = ARRAY_SIZE(cpus_cols),
	.priv_size = sizeof(struct report_snap),
	.open = cpus_open,
	.release = cpus_release,
	.take = cpus_take,
	.head = cpus_head,
	.row = cpus_row,
};

/* --- the feature ------------------------------------------------------------ */

static int perf_init(struct sl_feature *f)
{
	have_uclamp = PERF_TASK_CLAMPS && sl_cap_has(SL_CAP_UCLAMP);
	kernel_cpu_util = sl_lookup_function("sched_cpu_util");
	uclamp_used_key = have_uclamp ?
		(struct static_key *)sl_lookup_symbol("sched_uclamp_used") : NULL;
	work_rows = kvcalloc(nr_cpu_ids, sizeof(*work_rows), GFP_KERNEL);
	work_sums = kvcalloc(nr_cpu_ids, sizeof(*work_sums), GFP_KERNEL);
	if (!work_rows || !work_sums) {
		kvfree(work_rows);
		kvfree(work_sums);
		return -ENOMEM;
	}
	INIT_DELAYED_WORK(&sample_work, sample_fn);
	return 0;
}

static void perf_exit(struct sl_feature *f)
{
	kvfree(work_rows);
	kvfree(work_sums);
	work_rows = NULL;
	work_sums = NULL;
}

static int perf_enable(struct sl_feature *f)
{
	schedule_delayed_work(&sample_work, 0);
	return 0;
}

static void perf_disable(struct sl_feature *f)
{
	cancel_delayed_work_sync(&sample_work);
}

static int perf_debugfs(struct sl_feature *f, struct dentry *dir)
{
	sl_report_create(dir, &cpus_report);
	return 0;
}

static const struct sl_param perf_params[] = {
	{
		.name = "period_ms",
		.help = "sampling period of the schedlab:perf_cpu event",
		.value = &period_ms, .min = 1, .max = 10000, .live = true,
	},
	{
		.name = "max_freq_khz",
		.help = "reference (top) frequency of the table, kHz",
		.value = &max_freq_khz, .min = 1, .max = 100000000, .live = true,
	},
	{
		.name = "nr_opps",
		.help = "frequencies in the table: equal steps up to max_freq_khz (0: raw frequency)",
		.value = &nr_opps, .min = 0, .max = 64, .live = true,
	},
	{
		.name = "update_delay_us",
		.help = "frequency update delay of the time-based headroom (the tick if longer)",
		.value = &update_delay_us, .min = 0, .max = 1000000, .live = true,
	},
	{ }
};

struct sl_feature perf_feature = {
	.name = "perf",
	.summary = "per-CPU performance request: kernel max aggregation, time-based headroom, uclamp sum aggregation",
	.needs = SL_CAP(SL_CAP_RUNQUEUES),
	.init = perf_init,
	.exit = perf_exit,
	.enable = perf_enable,
	.disable = perf_disable,
	.debugfs = perf_debugfs,
	.params = perf_params,
};
