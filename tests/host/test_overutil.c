// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of module/overutil_core.c: the overutilized rules on synthetic
 * per-CPU event sequences with chosen nanosecond timestamps, checked
 * against
 *  - the definitions written out again here (the fits_capacity inequality
 *    by brute force, a small reference of the linger hysteresis, the
 *    histogram bucket as the power of two bracketing the length);
 *  - exact instants of every transition, and exact counts and times in the
 *    episode stats, worked out by hand from the definitions;
 *  - CPU hotplug: a reference model of mainline, lone and the system rules
 *    over the online CPUs, driven by the same random events, CPUs going
 *    offline and online among them.
 * Prints "ok - ..." / "not ok - ..." lines; exit 1 if any failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "overutil_core.h"
#include "../lib/tap.h"

#define US 1000ULL
#define MS 1000000ULL
#define T0 (1000 * MS)		/* start of every scenario */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct sl_ou_params def_params = {
	.linger_clear_ticks = 1,
	.linger_set_ticks = 0,
	.idle_window_ns = 1000000 * MS,	/* IDLE never on unless a test wants it */
	.tick_ns = 4 * MS,
};

/* a CPU without uclamp, capacity == capacity_orig */
static struct sl_ou_input in_of(unsigned long util, unsigned long cap,
				unsigned int nr, bool idle)
{
	struct sl_ou_input in = {
		.util = util, .uclamp_min = 0, .uclamp_max = 1024,
		.capacity = cap, .capacity_orig = cap,
		.nr_running = nr, .idle = idle, .uclamp_used = false,
	};

	return in;
}

/* the definition: util does not fit 80% of capacity */
static int ref_over(unsigned long util, unsigned long cap)
{
	return !(util * 1280 < cap * 1024);
}

/* one event of a scripted sequence, on CPU 0 of capacity 1024 */
struct step {
	int ev;
	unsigned long util;
	u64 t_us;		/* after T0 */
	bool idle;
};

/*
 * Run @n steps; record in @got the instants (us after T0) at which rule
 * @rule's CPU 0 verdict changed, by the returned masks. Returns how many.
 * Also checks that each mask bit matches the verdict actually changing.
 */
static int run_steps(struct sl_ou_system *s, const struct step *st, int n, int rule,
		     u64 *got, int max, int *mask_ok)
{
	int i, k = 0;

	for (i = 0; i < n; i++) {
		struct sl_ou_input in = in_of(st[i].util, 1024, 2, st[i].idle);
		bool before = s->cpus[0].v[rule].on;
		unsigned int m = sl_ou_cpu_event(s, 0, st[i].ev, &in, T0 + st[i].t_us * US);
		bool changed = !!(m & SL_OU_CPU_BIT(rule));

		if (changed != (before != s->cpus[0].v[rule].on))
			*mask_ok = 0;
		if (changed && k < max)
			got[k++] = st[i].t_us;
	}
	return k;
}

static int same_list(const u64 *a, int na, const u64 *b, int nb)
{
	return na == nb && (na == 0 || memcmp(a, b, na * sizeof(*a)) == 0);
}

static const char *list_str(const u64 *a, int n)
{
	static char buf[4][256];
	static int which;
	char *b = buf[which++ & 3];
	int i, len = 0;

	b[0] = 0;
	for (i = 0; i < n && len < 200; i++)
		len += snprintf(b + len, 256 - len, "%s%llu", i ? "," : "", (unsigned long long)a[i]);
	return b;
}

static u64 rng = 88172645463325252ULL;
static u64 xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* 3. random sequences: linger against a reference written from its definition */
static void linger_random(unsigned int C, unsigned int S)
{
	struct sl_ou_params p = def_params;
	struct sl_ou_system s;
	struct sl_ou_cpu cpu;
	struct sl_ou_stats lg, ml;
	bool ref_on = false, raw_prev = false, high = false;
	unsigned int ref_cnt = 0;
	u64 now = T0, ref_since = T0, ref_time = 0, ref_sets = 0, ref_clears = 0;
	u64 raw_changes = 0, ml_since = T0, ml_time = 0;
	int i, agree = 1, bad_at = -1;
	char what[64];

	p.linger_clear_ticks = C;
	p.linger_set_ticks = S;
	sl_ou_init(&s, &cpu, 1, &p, now);
	for (i = 0; i < 100000; i++) {
		int ev = xorshift() % SL_OU_NR_EVENTS;
		unsigned long util;
		struct sl_ou_input in;
		bool raw;

		if (xorshift() % 8 == 0)
			high = !high;
		util = high ? 700 + xorshift() % 325 : xorshift() % 900;
		now += 1 + xorshift() % (3 * MS);
		in = in_of(util, 1024, 2, false);
		sl_ou_cpu_event(&s, 0, ev, &in, now);

		raw = ref_over(util, 1024);
		if (raw != raw_prev) {
			raw_changes++;
			if (!raw)
				ml_time += now - ml_since;
			ml_since = now;
			raw_prev = raw;
		}
		/* the definition: follow raw after N consecutive disagreeing ticks */
		if (ref_on == raw) {
			ref_cnt = 0;
		} else if ((raw ? S : C) == 0 ||
			   (ev == SL_OU_EV_TICK && ++ref_cnt >= (raw ? S : C))) {
			if (ref_on)
				ref_time += now - ref_since;
			if (ref_on)
				ref_clears++;
			else
				ref_sets++;
			ref_on = raw;
			ref_since = now;
			ref_cnt = 0;
		}
		if (cpu.v[SL_OU_LINGER].on != ref_on && agree) {
			agree = 0;
			bad_at = i;
		}
	}
	sl_ou_stats_at(&cpu.v[SL_OU_LINGER], now, &lg);
	sl_ou_stats_at(&cpu.v[SL_OU_MAINLINE], now, &ml);
	if (ref_on)
		ref_time += now - ref_since;
	if (raw_prev)
		ml_time += now - ml_since;
	if (agree)
		snprintf(what, sizeof(what), "at every event");
	else
		snprintf(what, sizeof(what), "up to event %d only", bad_at);
	tap(agree && lg.sets == ref_sets && lg.clears == ref_clears && lg.time_ns == ref_time,
	    "linger C=%u S=%u, 100k random events: verdict equals the reference %s; sets %llu = %llu, clears %llu = %llu, time %llu = %llu ns",
	    C, S, what,
	    (unsigned long long)lg.sets, (unsigned long long)ref_sets,
	    (unsigned long long)lg.clears, (unsigned long long)ref_clears,
	    (unsigned long long)lg.time_ns, (unsigned long long)ref_time);
	tap(lg.sets + lg.clears <= ml.sets + ml.clears && ml.sets + ml.clears == raw_changes &&
	    ml.time_ns == ml_time,
	    "linger C=%u S=%u: %llu transitions <= mainline's %llu (= raw changes %llu, time %llu = %llu ns)",
	    C, S, (unsigned long long)(lg.sets + lg.clears),
	    (unsigned long long)(ml.sets + ml.clears), (unsigned long long)raw_changes,
	    (unsigned long long)ml.time_ns, (unsigned long long)ml_time);
}

/*
 * CPU hotplug, random: 3 CPUs of capacities 160, 512, 1024; events with
 * random util and task counts on random CPUs (offline ones included),
 * CPUs going offline and online. A reference written from the definitions
 * (mainline: the fit inequality at the CPU's last event while online, off
 * when offline; lone: mainline but for one task on a CPU of the largest
 * capacity among the events seen, over the online CPUs after an offline;
 * system: mainline on any online CPU, all on every online CPU and at least
 * one online) is compared at every step, and the episode stats at the end.
 */
struct ref_verdict {
	bool on;
	u64 since, time, sets, clears;
};

static void ref_set(struct ref_verdict *v, bool on, u64 now)
{
	if (v->on == on)
		return;
	if (on) {
		v->sets++;
	} else {
		v->time += now - v->since;
		v->clears++;
	}
	v->on = on;
	v->since = now;
}

static bool ref_same(const struct sl_ou_verdict *v, const struct ref_verdict *r, u64 now)
{
	struct sl_ou_stats st;

	sl_ou_stats_at(v, now, &st);
	return v->on == r->on && st.sets == r->sets && st.clears == r->clears &&
	       st.time_ns == r->time + (r->on ? now - r->since : 0);
}

static void hotplug_random(void)
{
	static const unsigned long cap[3] = { 160, 512, 1024 };
	struct sl_ou_params p = def_params;
	struct sl_ou_system s;
	struct sl_ou_cpu cpus[3];
	struct ref_verdict ml[3] = { { 0 } }, lone[3] = { { 0 } }, sys_ml = { 0 }, sys_all = { 0 };
	bool online[3] = { true, true, true };
	unsigned long last_cap[3] = { 0, 0, 0 }, ref_max = 0;
	u64 now = T0;
	u64 offlines = 0, onlines = 0, ignored = 0, all_alone = 0, lone_big_gone = 0;
	int i, c, n, bad_at = -1, masks_ok = 1;

	sl_ou_init(&s, cpus, 3, &p, now);
	for (i = 0; i < 200000 && bad_at < 0; i++) {
		unsigned int m, want = 0;
		bool any = false, all = true;
		int r;

		now += 1 + xorshift() % (2 * MS);
		c = xorshift() % 3;
		if (xorshift() % 10 == 0) {
			bool before[SL_OU_NR_RULES];

			for (r = 0; r < SL_OU_NR_RULES; r++)
				before[r] = cpus[c].v[r].on;
			if (online[c]) {
				/* only an online CPU can go offline: keep one */
				if (online[(c + 1) % 3] || online[(c + 2) % 3] || xorshift() % 4 == 0) {
					m = sl_ou_cpu_offline(&s, c, now);
					online[c] = false;
					offlines++;
					ref_set(&ml[c], false, now);
					ref_set(&lone[c], false, now);
					ref_max = 0;
					for (n = 0; n < 3; n++)
						if (online[n] && last_cap[n] > ref_max)
							ref_max = last_cap[n];
					for (r = 0; r < SL_OU_NR_RULES; r++)
						if (before[r])
							want |= SL_OU_CPU_BIT(r);
				} else {
					m = sl_ou_cpu_online(&s, c, now);	/* already online */
				}
			} else {
				m = sl_ou_cpu_online(&s, c, now);
				online[c] = true;
				onlines++;
				last_cap[c] = 0;
			}
			if ((m & ((1U << SL_OU_NR_RULES) - 1)) != want)
				masks_ok = 0;
		} else {
			unsigned int nr = 1 + xorshift() % 2;
			unsigned long util = xorshift() % (cap[c] + 1);
			struct sl_ou_input in = in_of(util, cap[c], nr, false);

			m = sl_ou_cpu_event(&s, c, xorshift() % SL_OU_NR_EVENTS, &in, now);
			if (online[c]) {
				bool raw = ref_over(util, cap[c]);

				last_cap[c] = cap[c];
				if (cap[c] > ref_max)
					ref_max = cap[c];
				ref_set(&ml[c], raw, now);
				ref_set(&lone[c], raw && !(nr == 1 && cap[c] >= ref_max), now);
				if (raw && nr == 1 && ref_max < 1024 && cap[c] == ref_max)
					lone_big_gone++;
			} else {
				ignored++;
				if (m)
					masks_ok = 0;
			}
			m |= sl_ou_system_update(&s, now);
		}
		for (n = 0; n < 3; n++) {
			if (!online[n])
				continue;
			any |= ml[n].on;
			all &= ml[n].on;
		}
		all &= online[0] || online[1] || online[2];
		if (all && !(online[0] && online[1] && online[2]))
			all_alone++;
		ref_set(&sys_ml, any, now);
		ref_set(&sys_all, all, now);
		for (n = 0; n < 3; n++)
			if (cpus[n].online != online[n] || !ref_same(&cpus[n].v[SL_OU_MAINLINE], &ml[n], now) ||
			    !ref_same(&cpus[n].v[SL_OU_ALL], &ml[n], now) ||
			    !ref_same(&cpus[n].v[SL_OU_LONE], &lone[n], now))
				bad_at = i;
		if (!ref_same(&s.sys[SL_OU_MAINLINE], &sys_ml, now) ||
		    !ref_same(&s.sys[SL_OU_ALL], &sys_all, now) || s.max_capacity_orig != ref_max)
			bad_at = i;
	}
	tap(bad_at < 0 && masks_ok,
	    "hotplug, %d random steps (%llu offlines, %llu onlines, %llu events of offline CPUs): online flags, per-CPU mainline/all/lone and system mainline/all verdicts and stats, largest capacity, equal the reference at every step%s",
	    i, (unsigned long long)offlines, (unsigned long long)onlines,
	    (unsigned long long)ignored, bad_at < 0 ? "" : " (not from a step on)");
	tap(bad_at < 0 && sys_all.sets > 0 && all_alone > 0 && lone_big_gone > 0 && ignored > 0,
	    "hotplug, random: the all-CPUs rule flagged the system with a CPU offline at %llu steps (%llu episodes, %llu ms); lone spared a lone task on a smaller CPU with the 1024 one offline %llu times",
	    (unsigned long long)all_alone, (unsigned long long)sys_all.sets,
	    (unsigned long long)(sys_all.time / MS), (unsigned long long)lone_big_gone);
}

/* expected bucket: i with 2^i us <= ns < 2^(i+1) us, 0 below 2 us, capped */
static unsigned int ref_bucket(u64 ns)
{
	unsigned int i;

	for (i = SL_OU_HIST_BUCKETS - 1; i > 0; i--)
		if (ns >= (1ULL << i) * US)
			return i;
	return 0;
}

int main(void)
{
	struct sl_ou_params p = def_params;
	struct sl_ou_system s;
	struct sl_ou_cpu cpus[3];
	struct sl_ou_stats st, st2;
	struct sl_ou_input in;
	static const unsigned long caps[] = { 160, 512, 1024 };
	u64 got[16];
	int i, k, r, ok, mask_ok;
	unsigned long u;
	unsigned int m, c;

	/* 0. init */
	memset(cpus, 0xa5, sizeof(cpus));
	sl_ou_init(&s, cpus, 3, &p, T0);
	ok = s.nr_cpus == 3 && s.cpus == cpus && s.max_capacity_orig == 0 &&
	     s.p.tick_ns == p.tick_ns && s.p.linger_clear_ticks == 1;
	for (r = 0; r < SL_OU_NR_RULES; r++) {
		ok &= !s.sys[r].on && s.sys[r].since_ns == T0 && s.sys[r].st.sets == 0 &&
		      s.sys[r].st.hist[SL_OU_HIST_BUCKETS - 1] == 0;
		for (c = 0; c < 3; c++)
			ok &= !cpus[c].v[r].on && cpus[c].v[r].since_ns == T0 &&
			      cpus[c].v[r].st.time_ns == 0 && cpus[c].v[r].st.max_ns == 0 &&
			      cpus[c].v[r].st.hist[0] == 0 && cpus[c].v[r].st.clears == 0;
	}
	for (c = 0; c < 3; c++)
		ok &= cpus[c].idle_ns == T0 && cpus[c].linger_ticks == 0 && !cpus[c].raw &&
		      cpus[c].dyn_capacity == 0 && cpus[c].in.util == 0;
	tap(ok, "init over garbage: every verdict off since the start, stats zero, CPUs just idle");

	/* 1. mainline fit boundary, brute force over util 0..1024 */
	for (i = 0; i < 3; i++) {
		unsigned long cap = caps[i], largest = 0;
		int agree = 1, agree_uc = 1;

		for (u = 0; u <= 1024; u++) {
			struct sl_ou_input uc;

			if (u * 1280 < cap * 1024)
				largest = u;
			in = in_of(u, cap, 1, false);
			if (sl_ou_mainline(&in) != !(u * 1280 < cap * 1024))
				agree = 0;
			/* uclamp in use, neutral clamps: no difference */
			uc = in;
			uc.uclamp_used = true;
			if (sl_ou_mainline(&uc) != !(u * 1280 < cap * 1024))
				agree_uc = 0;
		}
		tap(agree && agree_uc && largest == (cap == 1024 ? 819 : cap == 160 ? 127 : 409),
		    "capacity %lu: largest fitting util %lu by brute force; sl_ou_mainline agrees for util 0..1024, with and without neutral uclamp",
		    cap, largest);
	}
	in = in_of(819, 1024, 1, false);
	ok = !sl_ou_mainline(&in);
	in.util = 820;
	ok &= sl_ou_mainline(&in);
	in = in_of(127, 160, 1, false);
	ok &= !sl_ou_mainline(&in);
	in.util = 128;
	ok &= sl_ou_mainline(&in);
	in = in_of(700, 1024, 1, false);
	in.capacity = 800;	/* capacity_of() below capacity_orig (RT, IRQ) */
	ok &= sl_ou_mainline(&in) == ref_over(700, 800);
	tap(ok, "819 fits 1024 and 820 does not, 127 fits 160 and 128 does not; the test is on capacity, not capacity_orig");

	/* 2. uclamp */
	in = in_of(600, 512, 1, false);
	in.uclamp_max = 400;
	ok = sl_ou_mainline(&in);		/* uclamp not in use: clamps ignored */
	in.uclamp_used = true;
	ok &= !sl_ou_mainline(&in) && sl_ou_util_fits(&in) == 1;
	in.uclamp_max = 512;
	ok &= !sl_ou_mainline(&in);
	in.uclamp_max = 513;
	ok &= sl_ou_mainline(&in) && sl_ou_util_fits(&in) == 0;
	tap(ok, "uclamp_max <= capacity_orig 512 makes util 600 fit (400 and 512 fit, 513 not), only when uclamp is used");
	in = in_of(900, 1024, 1, false);
	in.uclamp_used = true;
	ok = sl_ou_mainline(&in);		/* uclamp_max 1024 on a 1024 CPU: no cap */
	in.uclamp_max = 1000;
	ok &= !sl_ou_mainline(&in);
	tap(ok, "on a 1024 CPU, uclamp_max 1024 is no cap (util 900 overutilized) but 1000 is (fits)");
	in = in_of(100, 160, 1, false);
	in.uclamp_used = true;
	in.uclamp_min = 300;
	ok = sl_ou_util_fits(&in) == -1 && !sl_ou_mainline(&in);
	in.uclamp_used = false;
	ok &= sl_ou_util_fits(&in) == 1;
	in.uclamp_used = true;
	in.uclamp_min = 160;			/* not above capacity_orig */
	ok &= sl_ou_util_fits(&in) == 1;
	in.uclamp_min = 300;
	in.util = 200;				/* does not fit: boost irrelevant */
	ok &= sl_ou_util_fits(&in) == 0 && sl_ou_mainline(&in);
	tap(ok, "uclamp_min 300 > capacity_orig 160 with util 100 < 300: fits but -1, not overutilized; 1 without uclamp or with uclamp_min 160; util 200 overutilized");
	in = in_of(120, 160, 1, false);
	in.uclamp_used = true;
	in.uclamp_min = 300;
	in.uclamp_max = 100;			/* min(uclamp_min, uclamp_max) = 100 */
	ok = sl_ou_util_fits(&in) == 1;
	in.util = 90;				/* 90 < 100, but 100 is not above 160 */
	ok &= sl_ou_util_fits(&in) == 1;
	tap(ok, "uclamp_min is capped by uclamp_max (300/100 on a 160 CPU: no -1)");

	/* 3. linger, C=1 S=0 */
	{
		static const struct step seq[] = {
			{ SL_OU_EV_UTIL, 1000, 10, false },	/* raw on: linger on at once */
			{ SL_OU_EV_TICK, 1000, 20, false },
			{ SL_OU_EV_UTIL, 100, 25, false },	/* raw off, not a tick */
			{ SL_OU_EV_ENQUEUE, 1000, 27, false },	/* agrees again */
			{ SL_OU_EV_DEQUEUE, 100, 29, false },
			{ SL_OU_EV_TICK, 100, 30, false },	/* 1st disagreeing tick: off */
			{ SL_OU_EV_TICK, 100, 40, false },
			{ SL_OU_EV_BALANCE, 1000, 50, false },	/* on at once (S=0) */
			{ SL_OU_EV_TICK, 100, 60, false },	/* off at the tick */
			{ SL_OU_EV_TICK, 100, 70, false },
		};
		static const u64 want_lg[] = { 10, 30, 50, 60 };
		static const u64 want_ml[] = { 10, 25, 27, 29, 50, 60 };
		u64 got_ml[16];
		int kml;

		mask_ok = 1;
		sl_ou_init(&s, cpus, 1, &p, T0);
		k = run_steps(&s, seq, 10, SL_OU_LINGER, got, 16, &mask_ok);
		sl_ou_init(&s, cpus, 1, &p, T0);
		kml = run_steps(&s, seq, 10, SL_OU_MAINLINE, got_ml, 16, &mask_ok);
		tap(mask_ok && same_list(got, k, want_lg, 4) && same_list(got_ml, kml, want_ml, 6),
		    "linger C=1 S=0: changes at %s us (want 10,30,50,60), mainline at %s us (want 10,25,27,29,50,60)",
		    list_str(got, k), list_str(got_ml, kml));
		sl_ou_stats_at(&cpus[0].v[SL_OU_LINGER], T0 + 70 * US, &st);
		sl_ou_stats_at(&cpus[0].v[SL_OU_MAINLINE], T0 + 70 * US, &st2);
		tap(st.sets == 2 && st.clears == 2 && st.time_ns == 30 * US && st.max_ns == 20 * US &&
		    st2.sets == 3 && st2.clears == 3 && st2.time_ns == 27 * US,
		    "linger C=1 S=0: 2 sets, 2 clears, 30 us on (longest 20); mainline 3/3, 27 us (got %llu/%llu %llu ns, %llu/%llu %llu ns)",
		    (unsigned long long)st.sets, (unsigned long long)st.clears,
		    (unsigned long long)st.time_ns, (unsigned long long)st2.sets,
		    (unsigned long long)st2.clears, (unsigned long long)st2.time_ns);
	}
	{
		static const struct step seq[] = {
			{ SL_OU_EV_TICK, 1000, 10, false },	/* 1 */
			{ SL_OU_EV_TICK, 1000, 20, false },	/* 2: on */
			{ SL_OU_EV_TICK, 100, 30, false },	/* 1 */
			{ SL_OU_EV_UTIL, 1000, 35, false },	/* agrees: count restarts */
			{ SL_OU_EV_TICK, 100, 40, false },	/* 1 */
			{ SL_OU_EV_TICK, 100, 50, false },	/* 2: off */
			{ SL_OU_EV_TICK, 1000, 60, false },	/* 1 */
			{ SL_OU_EV_ENQUEUE, 1000, 65, false },	/* disagrees, not a tick: still 1 */
			{ SL_OU_EV_TICK, 1000, 70, false },	/* 2: on */
			{ SL_OU_EV_UTIL, 100, 80, false },	/* disagrees, not a tick: stays on */
		};
		static const u64 want[] = { 20, 50, 70 };

		p.linger_clear_ticks = 2;
		p.linger_set_ticks = 2;
		mask_ok = 1;
		sl_ou_init(&s, cpus, 1, &p, T0);
		k = run_steps(&s, seq, 10, SL_OU_LINGER, got, 16, &mask_ok);
		sl_ou_stats_at(&cpus[0].v[SL_OU_LINGER], T0 + 100 * US, &st);
		tap(mask_ok && same_list(got, k, want, 3) && cpus[0].v[SL_OU_LINGER].on &&
		    cpus[0].linger_ticks == 0,
		    "linger C=2 S=2: changes at %s us (want 20,50,70: a non-tick disagreement neither counts nor restarts)",
		    list_str(got, k));
		tap(st.sets == 2 && st.clears == 1 && st.time_ns == 60 * US && st.max_ns == 30 * US &&
		    st.hist[ref_bucket(30 * US)] == 1,
		    "linger C=2 S=2 at 100 us: 2 sets, 1 clear, 30 us closed + 30 us open = %llu ns, longest %llu ns",
		    (unsigned long long)st.time_ns, (unsigned long long)st.max_ns);
		p = def_params;
	}
	linger_random(1, 0);
	linger_random(2, 2);
	linger_random(3, 1);
	linger_random(0, 0);
	/* linger 0/0 is mainline at every event */
	{
		p.linger_clear_ticks = 0;
		p.linger_set_ticks = 0;
		sl_ou_init(&s, cpus, 1, &p, T0);
		ok = 1;
		for (i = 0; i < 10000; i++) {
			in = in_of(xorshift() % 1025, 1024, 2, false);
			sl_ou_cpu_event(&s, 0, xorshift() % SL_OU_NR_EVENTS, &in, T0 + i * US);
			ok &= cpus[0].v[SL_OU_LINGER].on == cpus[0].v[SL_OU_MAINLINE].on;
		}
		tap(ok, "linger with 0 ticks either way equals mainline at every event");
		p = def_params;
	}

	/* 4. idle rule, W = 5 ms */
	{
		static const struct step seq[] = {
			{ SL_OU_EV_IDLE_EXIT, 1000, 1000, false },	/* window from 1 ms */
			{ SL_OU_EV_TICK, 1000, 4000, false },
			{ SL_OU_EV_TICK, 1000, 5999, false },		/* 4.999 ms: not yet */
			{ SL_OU_EV_UTIL, 1000, 6000, false },		/* 5 ms: on */
			{ SL_OU_EV_TICK, 1000, 8000, false },
			{ SL_OU_EV_IDLE_ENTER, 1000, 9000, true },	/* off */
			{ SL_OU_EV_IDLE_EXIT, 1000, 10000, false },	/* window from 10 ms */
			{ SL_OU_EV_TICK, 1000, 14000, false },
			{ SL_OU_EV_TICK, 1000, 15000, false },		/* on */
			{ SL_OU_EV_TICK, 1000, 20000, true },	/* idle tick: off */
			{ SL_OU_EV_TICK, 1000, 24999, false },
			{ SL_OU_EV_BALANCE, 1000, 25000, false },	/* on */
			{ SL_OU_EV_TICK, 100, 26000, false },		/* raw off: off */
			{ SL_OU_EV_TICK, 1000, 27000, false },		/* raw on, 7 ms since idle: on */
		};
		static const u64 want[] = { 6000, 9000, 15000, 20000, 25000, 26000, 27000 };

		p.idle_window_ns = 5 * MS;
		mask_ok = 1;
		sl_ou_init(&s, cpus, 1, &p, T0);
		k = run_steps(&s, seq, 14, SL_OU_IDLE, got, 16, &mask_ok);
		tap(mask_ok && same_list(got, k, want, 7) && cpus[0].idle_ns == T0 + 20 * MS,
		    "idle W=5 ms: changes at %s us (want 6000,9000,15000,20000,25000,26000,27000)",
		    list_str(got, k));
		sl_ou_stats_at(&cpus[0].v[SL_OU_IDLE], T0 + 30 * MS, &st);
		tap(st.sets == 4 && st.clears == 3 && st.time_ns == (3 + 5 + 1 + 3) * MS &&
		    st.max_ns == 5 * MS,
		    "idle W=5 ms at 30 ms: 4 sets, 3 clears, on 3+5+1+3 ms = %llu ns, longest %llu ns",
		    (unsigned long long)st.time_ns, (unsigned long long)st.max_ns);
		sl_ou_init(&s, cpus, 1, &p, T0);
		in = in_of(1000, 1024, 2, false);
		sl_ou_cpu_event(&s, 0, SL_OU_EV_TICK, &in, T0 + 5 * MS - 1);
		ok = !cpus[0].v[SL_OU_IDLE].on;
		sl_ou_cpu_event(&s, 0, SL_OU_EV_TICK, &in, T0 + 5 * MS);
		ok &= cpus[0].v[SL_OU_IDLE].on && cpus[0].v[SL_OU_IDLE].since_ns == T0 + 5 * MS;
		tap(ok, "idle: the start counts as idle (on at T0 + 5 ms, not 1 ns before)");
		p = def_params;
	}

	/* 5. dynamic */
	{
		unsigned long t1024 = sl_pelt_margin_threshold(1024, p.tick_ns);
		unsigned long t512 = sl_pelt_margin_threshold(512, p.tick_ns);
		bool a, b, d, e;

		sl_ou_init(&s, cpus, 1, &p, T0);
		in = in_of(t1024, 1024, 2, false);
		sl_ou_cpu_event(&s, 0, SL_OU_EV_UTIL, &in, T0 + 1 * MS);
		a = cpus[0].v[SL_OU_DYNAMIC].on;
		ok = cpus[0].dyn_capacity == 1024 && cpus[0].dyn_threshold == t1024;
		in.util = t1024 + 1;
		m = sl_ou_cpu_event(&s, 0, SL_OU_EV_UTIL, &in, T0 + 2 * MS);
		b = cpus[0].v[SL_OU_DYNAMIC].on && (m & SL_OU_CPU_BIT(SL_OU_DYNAMIC));
		tap(ok && !a && b && t1024 > 0 && t1024 < 1024,
		    "dynamic, capacity 1024, tick 4 ms: threshold %lu (the PELT core's migration margin); util %lu off, %lu on",
		    t1024, t1024, t1024 + 1);
		in = in_of(t512, 512, 2, false);
		sl_ou_cpu_event(&s, 0, SL_OU_EV_UTIL, &in, T0 + 3 * MS);
		d = cpus[0].v[SL_OU_DYNAMIC].on;
		ok = cpus[0].dyn_capacity == 512 && cpus[0].dyn_threshold == t512;
		in.util = t512 + 1;
		sl_ou_cpu_event(&s, 0, SL_OU_EV_UTIL, &in, T0 + 4 * MS);
		e = cpus[0].v[SL_OU_DYNAMIC].on;
		tap(ok && !d && e && t512 < t1024,
		    "dynamic: capacity_orig 512 recomputes the threshold (%lu): util %lu off, %lu on",
		    t512, t512, t512 + 1);
		/* cached: a planted threshold survives events at the same capacity */
		cpus[0].dyn_threshold = 5;
		in.util = 6;
		sl_ou_cpu_event(&s, 0, SL_OU_EV_TICK, &in, T0 + 5 * MS);
		ok = cpus[0].v[SL_OU_DYNAMIC].on && cpus[0].dyn_threshold == 5;
		in = in_of(6, 1024, 2, false);
		sl_ou_cpu_event(&s, 0, SL_OU_EV_TICK, &in, T0 + 6 * MS);
		ok &= !cpus[0].v[SL_OU_DYNAMIC].on && cpus[0].dyn_threshold == t1024;
		tap(ok, "dynamic: the threshold is recomputed only when capacity_orig changes");
		in = in_of(t1024 + 1, 1024, 2, false);
		in.uclamp_used = true;
		in.uclamp_max = 100;
		sl_ou_cpu_event(&s, 0, SL_OU_EV_TICK, &in, T0 + 7 * MS);
		ok = cpus[0].v[SL_OU_DYNAMIC].on && !cpus[0].v[SL_OU_MAINLINE].on;
		in = in_of(t1024 - 1, 1024, 2, false);
		in.capacity = 100;	/* capacity_of() does not matter either */
		sl_ou_cpu_event(&s, 0, SL_OU_EV_TICK, &in, T0 + 8 * MS);
		ok &= !cpus[0].v[SL_OU_DYNAMIC].on && cpus[0].v[SL_OU_MAINLINE].on;
		tap(ok, "dynamic ignores uclamp (on under uclamp_max 100) and capacity_of (off at capacity 100)");

		/*
		 * With a 1 ms tick the rule uses the response-time RFC's
		 * published "threshold-tick" column (reference 010): 23 for
		 * capacity 160, 157 for 384, 627 for 752.
		 */
		{
			static const unsigned long rfc[][2] = {
				{ 160, 23 }, { 384, 157 }, { 752, 627 },
			};
			struct sl_ou_params p1 = p;
			unsigned int r;

			p1.tick_ns = 1 * MS;
			ok = 1;
			for (r = 0; r < ARRAY_SIZE(rfc); r++) {
				sl_ou_init(&s, cpus, 1, &p1, T0);
				in = in_of(rfc[r][1], rfc[r][0], 2, false);
				sl_ou_cpu_event(&s, 0, SL_OU_EV_UTIL, &in, T0 + 1 * MS);
				ok &= !cpus[0].v[SL_OU_DYNAMIC].on &&
				      cpus[0].dyn_threshold == rfc[r][1];
				in.util = rfc[r][1] + 1;
				sl_ou_cpu_event(&s, 0, SL_OU_EV_UTIL, &in, T0 + 2 * MS);
				ok &= cpus[0].v[SL_OU_DYNAMIC].on;
			}
			tap(ok, "dynamic, 1 ms tick: the RFC's thresholds (160: 23, 384: 157, 752: 627), util at the threshold off, one more on");
		}
		{
			unsigned long t160 = sl_pelt_margin_threshold(160, p.tick_ns);

			sl_ou_init(&s, cpus, 1, &p, T0);
			in = in_of(t160 + 1, 160, 2, false);
			sl_ou_cpu_event(&s, 0, SL_OU_EV_UTIL, &in, T0 + 1 * MS);
			ok = cpus[0].v[SL_OU_DYNAMIC].on && !cpus[0].v[SL_OU_MAINLINE].on &&
			     t160 + 1 < 160 * 1024 / 1280;
			tap(ok, "dynamic, capacity 160, tick 4 ms: threshold %lu, far below mainline's 128: util %lu on, mainline off",
			    t160, t160 + 1);
		}
	}

	/* 6. lone */
	sl_ou_init(&s, cpus, 3, &p, T0);
	for (c = 0; c < 3; c++) {
		in = in_of(10, caps[c], 1, false);
		sl_ou_cpu_event(&s, c, SL_OU_EV_TICK, &in, T0 + c * US);
	}
	ok = s.max_capacity_orig == 1024;
	in = in_of(1000, 1024, 1, false);
	sl_ou_cpu_event(&s, 2, SL_OU_EV_UTIL, &in, T0 + 10 * US);
	ok &= cpus[2].v[SL_OU_MAINLINE].on && !cpus[2].v[SL_OU_LONE].on;
	tap(ok, "lone: one task of util 1000 on the 1024 CPU: mainline on, lone off");
	in.nr_running = 2;
	m = sl_ou_cpu_event(&s, 2, SL_OU_EV_ENQUEUE, &in, T0 + 20 * US);
	ok = cpus[2].v[SL_OU_LONE].on && m == SL_OU_CPU_BIT(SL_OU_LONE);
	in.nr_running = 1;
	m = sl_ou_cpu_event(&s, 2, SL_OU_EV_DEQUEUE, &in, T0 + 30 * US);
	ok &= !cpus[2].v[SL_OU_LONE].on && m == SL_OU_CPU_BIT(SL_OU_LONE);
	tap(ok, "lone: a second task turns lone on (only lone changes), back to one off");
	in = in_of(140, 160, 1, false);		/* 140 * 1280 >= 160 * 1024 */
	sl_ou_cpu_event(&s, 0, SL_OU_EV_UTIL, &in, T0 + 40 * US);
	ok = cpus[0].v[SL_OU_MAINLINE].on && cpus[0].v[SL_OU_LONE].on;
	in = in_of(500, 512, 1, false);
	sl_ou_cpu_event(&s, 1, SL_OU_EV_UTIL, &in, T0 + 50 * US);
	ok &= cpus[1].v[SL_OU_LONE].on;
	tap(ok, "lone: one task over 80%% of a 160 or 512 CPU is overutilized (not the biggest)");
	in = in_of(0, 1024, 0, true);
	sl_ou_cpu_event(&s, 2, SL_OU_EV_IDLE_ENTER, &in, T0 + 60 * US);
	ok = !cpus[2].v[SL_OU_LONE].on;
	sl_ou_init(&s, cpus, 3, &p, T0);
	in = in_of(140, 160, 1, false);
	sl_ou_cpu_event(&s, 0, SL_OU_EV_UTIL, &in, T0 + 1 * US);
	ok &= s.max_capacity_orig == 160 && cpus[0].v[SL_OU_MAINLINE].on &&
	      !cpus[0].v[SL_OU_LONE].on;
	in = in_of(10, 1024, 1, false);
	sl_ou_cpu_event(&s, 2, SL_OU_EV_UTIL, &in, T0 + 2 * US);
	ok &= s.max_capacity_orig == 1024 && !cpus[0].v[SL_OU_LONE].on;
	in = in_of(140, 160, 1, false);
	sl_ou_cpu_event(&s, 0, SL_OU_EV_TICK, &in, T0 + 3 * US);
	ok &= cpus[0].v[SL_OU_LONE].on && cpus[0].v[SL_OU_LONE].since_ns == T0 + 3 * US;
	tap(ok, "lone: the biggest capacity is the biggest seen so far (a 160 CPU is taken as the biggest until the 1024 one reports)");

	/* 7. system: OR, and AND for ALL */
	{
		static const struct { unsigned int cpu; unsigned long util; u64 t_us; } sev[] = {
			{ 0, 1000, 10 }, { 1, 1000, 20 }, { 0, 100, 30 }, { 1, 100, 40 },
			{ 1, 1000, 50 },
		};
		static const unsigned int want_mask[] = {
			SL_OU_SYS_BIT(SL_OU_MAINLINE), SL_OU_SYS_BIT(SL_OU_ALL),
			SL_OU_SYS_BIT(SL_OU_ALL), SL_OU_SYS_BIT(SL_OU_MAINLINE),
			SL_OU_SYS_BIT(SL_OU_MAINLINE),
		};
		const unsigned int two = SL_OU_SYS_BIT(SL_OU_MAINLINE) | SL_OU_SYS_BIT(SL_OU_ALL);
		int masks_ok = 1, untouched = 1;

		sl_ou_init(&s, cpus, 2, &p, T0);
		for (i = 0; i < 5; i++) {
			bool ml = s.sys[SL_OU_MAINLINE].on, all = s.sys[SL_OU_ALL].on;

			in = in_of(sev[i].util, 1024, 2, false);
			m = sl_ou_cpu_event(&s, sev[i].cpu, SL_OU_EV_UTIL, &in,
					    T0 + sev[i].t_us * US);
			if (m & ~((1U << SL_OU_NR_RULES) - 1) || s.sys[SL_OU_MAINLINE].on != ml ||
			    s.sys[SL_OU_ALL].on != all)
				untouched = 0;
			m = sl_ou_system_update(&s, T0 + sev[i].t_us * US);
			if ((m & two) != want_mask[i] || (m & ((1U << SL_OU_NR_RULES) - 1)))
				masks_ok = 0;
		}
		m = sl_ou_system_update(&s, T0 + 55 * US);
		tap(untouched && masks_ok && m == 0 && s.sys[SL_OU_MAINLINE].since_ns == T0 + 50 * US,
		    "system: CPU events leave the system verdicts alone; updates report mainline at 10, 40, 50 us and all at 20, 30 us; nothing new at 55 us");
		sl_ou_stats_at(&s.sys[SL_OU_MAINLINE], T0 + 60 * US, &st);
		tap(st.sets == 2 && st.clears == 1 && st.time_ns == (30 + 10) * US &&
		    st.max_ns == 30 * US && st.hist[ref_bucket(30 * US)] == 1,
		    "system mainline (OR) at 60 us: 2 sets, 1 clear, 30 us closed + 10 open = %llu ns, longest %llu ns",
		    (unsigned long long)st.time_ns, (unsigned long long)st.max_ns);
		sl_ou_stats_at(&s.sys[SL_OU_ALL], T0 + 60 * US, &st);
		tap(!s.sys[SL_OU_ALL].on && st.sets == 1 && st.clears == 1 && st.time_ns == 10 * US &&
		    st.max_ns == 10 * US,
		    "system all (AND) at 60 us: on only from 20 to 30 us, both CPUs on (%llu ns)",
		    (unsigned long long)st.time_ns);
		sl_ou_stats_at(&s.sys[SL_OU_MAINLINE], T0 + 100 * US, &st);
		tap(st.time_ns == (30 + 50) * US && st.max_ns == 50 * US && st.clears == 1 &&
		    st.hist[ref_bucket(50 * US)] == 0,
		    "stats_at 100 us: the open 50 us episode is the longest, in the time, not in clears or the histogram");
		in = in_of(1000, 1024, 2, false);
		sl_ou_cpu_event(&s, 0, SL_OU_EV_TICK, &in, T0 + 110 * US);
		m = sl_ou_system_update(&s, T0 + 110 * US);
		ok = (m & two) == SL_OU_SYS_BIT(SL_OU_ALL) && s.sys[SL_OU_ALL].on;
		sl_ou_init(&s, cpus, 1, &p, T0);
		sl_ou_cpu_event(&s, 0, SL_OU_EV_TICK, &in, T0 + 1 * US);
		m = sl_ou_system_update(&s, T0 + 1 * US);
		ok &= (m & two) == two;
		tap(ok, "system all: on again when both CPUs are; with a single CPU, all is mainline");
	}

	/* 8. histogram */
	{
		static const struct { u64 ns; unsigned int b; } hb[] = {
			{ 0, 0 }, { 999, 0 }, { 1999, 0 }, { 2000, 1 }, { 3999, 1 }, { 4000, 2 },
			{ 1000000, 9 }, { 1023999, 9 }, { 1024000, 10 },
			{ 8388608000ULL - 1, 22 }, { 8388608000ULL, 23 }, { ~0ULL, 23 },
		};
		static const u64 lens[] = { 1 * US, 3 * US, 1 * MS, 1500 * US, 10000 * MS, 500 };
		u64 now = T0, sum = 0, hsum = 0, mx = 0;
		int bad = -1;

		for (i = 0; i < (int)ARRAY_SIZE(hb); i++)
			if (sl_ou_hist_bucket(hb[i].ns) != hb[i].b || ref_bucket(hb[i].ns) != hb[i].b)
				bad = i;
		tap(bad < 0, "hist buckets: 0, 999, 1999 ns -> 0; 2000 -> 1; 4000 -> 2; 1 ms -> 9; 1.024 ms -> 10; 2^23 us -> 23 = last; ~0 -> last%s",
		    bad < 0 ? "" : " (a mismatch)");
		ok = 1;
		for (i = 1; i < SL_OU_HIST_BUCKETS; i++)
			ok &= sl_ou_hist_bucket((1ULL << i) * US - 1) == (unsigned int)i - 1 &&
			      sl_ou_hist_bucket((1ULL << i) * US) == (unsigned int)i;
		tap(ok, "hist buckets: every boundary 2^i us - 1 ns -> i - 1, 2^i us -> i, i = 1..%d",
		    SL_OU_HIST_BUCKETS - 1);

		sl_ou_init(&s, cpus, 1, &p, T0);
		for (i = 0; i < 6; i++) {
			in = in_of(1000, 1024, 2, false);
			now += 7 * US;
			sl_ou_cpu_event(&s, 0, SL_OU_EV_TICK, &in, now);
			now += lens[i];
			in.util = 0;
			sl_ou_cpu_event(&s, 0, SL_OU_EV_TICK, &in, now);
			sum += lens[i];
			if (lens[i] > mx)
				mx = lens[i];
		}
		st = cpus[0].v[SL_OU_MAINLINE].st;
		for (i = 0; i < SL_OU_HIST_BUCKETS; i++)
			hsum += st.hist[i];
		tap(st.clears == 6 && hsum == 6 && st.hist[0] == 2 && st.hist[1] == 1 &&
		    st.hist[9] == 1 && st.hist[10] == 1 && st.hist[23] == 1 &&
		    st.time_ns == sum && st.max_ns == mx,
		    "episodes of 1 us, 3 us, 1 ms, 1.5 ms, 10 s, 500 ns: buckets 0 x2, 1, 9, 10, 23; hist sums to clears (%llu); time %llu ns, longest %llu ns",
		    (unsigned long long)hsum, (unsigned long long)st.time_ns,
		    (unsigned long long)st.max_ns);
	}

	/* 9. reset */
	{
		u64 t = T0 + 100 * MS;

		sl_ou_init(&s, cpus, 2, &p, T0);
		in = in_of(1000, 1024, 2, false);
		sl_ou_cpu_event(&s, 0, SL_OU_EV_TICK, &in, T0 + 1 * MS);
		sl_ou_cpu_event(&s, 1, SL_OU_EV_TICK, &in, T0 + 1 * MS);
		sl_ou_system_update(&s, T0 + 1 * MS);
		in.util = 0;
		sl_ou_cpu_event(&s, 1, SL_OU_EV_TICK, &in, T0 + 2 * MS);
		sl_ou_system_update(&s, T0 + 2 * MS);
		sl_ou_reset_stats(&s, t);
		ok = cpus[0].v[SL_OU_MAINLINE].on && !cpus[1].v[SL_OU_MAINLINE].on &&
		     s.sys[SL_OU_MAINLINE].on && !s.sys[SL_OU_ALL].on;
		for (r = 0; r < SL_OU_NR_RULES; r++) {
			const struct sl_ou_verdict *vs[3] = { &s.sys[r], &cpus[0].v[r], &cpus[1].v[r] };

			for (c = 0; c < 3; c++) {
				ok &= vs[c]->since_ns == t && vs[c]->st.sets == 0 &&
				      vs[c]->st.clears == 0 && vs[c]->st.time_ns == 0 &&
				      vs[c]->st.max_ns == 0;
				for (i = 0; i < SL_OU_HIST_BUCKETS; i++)
					ok &= vs[c]->st.hist[i] == 0;
			}
		}
		tap(ok, "reset: every stat zero, CPU and system, since = the reset; verdicts kept");
		sl_ou_stats_at(&s.sys[SL_OU_MAINLINE], t + 5 * MS, &st);
		sl_ou_stats_at(&cpus[1].v[SL_OU_MAINLINE], t + 5 * MS, &st2);
		ok = st.time_ns == 5 * MS && st.max_ns == 5 * MS && st.sets == 0 && st2.time_ns == 0;
		in.util = 0;
		sl_ou_cpu_event(&s, 0, SL_OU_EV_TICK, &in, t + 6 * MS);
		st = cpus[0].v[SL_OU_MAINLINE].st;
		ok &= st.clears == 1 && st.sets == 0 && st.time_ns == 6 * MS &&
		      st.hist[ref_bucket(6 * MS)] == 1;
		tap(ok, "after a reset an open episode counts from the reset (5 ms at +5 ms; closed at +6 ms: 6 ms, bucket %u)",
		    ref_bucket(6 * MS));
	}

	/* odds and ends */
	sl_ou_init(&s, cpus, 2, &p, T0);
	in = in_of(1000, 1024, 2, false);
	m = sl_ou_cpu_event(&s, 2, SL_OU_EV_TICK, &in, T0 + 1 * US);
	ok = m == 0 && s.max_capacity_orig == 0;
	sl_ou_cpu_event(&s, 0, SL_OU_EV_TICK, &in, T0 + 10 * US);
	in.util = 0;
	sl_ou_cpu_event(&s, 0, SL_OU_EV_TICK, &in, T0 + 5 * US);	/* clock behind */
	st = cpus[0].v[SL_OU_MAINLINE].st;
	ok &= st.clears == 1 && st.time_ns == 0 && st.hist[0] == 1;
	tap(ok, "an event for a CPU past nr_cpus is ignored; an episode closed before it began counts 0 ns");

	/* 10. CPU hotplug, step by step: 2 CPUs of 1024, linger C=1 S=0 */
	{
		const unsigned int two = SL_OU_SYS_BIT(SL_OU_MAINLINE) | SL_OU_SYS_BIT(SL_OU_ALL);
		unsigned int want = 0;
		u64 t_set1, t_off = T0 + 40 * US, t_on = T0 + 100 * US;
		struct sl_ou_stats before[SL_OU_NR_RULES];
		bool was_on[SL_OU_NR_RULES];

		sl_ou_init(&s, cpus, 2, &p, T0);
		in = in_of(1000, 1024, 2, false);
		sl_ou_cpu_event(&s, 0, SL_OU_EV_TICK, &in, T0 + 10 * US);
		sl_ou_system_update(&s, T0 + 10 * US);
		t_set1 = T0 + 20 * US;
		sl_ou_cpu_event(&s, 1, SL_OU_EV_TICK, &in, t_set1);
		m = sl_ou_system_update(&s, t_set1);
		ok = (m & two) == SL_OU_SYS_BIT(SL_OU_ALL);
		in.util = 100;			/* CPU 1 fits again; linger holds (not a tick) */
		sl_ou_cpu_event(&s, 1, SL_OU_EV_ENQUEUE, &in, T0 + 30 * US);
		m = sl_ou_system_update(&s, T0 + 30 * US);
		ok &= (m & two) == SL_OU_SYS_BIT(SL_OU_ALL) && !s.sys[SL_OU_ALL].on &&
		      cpus[1].v[SL_OU_LINGER].on && !cpus[1].v[SL_OU_MAINLINE].on;
		tap(ok, "hotplug: both CPUs overutilized turn all on, CPU 1 fitting again turns it off (its linger still on)");

		/* offline CPU 1: its open episodes end, all is now over CPU 0 alone */
		for (r = 0; r < SL_OU_NR_RULES; r++) {
			was_on[r] = cpus[1].v[r].on;
			if (was_on[r])
				want |= SL_OU_CPU_BIT(r);
			sl_ou_stats_at(&cpus[1].v[r], t_off, &before[r]);
		}
		m = sl_ou_cpu_offline(&s, 1, t_off);
		ok = m == (want | SL_OU_SYS_BIT(SL_OU_ALL)) && want == SL_OU_CPU_BIT(SL_OU_LINGER) &&
		     !cpus[1].online && s.sys[SL_OU_ALL].on && s.sys[SL_OU_ALL].since_ns == t_off &&
		     s.sys[SL_OU_MAINLINE].on && s.sys[SL_OU_LINGER].on;
		for (r = 0; r < SL_OU_NR_RULES; r++) {
			st = cpus[1].v[r].st;
			ok &= !cpus[1].v[r].on && (!was_on[r] || cpus[1].v[r].since_ns == t_off) &&
			      st.clears == before[r].clears + (was_on[r] ? 1 : 0) &&
			      st.time_ns == before[r].time_ns && st.sets == before[r].sets;
		}
		ok &= cpus[1].v[SL_OU_LINGER].st.max_ns == t_off - t_set1;
		tap(ok, "hotplug: CPU 1 offline at 40 us ends its linger episode there (%llu ns, one clear), the others were off; all turns on with CPU 0 alone online (mask %#x)",
		    (unsigned long long)cpus[1].v[SL_OU_LINGER].st.time_ns, m);

		in.util = 1000;
		m = sl_ou_cpu_event(&s, 1, SL_OU_EV_TICK, &in, T0 + 50 * US);
		m |= sl_ou_system_update(&s, T0 + 50 * US);
		sl_ou_stats_at(&cpus[1].v[SL_OU_LINGER], T0 + 1000 * MS, &st);
		sl_ou_stats_at(&s.sys[SL_OU_ALL], T0 + 90 * US, &st2);
		ok = m == 0 && !cpus[1].v[SL_OU_MAINLINE].on && cpus[1].in.util == 100 &&
		     st.time_ns == t_off - t_set1 && st2.time_ns == (30 - 20) * US + (90 - 40) * US;
		tap(ok, "hotplug: an event of the offline CPU 1 is ignored; its time stays %llu ns a second later; the system all counts 10 us + its open 50 us",
		    (unsigned long long)st.time_ns);

		/* CPU 0 goes too: nothing online, all off */
		in.util = 0;
		m = sl_ou_cpu_offline(&s, 0, T0 + 95 * US);
		ok = (m & two) == two && !s.sys[SL_OU_ALL].on && !s.sys[SL_OU_MAINLINE].on &&
		     s.max_capacity_orig == 0;
		m = sl_ou_cpu_online(&s, 0, T0 + 96 * US);
		ok &= m == 0 && cpus[0].online;
		m = sl_ou_cpu_event(&s, 0, SL_OU_EV_TICK, &in, T0 + 97 * US);
		m |= sl_ou_system_update(&s, T0 + 97 * US);
		ok &= m == 0 && s.max_capacity_orig == 1024;
		tap(ok, "hotplug: with no CPU online every system verdict is off, all included; back online, a fitting CPU 0 changes nothing");
		in.util = 1000;
		sl_ou_cpu_event(&s, 0, SL_OU_EV_TICK, &in, T0 + 98 * US);
		m = sl_ou_system_update(&s, T0 + 98 * US);
		ok = (m & two) == two && s.sys[SL_OU_ALL].on;

		/* CPU 1 back: fresh, its stats kept; all off until it is overutilized */
		for (r = 0; r < SL_OU_NR_RULES; r++)
			before[r] = cpus[1].v[r].st;
		cpus[1].linger_ticks = 7;	/* stale state it must not keep */
		cpus[1].dyn_capacity = 3;
		m = sl_ou_cpu_online(&s, 1, t_on);
		ok &= m == SL_OU_SYS_BIT(SL_OU_ALL) && !s.sys[SL_OU_ALL].on && cpus[1].online &&
		      cpus[1].idle_ns == t_on && cpus[1].linger_ticks == 0 &&
		      cpus[1].dyn_capacity == 0 && cpus[1].in.util == 0 && !cpus[1].raw;
		for (r = 0; r < SL_OU_NR_RULES; r++)
			ok &= !cpus[1].v[r].on && cpus[1].v[r].since_ns == t_on &&
			      cpus[1].v[r].st.sets == before[r].sets &&
			      cpus[1].v[r].st.clears == before[r].clears &&
			      cpus[1].v[r].st.time_ns == before[r].time_ns;
		m = sl_ou_cpu_online(&s, 1, t_on + 1);
		ok &= m == 0 && cpus[1].v[SL_OU_MAINLINE].since_ns == t_on;
		tap(ok, "hotplug: CPU 1 online again at 100 us starts fresh (verdicts off since then, just idle, no stale linger count or threshold), stats kept; all turns off; a second online changes nothing");
		m = sl_ou_cpu_event(&s, 1, SL_OU_EV_TICK, &in, T0 + 110 * US);
		m |= sl_ou_system_update(&s, T0 + 110 * US);
		ok = (m & SL_OU_CPU_BIT(SL_OU_MAINLINE)) && (m & SL_OU_SYS_BIT(SL_OU_ALL)) &&
		     cpus[1].v[SL_OU_MAINLINE].st.sets == before[SL_OU_MAINLINE].sets + 1 &&
		     s.sys[SL_OU_ALL].on;
		m = sl_ou_cpu_offline(&s, 1, T0 + 120 * US);
		m |= sl_ou_cpu_offline(&s, 1, T0 + 130 * US);
		ok &= cpus[1].v[SL_OU_MAINLINE].st.time_ns == before[SL_OU_MAINLINE].time_ns + 10 * US &&
		      sl_ou_cpu_offline(&s, 5, T0 + 140 * US) == 0 &&
		      sl_ou_cpu_online(&s, 5, T0 + 140 * US) == 0;
		tap(ok, "hotplug: CPU 1 takes events again (overutilized at 110 us, all on); offline again at 120 us closes a 10 us episode; a second offline and CPUs past nr_cpus change nothing");

		/* lone: the biggest CPU gone, the biggest online one is the biggest */
		sl_ou_init(&s, cpus, 2, &p, T0);
		in = in_of(10, 1024, 1, false);
		sl_ou_cpu_event(&s, 1, SL_OU_EV_TICK, &in, T0 + 1 * US);
		in = in_of(140, 160, 1, false);
		sl_ou_cpu_event(&s, 0, SL_OU_EV_TICK, &in, T0 + 2 * US);
		ok = cpus[0].v[SL_OU_LONE].on && s.max_capacity_orig == 1024;
		sl_ou_cpu_offline(&s, 1, T0 + 3 * US);
		ok &= s.max_capacity_orig == 160;
		sl_ou_cpu_event(&s, 0, SL_OU_EV_TICK, &in, T0 + 4 * US);
		ok &= !cpus[0].v[SL_OU_LONE].on && cpus[0].v[SL_OU_MAINLINE].on;
		tap(ok, "hotplug: lone: with the 1024 CPU offline, one task over 80%% of the 160 CPU has nowhere better to go (lone off, mainline on)");
	}
	hotplug_random();

	/* sl_ou_same_state: every field the rules read counts */
	{
		struct sl_ou_input a = { .util = 500, .uclamp_min = 0, .uclamp_max = 1024,
					 .capacity = 1000, .capacity_orig = 1024,
					 .nr_running = 2, .idle = false, .uclamp_used = true };
		struct sl_ou_input b = a;
		int fields_ok = sl_ou_same_state(&a, &b);

		b.util++;		fields_ok &= !sl_ou_same_state(&a, &b); b = a;
		b.uclamp_min++;		fields_ok &= !sl_ou_same_state(&a, &b); b = a;
		b.uclamp_max--;		fields_ok &= !sl_ou_same_state(&a, &b); b = a;
		b.capacity++;		fields_ok &= !sl_ou_same_state(&a, &b); b = a;
		b.capacity_orig--;	fields_ok &= !sl_ou_same_state(&a, &b); b = a;
		b.nr_running = 1;	fields_ok &= !sl_ou_same_state(&a, &b); b = a;
		b.idle = true;		fields_ok &= !sl_ou_same_state(&a, &b); b = a;
		b.uclamp_used = false;	fields_ok &= !sl_ou_same_state(&a, &b);
		tap(fields_ok, "sl_ou_same_state: equal states match, a change in any of the 8 fields does not");
	}
	return tap_failures ? 1 : 0;
}
