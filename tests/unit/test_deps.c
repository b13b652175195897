/*
 * Unit tests of the dependency table of closed-loop replay (mp_deps):
 * a random chain-structured trace run against a toy network that
 * delivers each released message after a random delay (faster than the
 * trace's pace per chain); every message is
 * released, never before its trace time nor before the delivery of what
 * it waits for, in max and gap modes; the table stays as small as the
 * messages outstanding; forward references and strays are refused; and
 * the inverter and the id counts of wlgen.
 */
#include <stdlib.h>
#include <string.h>

#include "mp_deps.h"
#include "mp_rng.h"
#include "t.h"

#define N 20000
#define CH 16

static uint64_t trace_t[N], rel_t[N], done_t[N], dep_of[N];
static int has_dep[N];

/* Pending deliveries: a tiny list kept sorted enough by a linear scan. */
struct dv { uint64_t t, id; };

static void run(int mode, const char *name)
{
	mp_deps *d = mp_deps_new(mode);
	mp_rng r;
	mp_rng_seed(&r, 7, (uint64_t)mode);
	mp_err err;
	struct dv *net = malloc(N * sizeof *net);
	size_t nnet = 0, maxent = 0;
	uint64_t now = 0, last[CH];
	int started[CH] = { 0 };
	int bad = 0, released = 0;

	/* Chain c's messages are c, c + CH, ...: each waits for the one
	 * before in its chain, named once (users 1). */
	uint64_t t = 0;
	for (uint64_t i = 0; i < N; i++) {
		t += mp_rng_below(&r, 3);
		trace_t[i] = t;
	}
	memset(rel_t, 0xff, sizeof rel_t);
	uint64_t next_in = 0;
	for (;;) {
		/* The earliest of: next input, next release, next delivery. */
		uint64_t t_in = next_in < N ? trace_t[next_in] : UINT64_MAX;
		uint64_t t_rel = UINT64_MAX, t_dv = UINT64_MAX;
		mp_deps_peek(d, &t_rel);
		size_t k = 0;
		for (size_t j = 0; j < nnet; j++)
			if (net[j].t < t_dv)
				t_dv = net[j].t, k = j;
		if (t_in == UINT64_MAX && t_rel == UINT64_MAX && t_dv == UINT64_MAX)
			break;
		if (t_dv <= t_rel && t_dv < t_in) {
			now = t_dv;
			done_t[net[k].id] = now;
			mp_deps_delivered(d, net[k].id, now);
			net[k] = net[--nnet];
		} else if (t_rel <= t_in) {
			struct mp_msg m;
			struct mp_rel rl;
			mp_deps_pop(d, &m, &rl);
			now = m.time;
			rel_t[m.id] = m.time;
			released++;
			if (rl.t_trace != trace_t[m.id] || rl.t_release != m.time)
				bad++;
			net[nnet].t = now + 1 + mp_rng_below(&r, 10);
			net[nnet++].id = m.id;
		} else {
			uint64_t i = next_in++;
			unsigned c = (unsigned)(i % CH);
			now = trace_t[i];
			struct mp_msg m = { .tag = MP_REC_MSG, .id = i,
					    .time = trace_t[i], .packets = 1 };
			mp_deps_open(d, &m, &err);
			struct mp_dep dp = { .tag = MP_REC_DEP, .msg = i,
					     .users = i + CH < N };
			if (started[c]) {
				dp.n = 1;
				dp.after[0] = last[c];
				has_dep[i] = 1;
				dep_of[i] = last[c];
			}
			if ((dp.n || dp.users) && mp_deps_dep(d, &dp, &err) < 0)
				bad++;
			if (mp_deps_close(d, now, &err) < 0)
				bad++;
			started[c] = 1;
			last[c] = i;
		}
		if (mp_deps_entries(d) > maxent)
			maxent = mp_deps_entries(d);
	}
	int early = 0;
	for (uint64_t i = 0; i < N; i++) {
		if (rel_t[i] < trace_t[i])
			early++;
		if (has_dep[i] && rel_t[i] < done_t[dep_of[i]])
			early++;
		if (mode == MP_DEP_GAP && has_dep[i] &&
		    rel_t[i] != done_t[dep_of[i]] + trace_t[i] -
				       trace_t[dep_of[i]] &&
		    !(trace_t[i] < trace_t[dep_of[i]]))
			early++;
	}
	T_OK(!bad && released == N, "%s: all %d messages released once, rel records right",
	     name, released);
	T_OK(early == 0, "%s: never before the trace time or a dependency's delivery (%d)",
	     name, early);
	T_OK(mp_deps_held(d) == 0, "%s: nothing held at the end", name);
	/* A network faster than the trace: a chain's entry lives from its
	 * message to the next one's, a few per chain. (With gap the
	 * chains drift ever later than the trace, recorded compute time
	 * kept, and the messages held pile up: outstanding, not bounded.) */
	if (mode == MP_DEP_MAX)
		T_OK(maxent <= 4 * CH, "%s: table at most %zu entries for %d "
		     "chains", name, maxent, CH);
	free(net);
	mp_deps_free(d);
}

static void refusals(void)
{
	mp_deps *d = mp_deps_new(MP_DEP_MAX);
	mp_err err;
	struct mp_msg m = { .tag = MP_REC_MSG, .id = 5, .time = 0, .packets = 1 };
	mp_deps_open(d, &m, &err);
	struct mp_dep dp = { .tag = MP_REC_DEP, .msg = 5, .n = 1, .after = { 6 } };
	T_OK(mp_deps_dep(d, &dp, &err) < 0 &&
	     strstr(err.msg, "waits for 6, which is not an earlier message"),
	     "a forward reference is refused: %s", err.msg);
	dp.after[0] = 5;
	T_OK(mp_deps_dep(d, &dp, &err) < 0, "so is the message itself");
	dp.msg = 4;
	T_OK(mp_deps_dep(d, &dp, &err) < 0 &&
	     strstr(err.msg, "does not follow that message"),
	     "a dep record of another message: %s", err.msg);
	/* users used up: 1 named by 2, then 3 names it again. */
	mp_deps_close(d, 0, &err);
	struct mp_msg a = { .tag = MP_REC_MSG, .id = 1, .packets = 1 };
	mp_deps_open(d, &a, &err);
	struct mp_dep u = { .tag = MP_REC_DEP, .msg = 1, .users = 1 };
	mp_deps_dep(d, &u, &err);
	mp_deps_close(d, 0, &err);
	for (uint64_t id = 2; id <= 3; id++) {
		struct mp_msg b = { .tag = MP_REC_MSG, .id = id, .packets = 1 };
		mp_deps_open(d, &b, &err);
		struct mp_dep w = { .tag = MP_REC_DEP, .msg = id, .n = 1,
				    .after = { 1 } };
		int rc = mp_deps_dep(d, &w, &err);
		T_OK(id == 2 ? rc == 0 : rc < 0, "message %llu naming 1 (users 1): %s",
		     (unsigned long long)id, rc < 0 ? err.msg : "accepted");
		mp_deps_close(d, 0, &err);
	}
	mp_deps_free(d);
}

static void inverter(void)
{
	mp_depinv *v = mp_depinv_new();
	const uint64_t *ids;
	int ok = 1;
	for (uint64_t w = 100; w < 5100; w++)
		for (uint64_t k = 0; k < w % 5; k++)
			ok &= mp_depinv_add(v, w, w - 100 + k) == 0;
	T_OK(ok && mp_depinv_pending(v) == 4000, "4000 waiters noted");
	for (uint64_t w = 100; w < 5100; w++) {
		size_t n = mp_depinv_take(v, w, &ids);
		if (n != w % 5)
			ok = 0;
		for (size_t k = 0; k < n; k++)
			if (ids[k] != w - 100 + k)
				ok = 0;
	}
	T_OK(ok && mp_depinv_pending(v) == 0, "each taken once, in order, then forgotten");
	mp_depinv_free(v);

	mp_idcount *c = mp_idcount_new();
	uint32_t n = 9;
	mp_idcount_add(c, 42, 0);
	mp_idcount_add(c, 42, 2);
	mp_idcount_add(c, 42, 1);
	T_OK(mp_idcount_get(c, 42, &n) && n == 3 && !mp_idcount_get(c, 43, &n),
	     "id counts");
	mp_idcount_free(c);
}

int main(void)
{
	run(MP_DEP_MAX, "max");
	run(MP_DEP_GAP, "gap");
	refusals();
	inverter();
	return t_done();
}
