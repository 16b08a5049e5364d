// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of module/eevdf_core.c, the EEVDF verifier's invariants.
 *
 * Valid states are built the way the kernel keeps them: entities with
 * weights and virtual runtimes around a zero-lag reference, the cached sums
 * computed from them, a tree ordered by deadline (balanced, augmented from
 * its children), curr the entity EEVDF picks, found by brute force with an
 * independent eligibility test in absolute terms (\Sum v_i w_i >= v \Sum w_i,
 * no reference point, no shifts). Every check must hold on every valid
 * state; each check is then shown to fire on the one value that breaks it,
 * and not one step before (boundaries).
 * Prints "ok - ..." / "not ok - ..." lines; exit 1 if any failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "eevdf_core.h"
#include "../lib/tap.h"

typedef __int128 s128;

#define MAXN 64
#define TICK 4000000ULL	/* HZ=250 */

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;
static u64 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static u64 rnd_range(u64 lo, u64 hi)
{
	return lo + rnd() % (hi - lo + 1);
}

struct state {
	struct eevdf_model m;
	struct eevdf_queue q;
	struct eevdf_entity all[MAXN];	/* all[0..n): every queued entity */
	int n;
	int curr;			/* index into all[] */
	struct eevdf_entity tree[MAXN];	/* the others, in deadline order */
	int nt;
	int left[MAXN], right[MAXN];	/* tree shape, indices into tree[] */
	int root;
};

/* Eligible, in absolute terms over every queued entity (independent). */
static int ref_eligible(const struct state *s, u64 v)
{
	s128 sw = 0, w = 0;
	int i;

	for (i = 0; i < s->n; i++) {
		u64 wi = eevdf_sum_weight(&s->m, &s->q, &s->all[i]);

		sw += (s128)s->all[i].vruntime * wi;
		w += wi;
	}
	return sw >= (s128)v * w;
}

static int cmp_deadline(const void *a, const void *b)
{
	const struct eevdf_entity *x = a, *y = b;

	return x->deadline < y->deadline ? -1 : x->deadline > y->deadline;
}

/* a node's augmented values take a child's in; the child's copied beside */
static void take_child(struct eevdf_entity *e, const struct eevdf_entity *c,
		       u64 *min_vruntime, u64 *min_slice, u64 *max_slice)
{
	*min_vruntime = c->min_vruntime;
	*min_slice = c->min_slice;
	*max_slice = c->max_slice;
	if ((s64)(c->min_vruntime - e->min_vruntime) < 0)
		e->min_vruntime = c->min_vruntime;
	if (c->min_slice < e->min_slice)
		e->min_slice = c->min_slice;
	if (c->max_slice > e->max_slice)
		e->max_slice = c->max_slice;
}

/* balanced tree over tree[lo..hi]: root index, augmented bottom-up */
static int build(struct state *s, int lo, int hi)
{
	struct eevdf_entity *e;
	int mid, l, r;

	if (lo > hi)
		return -1;
	mid = (lo + hi) / 2;
	l = build(s, lo, mid - 1);
	r = build(s, mid + 1, hi);
	s->left[mid] = l;
	s->right[mid] = r;
	e = &s->tree[mid];
	e->min_vruntime = e->vruntime;
	e->min_slice = e->max_slice = e->slice;
	e->has_left = l >= 0;
	e->has_right = r >= 0;
	if (l >= 0)
		take_child(e, &s->tree[l], &e->l_min_vruntime, &e->l_min_slice, &e->l_max_slice);
	if (r >= 0)
		take_child(e, &s->tree[r], &e->r_min_vruntime, &e->r_min_slice, &e->r_max_slice);
	return mid;
}

/* Recompute everything derived: curr placement, sums, tree. */
static void derive(struct state *s)
{
	s128 sum = 0;
	u64 w = 0;
	int i;

	s->nt = 0;
	for (i = 0; i < s->n; i++)
		if (i != s->curr)
			s->tree[s->nt++] = s->all[i];
	qsort(s->tree, s->nt, sizeof(s->tree[0]), cmp_deadline);
	for (i = 0; i < s->nt; i++) {
		u64 wi = eevdf_sum_weight(&s->m, &s->q, &s->tree[i]);

		sum += (s128)(s64)(s->tree[i].vruntime - s->q.zero_vruntime) * wi;
		w += wi;
	}
	s->q.sum_w_vruntime = (s64)sum;
	s->q.sum_weight = w;
	s->q.nr_queued = s->n;
	s->q.curr = &s->all[s->curr];
	s->root = build(s, 0, s->nt - 1);
	s->q.root = s->root >= 0 ? &s->tree[s->root] : NULL;
}

/* the EEVDF pick by brute force: eligible, earliest deadline */
static int ref_pick(const struct state *s)
{
	int i, best = -1;

	for (i = 0; i < s->n; i++)
		if (ref_eligible(s, s->all[i].vruntime) &&
		    (best < 0 || (s64)(s->all[i].deadline - s->all[best].deadline) < 0))
			best = i;
	return best;
}

/* weights: the nice table's range (15..88761) at full resolution */
static void random_state(struct state *s, bool flat, u32 sum_shift)
{
	u64 v0 = rnd() >> 4;	/* anywhere, wraps included below */
	int i;

	memset(s, 0, sizeof(*s));
	s->m.sum_scale_down = !flat;
	s->m.lag_max_slice = flat;
	s->m.has_vprot = flat;
	s->m.run_to_parity = rnd() & 1;
	s->m.preempt_short = rnd() & 1;
	s->m.tick_nsec = TICK;
	s->m.base_slice = 700000;
	s->q.zero_vruntime = v0;
	s->q.sum_shift = sum_shift;
	s->n = (int)rnd_range(1, 40);
	for (i = 0; i < s->n; i++) {
		struct eevdf_entity *e = &s->all[i];
		u64 w = rnd_range(15, 88761);

		e->weight = w << 10;
		e->inv_weight = rnd() & 1 ? 0 : (u32)(0xffffffffULL / w);
		e->slice = rnd() & 3 ? 2800000 : rnd_range(100000, 20000000);
		/* vruntime within a few slices of v0, both sides */
		e->vruntime = v0 + (u64)(s64)((s64)rnd_range(0, 40000000) - 20000000);
		/* a deadline somewhere in (v, v + slice/w] */
		e->deadline = e->vruntime + rnd_range(1, eevdf_calc_delta_fair(e->slice, e));
		e->on_rq = 1;
		e->pid = 100 + i;
		e->vlag = (s64)e->deadline;
	}
	s->curr = 0;
	derive(s);
	s->curr = ref_pick(s);
	derive(s);
	s->all[s->curr].vprot = eevdf_vprot_expected(&s->m, &s->q, &s->all[s->curr]);
	derive(s);
}

static bool all_checks(struct state *s, struct eevdf_finding *f)
{
	int i;

	if (!eevdf_check_eligible(&s->m, &s->q, f))
		return false;
	if (!eevdf_check_earliest(&s->m, &s->q, s->tree, s->nt, f))
		return false;
	if (!eevdf_check_slice(s->q.curr, true, f))
		return false;
	for (i = 0; i < s->nt; i++)
		if (!eevdf_check_slice(&s->tree[i], true, f))
			return false;
	if (!eevdf_check_delayed(&s->m, &s->q, NULL, f))
		return false;
	if (!eevdf_check_sums(&s->m, &s->q, s->tree, s->nt, f))
		return false;
	if (!eevdf_check_augment(s->tree, s->nt, f))
		return false;
	if (!eevdf_check_augment_slice(s->tree, s->nt, true, f))
		return false;
	if (!eevdf_check_overflow(&s->m, &s->q, s->tree, s->nt, f))
		return false;
	if (s->m.has_vprot && !eevdf_check_vprot(&s->m, &s->q, f))
		return false;
	return true;
}

static void test_valid_states(void)
{
	static const struct { bool flat; u32 shift; const char *what; } kinds[] = {
		{ false, 0, "low-resolution sums (scale_load_down)" },
		{ true, 0, "full-weight sums" },
		{ true, 3, "full-weight sums, sum_shift 3" },
	};
	struct eevdf_finding f;
	struct state s;
	unsigned int k, i, bad, elig_mismatch;

	for (k = 0; k < 3; k++) {
		bad = elig_mismatch = 0;
		for (i = 0; i < 3000; i++) {
			int j;

			random_state(&s, kinds[k].flat, kinds[k].shift);
			if (!all_checks(&s, &f)) {
				if (!bad)
					tap_diag("state %u: %s fired (expected %lld actual %lld)", i,
						 eevdf_check_names[f.check],
						 (long long)f.expected, (long long)f.actual);
				bad++;
			}
			for (j = 0; j < s.n; j++)
				if (eevdf_vruntime_eligible(&s.m, &s.q, s.all[j].vruntime) !=
				    ref_eligible(&s, s.all[j].vruntime))
					elig_mismatch++;
		}
		tap(bad == 0, "%s: no check fires on 3000 valid states (%u did)", kinds[k].what, bad);
		tap(elig_mismatch == 0,
		    "%s: eligibility equals the absolute-form reference for every entity (%u differ)",
		    kinds[k].what, elig_mismatch);
	}
}

/* a state with at least one ineligible and two eligible entities */
static void rich_state(struct state *s, bool flat)
{
	int tries;

	for (tries = 0; tries < 10000; tries++) {
		int i, el = 0, inel = 0;

		random_state(s, flat, 0);
		for (i = 0; i < s->n; i++) {
			if (ref_eligible(s, s->all[i].vruntime))
				el++;
			else
				inel++;
		}
		if (el >= 2 && inel >= 1)
			return;
	}
}

static void expect_fires(struct state *s __attribute__((unused)), enum eevdf_check c, bool fired,
			 const struct eevdf_finding *f, const char *what)
{
	tap(fired && f->check == c, "%s: %s fires (%s)", eevdf_check_names[c], what,
	    fired ? eevdf_check_names[f->check] : "nothing fired");
}

static void test_each_check_fires(bool flat)
{
	struct eevdf_finding f;
	struct state s, t;
	int i, pick, other;
	const char *kind = flat ? "full weights" : "scaled weights";

	/* eligible: curr made an ineligible entity */
	rich_state(&s, flat);
	for (i = 0; i < s.n && ref_eligible(&s, s.all[i].vruntime); i++)
		;
	t = s;
	t.curr = i;
	derive(&t);
	expect_fires(&t, EEVDF_ELIGIBLE, !eevdf_check_eligible(&t.m, &t.q, &f), &f, kind);

	/* earliest: curr an eligible entity with a later deadline than another */
	pick = ref_pick(&s);
	other = -1;
	for (i = 0; i < s.n; i++)
		if (i != pick && ref_eligible(&s, s.all[i].vruntime))
			other = i;
	t = s;
	t.curr = other;
	derive(&t);
	tap(eevdf_check_eligible(&t.m, &t.q, NULL),
	    "earliest_deadline (%s): the later eligible entity passes eligible", kind);
	expect_fires(&t, EEVDF_EARLIEST,
		     !eevdf_check_earliest(&t.m, &t.q, t.tree, t.nt, &f), &f, kind);
	tap(f.other && f.other->pid == s.all[pick].pid,
	    "earliest_deadline (%s): names the entity EEVDF would pick (pid %d)", kind,
	    f.other ? f.other->pid : -1);

	/* slice: at the bound passes, past it fails; zero fails */
	t = s;
	{
		struct eevdf_entity *e = &t.all[t.curr];
		u64 lim = eevdf_calc_delta_fair(e->slice, e) + EEVDF_REWEIGHT_ROUND_NS;

		e->deadline = e->vruntime + lim;
		tap(eevdf_check_slice(e, true, NULL), "slice (%s): deadline - vruntime == bound passes", kind);
		e->deadline++;
		expect_fires(&t, EEVDF_SLICE, !eevdf_check_slice(e, true, &f), &f, "bound + 1 ns");
		tap(eevdf_check_slice(e, false, NULL),
		    "slice (%s): past the bound passes where only the lower bound applies", kind);
		e->deadline = e->vruntime;
		expect_fires(&t, EEVDF_SLICE, !eevdf_check_slice(e, true, &f), &f, "deadline == vruntime");
		expect_fires(&t, EEVDF_SLICE, !eevdf_check_slice(e, false, &f), &f,
			     "deadline == vruntime, lower bound only");
	}

	/* lag: +-limit pass, one past fails */
	t = s;
	{
		struct eevdf_entity *e = &t.all[t.curr];
		u64 span = flat ? (e->slice > 3000000 ? e->slice : 3000000) + TICK : 2 * e->slice;
		s64 lim;

		if (!flat && span < TICK)
			span = TICK;
		lim = (s64)eevdf_calc_delta_fair(span, e) + EEVDF_REWEIGHT_ROUND_NS;
		e->on_rq = 0;
		e->vlag = lim;
		tap(eevdf_check_lag(&t.m, e, 3000000, NULL),
		    "lag_clamp (%s): vlag == limit + rounding passes", kind);
		e->vlag = -lim;
		tap(eevdf_check_lag(&t.m, e, 3000000, NULL),
		    "lag_clamp (%s): vlag == -(limit + rounding) passes", kind);
		e->vlag = lim + 1;
		expect_fires(&t, EEVDF_LAG, !eevdf_check_lag(&t.m, e, 3000000, &f), &f,
			     "limit + rounding + 1");
		e->vlag = -lim - 1;
		expect_fires(&t, EEVDF_LAG, !eevdf_check_lag(&t.m, e, 3000000, &f), &f,
			     "-limit - rounding - 1");
	}

	/* delayed: an eligible delayed entity, a delayed curr */
	t = s;
	for (i = 0; i < t.nt; i++)
		if (eevdf_vruntime_eligible(&t.m, &t.q, t.tree[i].vruntime))
			break;
	t.tree[i].sched_delayed = 1;
	expect_fires(&t, EEVDF_DELAYED, !eevdf_check_delayed(&t.m, &t.q, &t.tree[i], &f), &f,
		     "an eligible delayed entity");
	for (i = 0; i < t.nt; i++)
		if (!eevdf_vruntime_eligible(&t.m, &t.q, t.tree[i].vruntime))
			break;
	if (i < t.nt) {
		t.tree[i].sched_delayed = 1;
		tap(eevdf_check_delayed(&t.m, &t.q, &t.tree[i], NULL),
		    "delayed (%s): an ineligible delayed entity passes", kind);
	} else {
		tap(0, "delayed (%s): no ineligible entity to test with", kind);
	}
	t = s;
	t.all[t.curr].sched_delayed = 1;
	derive(&t);
	expect_fires(&t, EEVDF_DELAYED, !eevdf_check_delayed(&t.m, &t.q, NULL, &f), &f,
		     "a delayed curr");

	/* sums */
	t = s;
	t.q.sum_weight++;
	expect_fires(&t, EEVDF_SUMS, !eevdf_check_sums(&t.m, &t.q, t.tree, t.nt, &f), &f,
		     "sum_weight + 1");
	t = s;
	t.q.sum_w_vruntime--;
	expect_fires(&t, EEVDF_SUMS, !eevdf_check_sums(&t.m, &t.q, t.tree, t.nt, &f), &f,
		     "sum_w_vruntime - 1");

	/* augment: one node's min_vruntime, a min_slice, a max_slice */
	t = s;
	t.tree[t.root].min_vruntime++;
	expect_fires(&t, EEVDF_AUGMENT, !eevdf_check_augment(t.tree, t.nt, &f), &f,
		     "root min_vruntime + 1");
	tap(eevdf_check_augment_slice(t.tree, t.nt, true, NULL),
	    "augment_slice (%s): a min_vruntime error is not a slice error", kind);
	t = s;
	t.tree[t.nt - 1].min_slice--;
	expect_fires(&t, EEVDF_AUGMENT_SLICE, !eevdf_check_augment_slice(t.tree, t.nt, true, &f), &f,
		     "a leaf's min_slice - 1");
	tap(eevdf_check_augment(t.tree, t.nt, NULL),
	    "augment (%s): a min_slice error is not a min_vruntime error", kind);
	t = s;
	t.tree[t.root].max_slice = t.tree[t.root].max_slice + 1;
	expect_fires(&t, EEVDF_AUGMENT_SLICE, !eevdf_check_augment_slice(t.tree, t.nt, true, &f), &f,
		     "root max_slice + 1");
	tap(eevdf_check_augment_slice(t.tree, t.nt, false, NULL),
	    "augment_slice (%s): max_slice not checked where the kernel has none", kind);

	/* overflow: one entity 2^62 / w away from v0 */
	t = s;
	{
		struct eevdf_entity *e = &t.tree[0];
		u64 w = eevdf_sum_weight(&t.m, &t.q, e);

		e->vruntime = t.q.zero_vruntime + (u64)((1ULL << 62) / w) + 1;
		expect_fires(&t, EEVDF_OVERFLOW,
			     !eevdf_check_overflow(&t.m, &t.q, t.tree, t.nt, &f), &f,
			     "key * weight past 2^62");
	}
}

static void test_vprot(void)
{
	struct eevdf_finding f;
	struct state s;
	struct eevdf_entity *c;
	u64 want;
	int i;

	/* a shorter slice queued: vprot cut short; checked by hand-written rules */
	for (i = 0; i < 200; i++) {
		random_state(&s, true, 0);
		if (s.nt >= 1)
			break;
	}
	c = &s.all[s.curr];
	c->slice = 3000000;
	s.m.run_to_parity = true;
	s.m.preempt_short = false;
	derive(&s);
	for (i = 0; i < s.nt; i++)
		s.tree[i].slice = i ? 3000000 : 1000000;
	s.root = build(&s, 0, s.nt - 1);
	/* vruntime + calc(1 ms), unless the deadline comes first */
	want = c->vruntime + eevdf_calc_delta_fair(1000000, c);
	if ((s64)(c->deadline - want) < 0)
		want = c->deadline;
	tap(eevdf_vprot_expected(&s.m, &s.q, c) == want,
	    "vprot: RUN_TO_PARITY, 1 ms queued beside 3 ms: min(deadline, v + 1 ms/w)");
	s.m.run_to_parity = false;
	want = c->vruntime + eevdf_calc_delta_fair(700000, c);
	if ((s64)(c->deadline - want) < 0)
		want = c->deadline;
	tap(eevdf_vprot_expected(&s.m, &s.q, c) == want,
	    "vprot: no RUN_TO_PARITY: min(deadline, v + base slice/w)");
	s.m.run_to_parity = true;
	c->slice = 1000000;
	tap(eevdf_vprot_expected(&s.m, &s.q, c) == c->deadline,
	    "vprot: curr has the shortest slice: its deadline");
	c->slice = 3000000;
	s.m.preempt_short = true;
	{
		/* independent: the smallest v with \Sum_others (v_i - v) w_i < 0 */
		s128 sw = 0, w = 0;
		u64 v;

		for (i = 0; i < s.nt; i++) {
			u64 wi = eevdf_sum_weight(&s.m, &s.q, &s.tree[i]);

			sw += (s128)s.tree[i].vruntime * wi;
			w += wi;
		}
		/* floor(sw / w) + 1, sw positive here (vruntimes are u64 > 0) */
		v = (u64)(sw / w) + 1;
		want = (s64)(c->deadline - v) < 0 ? c->deadline : v;
		tap(eevdf_vprot_expected(&s.m, &s.q, c) == want,
		    "vprot: PREEMPT_SHORT: min(deadline, first ineligible vruntime)");
	}
	c->vprot = eevdf_vprot_expected(&s.m, &s.q, c);
	tap(eevdf_check_vprot(&s.m, &s.q, NULL), "vprot: the expected value passes");
	c->vprot++;
	expect_fires(&s, EEVDF_VPROT, !eevdf_check_vprot(&s.m, &s.q, &f), &f, "vprot + 1");
}

static void test_calc_delta(void)
{
	unsigned int i, bad = 0;
	struct eevdf_entity e = { 0 };

	e.weight = EEVDF_NICE_0_LOAD;
	tap(eevdf_calc_delta_fair(123456789, &e) == 123456789, "calc_delta_fair: nice 0 is identity");
	for (i = 0; i < 100000; i++) {
		u64 w = rnd_range(2, 200000), d = rnd_range(0, 1ULL << 40);
		u64 got, exact;

		e.weight = w << 10;
		e.inv_weight = 0;
		got = eevdf_calc_delta_fair(d, &e);
		exact = (u64)((unsigned __int128)d * 1024 / w);
		/* inverse weight 2^32/w truncated: relative error < w/2^32, plus 1 */
		if (got > exact || exact - got > (u64)((unsigned __int128)exact * w / 0xffffffffULL) + 1)
			bad++;
	}
	tap(bad == 0, "calc_delta_fair: within the inverse weight's precision of d*1024/w (%u outside)", bad);
}

/*
 * slice_clamped: a model of the flat runqueue's reweight of a queued
 * entity (kernel/sched/fair.c reweight_eevdf(), rescale_entity()), on
 * random weights, lags and deadlines: the lag taken clamped, the lag and
 * the deadline's distance to V each rescaled by w/w' (truncated), vruntime
 * put back at V - lag. Where the clamp did not bite, the slice bound holds
 * after it; where it did and the bound broke, eevdf_slice_clamped()
 * recognizes it; and it recognizes nothing else.
 */
static void test_slice_clamped(void)
{
	struct eevdf_model m = { .lag_max_slice = true, .reweight_keeps_lag = true,
				 .tick_nsec = TICK };
	unsigned int i, unclamped_bad = 0, clamped = 0, broke = 0, unexplained = 0;
	unsigned int other_bad = 0, off_bad = 0, lag_bad = 0;
	unsigned int ran_on = 0, ran_unexplained = 0, ran_other = 0;
	struct eevdf_clamped_memory cm = { 0 };
	struct eevdf_finding f;

	for (i = 0; i < 200000; i++) {
		struct eevdf_entity e = { .on_rq = 1, .pid = 1 };
		u64 V = rnd(), w = rnd_range(15, 88761) << 10, w2 = rnd_range(15, 88761) << 10;
		u64 max_slice = rnd() & 1 ? 2800000 : rnd_range(100000, 20000000);
		s64 limit, vl, rel_d, off;
		u64 vslice;

		e.slice = rnd() & 1 ? max_slice : rnd_range(100000, max_slice);
		e.weight = w;
		vslice = eevdf_calc_delta_fair(e.slice, &e);
		limit = eevdf_lag_limit(&m, &e, max_slice);
		/* v anywhere within three clamps of V; d one slice or less past it */
		off = (s64)rnd_range(0, 6 * (u64)limit) - 3 * limit;
		e.vruntime = V + (u64)off;
		e.deadline = e.vruntime + rnd_range(vslice > 1000 ? 1000 : 1, vslice);

		/* the reweight, w -> w2 */
		vl = (s64)(V - e.vruntime);
		if (vl > limit || vl < -limit) {
			clamped++;
			vl = vl > 0 ? limit : -limit;
		}
		rel_d = (s64)(e.deadline - V);
		vl = (s64)((__int128)vl * (s64)w / (s64)w2);
		rel_d = (s64)((__int128)rel_d * (s64)w / (s64)w2);
		e.weight = w2;
		e.inv_weight = 0;
		e.vlag = vl;
		e.deadline = V + (u64)rel_d;
		e.vruntime = V - (u64)vl;

		if (!eevdf_check_lag(&m, &e, max_slice, NULL))
			lag_bad++;
		if (off <= limit && off >= -limit) {
			if (!eevdf_check_slice(&e, true, NULL))
				unclamped_bad++;
			continue;
		}
		if (eevdf_check_slice(&e, true, NULL))
			continue;
		broke++;
		if (!eevdf_slice_clamped(&m, &e, max_slice, &f) || f.check != EEVDF_SLICE_CLAMPED)
			unexplained++;
		/*
		 * the task runs on, short of that deadline: its vlag moves, the
		 * signature is gone, the deadline is the reweight's still
		 */
		eevdf_clamped_keep(&cm, &e);
		if ((s64)(e.deadline - e.vruntime) > 0) {
			struct eevdf_entity r = e;

			r.vruntime += (e.deadline - e.vruntime) / 2;
			r.vlag = e.vlag / 3 + 7;
			if (!eevdf_check_slice(&r, true, NULL)) {
				ran_on++;
				if (!eevdf_clamped_still(&cm, &r, &f) ||
				    f.check != EEVDF_SLICE_CLAMPED)
					ran_unexplained++;
				r.deadline++;	/* renewed: not the reweight's */
				if (eevdf_clamped_still(&cm, &r, NULL))
					ran_other++;
				r.deadline--;
				r.pid = 2;	/* another task */
				if (eevdf_clamped_still(&cm, &r, NULL))
					ran_other++;
			}
		}
		/* where the kernel does not keep the lag: never explained */
		m.reweight_keeps_lag = false;
		if (eevdf_slice_clamped(&m, &e, max_slice, NULL))
			off_bad++;
		m.reweight_keeps_lag = true;
		/* the same break with any other lag: not explained */
		e.vlag = vl / 2 + 1;
		if (eevdf_slice_clamped(&m, &e, max_slice, NULL))
			other_bad++;
	}
	tap(unclamped_bad == 0,
	    "slice_clamped: a reweight whose lag the clamp did not cut keeps the slice bound (%u broke)",
	    unclamped_bad);
	tap(broke > 0 && broke < clamped,
	    "slice_clamped: a reweight that clamped the lag can break the slice bound (%u of %u)",
	    broke, clamped);
	tap(lag_bad == 0, "lag_clamp: a lag clamped and rescaled by a reweight is within the clamp at the new weight (%u not)",
	    lag_bad);
	tap(unexplained == 0, "slice_clamped: every such break is recognized (%u not)", unexplained);
	tap(other_bad == 0, "slice_clamped: a break with another lag is not (%u were)", other_bad);
	tap(off_bad == 0, "slice_clamped: nothing is where the kernel keeps no lag (%u were)", off_bad);
	tap(ran_on > 0 && ran_unexplained == 0,
	    "slice_clamped: a task that ran on short of the reweight's deadline, vlag moved, is still recognized by its deadline (%u of %u not)",
	    ran_unexplained, ran_on);
	tap(ran_other == 0,
	    "slice_clamped: a renewed deadline, or another task's, is not (%u were)", ran_other);
}

int main(void)
{
	test_calc_delta();
	test_valid_states();
	test_each_check_fires(false);
	test_each_check_fires(true);
	test_vprot();
	test_slice_clamped();
	return tap_failures ? 1 : 0;
}
