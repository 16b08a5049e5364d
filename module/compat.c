// SPDX-License-Identifier: GPL-2.0
/*
 * compat: capability detection (see compat.h for what a capability is).
 *
 * Tracepoints: for_each_kernel_tracepoint() walks the kernel's built-in
 * tracepoints; each one schedlab may use is looked up by name once, at load.
 *
 * Private per-CPU data (struct rq): the kernel does not export runqueues.
 * The BTF of the target kernel records every per-CPU variable with its
 * offset inside the per-CPU section (.data..percpu). An exported per-CPU
 * variable of the same section, the anchor, gives
 *	&runqueues = &anchor - off(anchor) + off(runqueues)
 * whatever the section's base address is (zero-based or not). The anchor
 * is the first of these the BTF records: this_cpu_off (x86's),
 * kernel_cpustat (the scheduler's own, exported on every architecture:
 * arm64 has no this_cpu_off). The result is verified before use: every
 * CPU's rq->cpu must equal that CPU.
 *
 * Other private symbols: kallsyms_lookup_name() is found by registering a
 * kprobe on it. Calling it through a pointer is only safe when indirect
 * branch tracking (IBT) cannot fault: either the CPU does not enforce IBT or
 * the function still begins with ENDBR64. Otherwise symbol lookup is a
 * missing capability and what depends on it says so.
 */
#include <linux/kernel.h>
#include <linux/kernel_stat.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/sched.h>
#include <linux/jump_label.h>
#include <linux/mm.h>
#include <uapi/linux/sched.h>
#include <asm/cpufeature.h>

#include "compat.h"

struct sl_cap_state {
	const char *name;
	const char *tracepoint;		/* for tracepoint capabilities */
	bool unbuilt;			/* its prototype was not in the target's headers */
	bool present;
	char detail[96];
};

/* A tracepoint whose probe prototype the module needs from the target's headers. */
#define SL_TP_BUILT(name) \
	{ "tracepoint:" #name, #name, !SL_HAS_FUNC___traceiter_##name }

static struct sl_cap_state caps[SL_NR_CAPS] = {
	[SL_CAP_TP_SCHED_SWITCH]	= { "tracepoint:sched_switch", "sched_switch" },
	[SL_CAP_TP_SCHED_WAKEUP]	= { "tracepoint:sched_wakeup", "sched_wakeup" },
	[SL_CAP_TP_SCHED_WAKEUP_NEW]	= { "tracepoint:sched_wakeup_new", "sched_wakeup_new" },
	[SL_CAP_TP_SCHED_PROCESS_EXIT]	= { "tracepoint:sched_process_exit", "sched_process_exit" },
	[SL_CAP_TP_SCHED_MIGRATE_TASK]	= { "tracepoint:sched_migrate_task", "sched_migrate_task" },
	[SL_CAP_TP_CONTENTION_BEGIN]	= { "tracepoint:contention_begin", "contention_begin" },
	[SL_CAP_TP_CONTENTION_END]	= { "tracepoint:contention_end", "contention_end" },
	[SL_CAP_TP_PELT_CFS]		= { "tracepoint:pelt_cfs_tp", "pelt_cfs_tp" },
	[SL_CAP_TP_PELT_SE]		= { "tracepoint:pelt_se_tp", "pelt_se_tp" },
	[SL_CAP_TP_UTIL_EST_SE]		= { "tracepoint:sched_util_est_se_tp", "sched_util_est_se_tp" },
	[SL_CAP_TP_OVERUTILIZED]	= { "tracepoint:sched_overutilized_tp", "sched_overutilized_tp" },
	[SL_CAP_TP_PROXY_DECISION]	= SL_TP_BUILT(sched_proxy_decision_tp),
	[SL_CAP_TP_ENQUEUE]		= SL_TP_BUILT(sched_enqueue_task_tp),
	[SL_CAP_TP_DEQUEUE]		= SL_TP_BUILT(sched_dequeue_task_tp),
	[SL_CAP_HOOK_OVERUTILIZED]	= SL_TP_BUILT(sched_cpu_overutilized_tp),
	[SL_CAP_HOOK_EFFECTIVE_UTIL]	= SL_TP_BUILT(sched_effective_cpu_util_tp),
	[SL_CAP_RUNQUEUES]		= { "runqueues" },
	[SL_CAP_RQ_CLOCK]		= { "rq::clock+clock_task+curr" },
	[SL_CAP_BLOCKED_ON]		= { "task_struct::blocked_on" },
	[SL_CAP_PROXY_EXEC]		= { "CONFIG_SCHED_PROXY_EXEC" },
	[SL_CAP_DL_DYNAMIC]		= { "SCHED_GETATTR_FLAG_DL_DYNAMIC" },
	[SL_CAP_EEVDF]			= { "sched_entity::vlag+deadline" },
	[SL_CAP_UCLAMP]			= { "task_struct::uclamp_req" },
	[SL_CAP_KPROBES]		= { "kprobes" },
	[SL_CAP_SCHED_INFO]		= { "CONFIG_SCHED_INFO" },
	[SL_CAP_TICK_PROBE]		= { "kprobe:tick" },
	[SL_CAP_OVERUTIL_FLAG]		= { "kernel_overutilized_flag" },
	[SL_CAP_CPU_CAPACITY]		= { "cpu_capacity" },
	[SL_CAP_FREQ_SCALE]		= { "arch_freq_scale" },
};

static void set_cap(enum sl_cap cap, bool present, const char *fmt, ...)
{
	va_list ap;

	caps[cap].present = present;
	va_start(ap, fmt);
	vsnprintf(caps[cap].detail, sizeof(caps[cap].detail), fmt, ap);
	va_end(ap);
}

bool sl_cap_has(enum sl_cap cap)
{
	return cap < SL_NR_CAPS && caps[cap].present;
}

const char *sl_cap_name(enum sl_cap cap)
{
	return cap < SL_NR_CAPS ? caps[cap].name : "?";
}

const char *sl_cap_detail(enum sl_cap cap)
{
	return cap < SL_NR_CAPS ? caps[cap].detail : "";
}

/* --- tracepoints ------------------------------------------------------- */

struct tp_lookup {
	const char *name;
	struct tracepoint *tp;
};

static void tp_match(struct tracepoint *tp, void *priv)
{
	struct tp_lookup *l = priv;

	if (!l->tp && !strcmp(tp->name, l->name))
		l->tp = tp;
}

struct tracepoint *sl_tracepoint(const char *name)
{
	struct tp_lookup l = { .name = name };

	for_each_kernel_tracepoint(tp_match, &l);
	return l.tp;
}

int sl_tracepoint_register(const char *name, void *probe, void *data)
{
	struct tracepoint *tp = sl_tracepoint(name);

	if (!tp)
		return -ENOENT;
	return tracepoint_probe_register(tp, probe, data);
}

void sl_tracepoint_unregister(const char *name, void *probe, void *data)
{
	struct tracepoint *tp = sl_tracepoint(name);

	if (tp)
		WARN_ON_ONCE(tracepoint_probe_unregister(tp, probe, data));
}

/* --- private symbols --------------------------------------------------- */

typedef unsigned long (*kallsyms_lookup_name_t)(const char *name);
static kallsyms_lookup_name_t lookup_name;
static char lookup_name_why[80];

#ifdef CONFIG_X86_KERNEL_IBT
static bool starts_with_endbr(const void *addr)
{
	static const u8 endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	u8 insn[4];

	if (copy_from_kernel_nofault(insn, addr, sizeof(insn)))
		return false;
	return !memcmp(insn, endbr64, sizeof(insn));
}
#endif

static void find_lookup_name(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	void *addr;
	int ret;

	ret = register_kprobe(&kp);
	if (ret < 0) {
		set_cap(SL_CAP_KPROBES, false, "register_kprobe failed: %d", ret);
		snprintf(lookup_name_why, sizeof(lookup_name_why),
			 "kprobes unavailable (%d)", ret);
		return;
	}
	addr = kp.addr;
	unregister_kprobe(&kp);
	set_cap(SL_CAP_KPROBES, true, "available");
#ifdef CONFIG_X86_KERNEL_IBT
	if (cpu_feature_enabled(X86_FEATURE_IBT) && !starts_with_endbr(addr)) {
		snprintf(lookup_name_why, sizeof(lookup_name_why),
			 "kallsyms_lookup_name sealed under IBT");
		return;
	}
#endif
	lookup_name = (kallsyms_lookup_name_t)addr;
}

unsigned long sl_lookup_symbol(const char *name)
{
	return lookup_name ? lookup_name(name) : 0;
}

void *sl_lookup_function(const char *name)
{
	unsigned long addr = sl_lookup_symbol(name);

	if (!addr)
		return NULL;
#ifdef CONFIG_X86_KERNEL_IBT
	if (cpu_feature_enabled(X86_FEATURE_IBT) && !starts_with_endbr((void *)addr))
		return NULL;
#endif
	return (void *)addr;
}

/* --- the scheduler tick, EAS -------------------------------------------- */

static const char *tick_function;

/* The tick is a function the kernel renamed (6.10): probe for either name. */
static void detect_tick_function(void)
{
	static const char * const names[] = { "sched_tick", "scheduler_tick" };
	int i, ret = -ENOENT;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		struct kprobe kp = { .symbol_name = names[i] };

		ret = register_kprobe(&kp);
		if (ret < 0)
			continue;
		unregister_kprobe(&kp);
		tick_function = names[i];
		set_cap(SL_CAP_TICK_PROBE, true, "%s", names[i]);
		return;
	}
	set_cap(SL_CAP_TICK_PROBE, false, "neither sched_tick nor scheduler_tick: %d", ret);
}

const char *sl_tick_function(void)
{
	return tick_function;
}

int sl_energy_aware(void)
{
	unsigned long key = sl_lookup_symbol("sched_energy_present");

	if (!key)
		return -1;
	return static_key_enabled((struct static_key *)key) ? 1 : 0;
}

/* the series' sched_overutilized_track boot parameter sets this key */
static struct static_key *overutil_tracked_key;

const char *sl_overutil_flag_source(void)
{
	if (sl_energy_aware() == 1)
		return "eas";
	if (overutil_tracked_key && static_key_enabled(overutil_tracked_key))
		return "sched_overutilized_track";
	return NULL;
}

static void detect_overutil_flag(void)
{
	const char *src;

	overutil_tracked_key = (struct static_key *)
		sl_lookup_symbol("sched_overutilized_tracked");
	src = sl_overutil_flag_source();
	if (src)
		set_cap(SL_CAP_OVERUTIL_FLAG, true, "%s", src);
	else
		set_cap(SL_CAP_OVERUTIL_FLAG, false, "%s",
			overutil_tracked_key ? "no EAS; boot with sched_overutilized_track" :
			sl_energy_aware() < 0 ? "cannot tell (no symbol lookup)" :
			"no EAS, and the kernel lacks sched_overutilized_track (patches/)");
}

/* --- struct rq ----------------------------------------------------------- */

void __percpu *sl_runqueues_pcpu;

#if SL_HAS_VAR_this_cpu_off
#define RQ_ANCHOR		this_cpu_off
#define RQ_ANCHOR_NAME		"this_cpu_off"
#define RQ_ANCHOR_SEC		SL_VARSEC_this_cpu_off
#define RQ_ANCHOR_OFF		SL_VAROFF_this_cpu_off
#elif SL_HAS_VAR_kernel_cpustat
#define RQ_ANCHOR		kernel_cpustat
#define RQ_ANCHOR_NAME		"kernel_cpustat"
#define RQ_ANCHOR_SEC		SL_VARSEC_kernel_cpustat
#define RQ_ANCHOR_OFF		SL_VAROFF_kernel_cpustat
#endif

#ifdef RQ_ANCHOR
/*
 * The address of the per-CPU variable at offset @off of section @sec, from
 * the anchor; NULL (and @why set) when the two sections differ.
 */
static void __percpu *pcpu_from_anchor(const char *name, const char *sec,
				       unsigned long off, enum sl_cap cap)
{
	if (strcmp(sec, RQ_ANCHOR_SEC)) {
		set_cap(cap, false, "%s not in %s (%s's section)", name,
			RQ_ANCHOR_SEC, RQ_ANCHOR_NAME);
		return NULL;
	}
	return (void __percpu *)((unsigned long)&RQ_ANCHOR - RQ_ANCHOR_OFF + off);
}
#endif

static void detect_runqueues(void)
{
#if SL_HAS_VAR_runqueues && defined(RQ_ANCHOR) && SL_HAS_rq__cpu
	void __percpu *pcpu;
	int cpu;

	pcpu = pcpu_from_anchor("runqueues", SL_VARSEC_runqueues,
				SL_VAROFF_runqueues, SL_CAP_RUNQUEUES);
	if (!pcpu)
		return;
	for_each_possible_cpu(cpu) {
		void *rq = per_cpu_ptr(pcpu, cpu);

		if ((int)SL_READ(rq, rq__cpu) != cpu) {
			set_cap(SL_CAP_RUNQUEUES, false,
				"layout check failed: rq(%d)->cpu = %d", cpu,
				(int)SL_READ(rq, rq__cpu));
			return;
		}
	}
	sl_runqueues_pcpu = pcpu;
	set_cap(SL_CAP_RUNQUEUES, true,
		"BTF per-CPU offset from %s, rq->cpu verified on %u CPUs",
		RQ_ANCHOR_NAME, num_possible_cpus());
#else
	set_cap(SL_CAP_RUNQUEUES, false,
		"runqueues, rq::cpu or an anchor (this_cpu_off, kernel_cpustat) not in BTF");
#endif
}

/* --- capacities and frequency invariance ---------------------------------- */

static unsigned long __percpu *cpu_scale_pcpu;
static unsigned long __percpu *freq_scale_pcpu;

/*
 * A per-CPU unsigned long of the arch topology (cpu_scale, arch_freq_scale:
 * drivers/base/arch_topology.c, both start at SCHED_CAPACITY_SCALE), found
 * from the anchor like runqueues and verified the same way: every possible
 * CPU's value must be in 1..SCHED_CAPACITY_SCALE. Returns the distinct
 * values seen in *@nr_values.
 */
static unsigned long __percpu *detect_scale(const char *name, const char *sec,
					    unsigned long off, enum sl_cap cap,
					    unsigned int *nr_values)
{
	unsigned long __percpu *pcpu = NULL;
	unsigned long seen[8];
	unsigned int nr = 0, i;
	int cpu;

#ifdef RQ_ANCHOR
	pcpu = pcpu_from_anchor(name, sec, off, cap);
#endif
	if (!pcpu)
		return NULL;
	for_each_possible_cpu(cpu) {
		unsigned long v = READ_ONCE(*per_cpu_ptr(pcpu, cpu));

		if (!v || v > SCHED_CAPACITY_SCALE) {
			set_cap(cap, false, "layout check failed: %s(%d) = %lu",
				name, cpu, v);
			return NULL;
		}
		for (i = 0; i < nr && seen[i] != v; i++)
			;
		if (i == nr && nr < ARRAY_SIZE(seen))
			seen[nr++] = v;
	}
	*nr_values = nr;
	return pcpu;
}

static void detect_capacities(void)
{
	unsigned int nr = 0;

#if SL_HAS_VAR_cpu_scale
	cpu_scale_pcpu = detect_scale("cpu_scale", SL_VARSEC_cpu_scale,
				      SL_VAROFF_cpu_scale, SL_CAP_CPU_CAPACITY, &nr);
#endif
	if (SL_HAS_rq__cpu_capacity_orig && sl_cap_has(SL_CAP_RUNQUEUES))
		set_cap(SL_CAP_CPU_CAPACITY, true, "rq::cpu_capacity_orig (BTF)%s",
			cpu_scale_pcpu ? ", cpu_scale beside it" : "");
	else if (cpu_scale_pcpu)
		set_cap(SL_CAP_CPU_CAPACITY, true,
			"cpu_scale, BTF per-CPU offset from the anchor: %u distinct value%s",
			nr, nr == 1 ? "" : "s");
	else if (!caps[SL_CAP_CPU_CAPACITY].detail[0])
		set_cap(SL_CAP_CPU_CAPACITY, false,
			"neither rq::cpu_capacity_orig nor cpu_scale in BTF: every CPU at %ld",
			SCHED_CAPACITY_SCALE);

#if SL_HAS_VAR_arch_freq_scale
	freq_scale_pcpu = detect_scale("arch_freq_scale", SL_VARSEC_arch_freq_scale,
				       SL_VAROFF_arch_freq_scale, SL_CAP_FREQ_SCALE, &nr);
	if (freq_scale_pcpu)
		set_cap(SL_CAP_FREQ_SCALE, true, "BTF per-CPU offset from %s",
			RQ_ANCHOR_NAME);
	else if (!caps[SL_CAP_FREQ_SCALE].detail[0])
		set_cap(SL_CAP_FREQ_SCALE, false, "no per-CPU anchor in BTF");
#else
	set_cap(SL_CAP_FREQ_SCALE, false,
		"not in BTF: no frequency-invariance factor to read");
#endif
}

unsigned long sl_cpu_scale(int cpu)
{
	return cpu_scale_pcpu ? READ_ONCE(*per_cpu_ptr(cpu_scale_pcpu, cpu)) :
		SCHED_CAPACITY_SCALE;
}

long sl_cpu_freq_scale(int cpu)
{
	return freq_scale_pcpu ? (long)READ_ONCE(*per_cpu_ptr(freq_scale_pcpu, cpu)) : -1;
}

/* --- proxy execution ----------------------------------------------------- */

static struct static_key *proxy_exec_key;

bool sl_proxy_exec_enabled(void)
{
	return proxy_exec_key && static_key_enabled(proxy_exec_key);
}

/*
 * Proxy execution is built in when the kernel has its static key
 * (__sched_proxy_exec, kallsyms) or find_proxy_task() (BTF; it may be
 * inlined away on a proxy kernel, so the key is looked for first).
 */
static void detect_proxy_exec(void)
{
	unsigned long key = sl_lookup_symbol("__sched_proxy_exec");

	if (key) {
		proxy_exec_key = (struct static_key *)key;
		set_cap(SL_CAP_PROXY_EXEC, true, "built in, %s",
			sl_proxy_exec_enabled() ? "enabled" : "disabled (sched_proxy_exec=0)");
		return;
	}
#if SL_HAS_FUNC_find_proxy_task
	set_cap(SL_CAP_PROXY_EXEC, true, "built in (find_proxy_task), state unknown: %s",
		lookup_name_why[0] ? lookup_name_why : "no __sched_proxy_exec");
#else
	set_cap(SL_CAP_PROXY_EXEC, false, "neither __sched_proxy_exec nor find_proxy_task()");
#endif
}

void sl_vma_flags_update(struct vm_area_struct *vma, unsigned long set,
			 unsigned long clear)
{
#if SL_HAS_vm_area_struct____vm_flags || SL_HAS_vm_area_struct__flags
	vm_flags_clear(vma, clear);
	vm_flags_set(vma, set);
#else
	vma->vm_flags = (vma->vm_flags & ~clear) | set;
#endif
}

int sl_compat_init(void)
{
	int i;

	for (i = 0; i < SL_NR_CAPS; i++) {
		if (!caps[i].tracepoint)
			continue;
		if (!sl_tracepoint(caps[i].tracepoint))
			set_cap(i, false, "no such tracepoint in this kernel");
		else if (caps[i].unbuilt)
			set_cap(i, false, "in the kernel, not in the headers the module was built with");
		else
			set_cap(i, true, "found by name");
	}

	find_lookup_name();
	detect_tick_function();
	detect_runqueues();
	detect_capacities();
	detect_proxy_exec();
	detect_overutil_flag();

	set_cap(SL_CAP_RQ_CLOCK, sl_cap_has(SL_CAP_RUNQUEUES) &&
		SL_HAS_rq__clock && SL_HAS_rq__clock_task && SL_HAS_rq__curr,
		"BTF");
	set_cap(SL_CAP_BLOCKED_ON, SL_HAS_task_struct__blocked_on,
		SL_HAS_task_struct__blocked_on ? "BTF" :
		"not in BTF (a struct mutex * since 6.17; before, only with DEBUG_MUTEXES)");
#ifdef SCHED_GETATTR_FLAG_DL_DYNAMIC
	set_cap(SL_CAP_DL_DYNAMIC, true, "uapi header of the target kernel");
#else
	set_cap(SL_CAP_DL_DYNAMIC, false, "not in the target kernel's uapi headers");
#endif
	set_cap(SL_CAP_EEVDF, SL_HAS_task_struct__se__vlag && SL_HAS_task_struct__se__deadline,
		SL_HAS_task_struct__se__vlag ? "BTF: EEVDF" : "not in BTF (pre-EEVDF CFS kernel)");
	set_cap(SL_CAP_UCLAMP, SL_HAS_task_struct__uclamp_req,
		SL_HAS_task_struct__uclamp_req ? "BTF: uclamp" : "not in BTF (CONFIG_UCLAMP_TASK off)");
	set_cap(SL_CAP_SCHED_INFO, IS_ENABLED(CONFIG_SCHED_INFO),
		IS_ENABLED(CONFIG_SCHED_INFO) ? "target kernel config" : "not built in");
	return 0;
}

void sl_compat_exit(void)
{
	sl_runqueues_pcpu = NULL;
	cpu_scale_pcpu = NULL;
	freq_scale_pcpu = NULL;
	proxy_exec_key = NULL;
	overutil_tracked_key = NULL;
	lookup_name = NULL;
	tick_function = NULL;
}
