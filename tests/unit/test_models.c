/*
 * The contract every switch model registered in mp_model.c must keep,
 * checked the same way for each, on each preset that names it: conservation (every
 * message and packet accepted is delivered exactly once, and the run
 * record accounts for all of them), determinism (the same seed gives the
 * same records), the model's zero-load latency formula at very low load,
 * and a clean --self-check (the model's own recount after every event)
 * on every run here.
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

#define NMSG 1500

struct sink {
	uint64_t hash;
	uint64_t pkts, dlvs, utils, runs;
	struct mp_run run;
	uint32_t *pkt_seen;  /* by message id: packets delivered */
	uint8_t *dlv_seen;   /* by message id */
	uint32_t *len;       /* by message id: its packets */
	uint64_t *arrive;    /* by message id */
	const struct mp_model_ops *ops;
	const struct mp_cfg *cfg;
	uint64_t bad_latency, bad_seq, checked;
	int zero_load;       /* check each packet against the formula */
};

static int sink_emit(void *ctx, const mp_rec *r)
{
	struct sink *s = ctx;
	t_mix(&s->hash, r->tag);
	switch (r->tag) {
	case MP_REC_PKT: {
		const struct mp_pkt *p = &r->pkt;
		s->pkts++;
		t_mix(&s->hash, p->msg);
		t_mix(&s->hash, p->seq);
		t_mix(&s->hash, p->src);
		t_mix(&s->hash, p->dst);
		t_mix(&s->hash, p->t_inject);
		t_mix(&s->hash, p->t_eject);
		t_mix(&s->hash, p->hops);
		t_mix(&s->hash, p->refusals);
		if (p->msg >= NMSG || p->seq >= s->len[p->msg]) {
			s->bad_seq++;
			break;
		}
		s->pkt_seen[p->msg]++;
		if (s->zero_load) {
			s->checked++;
			if (p->t_eject - p->t_inject !=
			    s->ops->zero_load(s->cfg, p->hops) ||
			    p->t_inject != s->arrive[p->msg])
				s->bad_latency++;
		}
		break;
	}
	case MP_REC_DLV:
		s->dlvs++;
		t_mix(&s->hash, r->dlv.id);
		t_mix(&s->hash, r->dlv.t_done);
		t_mix(&s->hash, r->dlv.hops);
		if (r->dlv.id >= NMSG || s->dlv_seen[r->dlv.id]++ ||
		    s->pkt_seen[r->dlv.id] != s->len[r->dlv.id])
			s->bad_seq++;
		break;
	case MP_REC_UTIL:
		s->utils++;
		t_mix(&s->hash, r->util.scope);
		t_mix(&s->hash, r->util.t);
		t_mix(&s->hash, r->util.busy);
		t_mix(&s->hash, r->util.refused);
		t_mix(&s->hash, r->util.transfers);
		break;
	case MP_REC_RUN:
		s->runs++;
		s->run = r->run;
		break;
	}
	return 0;
}

/*
 * Run NMSG messages of 1..maxlen packets between random nodes, arriving
 * `gap` units apart on average (exponential gaps), through the model on
 * cfg. Returns the final status (MP_SIM_ERROR with the message printed).
 */
static int run(const struct mp_model_ops *ops, const struct mp_cfg *cfg,
	       uint64_t seed, double gap, unsigned maxlen, struct sink *s)
{
	struct mp_sim_opts o;
	struct mp_ni_policy pol = { MP_NI_ALPHA, 0, 0 };
	mp_err err;
	mp_rng rng;

	memset(s->pkt_seen, 0, NMSG * sizeof *s->pkt_seen);
	memset(s->dlv_seen, 0, NMSG);
	s->hash = T_HASH0;
	s->pkts = s->dlvs = s->utils = s->runs = 0;
	s->bad_latency = s->bad_seq = s->checked = 0;
	s->ops = ops;
	s->cfg = cfg;
	mp_sim_defaults(cfg, &o);
	o.seed = seed;
	o.self_check = 1;
	mp_sim *sim = mp_sim_new(ops, cfg, &pol, &o, sink_emit, s, &err);
	if (!sim) {
		printf("# %s: %s\n", ops->name, err.msg);
		return MP_SIM_ERROR;
	}
	uint32_t n = mp_sim_nodes(sim);
	mp_rng_seed(&rng, seed, 12345);
	double t = 0;
	int st = MP_SIM_OK;
	for (uint64_t id = 0; id < NMSG && st == MP_SIM_OK; id++) {
		struct mp_msg m = t_sim_msg(&rng, id, &t, gap, 0, n);
		m.packets = 1 + (uint32_t)mp_rng_below(&rng, maxlen);
		m.bytes = m.packets * cfg->payload;
		s->len[id] = m.packets;
		s->arrive[id] = m.time;
		st = mp_sim_offer(sim, &m);
	}
	char msg[256];
	st = t_sim_end(sim, st, msg);
	if (st != MP_SIM_OK)
		printf("# %s: status %d: %s\n", ops->name, st, msg);
	return st;
}

/* Whether preset pn names model name. The contract runs every model on
 * every preset: on those that name it the model must run; on the others
 * it may refuse the network with a message (the flit model takes tori,
 * meshes, k-ary n-cubes and omega networks, the ncube model
 * butterflies, omega and crossbars). */
static int preset_of(const char *pn, const char *name)
{
	char word[40];
	snprintf(word, sizeof word, "model=%s ", name);
	return strstr(mp_preset_fabric(pn), word) != NULL;
}

int main(void)
{
	struct sink s = { 0 };
	s.pkt_seen = calloc(NMSG, sizeof *s.pkt_seen);
	s.dlv_seen = calloc(NMSG, 1);
	s.len = calloc(NMSG, sizeof *s.len);
	s.arrive = calloc(NMSG, sizeof *s.arrive);
	if (!s.pkt_seen || !s.dlv_seen || !s.len || !s.arrive)
		return 1;
	T_OK(mp_model_at(0) && strcmp(mp_model_at(0)->name, "packet") == 0,
	     "the packet model is registered first (the default)");
	T_OK(mp_model_find("no-such-model") == NULL, "unknown names are refused");

	const struct mp_model_ops *ops;
	for (size_t i = 0; (ops = mp_model_at(i)); i++) {
		T_OK(mp_model_find(ops->name) == ops, "%s: found by name",
		     ops->name);
		size_t nruns = 0, npre = 0;
		const char *pn;
		/* After the presets, networks of one model on a preset of
		 * its own: the ncube model's omega, crossbar, grid and
		 * tree, the flit model's omega and binary 8-cube (9-port
		 * routers, more than 64 input queues with per-output
		 * queues). */
		static const struct {
			const char *preset, *topo, *model;
		} extra[] = {
			{ "ncube", "omega:2,3", "ncube" },
			{ "ncube", "crossbar:4", "ncube" },
			{ "ncube", "grid:3x4", "ncube" },
			{ "ncube", "tree:3,2", "ncube" },
			{ "damq", "omega:4,2", "flit" },
			{ "damq", "kary:2,8", "flit" },
		};
		size_t nextra = sizeof extra / sizeof extra[0];
		while (mp_preset_name(npre))
			npre++;
		for (size_t k = 0; k < npre + nextra; k++) {
			const char *topo = k < npre ? NULL : extra[k - npre].topo;
			pn = k < npre ? mp_preset_name(k) : extra[k - npre].preset;
			if (topo && strcmp(ops->name, extra[k - npre].model) != 0)
				continue;
			int named = preset_of(pn, ops->name);
			char lab[64];
			snprintf(lab, sizeof lab, "%s%s%s", pn, topo ? " " : "",
				 topo ? topo : "");
			nruns += named;
			struct mp_cfg cfg;
			mp_err err;
			mp_cfg_init(&cfg);
			int ok = mp_cfg_preset(&cfg, pn, &err) == 0 &&
				 mp_cfg_set(&cfg, "model", ops->name, &err) == 0;
			/* The flit model's wormhole default (1-flit buffers,
			 * shorter than the credit loop) saturates near 0.1
			 * flits per node per cycle; run it with buffers that
			 * cover the loop, and at half the load (dimension
			 * order wormhole on 2 VCs saturates near 0.35). */
			int flit = strcmp(ops->name, "flit") == 0;
			if (ok && flit && !cfg.buf_org) /* damq: --buf-flits */
				ok = mp_cfg_set(&cfg, "vc-buf", "4", &err) == 0;
			if (ok && topo)
				ok = mp_cfg_set(&cfg, "topo", topo, &err) == 0;
			T_OK(ok, "%s/%s: configured", ops->name, lab);
			if (!ok)
				continue;
			/* A flit-model packet holds its terminal's port for
			 * packet-flits cycles, whatever the packet time. */
			double pe = flit ? cfg.packet_flits : mp_cfg_pe_time(&cfg);

			/* Conservation at a moderate load (about 0.25 of the PE
			 * port with 3 packets per message on average). */
			uint32_t n = 0;
			err.msg[0] = '\0';
			{
				struct mp_sim_opts o;
				struct mp_ni_policy pol = { MP_NI_ALPHA, 0, 0 };
				mp_sim_defaults(&cfg, &o);
				mp_sim *sim = mp_sim_new(ops, &cfg, &pol, &o,
							 sink_emit, &s, &err);
				if (sim)
					n = mp_sim_nodes(sim);
				mp_sim_free(sim);
			}
			/* A network of another model's may be refused, with a
			 * message; the flit model refuses the hexagonal meshes
			 * at least; the packet and ncube models refuse the
			 * k-ary n-cubes (the damq preset's kary:8,3). */
			if (!flit && strcmp(cfg.family, "kary") == 0)
				T_OK(n == 0, "%s/%s: refuses a k-ary n-cube",
				     ops->name, lab);
			if (n == 0 && !named) {
				T_OK(err.msg[0], "%s/%s: refused: %s", ops->name,
				     lab, err.msg);
				continue;
			}
			if (strcmp(ops->name, "flit") == 0 &&
			    strncmp(cfg.family, "hex", 3) == 0)
				T_OK(0, "%s/%s: the flit model takes a hex mesh",
				     ops->name, lab);
			T_OK(n > 1, "%s/%s: %u nodes", ops->name, lab, n);
			if (n <= 1)
				continue;
			double gap = 3 * pe / (flit ? 0.2 : 0.25) / n;
			int st = run(ops, &cfg, 7, gap, 5, &s);
			uint64_t want = 0;
			for (size_t m = 0; m < NMSG; m++)
				want += s.len[m];
			T_OK(st == MP_SIM_OK, "%s/%s: loaded run ends OK, self-check "
			     "clean", ops->name, lab);
			T_OK(s.dlvs == NMSG && s.pkts == want && s.bad_seq == 0,
			     "%s/%s: conservation: %llu of %d messages, %llu of "
			     "%llu packets, each once", ops->name, lab,
			     (unsigned long long)s.dlvs, NMSG,
			     (unsigned long long)s.pkts, (unsigned long long)want);
			T_OK(s.runs == 1 && s.run.msgs_in == NMSG &&
			     s.run.msgs_done == NMSG && s.run.pkts_injected == want &&
			     s.run.pkts_delivered == want &&
			     s.run.pkts_in_flight == 0 && s.run.pkts_queued == 0,
			     "%s/%s: the run record accounts for every packet",
			     ops->name, lab);
			uint64_t h1 = s.hash;

			/* Determinism: the same seed, the same records; the
			 * hash covers times, so a different input differs. */
			run(ops, &cfg, 7, gap, 5, &s);
			T_OK(s.hash == h1, "%s/%s: same seed, same records",
			     ops->name, lab);
			run(ops, &cfg, 8, gap, 5, &s);
			T_OK(s.hash != h1, "%s/%s: another seed, other records",
			     ops->name, lab);

			/* Zero load: single packets far apart take exactly the
			 * model's formula, from their arrival. */
			s.zero_load = 1;
			st = run(ops, &cfg, 9, 50 * (double)ops->zero_load(&cfg, 64),
				 1, &s);
			s.zero_load = 0;
			T_OK(st == MP_SIM_OK && s.checked == NMSG &&
			     s.bad_latency == 0,
			     "%s/%s: zero-load latency formula on %llu packets "
			     "(%llu differ)", ops->name, lab,
			     (unsigned long long)s.checked,
			     (unsigned long long)s.bad_latency);
		}
		T_OK(nruns > 0, "%s: %zu presets name it", ops->name, nruns);
	}
	free(s.pkt_seen);
	free(s.dlv_seen);
	free(s.len);
	free(s.arrive);
	return t_done();
}
