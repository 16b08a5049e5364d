// SPDX-License-Identifier: GPL-2.0
/*
 * overutil_core: "overutilized" rules of energy-aware scheduling, side by
 * side, each a state machine per CPU plus one for the whole system.
 *
 * Inputs
 * ------
 * The caller reports events of one CPU (sl_ou_cpu_event(): a tick, an
 * enqueue, a dequeue, entering or leaving idle, a load balance, a change of
 * util) with the CPU's state at that instant (struct sl_ou_input: CFS util,
 * the rq's uclamp values, the capacity left for CFS, the CPU's original
 * capacity, the number of CFS tasks, whether it is idle). Every rule is
 * evaluated at every event from that state alone, plus a little memory of
 * its own; nothing is interpolated between events. The largest
 * capacity_orig seen at any event so far is kept as the system's maximum
 * (recomputed over the online CPUs when one goes offline, see below).
 *
 * The mainline test
 * -----------------
 * sl_ou_mainline() is the kernel's cpu_overutilized() (util_fits_cpu() with
 * the CPU's util and the rq's clamps), without thermal pressure:
 *
 *	fits = util * 1280 < capacity * 1024	(fits_capacity(): 80%)
 *
 * and, only if uclamp is in use,
 *
 *	uclamp_max fits = uclamp_max <= capacity_orig, unless both are 1024
 *	fits = fits || uclamp_max fits
 *	uclamp_min = min(uclamp_min, uclamp_max)
 *	fits && util < uclamp_min && uclamp_min > capacity_orig:
 *		-1, "fits, but the boost is not met"
 *
 * The CPU is overutilized when it does not fit; the -1 case counts as
 * fitting (cpu_overutilized() negates the int). sl_ou_util_fits() returns
 * the kernel's int, -1 included. This value at the last event is the CPU's
 * "raw" state, the input of most rules below.
 *
 * The rules, per CPU
 * ------------------
 *   MAINLINE  raw, at every event.
 *
 *   LINGER    raw, with hysteresis counted in ticks: the verdict follows
 *             raw only once raw has disagreed with it at N consecutive
 *             tick events (N = linger_set_ticks to turn on,
 *             linger_clear_ticks to turn off), and changes at the tick that
 *             makes N. Any event at which raw agrees with the verdict
 *             restarts the count; other events at which raw disagrees
 *             neither count nor restart it. N = 0 means at once: at the
 *             first event of any kind at which raw disagrees.
 *
 *   IDLE      raw, and the CPU has not been idle for the last W ns
 *             (idle_window_ns): an event reporting the CPU idle, and every
 *             idle entry or exit event, marks the CPU idle at that
 *             instant; the verdict is on at an event where raw is on, the
 *             CPU is not idle and the last such mark is at least W old. It
 *             can only turn on at an event, the first one W after the CPU
 *             was last seen idle, and turns off at an idle event.
 *
 *   DYNAMIC   util > threshold, where the threshold is
 *             sl_pelt_margin_threshold(capacity_orig, tick_ns), the
 *             migration margin of the response-time RFC: the util a task
 *             reaches on a CPU of that capacity (PELT time running
 *             capacity/1024 as fast) by the time, less one tick, it would
 *             have needed to ramp from 0 to the capacity at full speed;
 *             past it the task should already be elsewhere. The smaller
 *             the CPU, the lower the threshold as a share of its capacity
 *             (13 of 160, 262 of 512, 1022 of 1024 with a 4 ms tick).
 *             uclamp plays no part. The threshold is computed again only
 *             when capacity_orig changes.
 *
 *   LONE      raw, except that a CPU running a single CFS task and of the
 *             largest capacity_orig seen so far is not overutilized: that
 *             task has nowhere better to go. (Until the biggest CPU has
 *             reported an event, a smaller one may be taken as the
 *             biggest.)
 *
 *   ALL       raw, like MAINLINE; the rule differs for the system.
 *
 * The rules, for the system
 * -------------------------
 * sl_ou_system_update() sets the system verdict of each rule: on when that
 * rule is on for at least one online CPU, except ALL, on only when it is on
 * for every online CPU (and at least one is online). CPU events do not
 * update the system verdicts; the caller decides when (the kernel updates
 * its flag from the tick and from load balancing, for instance).
 *
 * CPU hotplug
 * -----------
 * Every CPU starts online (sl_ou_init()). sl_ou_cpu_offline() takes one
 * out: each of its verdicts that is on ends at that instant (a clear, its
 * episode closed into the stats), it takes no more events (they are
 * ignored), it leaves the system rules' inputs (the system verdicts are
 * recomputed over the CPUs still online) and the largest capacity_orig
 * becomes the largest of the online CPUs' last events. sl_ou_cpu_online()
 * brings one back fresh, as at sl_ou_init() (every verdict off from that
 * instant, just idle, no input, no linger count, no cached threshold) but
 * with the statistics of its earlier episodes kept; the system verdicts
 * are recomputed with it (off until its first event: it can turn ALL off).
 *
 * Episodes
 * --------
 * Every verdict, per CPU and per system, counts its transitions (sets,
 * clears) and its episodes, the stretches during which it is on: the total
 * time on, the longest episode and a histogram of their lengths (bucket i:
 * [2^i, 2^(i + 1)) us, with bucket 0 also holding anything below 1 us and
 * the last bucket anything longer). The stats hold closed episodes;
 * sl_ou_stats_at() adds the open one to the time and the longest, not to
 * the histogram nor to the clears. Times are the callers' nanosecond
 * timestamps; a timestamp before the start of the state it ends (clocks of
 * different CPUs) counts as no time at all.
 */
#include "overutil_core.h"
#include "hist_core.h"

/* @now - @since, or 0 if @now is before @since */
static u64 sl_ou_elapsed(u64 now_ns, u64 since_ns)
{
	if ((s64)(now_ns - since_ns) < 0)
		return 0;
	return now_ns - since_ns;
}

/*
 * Zero and copy stats field by field: a compiler may turn a whole-struct
 * assignment into a call to memset() or memcpy(), which a freestanding
 * host build does not have.
 */
static void sl_ou_zero_stats(struct sl_ou_stats *st)
{
	unsigned int i;

	st->sets = 0;
	st->clears = 0;
	st->time_ns = 0;
	st->max_ns = 0;
	for (i = 0; i < SL_OU_HIST_BUCKETS; i++)
		st->hist[i] = 0;
}

static void sl_ou_copy_stats(struct sl_ou_stats *to, const struct sl_ou_stats *from)
{
	unsigned int i;

	to->sets = from->sets;
	to->clears = from->clears;
	to->time_ns = from->time_ns;
	to->max_ns = from->max_ns;
	for (i = 0; i < SL_OU_HIST_BUCKETS; i++)
		to->hist[i] = from->hist[i];
}

static void sl_ou_verdict_init(struct sl_ou_verdict *v, u64 now_ns)
{
	v->on = false;
	v->since_ns = now_ns;
	sl_ou_zero_stats(&v->st);
}

/*
 * A CPU's state as at the start, statistics aside: no input yet, just
 * idle, every verdict off since @now_ns, online.
 */
static void sl_ou_cpu_fresh(struct sl_ou_cpu *cpu, u64 now_ns)
{
	static const struct sl_ou_input zero_input;
	unsigned int r;

	cpu->in = zero_input;
	cpu->raw = false;
	cpu->idle_ns = now_ns;
	cpu->linger_ticks = 0;
	cpu->dyn_capacity = 0;
	cpu->dyn_threshold = 0;
	cpu->online = true;
	for (r = 0; r < SL_OU_NR_RULES; r++) {
		cpu->v[r].on = false;
		cpu->v[r].since_ns = now_ns;
	}
}

/*
 * Give @v the value @on at @now_ns: an episode starts (off -> on) or is
 * closed into the stats (on -> off). Return: true if @v changed.
 */
static bool sl_ou_verdict_set(struct sl_ou_verdict *v, bool on, u64 now_ns)
{
	u64 len;

	if (v->on == on)
		return false;

	if (on) {
		v->st.sets++;
	} else {
		len = sl_ou_elapsed(now_ns, v->since_ns);
		v->st.time_ns += len;
		if (len > v->st.max_ns)
			v->st.max_ns = len;
		v->st.hist[sl_ou_hist_bucket(len)]++;
		v->st.clears++;
	}
	SL_OU_WRITE_ONCE(v->on, on);
	v->since_ns = now_ns;
	return true;
}

/* the histogram bucket of an episode length of @ns: sl_log2_us_bucket() */
unsigned int sl_ou_hist_bucket(u64 ns)
{
	return sl_log2_us_bucket(ns, SL_OU_HIST_BUCKETS);
}

/**
 * sl_ou_util_fits - the kernel's util_fits_cpu() for a CPU's state
 * @in: the CPU's state
 *
 * Without thermal pressure: capacity_orig stands for the actual capacity
 * in the uclamp_min test.
 *
 * Return: 1 if the util fits, 0 if not, -1 if it fits but uclamp_min is
 * above the CPU's capacity_orig.
 */
/**
 * sl_ou_same_state - whether two CPU states are the same to every rule
 * @a: one state
 * @b: another
 *
 * Every rule is a function of the CPU's state, of ticks and idle events
 * and of time. An enqueue that leaves the state as it was at the CPU's
 * last event cannot change a verdict but the idle rule's (which is waiting
 * for the window to pass, and then turns on at the next tick): callers
 * may skip such events (the module does: an enqueue every context switch
 * would cost more than the rules).
 *
 * Return: true if all the fields the rules read are equal.
 */
bool sl_ou_same_state(const struct sl_ou_input *a, const struct sl_ou_input *b)
{
	return a->util == b->util && a->uclamp_min == b->uclamp_min &&
	       a->uclamp_max == b->uclamp_max && a->capacity == b->capacity &&
	       a->capacity_orig == b->capacity_orig &&
	       a->nr_running == b->nr_running && a->idle == b->idle &&
	       a->uclamp_used == b->uclamp_used;
}

int sl_ou_util_fits(const struct sl_ou_input *in)
{
	unsigned long uclamp_min = in->uclamp_min;
	unsigned long uclamp_max = in->uclamp_max;
	bool fits, uclamp_max_fits;

	/* fits_capacity(): util below 80% of the capacity left for CFS */
	fits = in->util * 1280 < in->capacity * 1024;
	if (!in->uclamp_used)
		return fits;

	/* a uclamp_max no bigger than the CPU makes anything fit ... */
	uclamp_max_fits = in->capacity_orig == SL_PELT_CAPACITY_SCALE &&
			  uclamp_max == SL_PELT_CAPACITY_SCALE;
	/* ... except for the biggest CPUs with no cap at all */
	uclamp_max_fits = !uclamp_max_fits && uclamp_max <= in->capacity_orig;
	fits = fits || uclamp_max_fits;

	/* a boost the CPU cannot give: fits, but tell the caller */
	if (uclamp_min > uclamp_max)
		uclamp_min = uclamp_max;
	if (fits && in->util < uclamp_min && uclamp_min > in->capacity_orig)
		return -1;

	return fits;
}

/**
 * sl_ou_mainline - the kernel's cpu_overutilized() for a CPU's state
 * @in: the CPU's state
 *
 * Return: true if sl_ou_util_fits() is 0: the util does not fit (a fit
 * with an unmet uclamp_min, -1, is not overutilized).
 */
bool sl_ou_mainline(const struct sl_ou_input *in)
{
	return !sl_ou_util_fits(in);
}

/**
 * sl_ou_init - start the rules with every verdict off
 * @s: the system
 * @cpus: @nr_cpus CPU states, owned by the caller
 * @nr_cpus: number of CPUs, at least 1
 * @p: the rules' parameters, copied
 * @now_ns: the start; each CPU counts as having just been idle
 *
 * Every CPU starts online: take the others out with sl_ou_cpu_offline().
 */
void sl_ou_init(struct sl_ou_system *s, struct sl_ou_cpu *cpus,
		unsigned int nr_cpus, const struct sl_ou_params *p, u64 now_ns)
{
	unsigned int c, r;

	s->p = *p;
	s->nr_cpus = nr_cpus;
	s->max_capacity_orig = 0;
	s->cpus = cpus;
	for (r = 0; r < SL_OU_NR_RULES; r++)
		sl_ou_verdict_init(&s->sys[r], now_ns);

	for (c = 0; c < nr_cpus; c++) {
		struct sl_ou_cpu *cpu = &cpus[c];

		for (r = 0; r < SL_OU_NR_RULES; r++)
			sl_ou_verdict_init(&cpu->v[r], now_ns);
		sl_ou_cpu_fresh(cpu, now_ns);
	}
}

/* the LINGER rule: the new verdict, given raw at event @ev */
static bool sl_ou_linger(const struct sl_ou_params *p, struct sl_ou_cpu *cpu,
			 enum sl_ou_event ev, bool raw)
{
	bool on = cpu->v[SL_OU_LINGER].on;
	unsigned int need = raw ? p->linger_set_ticks : p->linger_clear_ticks;

	if (on == raw) {
		cpu->linger_ticks = 0;
		return on;
	}
	if (!need)
		return raw;
	if (ev != SL_OU_EV_TICK)
		return on;
	if (++cpu->linger_ticks < need)
		return on;
	cpu->linger_ticks = 0;
	return raw;
}

/* the DYNAMIC rule's threshold for the CPU's capacity, cached */
static unsigned long sl_ou_dyn_threshold(const struct sl_ou_params *p,
					 struct sl_ou_cpu *cpu,
					 unsigned long capacity_orig)
{
	if (!cpu->dyn_capacity || cpu->dyn_capacity != capacity_orig) {
		cpu->dyn_threshold = sl_pelt_margin_threshold(capacity_orig,
							      p->tick_ns);
		cpu->dyn_capacity = capacity_orig;
	}
	return cpu->dyn_threshold;
}

/**
 * sl_ou_cpu_event - an event on one CPU
 * @s: the system
 * @cpu: the CPU, below s->nr_cpus and online (others are ignored)
 * @ev: what happened
 * @in: the CPU's state at the event, copied
 * @now_ns: when
 *
 * Evaluates every rule for @cpu and records the verdicts that changed.
 * The system verdicts are left alone: see sl_ou_system_update().
 *
 * Return: SL_OU_CPU_BIT() of each rule whose verdict changed.
 */
unsigned int sl_ou_cpu_event(struct sl_ou_system *s, unsigned int cpu,
			     enum sl_ou_event ev, const struct sl_ou_input *in,
			     u64 now_ns)
{
	struct sl_ou_cpu *c;
	bool on[SL_OU_NR_RULES];
	unsigned int r, changed = 0;
	unsigned long max_cap;
	bool raw;

	if (cpu >= s->nr_cpus || !s->cpus[cpu].online)
		return 0;
	c = &s->cpus[cpu];

	c->in = *in;
	/*
	 * Read across CPUs: the capacity by an offline (the largest left),
	 * the maximum by every CPU's event. A raise of the maximum lost to
	 * another CPU's at the same instant is made again at this CPU's next
	 * event.
	 */
	max_cap = SL_OU_READ_ONCE(s->max_capacity_orig);
	if (in->capacity_orig > max_cap) {
		max_cap = in->capacity_orig;
		SL_OU_WRITE_ONCE(s->max_capacity_orig, max_cap);
	}
	raw = sl_ou_mainline(in);
	c->raw = raw;
	if (in->idle || ev == SL_OU_EV_IDLE_ENTER || ev == SL_OU_EV_IDLE_EXIT)
		c->idle_ns = now_ns;

	on[SL_OU_MAINLINE] = raw;
	on[SL_OU_LINGER] = sl_ou_linger(&s->p, c, ev, raw);
	on[SL_OU_IDLE] = raw && !in->idle &&
			 sl_ou_elapsed(now_ns, c->idle_ns) >= s->p.idle_window_ns;
	on[SL_OU_DYNAMIC] = in->util > sl_ou_dyn_threshold(&s->p, c,
							   in->capacity_orig);
	on[SL_OU_LONE] = raw && !(in->nr_running == 1 &&
				  in->capacity_orig >= max_cap);
	on[SL_OU_ALL] = raw;

	for (r = 0; r < SL_OU_NR_RULES; r++)
		if (sl_ou_verdict_set(&c->v[r], on[r], now_ns))
			changed |= SL_OU_CPU_BIT(r);
	return changed;
}

/**
 * sl_ou_system_update - recompute the system verdicts from the CPUs'
 * @s: the system
 * @now_ns: when
 *
 * Each rule's system verdict is on if the rule is on for any online CPU,
 * except SL_OU_ALL, on only if it is on for every online CPU (off if none
 * is online). Offline CPUs play no part.
 *
 * Return: SL_OU_SYS_BIT() of each rule whose system verdict changed.
 */
unsigned int sl_ou_system_update(struct sl_ou_system *s, u64 now_ns)
{
	bool any[SL_OU_NR_RULES], all[SL_OU_NR_RULES];
	unsigned int c, r, changed = 0;
	bool on, any_online = false;

	for (r = 0; r < SL_OU_NR_RULES; r++) {
		any[r] = false;
		all[r] = true;
	}
	for (c = 0; c < s->nr_cpus; c++) {
		if (!s->cpus[c].online)
			continue;
		any_online = true;
		for (r = 0; r < SL_OU_NR_RULES; r++) {
			if (SL_OU_READ_ONCE(s->cpus[c].v[r].on))
				any[r] = true;
			else
				all[r] = false;
		}
	}

	for (r = 0; r < SL_OU_NR_RULES; r++) {
		on = r == SL_OU_ALL ? all[r] && any_online : any[r];
		if (sl_ou_verdict_set(&s->sys[r], on, now_ns))
			changed |= SL_OU_SYS_BIT(r);
	}
	return changed;
}

/**
 * sl_ou_cpu_offline - a CPU goes offline
 * @s: the system
 * @cpu: the CPU
 * @now_ns: when
 *
 * Each verdict of @cpu that is on ends at @now_ns; @cpu takes no events
 * until sl_ou_cpu_online(); the system verdicts are recomputed without it
 * and the largest capacity_orig is the largest of the online CPUs' last
 * events. Nothing happens for a CPU already offline or past nr_cpus.
 *
 * Return: SL_OU_CPU_BIT() of each rule whose verdict of @cpu ended, and
 * SL_OU_SYS_BIT() of each rule whose system verdict changed.
 */
unsigned int sl_ou_cpu_offline(struct sl_ou_system *s, unsigned int cpu,
			       u64 now_ns)
{
	struct sl_ou_cpu *c;
	unsigned int i, r, changed = 0;
	unsigned long max_cap = 0;

	if (cpu >= s->nr_cpus || !s->cpus[cpu].online)
		return 0;
	c = &s->cpus[cpu];
	for (r = 0; r < SL_OU_NR_RULES; r++)
		if (sl_ou_verdict_set(&c->v[r], false, now_ns))
			changed |= SL_OU_CPU_BIT(r);
	c->online = false;
	c->raw = false;
	c->linger_ticks = 0;
	for (i = 0; i < s->nr_cpus; i++)
		if (s->cpus[i].online && SL_OU_READ_ONCE(s->cpus[i].in.capacity_orig) > max_cap)
			max_cap = SL_OU_READ_ONCE(s->cpus[i].in.capacity_orig);
	SL_OU_WRITE_ONCE(s->max_capacity_orig, max_cap);
	return changed | sl_ou_system_update(s, now_ns);
}

/**
 * sl_ou_cpu_online - a CPU comes (back) online
 * @s: the system
 * @cpu: the CPU
 * @now_ns: when
 *
 * @cpu starts afresh as at sl_ou_init() (every verdict off from @now_ns,
 * just idle, no input yet), its statistics kept; the system verdicts are
 * recomputed with it. Nothing happens for a CPU already online or past
 * nr_cpus.
 *
 * Return: SL_OU_SYS_BIT() of each rule whose system verdict changed.
 */
unsigned int sl_ou_cpu_online(struct sl_ou_system *s, unsigned int cpu,
			      u64 now_ns)
{
	if (cpu >= s->nr_cpus || s->cpus[cpu].online)
		return 0;
	sl_ou_cpu_fresh(&s->cpus[cpu], now_ns);
	return sl_ou_system_update(s, now_ns);
}

/**
 * sl_ou_stats_at - a verdict's stats, the open episode included
 * @v: the verdict
 * @now_ns: the instant to read them at
 * @out: the stats: closed episodes, plus the current one, if @v is on, in
 *	time_ns and max_ns (not in hist nor clears)
 */
void sl_ou_stats_at(const struct sl_ou_verdict *v, u64 now_ns,
		    struct sl_ou_stats *out)
{
	u64 len;

	sl_ou_copy_stats(out, &v->st);
	if (!v->on)
		return;
	len = sl_ou_elapsed(now_ns, v->since_ns);
	out->time_ns += len;
	if (len > out->max_ns)
		out->max_ns = len;
}

/**
 * sl_ou_reset_stats - forget every episode, keep the verdicts
 * @s: the system
 * @now_ns: the new start of every current state (and open episode)
 */
void sl_ou_reset_stats(struct sl_ou_system *s, u64 now_ns)
{
	unsigned int c;

	sl_ou_reset_system_stats(s, now_ns);
	for (c = 0; c < s->nr_cpus; c++)
		sl_ou_reset_cpu_stats(&s->cpus[c], now_ns);
}

/* sl_ou_reset_stats() in parts: the system's verdicts, one CPU's */
void sl_ou_reset_system_stats(struct sl_ou_system *s, u64 now_ns)
{
	unsigned int r;

	for (r = 0; r < SL_OU_NR_RULES; r++) {
		sl_ou_zero_stats(&s->sys[r].st);
		s->sys[r].since_ns = now_ns;
	}
}

void sl_ou_reset_cpu_stats(struct sl_ou_cpu *c, u64 now_ns)
{
	unsigned int r;

	for (r = 0; r < SL_OU_NR_RULES; r++) {
		sl_ou_zero_stats(&c->v[r].st);
		c->v[r].since_ns = now_ns;
	}
}
