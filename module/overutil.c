// SPDX-License-Identifier: GPL-2.0
/*
 * overutil: the "overutilized" rules of energy-aware scheduling side by
 * side, live (rules: overutil_core.c, docs/overutil.md).
 *
 * Events. Every rule sees the same events of a CPU, with the CPU's state
 * read from its struct rq at that instant:
 *   tick          a kretprobe on the scheduler tick (sched_tick, or
 *                 scheduler_tick before 6.10), after the tick's PELT update
 *   enqueue       sched_wakeup / sched_wakeup_new: the woken task's CPU,
 *                 when it changed the CPU's state (sl_ou_same_state())
 *   idle entry    sched_switch to the idle task
 *   idle exit     sched_switch from the idle task
 *   load balance  sched_overutilized_tp, where the kernel maintains its
 *                 flag (its root-domain load balance and its own settings)
 * State: util = min(max(CFS util_avg, util_est), capacity_orig) as the
 * kernel's cpu_util_cfs(); capacity = rq->cpu_capacity; capacity_orig =
 * rq->cpu_capacity_orig where the kernel has it, else 1024; the rq's
 * uclamp values where it has uclamp; CFS tasks; idle = no task runnable.
 *
 * Capacity emulation. x86 guests have equal CPUs and no EAS. The
 * "capacity" parameter gives each CPU an emulated capacity_orig C; the
 * rules then see util and capacity scaled by C / the real capacity_orig
 * (what PELT's invariance would show on such a CPU), the report shows the
 * real values beside them.
 *
 * The kernel's own flag. At each sched_overutilized_tp the kernel's value
 * is compared with the mainline rule evaluated at that instant on every
 * CPU's real (not emulated) state; the counts say how often they agree.
 * Where the kernel does not maintain the flag (no EAS on 6.10+), the
 * tracepoint never fires and the report says so.
 *
 * Where the kernel maintains its flag (EAS, or the lab kernel booted with
 * sched_overutilized_track, patches/), the counts at the flag's changes
 * (sets and clears) are kept apart: they say whether the mainline rule
 * reproduces the kernel's own decisions, not just its steady state.
 *
 * Driving the kernel. On a kernel with the series' sched_cpu_overutilized_tp
 * hook, "drive" makes one of the rules the kernel's per-CPU verdict, live:
 * the hook's probe answers with that rule's current verdict of the CPU
 * (for "all", the system verdict, so that the root domain's flag, an OR
 * over CPUs, follows the rule), read without the lock. The probe is
 * detached on "off", at disable and at unload, and
 * tracepoint_synchronize_unregister() has returned before the state it
 * reads is freed; the kernel's own rule applies again from then on. The
 * report counts the verdicts given and those that differed from the
 * kernel's own.
 *
 * These are the moments the kernel itself evaluates its rule (tick,
 * enqueue, load balance), plus the idle transitions the idle rule needs;
 * a dequeue cannot make a CPU overutilized and the kernel does not look
 * then, nor does schedlab.
 *
 * CPU hotplug. A dynamic CPUHP_AP_ONLINE_DYN state, set up at enable and
 * removed at disable: a CPU going offline has its open episodes closed at
 * that instant and leaves the system rules (the all-CPUs rule is over the
 * online CPUs); its later events (the last ticks and switches of a dying
 * CPU) are ignored. A CPU coming online starts fresh, its statistics kept,
 * and its state is read once, as every online CPU's is at enable. Enable
 * reads the online mask and sets the state up under cpus_read_lock(), so
 * that no CPU changes state in between.
 *
 * Locking. A CPU's rule state and its event counts are under that CPU's
 * own raw spinlock (struct ou_pcpu), held for one evaluation of the six
 * rules; events of one CPU come from that CPU (tick, idle switches, load
 * balance) or from a waker elsewhere (enqueue). The system's verdicts,
 * the kernel's flag and the parameters are under ou_lock, which an event
 * takes only when one of its CPU's verdicts changed (an episode starts or
 * ends), after it has released its CPU's lock, to recompute the system
 * verdicts from every CPU's: those are read without their CPUs' locks
 * (whole words), and whichever CPU changed a verdict recomputes after
 * writing it, so the last recomputation has seen every change (two CPUs'
 * changes at nearly the same instant may arrive in the other order: an
 * episode of zero length at most, see sys_time()). Order:
 * ou_lock, then a CPU's lock (hotplug, reports, reset, enable); never two
 * CPUs' locks at once. An enqueue first compares the CPU's state with the
 * one of its last event without the lock (a racy read: at worst one
 * evaluation more or one skipped until the next tick) and returns if
 * nothing changed, as in a context-switch-heavy load where util moves
 * once per PELT period. Nothing sleeps or allocates in the probes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": overutil: " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <trace/events/sched.h>	/* probe prototypes, checked below */

#include "overutil.h"
#include "report.h"
#include "sched_fields.h"
#include "overutil_core.h"
#include "schedlab_trace.h"

static const char * const rule_names[SL_OU_NR_RULES] = {
	"mainline", "linger", "idle", "dynamic", "lone", "all",
};

static const char * const event_names[SL_OU_NR_EVENTS] = {
	"tick", "enqueue", "dequeue", "idle_enter", "idle_exit", "balance", "util",
};

/* parameters (set while disabled) */
static s64 linger_clear_ticks = 1;
static s64 linger_set_ticks;
static s64 idle_window_ms = 32;
#define CAPACITY_STR_SIZE	SL_PARAM_STR_MAX
static char capacity_str[CAPACITY_STR_SIZE];
static unsigned long *emul_capacity;	/* nr_cpu_ids, 0: real */

static DEFINE_RAW_SPINLOCK(ou_lock);
static struct sl_ou_system sys;
static struct sl_ou_cpu *cpus;
static u64 enabled_at;

/* a CPU's lock and event counts (see "Locking") */
struct ou_pcpu {
	raw_spinlock_t lock;	/* cpus[cpu], events */
	u64 events[SL_OU_NR_EVENTS];
};
static DEFINE_PER_CPU(struct ou_pcpu, ou_pcpu);
static u64 system_updates;	/* events that took ou_lock (a verdict changed) */
/*
 * The time of the system verdicts' last update (under ou_lock): a CPU's
 * transition at t changes them at t too, unless another CPU's update
 * already came later (two CPUs' changes reach ou_lock in either order):
 * then at that later time, so that the system's timeline never goes back.
 */
static u64 sys_clock;

static u64 sys_time(u64 t)
{
	lockdep_assert_held(&ou_lock);
	if (t > sys_clock)
		sys_clock = t;
	return sys_clock;
}
static u64 skipped_base;	/* enqueues_skipped at enable or reset */

/* the kernel's flag */
static struct {
	u64 events, sets, clears, agree, disagree;
	/*
	 * disagreements by direction: the kernel's flag off while mainline
	 * sees a CPU over (crowded: every such CPU runs two tasks or more,
	 * which a load balance retry without an all-pinned busiest CPU
	 * needs, below), and on while mainline sees none
	 */
	u64 dis_off, dis_off_crowded, dis_on;
	u64 change_dis_crowded;	/* clears of those, at the flag's changes */
	u64 change_agree, change_disagree;	/* at sets and clears only */
	int last;		/* -1: never seen */
	u64 since;
	u64 time_on;
	/*
	 * the last disagreement: when, the flag, the CPU of the largest
	 * util / capacity as mainline saw it, from which CPU the event came
	 */
	u64 dis_at;
	int dis_flag, dis_cpu, dis_from;
	unsigned long dis_util, dis_capacity;
} kflag;

/* drive: the rule the kernel's per-CPU verdict follows, -1: its own */
static int drive_rule = -1;
static bool drive_attached;
static DEFINE_PER_CPU(u64, drive_verdicts);	/* answers given */
static DEFINE_PER_CPU(u64, drive_changed);	/* ... that differed from the kernel's */
static u64 drive_base[2];			/* their sums at enable or reset */

static struct kretprobe tick_probe;
static int hp_state = -1;	/* the dynamic CPU hotplug state, while enabled */

/* --- the CPU's state ----------------------------------------------------- */

struct cpu_state {
	struct sl_ou_input in;		/* as the rules see it (emulated) */
	unsigned long real_util, real_capacity, real_capacity_orig;
	unsigned int rq_nr_running;	/* every class */
};

static void read_state(int cpu, struct cpu_state *st)
{
	void *rq = sl_cpu_rq(cpu);
	struct sl_ou_input *in = &st->in;
	unsigned long util = SL_READ(rq, rq__cfs__avg__util_avg);
	unsigned long cap_orig = sl_rq_capacity_orig_or_scale(rq), emul;
	long util_est = sl_rq_util_est(rq);

	if (util_est >= 0)
		util = max_t(unsigned long, util, util_est);
	util = min(util, cap_orig);
	st->real_util = util;
	st->real_capacity = SL_READ(rq, rq__cpu_capacity);
	st->real_capacity_orig = cap_orig;
	in->util = util;
	in->capacity = st->real_capacity;
	in->capacity_orig = cap_orig;
	in->uclamp_used = sl_rq_uclamp(rq, &in->uclamp_min, &in->uclamp_max);
#if SL_HAS_rq__cfs__h_nr_running
	in->nr_running = SL_READ(rq, rq__cfs__h_nr_running);
#elif SL_HAS_rq__cfs__h_nr_queued
	in->nr_running = SL_READ(rq, rq__cfs__h_nr_queued);
#else
	in->nr_running = SL_READ(rq, rq__nr_running);
#endif
	st->rq_nr_running = SL_READ(rq, rq__nr_running);
	in->idle = st->rq_nr_running == 0;
	emul = emul_capacity ? READ_ONCE(emul_capacity[cpu]) : 0;
	if (emul) {
		in->util = util * emul / cap_orig;
		in->capacity = st->real_capacity * emul / cap_orig;
		in->capacity_orig = emul;
	}
}

/* --- events -------------------------------------------------------------- */

/* enqueues skipped because the CPU's state had not changed (per CPU) */
static DEFINE_PER_CPU(u64, enqueues_skipped);

/* the verdicts of @cpu, as bits like a mask's (none if @mask is empty) */
static unsigned int cpu_verdicts(int cpu, unsigned int mask)
{
	unsigned int on = 0;
	int r;

	lockdep_assert_held(&per_cpu_ptr(&ou_pcpu, cpu)->lock);
	for (r = 0; mask && r < SL_OU_NR_RULES; r++)
		if (cpus[cpu].v[r].on)
			on |= SL_OU_CPU_BIT(r);
	return on;
}

/* the system's verdicts, likewise */
static unsigned int sys_verdicts(unsigned int mask)
{
	unsigned int on = 0;
	int r;

	lockdep_assert_held(&ou_lock);
	for (r = 0; mask && r < SL_OU_NR_RULES; r++)
		if (sys.sys[r].on)
			on |= SL_OU_SYS_BIT(r);
	return on;
}

/* one trace event per transition in @mask (@on: the new values) */
static void trace_transitions(int cpu, unsigned int mask, unsigned int on,
			      unsigned long util, unsigned long capacity_orig)
{
	int r;

	if (!mask || !trace_overutil_enabled())
		return;
	for (r = 0; r < SL_OU_NR_RULES; r++) {
		if (mask & SL_OU_CPU_BIT(r))
			trace_overutil(cpu, r, on & SL_OU_CPU_BIT(r), util,
				       capacity_orig);
		if (mask & SL_OU_SYS_BIT(r))
			trace_overutil(-1, r, on & SL_OU_SYS_BIT(r), 0, 0);
	}
}

/*
 * @cpu's event @ev with its state @st (read just before): under @cpu's
 * lock; ou_lock only if a verdict of @cpu changed (see "Locking").
 */
static void cpu_event_state(int cpu, enum sl_ou_event ev, struct cpu_state *st)
{
	struct ou_pcpu *pc = per_cpu_ptr(&ou_pcpu, cpu);
	unsigned long flags;
	unsigned int mask, on;
	u64 now;

	raw_spin_lock_irqsave(&pc->lock, flags);
	/* offline (in our state): a dying CPU's last events are not counted */
	if (unlikely(!cpus || !cpus[cpu].online)) {
		raw_spin_unlock_irqrestore(&pc->lock, flags);
		return;
	}
	pc->events[ev]++;
	now = local_clock();
	mask = sl_ou_cpu_event(&sys, cpu, ev, &st->in, now);
	on = cpu_verdicts(cpu, mask);
	raw_spin_unlock(&pc->lock);
	if (mask) {
		raw_spin_lock(&ou_lock);
		if (cpus) {
			system_updates++;
			mask |= sl_ou_system_update(&sys, sys_time(now));
			on |= sys_verdicts(mask);
		}
		raw_spin_unlock(&ou_lock);
	}
	local_irq_restore(flags);
	trace_transitions(cpu, mask, on, st->in.util, st->in.capacity_orig);
}

static void cpu_event(int cpu, enum sl_ou_event ev)
{
	struct cpu_state st;

	if (unlikely(cpu < 0 || cpu >= nr_cpu_ids))
		return;
	read_state(cpu, &st);
	cpu_event_state(cpu, ev, &st);
}

static int tick_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	cpu_event(smp_processor_id(), SL_OU_EV_TICK);
	return 0;
}

static void probe_sched_wakeup(void *data, struct task_struct *p)
{
	int cpu = task_cpu(p);
	struct sl_ou_cpu *c = READ_ONCE(cpus);
	struct cpu_state st;

	if (unlikely(!c || cpu >= nr_cpu_ids))
		return;
	read_state(cpu, &st);
	if (sl_ou_same_state(&c[cpu].in, &st.in)) {
		this_cpu_inc(enqueues_skipped);
		return;
	}
	cpu_event_state(cpu, SL_OU_EV_ENQUEUE, &st);
}

static void probe_sched_switch(void *data, bool preempt, struct task_struct *prev,
			       struct task_struct *next, unsigned int prev_state)
{
	int cpu = smp_processor_id();

	if (is_idle_task(next))
		cpu_event(cpu, SL_OU_EV_IDLE_ENTER);
	else if (is_idle_task(prev))
		cpu_event(cpu, SL_OU_EV_IDLE_EXIT);
}

/*
 * The kernel's mainline verdict now, on the real state of every CPU; *top
 * gets the CPU closest to (or furthest past) the threshold: the largest
 * util / capacity; *crowded whether every CPU over runs two tasks or more.
 *
 * Why crowded matters: the kernel recomputes the root domain's flag at
 * every load balance of the top domain from the CPUs the balance looks
 * at (update_sd_lb_stats(), env->cpus). When the busiest CPU's tasks are
 * all pinned (LBF_ALL_PINNED, only possible with two tasks or more on it:
 * detach_tasks() clears it otherwise), load_balance() drops that CPU and
 * retries, and the retry sets the flag from the other CPUs alone: it
 * clears it while the dropped CPU is still overutilized, until that CPU's
 * next tick sets it again. A retry needs a CPU left outside the
 * balancing group, so never on two CPUs; on the arm64 big.LITTLE a pinned
 * hog beside another pinned task makes the flag flap.
 */
static bool kernel_view_now(int *top, unsigned long *top_util, unsigned long *top_cap,
			    bool *crowded)
{
	struct cpu_state st;
	bool over = false;
	int cpu;

	*crowded = true;
	*top = -1;
	*top_util = 0;
	*top_cap = 1;
	for_each_online_cpu(cpu) {
		read_state(cpu, &st);
		st.in.util = st.real_util;
		st.in.capacity = st.real_capacity;
		st.in.capacity_orig = st.real_capacity_orig;
		if (sl_ou_mainline(&st.in)) {
			over = true;
			if (st.rq_nr_running < 2)
				*crowded = false;
		}
		if (*top < 0 || (u64)st.real_util * *top_cap > (u64)*top_util * max(st.real_capacity, 1UL)) {
			*top = cpu;
			*top_util = st.real_util;
			*top_cap = max(st.real_capacity, 1UL);
		}
	}
	return over;
}

static void probe_overutilized(void *data, struct root_domain *rd, bool overutilized)
{
	unsigned long flags, top_util, top_cap;
	int top;
	bool crowded;
	bool ours = kernel_view_now(&top, &top_util, &top_cap, &crowded);
	u64 now;

	raw_spin_lock_irqsave(&ou_lock, flags);
	now = local_clock();
	kflag.events++;
	if (ours == overutilized) {
		kflag.agree++;
	} else {
		kflag.disagree++;
		if (overutilized) {
			kflag.dis_on++;
		} else {
			kflag.dis_off++;
			kflag.dis_off_crowded += crowded;
		}
		kflag.dis_at = now;
		kflag.dis_flag = overutilized;
		kflag.dis_cpu = top;
		kflag.dis_from = smp_processor_id();
		kflag.dis_util = top_util;
		kflag.dis_capacity = top_cap;
	}
	if (kflag.last != overutilized) {
		if (kflag.last == 1)
			kflag.time_on += now - kflag.since;
		if (kflag.last >= 0) {
			if (overutilized)
				kflag.sets++;
			else
				kflag.clears++;
			if (ours == overutilized) {
				kflag.change_agree++;
			} else {
				kflag.change_disagree++;
				kflag.change_dis_crowded += !overutilized && crowded;
			}
		}
		kflag.last = overutilized;
		kflag.since = now;
	}
	raw_spin_unlock_irqrestore(&ou_lock, flags);
	cpu_event(smp_processor_id(), SL_OU_EV_BALANCE);
}

#if SL_HAS_FUNC___traceiter_sched_cpu_overutilized_tp
/* the series' hook: @cpu's verdict is the driven rule's (see the top) */
static void probe_cpu_overutilized(void *data, int cpu, unsigned long util,
				   unsigned long rq_util_max, bool *overutilized)
{
	struct sl_ou_cpu *c = READ_ONCE(cpus);
	int rule = READ_ONCE(drive_rule);
	bool v;

	if (unlikely(!c || rule < 0 || cpu < 0 || cpu >= nr_cpu_ids))
		return;
	v = rule == SL_OU_ALL ? READ_ONCE(sys.sys[rule].on) : READ_ONCE(c[cpu].v[rule].on);
	this_cpu_inc(drive_verdicts);
	if (v != *overutilized)
		this_cpu_inc(drive_changed);
	*overutilized = v;
}

static int drive_attach(void)
{
	return sl_tracepoint_register("sched_cpu_overutilized_tp",
				      probe_cpu_overutilized, NULL);
}

static void drive_detach(void)
{
	sl_tracepoint_unregister("sched_cpu_overutilized_tp",
				 probe_cpu_overutilized, NULL);
}
#else
static int drive_attach(void)
{
	return -EOPNOTSUPP;
}

static void drive_detach(void)
{
}
#endif

static void probe_types_checked(void)
{
#if SL_HAS_FUNC___traceiter_sched_cpu_overutilized_tp
	check_trace_callback_type_sched_cpu_overutilized_tp(probe_cpu_overutilized);
#endif
	check_trace_callback_type_sched_switch(probe_sched_switch);
	check_trace_callback_type_sched_wakeup(probe_sched_wakeup);
	check_trace_callback_type_sched_wakeup_new(probe_sched_wakeup);
	check_trace_callback_type_sched_overutilized_tp(probe_overutilized);
}

/* --- enable / disable ---------------------------------------------------- */

static const struct {
	const char *tp;
	void *probe;
} probes[] = {
	{ "sched_switch", probe_sched_switch },
	{ "sched_wakeup", probe_sched_wakeup },
	{ "sched_wakeup_new", probe_sched_wakeup },
	{ "sched_overutilized_tp", probe_overutilized },
};

static void unregister_probes(int n)
{
	while (n-- > 0)
		sl_tracepoint_unregister(probes[n].tp, probes[n].probe, NULL);
	tracepoint_synchronize_unregister();
}

/* Under cpus_read_lock(): the online mask is stable. */
static void start_state(u64 now)
{
	struct sl_ou_params p = {
		.linger_clear_ticks = linger_clear_ticks,
		.linger_set_ticks = linger_set_ticks,
		.idle_window_ns = idle_window_ms * NSEC_PER_MSEC,
		.tick_ns = TICK_NSEC,
	};
	unsigned long flags;
	int cpu;

	raw_spin_lock_irqsave(&ou_lock, flags);
	sl_ou_init(&sys, cpus, nr_cpu_ids, &p, now);
	/* every CPU starts online: the offline ones out (nothing to close) */
	for_each_possible_cpu(cpu) {
		struct ou_pcpu *pc = per_cpu_ptr(&ou_pcpu, cpu);

		raw_spin_lock(&pc->lock);
		if (!cpu_online(cpu))
			sl_ou_cpu_offline(&sys, cpu, now);
		memset(pc->events, 0, sizeof(pc->events));
		raw_spin_unlock(&pc->lock);
	}
	skipped_base = sl_percpu_sum(&enqueues_skipped, 0);
	system_updates = 0;
	sys_clock = now;
	memset(&kflag, 0, sizeof(kflag));
	kflag.last = -1;
	enabled_at = now;
	drive_base[0] = sl_percpu_sum(&drive_verdicts, 0);
	drive_base[1] = sl_percpu_sum(&drive_changed, 0);
	raw_spin_unlock_irqrestore(&ou_lock, flags);
}

/* --- CPU hotplug --------------------------------------------------------- */

/*
 * CPUHP_AP_ONLINE_DYN teardown, on the CPU going down (already inactive):
 * its open episodes end now and it leaves the system rules.
 */
static int ou_cpu_offline(unsigned int cpu)
{
	struct ou_pcpu *pc = per_cpu_ptr(&ou_pcpu, cpu);
	unsigned long flags, util = 0, cap = 0;
	unsigned int mask = 0, on = 0;

	raw_spin_lock_irqsave(&ou_lock, flags);
	raw_spin_lock(&pc->lock);
	if (cpus) {
		util = cpus[cpu].in.util;
		cap = cpus[cpu].in.capacity_orig;
		mask = sl_ou_cpu_offline(&sys, cpu, sys_time(local_clock()));
		on = cpu_verdicts(cpu, mask) | sys_verdicts(mask);
	}
	raw_spin_unlock(&pc->lock);
	raw_spin_unlock_irqrestore(&ou_lock, flags);
	trace_transitions(cpu, mask, on, util, cap);
	return 0;
}

/*
 * CPUHP_AP_ONLINE_DYN startup, on the CPU coming up: it starts fresh, and
 * its state is read once, as every online CPU's is at enable.
 */
static int ou_cpu_online(unsigned int cpu)
{
	struct ou_pcpu *pc = per_cpu_ptr(&ou_pcpu, cpu);
	unsigned long flags;
	unsigned int mask = 0, on = 0;

	raw_spin_lock_irqsave(&ou_lock, flags);
	raw_spin_lock(&pc->lock);
	if (cpus) {
		mask = sl_ou_cpu_online(&sys, cpu, sys_time(local_clock()));
		on = cpu_verdicts(cpu, mask) | sys_verdicts(mask);
	}
	raw_spin_unlock(&pc->lock);
	raw_spin_unlock_irqrestore(&ou_lock, flags);
	trace_transitions(cpu, mask, on, 0, 0);
	cpu_event(cpu, SL_OU_EV_UTIL);
	return 0;
}

static int overutil_enable(struct sl_feature *f)
{
	struct sl_ou_cpu *c;
	int i, cpu, ret;

	c = kcalloc(nr_cpu_ids, sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	/*
	 * No CPU comes or goes between reading the online mask and setting
	 * up the hotplug state that follows its changes.
	 */
	cpus_read_lock();
	cpus = c;
	start_state(local_clock());
	/* every CPU's state once, so that the system knows its capacities */
	for_each_online_cpu(cpu)
		cpu_event(cpu, SL_OU_EV_UTIL);
	ret = cpuhp_setup_state_nocalls_cpuslocked(CPUHP_AP_ONLINE_DYN,
						   "schedlab/overutil:online",
						   ou_cpu_online, ou_cpu_offline);
	cpus_read_unlock();
	if (ret < 0) {
		pr_warn("cannot set up a CPU hotplug state: %d\n", ret);
		goto fail_hp;
	}
	hp_state = ret;

	memset(&tick_probe, 0, sizeof(tick_probe));
	tick_probe.kp.symbol_name = sl_tick_function();
	tick_probe.handler = tick_return;
	tick_probe.maxactive = 2 * num_possible_cpus();
	ret = register_kretprobe(&tick_probe);
	if (ret) {
		pr_warn("cannot probe %s: %d\n", sl_tick_function(), ret);
		goto fail_tick;
	}
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		/* the kernel's flag is optional: its absence is reported */
		if (!sl_tracepoint(probes[i].tp) && i == ARRAY_SIZE(probes) - 1)
			continue;
		ret = sl_tracepoint_register(probes[i].tp, probes[i].probe, NULL);
		if (ret)
			goto fail_probes;
	}
	if (drive_rule >= 0) {
		ret = drive_attach();
		if (ret)
			goto fail_probes;
		drive_attached = true;
	}
	return 0;

fail_probes:
	unregister_probes(i);
	unregister_kretprobe(&tick_probe);
fail_tick:
	cpuhp_remove_state_nocalls(hp_state);
	hp_state = -1;
fail_hp:
	raw_spin_lock_irq(&ou_lock);
	cpus = NULL;
	raw_spin_unlock_irq(&ou_lock);
	kfree(c);
	return ret;
}

static void overutil_disable(struct sl_feature *f)
{
	struct sl_ou_cpu *c;

	/* no hotplug callback runs once this returns */
	cpuhp_remove_state_nocalls(hp_state);
	hp_state = -1;
	unregister_kretprobe(&tick_probe);	/* waits for running handlers */
	if (drive_attached)	/* synchronized with the probes below */
		drive_detach();
	drive_attached = false;
	unregister_probes(sl_tracepoint(probes[ARRAY_SIZE(probes) - 1].tp) ?
			  ARRAY_SIZE(probes) : ARRAY_SIZE(probes) - 1);
	raw_spin_lock_irq(&ou_lock);
	c = cpus;
	cpus = NULL;
	raw_spin_unlock_irq(&ou_lock);
	kfree(c);
}

static int overutil_feature_init(struct sl_feature *f)
{
	int cpu;

	for_each_possible_cpu(cpu)
		raw_spin_lock_init(&per_cpu_ptr(&ou_pcpu, cpu)->lock);
	emul_capacity = kcalloc(nr_cpu_ids, sizeof(*emul_capacity), GFP_KERNEL);
	if (!emul_capacity)
		return -ENOMEM;
	if (0)
		probe_types_checked();
	return 0;
}

static void overutil_feature_exit(struct sl_feature *f)
{
	kfree(emul_capacity);
	emul_capacity = NULL;
}

/* --- reports ------------------------------------------------------------- */

/*
 * A consistent copy of the state for a report (GFP_KERNEL, outside the
 * lock); NULL if disabled or out of memory.
 */
struct snapshot {
	struct sl_ou_system sys;
	struct sl_ou_cpu *cpus;
	u64 now, enabled_at, events[SL_OU_NR_EVENTS], skipped_base, system_updates;
	typeof(kflag) kflag;
	int drive_rule;
	u64 drive_verdicts, drive_changed;
};

static struct snapshot *take_snapshot(void)
{
	struct snapshot *s = kzalloc(sizeof(*s), GFP_KERNEL);
	unsigned long flags;
	int cpu, ev;

	if (!s)
		return NULL;
	s->cpus = kcalloc(nr_cpu_ids, sizeof(*s->cpus), GFP_KERNEL);
	if (!s->cpus) {
		kfree(s);
		return NULL;
	}
	raw_spin_lock_irqsave(&ou_lock, flags);
	if (!cpus) {
		raw_spin_unlock_irqrestore(&ou_lock, flags);
		kfree(s->cpus);
		kfree(s);
		return NULL;
	}
	s->now = local_clock();
	s->sys = sys;
	/* each CPU as of its last event, one lock at a time */
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct ou_pcpu *pc;

		if (!cpu_possible(cpu)) {
			s->cpus[cpu] = cpus[cpu];
			continue;
		}
		pc = per_cpu_ptr(&ou_pcpu, cpu);
		raw_spin_lock(&pc->lock);
		s->cpus[cpu] = cpus[cpu];
		for (ev = 0; ev < SL_OU_NR_EVENTS; ev++)
			s->events[ev] += pc->events[ev];
		raw_spin_unlock(&pc->lock);
	}
	s->sys.cpus = s->cpus;
	s->enabled_at = enabled_at;
	s->skipped_base = skipped_base;
	s->system_updates = system_updates;
	s->kflag = kflag;
	raw_spin_unlock_irqrestore(&ou_lock, flags);
	s->drive_rule = READ_ONCE(drive_rule);
	s->drive_verdicts = sl_percpu_sum(&drive_verdicts, 0) - drive_base[0];
	s->drive_changed = sl_percpu_sum(&drive_changed, 0) - drive_base[1];
	return s;
}

static void free_snapshot(struct snapshot *s)
{
	if (s)
		kfree(s->cpus);
	kfree(s);
}

/*
 * The CPUs with rows in the reports: the present ones and any other that
 * is online in @s (an offline CPU's rows: its episodes up to its offline).
 */
static bool shown_cpu(struct snapshot *s, int cpu)
{
	return cpu_present(cpu) || s->cpus[cpu].online;
}

/*
 * The reports (report.h): report and hist print, for the system (scope -1)
 * and each shown CPU, rows against the rules as columns; each pass takes
 * one snapshot and lists its rows.
 */
struct ou_snap {
	struct snapshot *s;	/* NULL: disabled */
	int *scope;		/* per row: -1 system, else the CPU */
	u8 *sub;		/* per row: the metric, or the histogram bucket */
	unsigned long n;
	char scope_buf[16];	/* the scope of the row being printed */
};

#define OU_METRICS	5
static const char * const metric_names[OU_METRICS] = {
	"on", "sets", "clears", "time_us", "max_us",
};

/* the rules' columns; the metric names carry their units: time_us, max_us */
static const struct sl_rcol report_cols[] = {
	{ "scope", NULL, SL_RK_STR, 7, SL_RCOL_LEFT },
	{ "metric", NULL, SL_RK_STR, 8, SL_RCOL_LEFT },
	{ "mainline", NULL, SL_RK_U64, 9 },
	{ "linger", NULL, SL_RK_U64, 9 },
	{ "idle", NULL, SL_RK_U64, 9 },
	{ "dynamic", NULL, SL_RK_U64, 9 },
	{ "lone", NULL, SL_RK_U64, 9 },
	{ "all", NULL, SL_RK_U64, 9 },
};

static const struct sl_rcol hist_cols[] = {
	{ "scope", NULL, SL_RK_STR, 7, SL_RCOL_LEFT },
	{ "from_us", "us", SL_RK_U64, 10 },
	{ "mainline", NULL, SL_RK_U64, 9 },
	{ "linger", NULL, SL_RK_U64, 9 },
	{ "idle", NULL, SL_RK_U64, 9 },
	{ "dynamic", NULL, SL_RK_U64, 9 },
	{ "lone", NULL, SL_RK_U64, 9 },
	{ "all", NULL, SL_RK_U64, 9 },
};

static void ou_free(void *priv)
{
	struct ou_snap *o = priv;

	free_snapshot(o->s);
	kvfree(o->scope);
	kvfree(o->sub);
	o->s = NULL;
	o->scope = NULL;
	o->sub = NULL;
	o->n = 0;
}

static bool hist_any(const struct sl_ou_verdict *v, int b)
{
	int r;

	for (r = 0; r < SL_OU_NR_RULES; r++)
		if (v[r].st.hist[b])
			return true;
	return false;
}

static const struct sl_ou_verdict *scope_verdicts(struct snapshot *s, int scope)
{
	return scope < 0 ? s->sys.sys : s->cpus[scope].v;
}

/* @hist: a row per non-empty bucket, else one per metric */
static long ou_take(void *priv, bool hist)
{
	struct ou_snap *o = priv;
	unsigned long max = (nr_cpu_ids + 1) * (hist ? SL_OU_HIST_BUCKETS : OU_METRICS);
	int cpu, k;

	ou_free(o);
	o->s = take_snapshot();
	if (!o->s)
		return 0;
	o->scope = kvmalloc_array(max, sizeof(*o->scope), GFP_KERNEL);
	o->sub = kvmalloc_array(max, sizeof(*o->sub), GFP_KERNEL);
	if (!o->scope || !o->sub) {
		ou_free(o);
		return -ENOMEM;
	}
	for (cpu = -1; cpu < (int)nr_cpu_ids; cpu++) {
		if (cpu >= 0 && (!cpu_possible(cpu) || !shown_cpu(o->s, cpu)))
			continue;
		for (k = 0; k < (hist ? SL_OU_HIST_BUCKETS : OU_METRICS); k++) {
			if (hist && !hist_any(scope_verdicts(o->s, cpu), k))
				continue;
			o->scope[o->n] = cpu;
			o->sub[o->n++] = k;
		}
	}
	return o->n;
}

static long report_take(void *priv)
{
	return ou_take(priv, false);
}

static long hist_take(void *priv)
{
	return ou_take(priv, true);
}

static void scope_value(struct sl_rval *v, int scope, char *buf, size_t size)
{
	if (scope < 0)
		snprintf(buf, size, "system");
	else
		snprintf(buf, size, "cpu%d", scope);
	sl_rv_str(v, buf);
}

/* "online cpus: 0 1" and "offline cpus: none", as in the snapshot */
static void head_online(struct sl_rhead *h, struct snapshot *s)
{
	char buf[128];
	int pass, cpu, len;

	for (pass = 1; pass >= 0; pass--) {
		len = 0;
		buf[0] = '\0';
		sl_rfact_list_begin(h, pass ? "online_cpus" : "offline_cpus");
		for_each_possible_cpu(cpu) {
			if (!shown_cpu(s, cpu) || s->cpus[cpu].online != pass)
				continue;
			sl_rfact_list_item(h, cpu);
			if (len < sizeof(buf) - 16)
				len += scnprintf(buf + len, sizeof(buf) - len, " %d", cpu);
		}
		sl_rfact_list_end(h);
		sl_rnote(h, "%s cpus:%s", pass ? "online" : "offline", len ? buf : " none");
	}
}

/* "drive: all (hook: ...), verdicts N, changed M" */
static void head_drive(struct sl_rhead *h, struct snapshot *s)
{
	const char *rule = s->drive_rule >= 0 ? rule_names[s->drive_rule] : "off";

	sl_rfact_str(h, "drive", rule);
	sl_rfact_bool(h, "drive_hook", sl_cap_has(SL_CAP_HOOK_OVERUTILIZED));
	if (!sl_cap_has(SL_CAP_HOOK_OVERUTILIZED)) {
		sl_rnote(h, "drive: off (no hook: %s)", sl_cap_detail(SL_CAP_HOOK_OVERUTILIZED));
		return;
	}
	sl_rfact_u64(h, "drive_verdicts", s->drive_verdicts);
	sl_rfact_u64(h, "drive_changed", s->drive_changed);
	sl_rnote(h, "drive: %s (the kernel's per-CPU verdict: %s); verdicts given %llu, of which differed from the kernel's own %llu",
		 rule, s->drive_rule >= 0 ? "this rule's" : "its own",
		 s->drive_verdicts, s->drive_changed);
}

static void head_kernel_flag(struct sl_rhead *h, struct snapshot *s)
{
	int eas = sl_energy_aware();
	u64 on = s->kflag.time_on;
	bool tp = sl_tracepoint("sched_overutilized_tp");
	const char *src = sl_overutil_flag_source();

	if (s->kflag.last == 1)
		on += s->now - s->kflag.since;
	sl_rnote(h, "energy-aware scheduling: %s", eas < 0 ? "unknown" : eas ? "on" : "off");
	sl_rfact_str(h, "energy_aware", eas < 0 ? "unknown" : eas ? "on" : "off");
	sl_rfact_str(h, "kernel_flag_source", src ? src : "none");
	sl_rnote(h, "the kernel maintains its overutilized flag: %s",
		 src ? src : sl_cap_detail(SL_CAP_OVERUTIL_FLAG));
	if (src && !eas)
		sl_rnote(h, "without EAS the flag gates nothing (energy-aware placement is what it switches off)");
	sl_rfact_bool(h, "kernel_flag_compared", tp && s->kflag.events);
	if (!tp) {
		sl_rnote(h, "kernel flag: no sched_overutilized_tp in this kernel: not compared");
		return;
	}
	if (!s->kflag.events) {
		sl_rnote(h, "kernel flag: sched_overutilized_tp never fired: the kernel does not maintain its flag here (no EAS); not compared");
		return;
	}
	sl_rnote(h, "kernel flag: %llu events, now %d, sets %llu clears %llu time_us %llu; mainline (real capacities) agrees at %llu, disagrees at %llu",
		 s->kflag.events, s->kflag.last, s->kflag.sets, s->kflag.clears,
		 div_u64(on, NSEC_PER_USEC), s->kflag.agree, s->kflag.disagree);
	sl_rfact_u64(h, "kernel_flag_events", s->kflag.events);
	sl_rfact_s64(h, "kernel_flag_now", s->kflag.last);
	sl_rfact_u64(h, "kernel_flag_sets", s->kflag.sets);
	sl_rfact_u64(h, "kernel_flag_clears", s->kflag.clears);
	sl_rfact_u64(h, "kernel_flag_time_us", div_u64(on, NSEC_PER_USEC));
	sl_rfact_u64(h, "kernel_flag_agree", s->kflag.agree);
	sl_rfact_u64(h, "kernel_flag_disagree", s->kflag.disagree);
	sl_rnote(h, "at the flag's changes (sets, clears) mainline agrees at %llu of %llu (of the others, clears while every CPU over ran 2 tasks or more: %llu)",
		 s->kflag.change_agree, s->kflag.change_agree + s->kflag.change_disagree,
		 s->kflag.change_dis_crowded);
	sl_rfact_u64(h, "kernel_flag_change_disagree_crowded", s->kflag.change_dis_crowded);
	sl_rnote(h, "disagreements: the flag off while mainline has a CPU over %llu (every such CPU running 2 tasks or more, as a load balance retry without an all-pinned CPU needs: %llu), on while mainline has none %llu",
		 s->kflag.dis_off, s->kflag.dis_off_crowded, s->kflag.dis_on);
	sl_rfact_u64(h, "kernel_flag_disagree_off", s->kflag.dis_off);
	sl_rfact_u64(h, "kernel_flag_disagree_off_crowded", s->kflag.dis_off_crowded);
	sl_rfact_u64(h, "kernel_flag_disagree_on", s->kflag.dis_on);
	if (s->kflag.dis_at)
		sl_rnote(h, "last disagreement %llu us ago: the kernel's flag %d (event on CPU %d), mainline's closest CPU %d at util %lu of capacity %lu",
			 div_u64(s->now - s->kflag.dis_at, NSEC_PER_USEC), s->kflag.dis_flag,
			 s->kflag.dis_from, s->kflag.dis_cpu, s->kflag.dis_util,
			 s->kflag.dis_capacity);
	sl_rfact_u64(h, "kernel_flag_change_agree", s->kflag.change_agree);
	sl_rfact_u64(h, "kernel_flag_change_disagree", s->kflag.change_disagree);
}

static void report_head(void *priv, struct sl_rhead *h)
{
	struct snapshot *s = ((struct ou_snap *)priv)->s;
	char ev[160];
	int r, len = 0;
	u64 skipped;

	sl_rfact_bool(h, "enabled", s);
	if (!s) {
		sl_rnote(h, "overutil is disabled");
		return;
	}
	sl_rnote(h, "overutil: %llu us since enabled or reset; linger_clear_ticks %lld linger_set_ticks %lld idle_window_ms %lld tick_us %lu",
		 div_u64(s->now - s->enabled_at, NSEC_PER_USEC), linger_clear_ticks,
		 linger_set_ticks, idle_window_ms, TICK_NSEC / NSEC_PER_USEC);
	sl_rfact_u64(h, "since_us", div_u64(s->now - s->enabled_at, NSEC_PER_USEC));
	sl_rfact_s64(h, "linger_clear_ticks", linger_clear_ticks);
	sl_rfact_s64(h, "linger_set_ticks", linger_set_ticks);
	sl_rfact_s64(h, "idle_window_ms", idle_window_ms);
	sl_rfact_u64(h, "tick_us", TICK_NSEC / NSEC_PER_USEC);
	ev[0] = '\0';
	for (r = 0; r < SL_OU_NR_EVENTS; r++) {
		char key[32];

		len += scnprintf(ev + len, sizeof(ev) - len, " %s %llu", event_names[r],
				 s->events[r]);
		snprintf(key, sizeof(key), "events_%s", event_names[r]);
		sl_rfact_u64(h, key, s->events[r]);
	}
	skipped = sl_percpu_sum(&enqueues_skipped, 0) - s->skipped_base;
	sl_rfact_u64(h, "enqueues_skipped", skipped);
	sl_rfact_u64(h, "system_updates", s->system_updates);
	sl_rnote(h, "events:%s (enqueues skipped, state unchanged: %llu; system updates, a CPU's verdict changed: %llu)",
		 ev, skipped, s->system_updates);
	head_kernel_flag(h, s);
	head_drive(h, s);
	head_online(h, s);
}

static void report_row(void *priv, unsigned long i, struct sl_rval *v)
{
	struct ou_snap *o = priv;
	const struct sl_ou_verdict *vd = scope_verdicts(o->s, o->scope[i]);
	int r;

	scope_value(&v[0], o->scope[i], o->scope_buf, sizeof(o->scope_buf));
	sl_rv_str(&v[1], metric_names[o->sub[i]]);
	for (r = 0; r < SL_OU_NR_RULES; r++) {
		struct sl_ou_stats st;
		u64 x;

		sl_ou_stats_at(&vd[r], o->s->now, &st);
		switch (o->sub[i]) {
		case 0:
			x = vd[r].on;
			break;
		case 1:
			x = st.sets;
			break;
		case 2:
			x = st.clears;
			break;
		case 3:
			x = div_u64(st.time_ns, NSEC_PER_USEC);
			break;
		default:
			x = div_u64(st.max_ns, NSEC_PER_USEC);
		}
		sl_rv_u64(&v[2 + r], x);
	}
}

static void hist_head(void *priv, struct sl_rhead *h)
{
	struct snapshot *s = ((struct ou_snap *)priv)->s;

	sl_rfact_bool(h, "enabled", s);
	if (!s) {
		sl_rnote(h, "overutil is disabled");
		return;
	}
	sl_rnote(h, "closed overutilized episodes by length: from_us is the bucket's lower bound (next bucket: twice that)");
}

static void hist_row(void *priv, unsigned long i, struct sl_rval *v)
{
	struct ou_snap *o = priv;
	const struct sl_ou_verdict *vd = scope_verdicts(o->s, o->scope[i]);
	int b = o->sub[i], r;

	scope_value(&v[0], o->scope[i], o->scope_buf, sizeof(o->scope_buf));
	sl_rv_u64(&v[1], b ? 1ULL << b : 0ULL);
	for (r = 0; r < SL_OU_NR_RULES; r++)
		sl_rv_u64(&v[2 + r], vd[r].st.hist[b]);
}

static const struct sl_report report_report = {
	.feature = "overutil",
	.name = "report",
	.mode = 0444,
	.layout = SL_RL_TABLE,
	.cols = report_cols,
	.ncols = ARRAY_SIZE(report_cols),
	.priv_size = sizeof(struct ou_snap),
	.release = ou_free,
	.take = report_take,
	.head = report_head,
	.row = report_row,
};

static const struct sl_report hist_report = {
	.feature = "overutil",
	.name = "hist",
	.mode = 0444,
	.layout = SL_RL_TABLE,
	.cols = hist_cols,
	.ncols = ARRAY_SIZE(hist_cols),
	.priv_size = sizeof(struct ou_snap),
	.release = ou_free,
	.take = hist_take,
	.head = hist_head,
	.row = hist_row,
};

/* per CPU: the real values and the rules' inputs, read when the pass starts */
struct cpus_row {
	struct cpu_state st;
	long dyn_threshold;	/* -1: none */
	int cpu;
	bool online;
};

struct cpus_snap {
	struct cpus_row *rows;	/* nr_cpu_ids */
	bool enabled;
};

static int cpus_open(void *priv)
{
	struct cpus_snap *c = priv;

	c->rows = kvcalloc(nr_cpu_ids, sizeof(*c->rows), GFP_KERNEL);
	return c->rows ? 0 : -ENOMEM;
}

static void cpus_release(void *priv)
{
	kvfree(((struct cpus_snap *)priv)->rows);
}

static long cpus_take(void *priv)
{
	struct cpus_snap *c = priv;
	struct snapshot *s = take_snapshot();
	long n = 0;
	int cpu;

	c->enabled = s;
	for_each_possible_cpu(cpu) {
		struct cpus_row *row;
		/* offline for the rules (while enabled), else for the kernel */
		bool online = s ? s->cpus[cpu].online : cpu_online(cpu);

		if (!online && !cpu_present(cpu))
			continue;
		row = &c->rows[n++];
		row->cpu = cpu;
		row->online = online;
		if (online)
			read_state(cpu, &row->st);
		row->dyn_threshold = s && s->cpus[cpu].dyn_capacity ?
				     (long)s->cpus[cpu].dyn_threshold : -1L;
	}
	free_snapshot(s);
	return n;
}

static const struct sl_rcol cpus_cols[] = {
	{ "cpu", NULL, SL_RK_S64, 3 },
	{ "real_util", "util", SL_RK_U64, 9 },
	{ "real_cap", "util", SL_RK_U64, 8 },
	{ "real_cap_orig", "util", SL_RK_U64, 13 },
	{ "util", "util", SL_RK_U64, 6 },
	{ "capacity", "util", SL_RK_U64, 8 },
	{ "cap_orig", "util", SL_RK_U64, 8 },
	{ "uclamp_min", "util", SL_RK_U64, 10 },
	{ "uclamp_max", "util", SL_RK_U64, 10 },
	{ "nr_cfs", NULL, SL_RK_U64, 6 },
	{ "idle", NULL, SL_RK_S64, 4 },
	{ "dyn_threshold", "util", SL_RK_S64, 13 },
	{ "state", NULL, SL_RK_STR, 7, SL_RCOL_LEFT },
};

static void cpus_head(void *priv, struct sl_rhead *h)
{
	sl_rnote(h, "per CPU: the kernel's real values, then as the rules see them (emulated capacity applied); dyn_threshold: the dynamic rule's");
	sl_rfact_bool(h, "enabled", ((struct cpus_snap *)priv)->enabled);
}

static void cpus_row(void *priv, unsigned long i, struct sl_rval *v)
{
	const struct cpus_row *row = &((struct cpus_snap *)priv)->rows[i];
	const struct cpu_state *st = &row->st;
	int k;

	sl_rv_s64(&v[0], row->cpu);
	sl_rv_str(&v[12], row->online ? "online" : "offline");
	if (!row->online) {
		for (k = 1; k < 12; k++)
			sl_rv_none(&v[k]);
		return;
	}
	sl_rv_u64(&v[1], st->real_util);
	sl_rv_u64(&v[2], st->real_capacity);
	sl_rv_u64(&v[3], st->real_capacity_orig);
	sl_rv_u64(&v[4], st->in.util);
	sl_rv_u64(&v[5], st->in.capacity);
	sl_rv_u64(&v[6], st->in.capacity_orig);
	sl_rv_u64(&v[7], st->in.uclamp_min);
	sl_rv_u64(&v[8], st->in.uclamp_max);
	sl_rv_u64(&v[9], st->in.nr_running);
	sl_rv_s64(&v[10], st->in.idle);
	if (row->dyn_threshold < 0)
		sl_rv_none(&v[11]);
	else
		sl_rv_s64(&v[11], row->dyn_threshold);
}

static const struct sl_report cpus_report = {
	.feature = "overutil",
	.name = "cpus",
	.mode = 0444,
	.layout = SL_RL_TABLE,
	.cols = cpus_cols,
	.ncols = ARRAY_SIZE(cpus_cols),
	.priv_size = sizeof(struct cpus_snap),
	.open = cpus_open,
	.release = cpus_release,
	.take = cpus_take,
	.head = cpus_head,
	.row = cpus_row,
};

/* "1" (a trailing newline allowed) clears the statistics; states stay. */
static int reset_stats(void)
{
	unsigned long flags;
	int cpu;

	raw_spin_lock_irqsave(&ou_lock, flags);
	if (!cpus) {
		raw_spin_unlock_irqrestore(&ou_lock, flags);
		return -ENODEV;
	}
	enabled_at = local_clock();
	sl_ou_reset_system_stats(&sys, enabled_at);
	system_updates = 0;
	sys_clock = max(sys_clock, enabled_at);
	for_each_possible_cpu(cpu) {
		struct ou_pcpu *pc = per_cpu_ptr(&ou_pcpu, cpu);

		raw_spin_lock(&pc->lock);
		sl_ou_reset_cpu_stats(&cpus[cpu], enabled_at);
		memset(pc->events, 0, sizeof(pc->events));
		raw_spin_unlock(&pc->lock);
	}
	skipped_base = sl_percpu_sum(&enqueues_skipped, 0);
	kflag.events = kflag.sets = kflag.clears = 0;
	kflag.agree = kflag.disagree = kflag.time_on = 0;
	kflag.change_agree = kflag.change_disagree = 0;
	kflag.dis_off = kflag.dis_off_crowded = kflag.dis_on = 0;
	kflag.change_dis_crowded = 0;
	kflag.dis_at = 0;
	drive_base[0] = sl_percpu_sum(&drive_verdicts, 0);
	drive_base[1] = sl_percpu_sum(&drive_changed, 0);
	kflag.since = enabled_at;
	raw_spin_unlock_irqrestore(&ou_lock, flags);
	return 0;
}

static int overutil_debugfs(struct sl_feature *f, struct dentry *dir)
{
	sl_report_create(dir, &report_report);
	sl_report_create(dir, &cpus_report);
	sl_report_create(dir, &hist_report);
	sl_debugfs_reset_file(dir, reset_stats);
	return 0;
}

/* --- parameters ---------------------------------------------------------- */

/*
 * "capacity": emulated capacity_orig per CPU, comma-separated in CPU order
 * ("160,160,512,1024"), each 1..1024; 0 or a missing entry keeps a CPU's
 * real capacity; empty: all real. Parsed in full before anything changes.
 */
static int set_capacity(struct sl_feature *f, const char *val)
{
	unsigned long *caps;
	const char *p = val;
	int cpu = 0, i;

	caps = kcalloc(nr_cpu_ids, sizeof(*caps), GFP_KERNEL);
	if (!caps)
		return -ENOMEM;
	while (*p) {
		unsigned long c = 0;
		int digits = 0;

		if (cpu >= nr_cpu_ids)
			goto bad;
		while (*p >= '0' && *p <= '9' && digits < 5) {
			c = c * 10 + (*p++ - '0');
			digits++;
		}
		if (!digits || c > SCHED_CAPACITY_SCALE)
			goto bad;
		caps[cpu++] = c;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			goto bad;
	}
	for (i = 0; i < nr_cpu_ids; i++)
		WRITE_ONCE(emul_capacity[i], caps[i]);
	strscpy(capacity_str, val, sizeof(capacity_str));
	kfree(caps);
	return 0;
bad:
	kfree(caps);
	return -EINVAL;
}

static void get_capacity(struct sl_feature *f, char *buf, size_t size)
{
	strscpy(buf, capacity_str, size);
}

/*
 * "drive": "off" or a rule's name (see the top). Live: while enabled the
 * hook is attached or detached here, under the feature lock; without the
 * hook anything but "off" is -EOPNOTSUPP. Unknown names are -EINVAL.
 */
static int set_drive(struct sl_feature *f, const char *val)
{
	int rule = -1, r, ret;

	if (strcmp(val, "off")) {
		for (r = 0; r < SL_OU_NR_RULES; r++)
			if (!strcmp(val, rule_names[r]))
				rule = r;
		if (rule < 0)
			return -EINVAL;
		if (!sl_cap_has(SL_CAP_HOOK_OVERUTILIZED))
			return -EOPNOTSUPP;
	}
	if (f->enabled && rule >= 0 && !drive_attached) {
		ret = drive_attach();
		if (ret)
			return ret;
		drive_attached = true;
	}
	WRITE_ONCE(drive_rule, rule);
	if (f->enabled && rule < 0 && drive_attached) {
		drive_detach();
		tracepoint_synchronize_unregister();
		drive_attached = false;
	}
	return 0;
}

static void get_drive(struct sl_feature *f, char *buf, size_t size)
{
	int rule = READ_ONCE(drive_rule);

	strscpy(buf, rule >= 0 ? rule_names[rule] : "off", size);
}

static const struct sl_param overutil_params[] = {
	{
		.name = "linger_clear_ticks",
		.help = "linger rule: ticks not overutilized before clearing (0: at once)",
		.value = &linger_clear_ticks, .min = 0, .max = 1000,
	},
	{
		.name = "linger_set_ticks",
		.help = "linger rule: ticks overutilized before setting (0: at once)",
		.value = &linger_set_ticks, .min = 0, .max = 1000,
	},
	{
		.name = "idle_window_ms",
		.help = "idle rule: overutilized only if not idle for this long",
		.value = &idle_window_ms, .min = 1, .max = 10000,
	},
	{
		.name = "capacity",
		.help = "emulated capacity_orig per CPU, comma-separated (1..1024, 0: real; empty: all real)",
		.str_size = CAPACITY_STR_SIZE,
		.set_str = set_capacity, .get_str = get_capacity,
	},
	{
		.name = "drive",
		.help = "the rule the kernel's per-CPU overutilized verdict follows (off: its own; needs the lab kernel's hook)",
		.str_size = 16, .live = true,
		.set_str = set_drive, .get_str = get_drive,
	},
	{ }
};

struct sl_feature overutil_feature = {
	.name = "overutil",
	.summary = "overutilized rules side by side: mainline 80%, linger, idle-based, dynamic threshold, lone task, all CPUs",
	.needs = SL_CAP(SL_CAP_RUNQUEUES) | SL_CAP(SL_CAP_TP_SCHED_SWITCH) |
		 SL_CAP(SL_CAP_TP_SCHED_WAKEUP) | SL_CAP(SL_CAP_TP_SCHED_WAKEUP_NEW) |
		 SL_CAP(SL_CAP_TICK_PROBE),
	.init = overutil_feature_init,
	.exit = overutil_feature_exit,
	.enable = overutil_enable,
	.disable = overutil_disable,
	.debugfs = overutil_debugfs,
	.params = overutil_params,
};
