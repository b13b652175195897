/*
 * The flit model (lib/mp_flit.c): its zero-load latency against the
 * formula of man/netrun.1, computed here on its own, over hop counts,
 * packet lengths, buffer sizes and delays for each switching scheme;
 * flit conservation and credits (the model's --self-check recount after
 * every cycle: credits never negative, every flit in a buffer or
 * ejected) under load, with classes and each arbitration; determinism;
 * and the configurations it refuses.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mp_config.h"
#include "mp_model.h"
#include "mp_rng.h"
#include "mp_sim.h"
#include "t.h"
#include "t_sim.h"

struct sink {
	uint64_t hash, pkts, dlvs, bad, checked;
	const struct mp_net *net;
	uint64_t (*want)(const struct mp_cfg *c, unsigned hops);
	const struct mp_cfg *cfg;
	uint64_t *arrive;
	struct mp_run run;
};

static int emit(void *ctx, const mp_rec *r)
{
	struct sink *s = ctx;
	t_mix(&s->hash, r->tag);
	if (r->tag == MP_REC_PKT) {
		const struct mp_pkt *p = &r->pkt;
		s->pkts++;
		t_mix(&s->hash, p->msg);
		t_mix(&s->hash, p->t_inject);
		t_mix(&s->hash, p->t_eject);
		t_mix(&s->hash, p->hops);
		if (s->want) {
			s->checked++;
			if (p->t_inject != s->arrive[p->msg] ||
			    p->hops != mp_net_dist(s->net, p->src, p->dst) ||
			    p->t_eject - p->t_inject != s->want(s->cfg, p->hops))
				s->bad++;
		}
	} else if (r->tag == MP_REC_DLV) {
		s->dlvs++;
	} else if (r->tag == MP_REC_RUN) {
		s->run = r->run;
	} else if (r->tag == MP_REC_UTIL) {
		t_mix(&s->hash, r->util.busy);
	}
	return 0;
}

/* The zero-load formula of man/netrun.1, written out again. */
static uint64_t formula(const struct mp_cfg *c, unsigned hops)
{
	uint64_t H = hops, R = c->router_delay, D = c->link_delay;
	uint64_t C = c->credit_delay, L = c->packet_flits;
	switch (c->switching) {
	case MP_SW_PS:
		return (H + 1) * (R + L - 1) + H * D;
	case MP_SW_VCT:
		return (H + 1) * R + H * D + L - 1;
	default: {
		uint64_t B = c->vc_buf, rt = R + D + C, j = L - 1;
		uint64_t tail = H > 0 && B < rt ? j / B * rt + j % B : j;
		return (H + 1) * R + H * D + tail;
	}
	}
}

/*
 * Run n messages of `len` packets, class cls (or random when cls < 0),
 * between random distinct terminals, `gap` cycles apart on average
 * (exponential; or exactly, when fixed) with the self-check on. Returns
 * the final status.
 */
static int run(const struct mp_cfg *cfg, uint64_t seed, unsigned n,
	       double gap, int fixed, unsigned len, int cls, struct sink *s,
	       char *errbuf)
{
	struct mp_sim_opts o;
	struct mp_ni_policy pol = { MP_NI_ALPHA, 0, 0 };
	mp_err err;
	mp_rng rng;
	mp_sim_defaults(cfg, &o);
	o.self_check = 1;
	s->hash = T_HASH0;
	s->pkts = s->dlvs = s->bad = s->checked = 0;
	s->cfg = cfg;
	mp_sim *sim = mp_sim_new(mp_model_find("flit"), cfg, &pol, &o, emit, s,
				 &err);
	if (!sim) {
		snprintf(errbuf, 256, "%.200s", err.msg);
		return MP_SIM_ERROR;
	}
	s->net = mp_sim_net(sim);
	uint32_t nodes = mp_sim_nodes(sim);
	mp_rng_seed(&rng, seed, 99);
	double t = 0;
	int st = MP_SIM_OK;
	for (unsigned id = 0; id < n && st == MP_SIM_OK; id++) {
		struct mp_msg m = t_sim_msg(&rng, id, &t, gap, fixed, nodes);
		m.packets = len;
		m.cls = (uint8_t)(cls >= 0 ? cls : (int)mp_rng_below(&rng, 2));
		s->arrive[id] = m.time;
		st = mp_sim_offer(sim, &m);
	}
	return t_sim_end(sim, st, errbuf);
}

static void rs(struct mp_cfg *c)
{
	mp_cfg_init(c);
	mp_cfg_preset(c, "rs", NULL);
}

static int set(struct mp_cfg *c, const char *name, const char *val)
{
	mp_err err;
	return mp_cfg_set(c, name, val, &err);
}

int main(void)
{
	struct sink s = { 0 };
	char msg[256];
	s.arrive = calloc(4000, sizeof *s.arrive);
	if (!s.arrive)
		return 1;

	/* Zero load: single packets 4000 cycles apart. */
	static const char *const sws[] = { "wormhole", "vct", "ps" };
	static const unsigned Ls[] = { 1, 4, 16 }, Rs[] = { 0, 1, 3 };
	static const unsigned Ds[] = { 1, 2 }, Cs[] = { 1, 3 };
	static const unsigned Bs[] = { 1, 2, 5, 16 };
	unsigned configs = 0, bad_configs = 0;
	uint64_t packets = 0;
	for (unsigned w = 0; w < 3; w++)
		for (unsigned l = 0; l < 3; l++)
			for (unsigned r = 0; r < 3; r++)
				for (unsigned d = 0; d < 2; d++)
					for (unsigned c = 0; c < 2; c++)
						for (unsigned b = 0; b < 4; b++) {
		struct mp_cfg cfg;
		char v[16];
		rs(&cfg);
		set(&cfg, "switching", sws[w]);
		snprintf(v, sizeof v, "%u", Ls[l]);
		set(&cfg, "packet-flits", v);
		snprintf(v, sizeof v, "%u", Rs[r]);
		set(&cfg, "router-delay", v);
		snprintf(v, sizeof v, "%u", Ds[d]);
		set(&cfg, "link-delay", v);
		snprintf(v, sizeof v, "%u", Cs[c]);
		set(&cfg, "credit-delay", v);
		/* Whole-packet schemes: buffers of 2 and 4 packets (one
		 * VC on the torus needs two, the bubble rule). */
		if (w > 0 && b > 1)
			continue;
		snprintf(v, sizeof v, "%u", w ? (2 + 2 * b) * Ls[l] : Bs[b]);
		set(&cfg, "vc-buf", v);
		s.want = formula;
		int st = run(&cfg, 1 + configs, 40, 4000, 1, 1, 0, &s, msg);
		s.want = NULL;
		configs++;
		packets += s.checked;
		if (st != MP_SIM_OK || s.checked != 40 || s.bad ||
		    mp_model_flit.zero_load(&cfg, 5) != formula(&cfg, 5)) {
			bad_configs++;
			printf("# %s L=%u R=%u D=%u C=%u buf=%u: status %d (%s), "
			       "%llu of %llu differ\n", sws[w], Ls[l], Rs[r], Ds[d],
			       Cs[c], cfg.vc_buf, st, msg,
			       (unsigned long long)s.bad,
			       (unsigned long long)s.checked);
		}
	}
	T_OK(bad_configs == 0 && configs == 4 * 36 + 2 * 36 + 2 * 36,
	     "zero-load latency as the formula says on %u configurations "
	     "(%llu packets; %u differ)", configs, (unsigned long long)packets,
	     bad_configs);

	/* Under load, with the recount after every cycle. */
	static const char *const arbs[] = { "rr", "priority", "credit:4" };
	for (unsigned w = 0; w < 3; w++) {
		struct mp_cfg cfg;
		rs(&cfg);
		set(&cfg, "switching", sws[w]);
		set(&cfg, "vc-buf", w ? "64" : "16");
		int st = run(&cfg, 5, 1500, 2, 0, 2, -1, &s, msg);
		T_OK(st == MP_SIM_OK && s.dlvs == 1500 && s.pkts == 3000 &&
		     s.run.pkts_delivered == 3000 && s.run.pkts_in_flight == 0,
		     "%s at 0.25 flits/node/cycle: every flit delivered, credits "
		     "and buffers recounted every cycle (%s)", sws[w], msg);
		uint64_t h = s.hash;
		run(&cfg, 5, 1500, 2, 0, 2, -1, &s, msg);
		T_OK(s.hash == h, "%s: same input, same records", sws[w]);
		run(&cfg, 6, 1500, 2, 0, 2, -1, &s, msg);
		T_OK(s.hash != h, "%s: another input, other records", sws[w]);
	}
	for (unsigned a = 0; a < 3; a++) {
		struct mp_cfg cfg;
		rs(&cfg);
		T_OK(set(&cfg, "class", "gt=ps") == 0 &&
		     set(&cfg, "class", "be=wormhole") == 0 &&
		     set(&cfg, "arb", arbs[a]) == 0, "classes and --arb %s set",
		     arbs[a]);
		/* 0.06 flits/node/cycle: be wormhole on 1-flit buffers
		 * saturates near 0.1. */
		int st = run(&cfg, 7, 1500, 8, 0, 2, -1, &s, msg);
		T_OK(st == MP_SIM_OK && s.dlvs == 1500 && s.pkts == 3000,
		     "gt=ps, be=wormhole, --arb %s: every packet delivered, "
		     "self-check clean (%s)", arbs[a], msg);
	}
	/* Wormhole on a mesh-like load with deep buffers and more VCs. */
	{
		struct mp_cfg cfg;
		rs(&cfg);
		set(&cfg, "vcs", "4");
		set(&cfg, "vc-buf", "3");
		set(&cfg, "inject-flits", "2");
		set(&cfg, "eject-flits", "2");
		int st = run(&cfg, 8, 1500, 1.5, 0, 2, -1, &s, msg);
		T_OK(st == MP_SIM_OK && s.pkts == 3000,
		     "4 VCs of 3 flits, 2 flits in and out per cycle: clean (%s)",
		     msg);
	}

	/* Refusals. */
	{
		struct mp_cfg cfg;
		rs(&cfg);
		T_OK(set(&cfg, "vcs", "0") < 0 && set(&cfg, "vc-buf", "0") < 0,
		     "0 VCs and 0-flit buffers are refused");
		T_OK(set(&cfg, "class", "gt=ps") == 0 &&
		     set(&cfg, "class", "gt=vct") < 0 &&
		     set(&cfg, "class", "xx=ps") < 0 &&
		     set(&cfg, "class", "be=fast") < 0,
		     "a class named twice, an unknown class or scheme refused");
		/* Only gt has a network: a be message is an error. */
		int st = run(&cfg, 9, 10, 100, 0, 1, 0, &s, msg);
		T_OK(st == MP_SIM_ERROR && strstr(msg, "class 0 (be) has no "
						     "--class"),
		     "a message of a class without a network: %s", msg);
		rs(&cfg);
		set(&cfg, "vcs", "1");
		st = run(&cfg, 9, 10, 100, 0, 1, 0, &s, msg);
		T_OK(st == MP_SIM_ERROR && strstr(msg, "dateline"),
		     "wormhole on one VC of a torus refused: %s", msg);
		rs(&cfg);
		set(&cfg, "switching", "vct");
		set(&cfg, "vc-buf", "20");
		st = run(&cfg, 9, 10, 100, 0, 1, 0, &s, msg);
		T_OK(st == MP_SIM_ERROR && strstr(msg, "bubble"),
		     "virtual cut-through with room for one packet on one VC "
		     "of a torus refused: %s", msg);
		set(&cfg, "vc-buf", "8");
		set(&cfg, "vcs", "2");
		st = run(&cfg, 9, 10, 100, 0, 1, 0, &s, msg);
		T_OK(st == MP_SIM_ERROR && strstr(msg, "whole packet"),
		     "buffers smaller than a packet under cut-through refused: "
		     "%s", msg);
	}
	free(s.arrive);
	return t_done();
}
