/*
 * The buffer organizations of the flit model (SPEC 3.5; lib/mp_flit.c,
 * --buffer): fifo, safc, samq, damq and oq on unidirectional k-ary
 * n-cubes and a torus, with 1- and 8-flit packets, bounded and
 * unbounded buffers. Under load with the self-check after every cycle,
 * which recounts every queue: a buffer never holds more than its flits
 * (a DAMQ buffer counting the flits of a packet partly gone, whose room
 * returns only when its tail leaves), credits + flits + returning
 * credits = the buffer's size, each per-output queue holds only packets
 * for its output, in FIFO order, and an output port is held from a
 * packet's header to its tail. Every packet delivered; the same input
 * gives the same records. Then properties between organizations, and
 * the configurations refused.
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
	uint64_t hash, pkts, dlvs, lat;
	struct mp_run run;
};

static int emit(void *ctx, const mp_rec *r)
{
	struct sink *s = ctx;
	t_mix(&s->hash, r->tag);
	if (r->tag == MP_REC_PKT) {
		s->pkts++;
		s->lat += r->pkt.t_eject - r->pkt.t_inject;
		t_mix(&s->hash, r->pkt.msg);
		t_mix(&s->hash, r->pkt.t_inject);
		t_mix(&s->hash, r->pkt.t_eject);
	} else if (r->tag == MP_REC_DLV) {
		s->dlvs++;
	} else if (r->tag == MP_REC_RUN) {
		s->run = r->run;
	}
	return 0;
}

/* n one-packet messages between random distinct terminals, Bernoulli
 * arrivals of rate p per node per cycle; self-check on when check. */
static int run(const struct mp_cfg *cfg, uint64_t seed, unsigned n, double p,
	       int check, struct sink *s, char *errbuf)
{
	struct mp_sim_opts o;
	struct mp_ni_policy pol = { MP_NI_ALPHA, 0, 0 };
	mp_err err;
	mp_rng rng;
	mp_sim_defaults(cfg, &o);
	o.self_check = check;
	memset(s, 0, sizeof *s);
	s->hash = T_HASH0;
	mp_sim *sim = mp_sim_new(mp_model_find("flit"), cfg, &pol, &o, emit, s,
				 &err);
	if (!sim) {
		snprintf(errbuf, 256, "%.200s", err.msg);
		return MP_SIM_ERROR;
	}
	uint32_t nodes = mp_sim_nodes(sim);
	mp_rng_seed(&rng, seed, 7);
	int st = MP_SIM_OK;
	unsigned id = 0;
	for (uint64_t t = 0; id < n && st == MP_SIM_OK; t++)
		for (uint32_t x = 0; x < nodes && id < n && st == MP_SIM_OK; x++) {
			if (mp_rng_unit(&rng) >= p)
				continue;
			struct mp_msg m;
			memset(&m, 0, sizeof m);
			m.tag = MP_REC_MSG;
			m.id = id++;
			m.time = t;
			m.src = x;
			do
				m.dst = (uint32_t)mp_rng_below(&rng, nodes);
			while (m.dst == x);
			m.packets = 1;
			st = mp_sim_offer(sim, &m);
		}
	return t_sim_end(sim, st, errbuf);
}

static int setup(struct mp_cfg *c, const char *topo, const char *buf,
		 const char *flits, const char *L)
{
	mp_err err;
	mp_cfg_init(c);
	return mp_cfg_preset(c, "damq", &err) < 0 ||
	       mp_cfg_set(c, "topo", topo, &err) != 0 ||
	       mp_cfg_set(c, "buffer", buf, &err) != 0 ||
	       mp_cfg_set(c, "buf-flits", flits, &err) != 0 ||
	       mp_cfg_set(c, "packet-flits", L, &err) != 0 ? -1 : 0;
}

int main(void)
{
	static const char *const orgs[] = { "fifo", "safc", "samq", "damq",
					    "oq" };
	static const char *const topos[] = { "kary:4,2", "kary:3,3",
					     "torus:4x4" };
	struct sink s;
	char msg[256];

	/* Every organization, network, packet length, buffer size. */
	for (unsigned b = 0; b < 5; b++)
		for (unsigned tp = 0; tp < 3; tp++)
			for (unsigned l = 0; l < 2; l++)
				for (unsigned fb = 0; fb < 2; fb++) {
		struct mp_cfg cfg;
		const char *L = l ? "8" : "1";
		/* bounded: a packet per queue (static) or class (shared),
		 * and at most a few of them */
		char F[16];
		unsigned nq = !strcmp(orgs[b], "safc") || !strcmp(orgs[b], "samq") ?
			      (tp == 0 ? 3 : tp == 1 ? 4 : 5) : 1;
		snprintf(F, sizeof F, "%u", fb ? 0 : 2 * nq * (l ? 8 : 2));
		int ok = setup(&cfg, topos[tp], orgs[b], F, L) == 0;
		/* load: a third of the bottleneck channels' bandwidth */
		double p = l ? 0.03 / 8 : 0.08;
		int st = ok ? run(&cfg, 3 + b, 600, p, 1, &s, msg) : -1;
		T_OK(ok && st == MP_SIM_OK && s.dlvs == 600 && s.pkts == 600 &&
		     s.run.pkts_in_flight == 0,
		     "%s on %s, %s-flit packets, --buf-flits %s: every packet "
		     "delivered, every queue recounted every cycle (%s)",
		     orgs[b], topos[tp], L, F, msg);
		uint64_t h = s.hash;
		run(&cfg, 3 + b, 600, p, 0, &s, msg);
		T_OK(s.hash == h, "%s on %s, L=%s, F=%s: same input, same records "
		     "(with and without the self-check)", orgs[b], topos[tp], L, F);
	}

	/* Unbounded, the static and dynamic partitions are the same
	 * buffer: samq and damq give the same records. Bounded and small,
	 * they differ, and damq has the lower latency. */
	{
		struct mp_cfg a, d;
		uint64_t ha, hd, la, ld;
		setup(&a, "kary:4,3", "samq", "0", "1");
		setup(&d, "kary:4,3", "damq", "0", "1");
		run(&a, 11, 4000, 0.12, 0, &s, msg);
		ha = s.hash;
		run(&d, 11, 4000, 0.12, 0, &s, msg);
		hd = s.hash;
		T_OK(ha == hd, "unbounded: samq and damq give the same records");
		setup(&a, "kary:4,3", "samq", "8", "1");
		setup(&d, "kary:4,3", "damq", "8", "1");
		run(&a, 11, 4000, 0.12, 1, &s, msg);
		la = s.lat;
		ha = s.hash;
		run(&d, 11, 4000, 0.12, 1, &s, msg);
		ld = s.lat;
		hd = s.hash;
		T_OK(ha != hd && ld < la, "8 flits per input: damq's latency "
		     "(%llu cycles in all) below samq's (%llu)",
		     (unsigned long long)ld, (unsigned long long)la);
	}
	/* The output-queued switch is the reference: the input-queued
	 * organizations with one crossbar input per port wait longer; safc
	 * (a crossbar input per queue, unbounded) is output queueing but
	 * for the order an output serves its packets in, which leaves the
	 * mean wait of equal-length packets unchanged. */
	{
		uint64_t lat[5];
		for (unsigned b = 0; b < 5; b++) {
			struct mp_cfg c;
			setup(&c, "kary:4,3", orgs[b], "0", "1");
			run(&c, 12, 4000, 0.15, 0, &s, msg);
			lat[b] = s.lat;
		}
		T_OK(lat[4] < lat[0] && lat[4] < lat[2] && lat[4] < lat[3] &&
		     lat[0] > lat[3] && lat[1] * 100 < lat[4] * 101 &&
		     lat[4] * 100 < lat[1] * 101,
		     "oq %llu below fifo %llu, samq %llu, damq %llu; safc %llu "
		     "within 1%% of oq; fifo above damq", (unsigned long long)lat[4],
		     (unsigned long long)lat[0], (unsigned long long)lat[2],
		     (unsigned long long)lat[3], (unsigned long long)lat[1]);
	}
	/* Oldest-first arbitration runs clean too. */
	{
		struct mp_cfg c;
		mp_err err;
		setup(&c, "kary:4,2", "damq", "16", "8");
		T_OK(mp_cfg_set(&c, "arb", "oldest", &err) == 0, "--arb oldest");
		int st = run(&c, 13, 600, 0.03 / 8, 1, &s, msg);
		T_OK(st == MP_SIM_OK && s.pkts == 600, "damq, --arb oldest: "
		     "clean (%s)", msg);
	}

	/* Refusals. */
	{
		struct mp_cfg c;
		mp_err err;
		setup(&c, "kary:4,2", "damq", "8", "8");
		int st = run(&c, 1, 10, 0.01, 1, &s, msg);
		T_OK(st == MP_SIM_ERROR && strstr(msg, "less than one packet"),
		     "8 flits split over two dateline classes of 8-flit packets: "
		     "%s", msg);
		setup(&c, "kary:4,2", "samq", "16", "8");
		st = run(&c, 1, 10, 0.01, 1, &s, msg);
		T_OK(st == MP_SIM_ERROR && strstr(msg, "per queue"),
		     "samq: 16 flits over 2 classes of 3 queues of 8-flit "
		     "packets: %s", msg);
		mp_cfg_init(&c);
		mp_cfg_preset(&c, "damq", &err);
		T_OK(mp_cfg_set(&c, "buffer", "lifo", &err) < 0 &&
		     mp_cfg_set(&c, "topo", "kary:1,3", &err) < 0 &&
		     mp_cfg_set(&c, "topo", "kary:8", &err) < 0,
		     "an unknown organization, K = 1, kary:8 refused");
		setup(&c, "kary:4,2", "damq", "0", "1");
		mp_cfg_set(&c, "switching", "wormhole", &err);
		st = run(&c, 1, 10, 0.01, 1, &s, msg);
		T_OK(st == MP_SIM_ERROR && strstr(msg, "vct or ps"),
		     "damq under wormhole refused: %s", msg);
	}
	return t_done();
}
