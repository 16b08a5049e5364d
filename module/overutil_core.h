/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDLAB_OVERUTIL_CORE_H
#define SCHEDLAB_OVERUTIL_CORE_H

/*
 * overutil_core: the "overutilized" rules of energy-aware scheduling, side
 * by side, as state machines driven by per-CPU events. Kernel-agnostic: the
 * module feeds it scheduler events, the host tests synthetic ones. The
 * rules, and the events each one reacts to, are defined in overutil_core.c
 * and docs/overutil.md.
 */
#include "pelt_core.h"

/*
 * Word-sized values read by one CPU's evaluation while another's writes
 * them (the verdicts and capacities the system rules and the lone rule
 * read across CPUs, see overutil.c "Locking"): whole, never torn.
 */
#ifdef __KERNEL__
#define SL_OU_READ_ONCE(x)	READ_ONCE(x)
#define SL_OU_WRITE_ONCE(x, v)	WRITE_ONCE(x, v)
#else
#define SL_OU_READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define SL_OU_WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#endif

enum sl_ou_rule {
	SL_OU_MAINLINE,	/* util does not fit 80% of capacity (uclamp-aware) */
	SL_OU_LINGER,	/* mainline, set/cleared only after N ticks agreeing */
	SL_OU_IDLE,	/* mainline, and not idle within the last W ns */
	SL_OU_DYNAMIC,	/* util above the migration margin of capacity */
	SL_OU_LONE,	/* mainline, but a lone task on a max-capacity CPU is not */
	SL_OU_ALL,	/* per CPU mainline; the system only if every CPU is */
	SL_OU_NR_RULES
};

enum sl_ou_event {
	SL_OU_EV_TICK,
	SL_OU_EV_ENQUEUE,
	SL_OU_EV_DEQUEUE,
	SL_OU_EV_IDLE_ENTER,
	SL_OU_EV_IDLE_EXIT,
	SL_OU_EV_BALANCE,
	SL_OU_EV_UTIL,		/* the CPU's util changed (no other event) */
	SL_OU_NR_EVENTS
};

/*
 * Episode lengths: bucket i holds [2^i, 2^(i+1)) us; 0 also < 1 us, the
 * last one everything longer.
 */
#define SL_OU_HIST_BUCKETS	24

struct sl_ou_params {
	unsigned int linger_clear_ticks;	/* ticks not overutilized before clearing */
	unsigned int linger_set_ticks;		/* ticks overutilized before setting (0: at once) */
	u64 idle_window_ns;			/* idle rule's window W */
	u64 tick_ns;				/* tick period, for the dynamic threshold */
};

/* One CPU's state at an event, as the rules see it. */
struct sl_ou_input {
	unsigned long util;		/* CFS util_avg of the CPU (cpu_util_cfs) */
	unsigned long uclamp_min;	/* rq's aggregated clamps: 0 and 1024 without uclamp */
	unsigned long uclamp_max;
	unsigned long capacity;		/* capacity left for CFS (capacity_of) */
	unsigned long capacity_orig;	/* the CPU's full capacity */
	unsigned int nr_running;	/* CFS tasks enqueued on the CPU */
	bool idle;			/* the CPU is idle (running its idle task) */
	bool uclamp_used;		/* uclamp in use: apply its fit rules */
};

struct sl_ou_stats {
	u64 sets, clears;		/* transitions */
	u64 time_ns;			/* total time overutilized */
	u64 max_ns;			/* longest episode */
	u64 hist[SL_OU_HIST_BUCKETS];	/* closed episodes by length */
};

struct sl_ou_verdict {
	bool on;
	u64 since_ns;			/* start of the current state */
	struct sl_ou_stats st;		/* closed episodes only */
};

struct sl_ou_cpu {
	struct sl_ou_input in;		/* at the last event */
	bool raw;			/* mainline evaluation at the last event */
	u64 idle_ns;			/* last instant the CPU was seen idle */
	unsigned int linger_ticks;	/* ticks the raw value disagreed with linger */
	unsigned long dyn_capacity;	/* capacity the threshold below is for */
	unsigned long dyn_threshold;	/* sl_pelt_margin_threshold() of it */
	bool online;			/* takes events, counts in the system rules */
	struct sl_ou_verdict v[SL_OU_NR_RULES];
};

struct sl_ou_system {
	struct sl_ou_params p;
	unsigned int nr_cpus;
	unsigned long max_capacity_orig;	/* largest capacity_orig seen (online CPUs) */
	struct sl_ou_cpu *cpus;			/* nr_cpus of them, the caller's */
	struct sl_ou_verdict sys[SL_OU_NR_RULES];
};

/* bits of the masks returned below */
#define SL_OU_CPU_BIT(rule)	(1U << (rule))
#define SL_OU_SYS_BIT(rule)	(1U << (SL_OU_NR_RULES + (rule)))

void sl_ou_init(struct sl_ou_system *s, struct sl_ou_cpu *cpus,
		unsigned int nr_cpus, const struct sl_ou_params *p, u64 now_ns);
bool sl_ou_mainline(const struct sl_ou_input *in);
int sl_ou_util_fits(const struct sl_ou_input *in);
unsigned int sl_ou_cpu_event(struct sl_ou_system *s, unsigned int cpu,
			     enum sl_ou_event ev, const struct sl_ou_input *in,
			     u64 now_ns);
unsigned int sl_ou_system_update(struct sl_ou_system *s, u64 now_ns);
unsigned int sl_ou_cpu_offline(struct sl_ou_system *s, unsigned int cpu,
			       u64 now_ns);
unsigned int sl_ou_cpu_online(struct sl_ou_system *s, unsigned int cpu,
			      u64 now_ns);
void sl_ou_stats_at(const struct sl_ou_verdict *v, u64 now_ns,
		    struct sl_ou_stats *out);
void sl_ou_reset_stats(struct sl_ou_system *s, u64 now_ns);
void sl_ou_reset_cpu_stats(struct sl_ou_cpu *c, u64 now_ns);
void sl_ou_reset_system_stats(struct sl_ou_system *s, u64 now_ns);
unsigned int sl_ou_hist_bucket(u64 ns);
bool sl_ou_same_state(const struct sl_ou_input *a, const struct sl_ou_input *b);

#endif /* SCHEDLAB_OVERUTIL_CORE_H */
