/*
 * The simulation driver: messages, job lists, timers, checks, records
 * and accounting around a switch model. See mp_sim.h; the model's side
 * of the interface is mp_model.h.
 */
#include "mp_sim.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX

enum { EV_TIMER_UTIL = MP_SIM_EV_FIRST, EV_TIMER_CHECK };

struct sample {
	uint64_t t, backlog, arrived;
};

struct mp_sim {
	const struct mp_model_ops *ops;
	void *m;
	mp_net *net;
	struct mp_cfg cfg;
	struct mp_sim_opts o;
	uint32_t n;
	mp_evq *q;
	mp_ni *ni;
	unsigned lanes;             /* mp_sim_set_lanes, 0: not set */
	uint8_t lane_of[MP_NI_CLASSES];
	struct mp_sim_shared sh; /* sh.msgs: the message slots */
	uint32_t nmsgs, msg_free;
	mp_emit_fn emit;
	void *ctx;
	int status;       /* sticky: saturated (keep going) */
	int trend_sat;
	int input_done;
	int failed;
	int util_asleep, check_asleep; /* timers stopped while idle */
	struct mp_sim_counts c;
	uint64_t arrived_pkts;
	uint64_t floor;   /* time of the last local delivery */
	struct sample *samples;
	size_t nsamples, sample_stride, sample_skip;
	char err[512];
};

int mp_sim_vfail(mp_sim *s, const char *fmt, va_list ap)
{
	vsnprintf(s->err, sizeof s->err, fmt, ap);
	s->failed = 1;
	return -1;
}

int mp_sim_fail(mp_sim *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	mp_sim_vfail(s, fmt, ap);
	va_end(ap);
	return -1;
}

void mp_sim_defaults(const struct mp_cfg *cfg, struct mp_sim_opts *o)
{
	uint64_t pe = (uint64_t)mp_cfg_pe_time(cfg);
	memset(o, 0, sizeof *o);
	o->seed = 1;
	o->util_interval = 256 * pe;
	o->check_interval = 16 * pe;
	o->deadlock_time = 1000 * (uint64_t)(cfg->packet_time + cfg->header_time +
					    cfg->inject_setup + cfg->eject_setup);
	/* Sinks that accept with probability Q (the ncube model) hold a
	 * packet 1/Q units on average: so many more units without a move
	 * are still no deadlock. */
	if (cfg->sink_q > 0 && cfg->sink_q < 1)
		o->deadlock_time = (uint64_t)((double)o->deadlock_time /
					      cfg->sink_q);
	o->max_backlog = 2000;
}

/* The model's time, or a later local delivery's (mp_sim_local). */
static uint64_t now_of(const mp_sim *s)
{
	uint64_t t = s->ops->now(s->m);
	return t > s->floor ? t : s->floor;
}

static int emit(mp_sim *s, const mp_rec *r)
{
	if (s->emit(s->ctx, r) < 0)
		return mp_sim_fail(s, "output failed");
	return 0;
}

static void push_timer(mp_sim *s, uint64_t t, uint16_t type)
{
	struct mp_ev ev = { t, 0, 0, type };
	if (mp_evq_push(s->q, &ev) < 0)
		mp_sim_fail(s, "out of memory (event queue)");
}

static uint32_t msg_alloc(mp_sim *s)
{
	if (s->msg_free == NIL) {
		uint32_t cap = s->nmsgs ? s->nmsgs * 2 : 1024;
		struct mp_sim_msg *m = realloc(s->sh.msgs, (size_t)cap * sizeof *m);
		if (!m) {
			mp_sim_fail(s, "out of memory (messages)");
			return NIL;
		}
		s->sh.msgs = m;
		for (uint32_t i = cap; i-- > s->nmsgs;) {
			m[i].next_free = s->msg_free;
			s->msg_free = i;
		}
		s->nmsgs = cap;
	}
	uint32_t i = s->msg_free;
	s->msg_free = s->sh.msgs[i].next_free;
	return i;
}

mp_sim *mp_sim_new(const struct mp_model_ops *model, const struct mp_cfg *cfg,
		   const struct mp_ni_policy *pol, const struct mp_sim_opts *opts,
		   mp_emit_fn emitfn, void *ctx, mp_err *err)
{
	if (!model)
		model = mp_model_at(0);
	if (mp_cfg_check(cfg, err) < 0)
		return NULL;
	if ((opts->prefill && !(model->caps & MP_MODEL_PREFILL)) ||
	    (opts->source_n && !(model->caps & MP_MODEL_SOURCES))) {
		mp_err_set(err, "--model %s: no %s", model->name,
			   opts->prefill ? "--prefill (it starts empty)"
					 : "model sources (give it a message "
					   "stream)");
		return NULL;
	}
	mp_sim *s = calloc(1, sizeof *s);
	if (!s) {
		mp_err_set(err, "out of memory");
		return NULL;
	}
	s->ops = model;
	s->cfg = *cfg;
	s->o = *opts;
	s->emit = emitfn;
	s->ctx = ctx;
	s->msg_free = NIL;
	s->samples = malloc(1024 * sizeof *s->samples);
	s->sample_stride = 1;
	s->q = mp_evq_new();
	if (!s->samples || !s->q) {
		mp_err_set(err, "out of memory");
		goto fail;
	}
	s->net = mp_cfg_net(cfg, err);
	if (!s->net)
		goto fail;
	s->m = model->create(s, s->net, cfg, err);
	if (!s->m)
		goto fail;
	s->n = model->nodes(s->m);
	s->ni = mp_ni_new(s->n, pol);
	if (!s->ni || (s->lanes && mp_ni_set_lanes(s->ni, s->lanes,
						     s->lane_of) < 0)) {
		mp_err_set(err, "out of memory");
		goto fail;
	}
	if (s->o.util_interval)
		push_timer(s, s->o.util_interval, EV_TIMER_UTIL);
	if (s->o.check_interval)
		push_timer(s, s->o.check_interval, EV_TIMER_CHECK);
	if (s->failed) {
		mp_err_set(err, "%s", s->err);
		goto fail;
	}
	return s;
fail:
	mp_sim_free(s);
	return NULL;
}

void mp_sim_free(mp_sim *s)
{
	if (!s)
		return;
	if (s->m)
		s->ops->free(s->m);
	mp_net_free(s->net);
	mp_evq_free(s->q);
	mp_ni_free(s->ni);
	free(s->sh.msgs);
	free(s->samples);
	free(s);
}

uint32_t mp_sim_nodes(const mp_sim *s)
{
	return s->n;
}

const mp_net *mp_sim_net(const mp_sim *s)
{
	return s->net;
}

const struct mp_model_ops *mp_sim_model(const mp_sim *s)
{
	return s->ops;
}

uint64_t mp_sim_now(const mp_sim *s)
{
	return now_of(s);
}

struct mp_sim_shared *mp_sim_shared(mp_sim *s)
{
	return &s->sh;
}

mp_ni *mp_sim_ni(mp_sim *s)
{
	return s->ni;
}

void mp_sim_set_lanes(mp_sim *s, unsigned lanes, const uint8_t *lane_of_cls)
{
	s->lanes = lanes;
	memcpy(s->lane_of, lane_of_cls, sizeof s->lane_of);
}

mp_evq *mp_sim_evq(mp_sim *s)
{
	return s->q;
}

const struct mp_sim_opts *mp_sim_opts(const mp_sim *s)
{
	return &s->o;
}

uint64_t mp_sim_in_flight(const mp_sim *s)
{
	return s->c.pkts_injected - s->c.pkts_delivered;
}

int mp_sim_work(const mp_sim *s)
{
	return s->c.pkts_queued > 0 || s->c.pkts_injected > s->c.pkts_delivered;
}

int mp_sim_busy(const mp_sim *s)
{
	return s->ops->busy(s->m) || mp_sim_work(s);
}

/* ------------------------------------------------------------------ */
/* What models report                                                  */

uint32_t mp_sim_accepted(mp_sim *s, uint32_t node, uint32_t msg,
			 uint64_t t_inject, uint64_t now)
{
	struct mp_sim_msg *m = &s->sh.msgs[msg];
	uint32_t seq = m->sent;
	if (m->sent == 0)
		m->t_first = t_inject;
	m->sent++;
	mp_ni_accepted(s->ni, node, msg, m->packets - m->sent);
	s->c.pkts_injected++;
	s->c.pkts_queued--;
	s->sh.last_progress = now;
	return seq;
}

int mp_sim_delivered(mp_sim *s, const struct mp_sim_pkt *p, uint64_t now)
{
	struct mp_sim_msg *m = &s->sh.msgs[p->msg];
	mp_rec r;
	int rc = 0;

	s->c.pkts_delivered++;
	s->sh.last_progress = now;
	m->delivered++;
	m->hops += p->hops;
	/* The writers read a record's own fields (or its bytes up to its
	 * size): setting the member, padding-free, is enough, with no
	 * clearing of the whole union first. */
	if (!s->o.no_packets) {
		r.pkt = (struct mp_pkt){
			.tag = MP_REC_PKT,
			.cls = m->cls,
			.group = m->group,
			.flags = p->deroutes ? 1 : 0,
			.src = m->src,
			.dst = m->dst,
			.seq = p->seq,
			.msg = m->id,
			.t_inject = p->t_inject,
			.t_eject = now,
			.hops = p->hops,
			.deroutes = p->deroutes,
			.refusals = p->refusals,
		};
		rc |= emit(s, &r);
	}
	if (m->delivered == m->packets) {
		r.dlv = (struct mp_dlv){
			.tag = MP_REC_DLV,
			.cls = m->cls,
			.group = m->group,
			.src = m->src,
			.dst = m->dst,
			.packets = m->packets,
			.id = m->id,
			.t_arrive = m->t_arrive,
			.t_first = m->t_first,
			.t_done = now,
			.bytes = m->bytes,
			.hops = m->hops,
		};
		rc |= emit(s, &r);
		s->c.msgs_done++;
		m->next_free = s->msg_free;
		s->msg_free = p->msg;
	}
	return rc < 0 ? -1 : s->sh.yield ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* Timers                                                              */

static void util_snapshot(mp_sim *s, int scope, uint64_t t)
{
	mp_rec r;
	memset(&r, 0, sizeof r);
	r.util.tag = MP_REC_UTIL;
	r.util.scope = (uint8_t)scope;
	r.util.node = UINT32_MAX;
	r.util.t = t;
	s->ops->util(s->m, scope == MP_UTIL_PE || scope == MP_UTIL_PE_INPUT_END ?
			   MP_UTIL_PE : MP_UTIL_INTERNAL, t, &r.util);
	emit(s, &r);
}

static void take_sample(mp_sim *s, uint64_t now)
{
	/* Keep at most 1024 samples: when full, drop every other one and
	 * sample half as often. */
	if (s->sample_skip++ % s->sample_stride)
		return;
	if (s->nsamples == 1024) {
		for (size_t i = 0; i < 512; i++)
			s->samples[i] = s->samples[2 * i];
		s->nsamples = 512;
		s->sample_stride *= 2;
	}
	struct sample x = { now, s->c.pkts_queued, s->arrived_pkts };
	s->samples[s->nsamples++] = x;
}

/* Returns a run status other than OK when the run must stop. */
static int check(mp_sim *s, uint64_t now)
{
	if (!s->input_done)
		take_sample(s, now);
	if (s->c.pkts_queued > s->o.max_backlog * s->n) {
		if (!s->o.keep_going) {
			snprintf(s->err, sizeof s->err,
				 "saturated at time %llu: %llu packets queued at "
				 "sources (more than %llu per node)",
				 (unsigned long long)now,
				 (unsigned long long)s->c.pkts_queued,
				 (unsigned long long)s->o.max_backlog);
			return MP_SIM_SATURATED;
		}
		s->status = MP_SIM_SATURATED;
	}
	if (s->c.pkts_injected > s->c.pkts_delivered &&
	    now - s->sh.last_progress >= s->o.deadlock_time) {
		snprintf(s->err, sizeof s->err,
			 "deadlock at time %llu: no packet moved for %llu units "
			 "with %llu packets in the network",
			 (unsigned long long)now,
			 (unsigned long long)(now - s->sh.last_progress),
			 (unsigned long long)(s->c.pkts_injected -
					      s->c.pkts_delivered));
		return MP_SIM_DEADLOCK;
	}
	return MP_SIM_OK;
}

int mp_sim_event(mp_sim *s, const struct mp_ev *ev)
{
	/* The timers sleep while the network is empty (nothing changes
	 * then), so a long gap between messages costs nothing; the next
	 * message wakes them on their grid (mp_sim_add). */
	switch (ev->type) {
	case EV_TIMER_UTIL:
		util_snapshot(s, MP_UTIL_PE, ev->t);
		util_snapshot(s, MP_UTIL_INTERNAL, ev->t);
		if (mp_sim_busy(s))
			push_timer(s, ev->t + s->o.util_interval, EV_TIMER_UTIL);
		else
			s->util_asleep = 1;
		break;
	case EV_TIMER_CHECK: {
		int st = check(s, ev->t);
		if (st != MP_SIM_OK)
			return st;
		if (mp_sim_busy(s))
			push_timer(s, ev->t + s->o.check_interval, EV_TIMER_CHECK);
		else
			s->check_asleep = 1;
		break;
	}
	default:
		mp_sim_fail(s, "internal error: unknown event %u", ev->type);
		break;
	}
	return s->failed ? MP_SIM_ERROR : MP_SIM_OK;
}

/* ------------------------------------------------------------------ */
/* Interface                                                           */

int mp_sim_run(mp_sim *s, uint64_t until)
{
	if (s->failed)
		return MP_SIM_ERROR;
	int st = s->ops->run_until(s->m, until);
	if (st == MP_SIM_OK && s->failed)
		st = MP_SIM_ERROR;
	return st;
}

/* A message may not arrive in the past nor name a node the network
 * lacks; 0, or the driver's failure. */
static int check_msg(mp_sim *s, const struct mp_msg *in)
{
	uint64_t now = now_of(s);
	if (in->time < now)
		return mp_sim_fail(s, "message %llu arrives at %llu, before the "
				      "current time %llu",
				   (unsigned long long)in->id,
				   (unsigned long long)in->time,
				   (unsigned long long)now);
	if (in->src >= s->n || in->dst >= s->n)
		return mp_sim_fail(s, "message %llu: node out of range (%u "
				      "nodes)", (unsigned long long)in->id, s->n);
	return 0;
}

/* A timer asleep since the network went idle restarts at the next
 * multiple of its interval after now. */
static void wake_timer(mp_sim *s, int *asleep, uint64_t iv, uint16_t ev,
		       uint64_t now)
{
	if (!*asleep)
		return;
	*asleep = 0;
	push_timer(s, (now / iv + 1) * iv, ev);
}

int mp_sim_add(mp_sim *s, const struct mp_msg *in)
{
	if (check_msg(s, in) < 0)
		return -1;
	uint32_t mi = msg_alloc(s);
	if (mi == NIL)
		return -1;
	struct mp_sim_msg *m = &s->sh.msgs[mi];
	memset(m, 0, sizeof *m);
	m->id = in->id;
	m->t_arrive = in->time;
	m->src = in->src;
	m->dst = in->dst;
	m->packets = in->packets;
	m->bytes = in->bytes;
	m->cls = in->cls;
	m->group = in->group;
	m->rt = in->route != MP_ROUTE_DEFAULT ? in->route : (uint8_t)s->cfg.route;
	uint64_t now = in->time;
	wake_timer(s, &s->util_asleep, s->o.util_interval, EV_TIMER_UTIL, now);
	wake_timer(s, &s->check_asleep, s->o.check_interval, EV_TIMER_CHECK,
		   now);
	s->c.msgs_in++;
	s->c.pkts_queued += in->packets;
	s->arrived_pkts += in->packets;
	if (mp_ni_add(s->ni, in->src, mi, in->packets,
		      in->tag == MP_REC_INJ ? in->prio : 0, in->cls) < 0)
		return mp_sim_fail(s, "out of memory (job lists)");
	s->ops->job(s->m, in->src, now);
	return s->failed ? -1 : 0;
}

void mp_sim_yield(mp_sim *s)
{
	s->sh.yield = 1;
}

int mp_sim_local(mp_sim *s, const struct mp_msg *in)
{
	if (check_msg(s, in) < 0)
		return -1;
	s->floor = in->time;
	s->c.msgs_in++;
	s->c.msgs_done++;
	mp_rec r;
	r.dlv = (struct mp_dlv){
		.tag = MP_REC_DLV,
		.cls = in->cls,
		.group = in->group,
		.src = in->src,
		.dst = in->dst,
		.packets = in->packets,
		.id = in->id,
		.t_arrive = in->time,
		.t_first = in->time,
		.t_done = in->time,
		.bytes = in->bytes,
	};
	return emit(s, &r);
}

int mp_sim_offer(mp_sim *s, const struct mp_msg *m)
{
	int st = mp_sim_run(s, m->time);
	if (st != MP_SIM_OK)
		return st;
	return mp_sim_add(s, m) < 0 ? MP_SIM_ERROR : MP_SIM_OK;
}

void mp_sim_input_done(mp_sim *s)
{
	uint64_t now = now_of(s);
	if (s->input_done)
		return;
	s->input_done = 1;
	/* Mark the end of the input in the output: what lstat measures as
	 * accepted throughput ends here, before the drain. */
	util_snapshot(s, MP_UTIL_PE_INPUT_END, now);
	util_snapshot(s, MP_UTIL_INTERNAL_INPUT_END, now);
	/* Trend check: compare the backlog at the end of the input with
	 * the backlog halfway through; queues that grew by more than 5% of
	 * the packets offered meanwhile (and by more than 2 packets per
	 * node) are growing without bound. */
	if (s->nsamples < 4)
		return;
	uint64_t t_mid = now / 2;
	size_t k = 0;
	while (k < s->nsamples && s->samples[k].t < t_mid)
		k++;
	if (k >= s->nsamples)
		return;
	const struct sample *x = &s->samples[k];
	s->c.backlog_mid = x->backlog;
	s->c.backlog_end = s->c.pkts_queued;
	s->c.offered_between = s->arrived_pkts - x->arrived;
	if (s->c.pkts_queued > x->backlog) {
		uint64_t growth = s->c.pkts_queued - x->backlog;
		if (growth * 20 > s->c.offered_between && growth > 2ull * s->n)
			s->trend_sat = 1;
	}
}

int mp_sim_finish(mp_sim *s, int status)
{
	mp_rec r;
	uint64_t now = now_of(s);
	if (s->failed)
		return MP_SIM_ERROR;
	if (status == MP_SIM_OK && (s->status == MP_SIM_SATURATED || s->trend_sat))
		status = MP_SIM_SATURATED;
	util_snapshot(s, MP_UTIL_PE, now);
	util_snapshot(s, MP_UTIL_INTERNAL, now);
	for (uint32_t k = 0;; k++) {
		memset(&r, 0, sizeof r);
		r.util.tag = MP_REC_UTIL;
		r.util.scope = MP_UTIL_PORT;
		r.util.nports = 1;
		r.util.t = now;
		if (!s->ops->port_util(s->m, k, now, &r.util))
			break;
		emit(s, &r);
	}
	memset(&r, 0, sizeof r);
	r.run.tag = MP_REC_RUN;
	r.run.status = (uint8_t)status;
	r.run.nodes = s->n;
	r.run.t_end = now;
	r.run.msgs_in = s->c.msgs_in;
	r.run.msgs_done = s->c.msgs_done;
	r.run.pkts_injected = s->c.pkts_injected;
	r.run.pkts_delivered = s->c.pkts_delivered;
	r.run.pkts_in_flight = s->c.pkts_injected - s->c.pkts_delivered;
	r.run.pkts_queued = s->c.pkts_queued;
	emit(s, &r);
	return s->failed ? MP_SIM_ERROR : status;
}

void mp_sim_counts(const mp_sim *s, struct mp_sim_counts *c)
{
	*c = s->c;
	c->hops = s->sh.hops;
	c->pkts_in_flight = s->c.pkts_injected - s->c.pkts_delivered;
	s->ops->counts(s->m, &c->refusals, &c->events);
}

size_t mp_sim_report(const mp_sim *s, size_t max, char *buf, size_t cap)
{
	if (cap)
		buf[0] = '\0';
	return s->ops->report(s->m, max, buf, cap);
}

void mp_sim_report_line(char *buf, size_t cap, size_t *len, const char *fmt,
			...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + (*len < cap ? *len : cap),
			  *len < cap ? cap - *len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += (size_t)n;
}

const char *mp_sim_error(const mp_sim *s)
{
	return s->err;
}
