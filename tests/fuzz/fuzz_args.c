/*
 * Fuzz target for the programs' paths from their options to a file they
 * read, without running the programs: the input's first line is a
 * program name and its options, the rest is the file. "wlgen" replays
 * the file as a CSV trace (--replay), or with --netrace as a Netrace
 * trace (uncompressed), under the options, as wlgen does;
 * "netrun" reads it as a stream and runs a bounded simulation under the
 * fabric options; "sched" reads it and applies --alpha, --segment,
 * --class-priority and --srf. Contracts: failures are one line naming
 * the file; what each writes is a stream the next program accepts (read
 * back through the stream reader); netrun's accounting adds up.
 */
#include <inttypes.h>

#include "fuzz.h"
#include "mp_config.h"
#include "mp_hdrcfg.h"
#include "mp_sim.h"
#include "mp_record.h"
#include "mp_stream.h"
#include "mp_workload.h"

#define MAX_WORDS 24
/* Bounds that keep one run short: messages fed to the fabric, and
 * records read back. */
#define NETRUN_MAX_MSGS 64
#define NETRUN_MAX_PKTS 4000
#define WLGEN_MAX_MSGS 20000
/* An idle fabric still takes its periodic utilization snapshots and
 * checks, so a run costs time in proportion to the simulated time: stop
 * feeding at this time (netrun itself has no such bound). */
#define NETRUN_MAX_TIME 20000000

struct words {
	char buf[512];
	char *w[MAX_WORDS];
	int n;
};

/* Split the first line (up to 511 bytes) into words; returns the size
 * of the first line with its newline. */
static size_t split_first_line(const uint8_t *data, size_t size,
			       struct words *ws)
{
	size_t n = 0;
	while (n < size && n < sizeof ws->buf - 1 && data[n] != '\n')
		n++;
	memcpy(ws->buf, data, n);
	ws->buf[n] = '\0';
	ws->n = 0;
	for (char *s = strtok(ws->buf, " \t\r"); s && ws->n < MAX_WORDS;
	     s = strtok(NULL, " \t\r"))
		ws->w[ws->n++] = s;
	return n < size ? n + 1 : n;
}

/* Value of option i (the next word), or "" when there is none. */
static const char *optval(const struct words *ws, int *i)
{
	return *i + 1 < ws->n ? ws->w[++*i] : "";
}

/* Everything a writer wrote to scratch file 1 must read back. */
static void read_back(const char *who, uint64_t expect)
{
	mp_err err;
	mp_reader *r = mp_reader_open(fuzz_path(1), &err);
	if (!r) {
		fuzz_fail("%s output refused: %s", who, err.msg);
		return;
	}
	mp_rec rec;
	uint64_t n = 0;
	int rc;
	while ((rc = mp_reader_next(r, &rec)) == 1)
		n++;
	if (rc < 0)
		fuzz_fail("%s output fails: %s", who, mp_reader_error(r));
	else if (expect != UINT64_MAX && n != expect)
		fuzz_fail("%s wrote %" PRIu64 " records, %" PRIu64 " read back",
			  who, expect, n);
	mp_reader_close(r);
}

/* ---- wlgen --replay ---- */

static int is_flag(const char *name)
{
	return strcmp(name, "remap-mod") == 0 || strcmp(name, "drop-self") == 0;
}

static void run_wlgen(const struct words *ws, const char *path)
{
	struct mp_cfg cfg;
	struct mp_wl_cfg wc;
	mp_err err;
	const char *preset = "po2", *format = "replay";

	for (int i = 1; i < ws->n; i++)
		if (strcmp(ws->w[i], "--preset") == 0)
			preset = optval(ws, &i);
	mp_cfg_init(&cfg);
	if (mp_cfg_preset(&cfg, preset, &err) < 0)
		return;
	mp_wl_cfg_init(&wc);
	if (mp_wl_set_words(&wc, mp_preset_workload(preset), &err) < 0)
		fuzz_fail("preset %s: %s", preset, err.msg);
	for (int i = 1; i < ws->n; i++) {
		const char *w = ws->w[i];
		if (strncmp(w, "--", 2) != 0)
			return; /* wlgen takes no operands */
		const char *name = w + 2;
		if (strcmp(name, "preset") == 0) {
			optval(ws, &i);
			continue;
		}
		if (strcmp(name, "replay") == 0)
			return; /* the file is ours */
		if (strcmp(name, "netrace") == 0) {
			format = "netrace";
			continue;
		}
		const char *val = is_flag(name) ? "" : optval(ws, &i);
		int rc = mp_cfg_set(&cfg, name, val, &err);
		if (rc < 0)
			return;
		if (rc > 0 && mp_wl_set(&wc, name, val, &err) != 0)
			return;
	}
	if (mp_wl_set(&wc, format, path, &err) != 0)
		return;
	mp_net *net = mp_cfg_net(&cfg, &err);
	if (!net)
		return;
	struct mp_wl_shape shape = { net, mp_cfg_pe_time(&cfg), cfg.payload,
				     mp_cfg_load_flits(&cfg) };
	mp_workload *w = mp_workload_new(&wc, &shape, &err);
	if (!w) {
		mp_net_free(net);
		return;
	}
	if (mp_workload_start(w, &err) < 0) {
		fuzz_check_msg("mp_workload_start", err.msg, path);
		mp_workload_free(w);
		mp_net_free(net);
		return;
	}
	mp_hdr *h = mp_hdr_new(MP_KIND_MESSAGES);
	if (!h || mp_workload_describe(w, h) < 0) {
		mp_hdr_free(h);
		mp_workload_free(w);
		mp_net_free(net);
		return;
	}
	mp_writer *out = mp_writer_open(fuzz_path(1), h, MP_W_RAW, &err);
	mp_hdr_free(h);
	if (!out) {
		fuzz_fail("wlgen header refused: %s", err.msg);
		mp_workload_free(w);
		mp_net_free(net);
		return;
	}
	uint32_t nodes = mp_workload_nodes(w);
	uint64_t n = 0, last = 0;
	mp_rec rec;
	memset(&rec, 0, sizeof rec);
	int rc = 0;
	while (n < WLGEN_MAX_MSGS && (rc = mp_workload_next(w, &rec.msg)) == 1) {
		const struct mp_msg *m = &rec.msg;
		if (m->tag != MP_REC_MSG || m->src >= nodes || m->dst >= nodes ||
		    m->src == m->dst || m->packets == 0 || m->time < last ||
		    m->id != n)
			fuzz_fail("replay made a bad message: id %" PRIu64 " src %u "
				  "dst %u packets %u time %" PRIu64, m->id, m->src,
				  m->dst, m->packets, m->time);
		last = m->time;
		mp_writer_put(out, &rec);
		n++;
	}
	if (n < WLGEN_MAX_MSGS && rc < 0)
		fuzz_check_msg("mp_workload_next", mp_workload_error(w), path);
	if (mp_writer_close(out, &err) < 0)
		fuzz_fail("writer: %s", err.msg);
	else
		read_back("wlgen", n);
	mp_workload_free(w);
	mp_net_free(net);
}

/* ---- netrun ---- */

struct sink {
	mp_writer *w;
	uint64_t n[MP_REC_NTAGS];
};

static int sink_emit(void *ctx, const mp_rec *rec)
{
	struct sink *s = ctx;
	if (rec->tag > 0 && rec->tag < MP_REC_NTAGS)
		s->n[rec->tag]++;
	return mp_writer_put(s->w, rec);
}

/*
 * Open the fuzzed input as netrun and sched do: NULL (after checking
 * the reader's message) unless it opens and carries messages or
 * injections.
 */
static mp_reader *open_messages(const char *path)
{
	mp_err err;
	mp_reader *r = mp_reader_open(path, &err);
	if (!r) {
		fuzz_check_msg("mp_reader_open", err.msg, path);
		return NULL;
	}
	int kind = mp_hdr_kind(mp_reader_header(r));
	if (kind != MP_KIND_MESSAGES && kind != MP_KIND_INJECTIONS) {
		mp_reader_close(r);
		return NULL;
	}
	return r;
}

static void run_netrun(const struct words *ws, const char *path)
{
	struct mp_cfg cfg;
	struct mp_sim_opts fo;
	mp_err err;
	uint64_t seed = 1;

	mp_cfg_init(&cfg);
	for (int i = 1; i < ws->n; i++)
		if (strcmp(ws->w[i], "--preset") == 0 &&
		    mp_cfg_preset(&cfg, optval(ws, &i), &err) < 0)
			return;
	for (int i = 1; i < ws->n; i++) {
		const char *w = ws->w[i];
		if (strncmp(w, "--", 2) != 0)
			return;
		const char *name = w + 2, *val = optval(ws, &i);
		if (strcmp(name, "preset") == 0)
			continue;
		if (strcmp(name, "seed") == 0) {
			if (mp_parse_u64(val, 0, UINT64_MAX, &seed, "--seed", &err) < 0)
				return;
			continue;
		}
		if (mp_cfg_set(&cfg, name, val, &err) != 0)
			return;
	}
	if (mp_cfg_check(&cfg, &err) < 0)
		return;
	/* Keep runs on fuzzed configurations small. */
	if (cfg.size > 12 || cfg.rows > 12 || cfg.cols > 12)
		return;
	mp_sim_defaults(&cfg, &fo);
	fo.seed = seed;
	fo.self_check = 1; /* a broken invariant is a finding too */

	mp_reader *r = open_messages(path);
	if (!r)
		return;
	const mp_hdr *ih = mp_reader_header(r);
	struct mp_ni_policy pol;
	if (mp_ni_policy_read(ih, &pol, &err) < 0) {
		mp_reader_close(r);
		return;
	}
	struct sink sink;
	memset(&sink, 0, sizeof sink);
	mp_sim *f = mp_sim_new(NULL, &cfg, &pol, &fo, sink_emit, &sink, &err);
	if (!f) {
		mp_reader_close(r);
		return;
	}
	uint64_t hn;
	if (mp_hdr_get_u64(ih, "nodes", &hn) == 0 && hn != mp_sim_nodes(f)) {
		mp_sim_free(f);
		mp_reader_close(r);
		return;
	}
	mp_hdr *oh = mp_hdr_dup(ih);
	if (!oh || mp_hdr_setf(oh, "nodes", "%u", mp_sim_nodes(f)) < 0) {
		mp_hdr_free(oh);
		mp_sim_free(f);
		mp_reader_close(r);
		return;
	}
	mp_hdr_set_kind(oh, MP_KIND_DELIVERIES);
	sink.w = mp_writer_open(fuzz_path(1), oh, MP_W_RAW, &err);
	mp_hdr_free(oh);
	if (!sink.w) {
		fuzz_fail("netrun header refused: %s", err.msg);
		mp_sim_free(f);
		mp_reader_close(r);
		return;
	}

	mp_rec rec;
	int st = MP_SIM_OK, rc = 0;
	uint64_t msgs = 0, pkts = 0, passed = 0;
	while (msgs < NETRUN_MAX_MSGS && (rc = mp_reader_next(r, &rec)) == 1) {
		if (rec.tag != MP_REC_MSG && rec.tag != MP_REC_INJ) {
			/* Not the fabric's: passed on, counted apart. */
			mp_writer_put(sink.w, &rec);
			passed++;
			continue;
		}
		if (rec.msg.time > MP_TIME_MAX)
			fuzz_fail("reader let time %" PRIu64 " through",
				  rec.msg.time);
		if (pkts + rec.msg.packets > NETRUN_MAX_PKTS ||
		    rec.msg.time > NETRUN_MAX_TIME)
			break;
		st = mp_sim_offer(f, &rec.msg);
		if (st != MP_SIM_OK)
			break;
		msgs++;
		pkts += rec.msg.packets;
	}
	if (rc < 0)
		fuzz_check_msg("mp_reader_next", mp_reader_error(r), path);
	if (st == MP_SIM_OK) {
		mp_sim_input_done(f);
		st = mp_sim_run(f, UINT64_MAX);
	}
	if (st == MP_SIM_ERROR) {
		if (!mp_sim_error(f)[0])
			fuzz_fail("fabric failed without a message");
		if (strncmp(mp_sim_error(f), "self-check", 10) == 0)
			fuzz_fail("%s", mp_sim_error(f));
		mp_writer_close(sink.w, NULL);
	} else {
		int final = mp_sim_finish(f, st);
		struct mp_sim_counts c;
		mp_sim_counts(f, &c);
		if (c.pkts_injected != c.pkts_delivered + c.pkts_in_flight)
			fuzz_fail("packets accepted %" PRIu64 " != delivered %"
				  PRIu64 " + in flight %" PRIu64, c.pkts_injected,
				  c.pkts_delivered, c.pkts_in_flight);
		if (c.msgs_in != msgs || c.msgs_done > c.msgs_in)
			fuzz_fail("messages: %" PRIu64 " added, %" PRIu64 " in, %"
				  PRIu64 " done", msgs, c.msgs_in, c.msgs_done);
		if (st == MP_SIM_OK && final != MP_SIM_ERROR &&
		    (c.msgs_done != c.msgs_in || c.pkts_in_flight ||
		     c.pkts_queued || c.pkts_delivered != pkts))
			fuzz_fail("a complete run lost something: %" PRIu64 "/%"
				  PRIu64 " messages, %" PRIu64 "/%" PRIu64
				  " packets, %" PRIu64 " in flight, %" PRIu64
				  " queued", c.msgs_done, c.msgs_in, c.pkts_delivered,
				  pkts, c.pkts_in_flight, c.pkts_queued);
		if (sink.n[MP_REC_DLV] != c.msgs_done ||
		    sink.n[MP_REC_PKT] != c.pkts_delivered)
			fuzz_fail("emitted %" PRIu64 " dlv and %" PRIu64 " pkt "
				  "records for %" PRIu64 " messages and %" PRIu64
				  " packets delivered", sink.n[MP_REC_DLV],
				  sink.n[MP_REC_PKT], c.msgs_done, c.pkts_delivered);
		uint64_t total = passed;
		for (int t = 1; t < MP_REC_NTAGS; t++)
			total += sink.n[t];
		if (mp_writer_close(sink.w, &err) < 0)
			fuzz_fail("writer: %s", err.msg);
		else
			read_back("netrun", total);
	}
	mp_sim_free(f);
	mp_reader_close(r);
}

/* ---- sched ---- */

static void run_sched(const struct words *ws, const char *path)
{
	double alpha = 0;
	uint64_t segment = 0;
	int srf = 0, class_prio = 0;
	mp_err err;

	for (int i = 1; i < ws->n; i++) {
		const char *w = ws->w[i];
		if (strcmp(w, "--alpha") == 0) {
			if (mp_parse_double(optval(ws, &i), 0, 1e9, 0, &alpha,
					    "--alpha", &err) < 0)
				return;
		} else if (strcmp(w, "--segment") == 0) {
			if (mp_parse_u64(optval(ws, &i), 1, 1u << 30, &segment,
					 "--segment", &err) < 0)
				return;
		} else if (strcmp(w, "--srf") == 0) {
			srf = 1;
		} else if (strcmp(w, "--class-priority") == 0) {
			class_prio = 1;
		} else {
			return;
		}
	}
	mp_reader *r = open_messages(path);
	if (!r)
		return;
	const mp_hdr *ih = mp_reader_header(r);
	mp_hdr *oh = mp_hdr_dup(ih);
	if (!oh) {
		mp_reader_close(r);
		return;
	}
	mp_hdr_set_kind(oh, MP_KIND_INJECTIONS);
	struct mp_ni_policy pol = { srf ? MP_NI_SRF : MP_NI_ALPHA, alpha,
				    class_prio };
	mp_ni_policy_write(&pol, oh);
	if (segment)
		mp_hdr_setf(oh, "payload", "%llu", (unsigned long long)segment);
	mp_writer *w = mp_writer_open(fuzz_path(1), oh, MP_W_RAW, &err);
	mp_hdr_free(oh);
	if (!w) {
		fuzz_fail("sched header refused: %s", err.msg);
		mp_reader_close(r);
		return;
	}
	mp_rec rec;
	uint64_t n = 0;
	int rc;
	while ((rc = mp_reader_next(r, &rec)) == 1) {
		if (rec.tag == MP_REC_MSG || rec.tag == MP_REC_INJ)
			mp_ni_schedule(&rec.msg, &pol, (uint32_t)segment);
		mp_writer_put(w, &rec);
		n++;
	}
	if (rc < 0) {
		fuzz_check_msg("mp_reader_next", mp_reader_error(r), path);
		mp_writer_close(w, NULL);
	} else if (mp_writer_close(w, &err) < 0) {
		fuzz_fail("writer: %s", err.msg);
	} else {
		read_back("sched", n);
	}
	mp_reader_close(r);
}

static void fuzz_args(const uint8_t *data, size_t size)
{
	struct words ws;
	size_t skip = split_first_line(data, size, &ws);
	if (ws.n == 0)
		return;
	const char *path = fuzz_put(0, data + skip, size - skip);
	if (strcmp(ws.w[0], "wlgen") == 0)
		run_wlgen(&ws, path);
	else if (strcmp(ws.w[0], "netrun") == 0)
		run_netrun(&ws, path);
	else if (strcmp(ws.w[0], "sched") == 0)
		run_sched(&ws, path);
}

#ifndef FUZZ_DRIVER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_args(data, size);
	return 0;
}
#endif
