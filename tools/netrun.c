/*
 * netrun: run a message or injection stream through a modelled router
 * fabric and write the deliveries (per packet and per message), port
 * utilization and end-of-run accounting as a stream.
 */
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mp_config.h"
#include "mp_deps.h"
#include "mp_hdrcfg.h"
#include "mp_prog.h"
#include "mp_sim.h"
#include "mp_stream.h"

static const char *prog = "netrun";

#include "mp_opt.h"

/* Options of the tables (mp_opt.h): the driver's, the network's, then
 * each model's, by getopt value OPT_BASE + index. */
#define OPT_BASE 1000
#define MAX_TOPTS 256
static const struct mp_opt *topts[MAX_TOPTS];
static size_t ntopts;

static void usage_table(FILE *fp, const struct mp_opt *t)
{
	for (const struct mp_opt *o = t; o && o->name; o++) {
		char left[64];
		if (o->flags & MP_OPT_HIDDEN)
			continue;
		snprintf(left, sizeof left, "--%s %s", o->name, o->arg);
		if (strlen(left) < 23)
			fprintf(fp, "  %-22s %s\n", left, o->help);
		else
			fprintf(fp, "  %s  %s\n", left, o->help);
	}
}

static void usage(FILE *fp)
{
	fprintf(fp,
"usage: netrun [options] [file]\n"
"Simulate a fabric on a message stream (from wlgen or sched) read from\n"
"file or standard input; write deliveries to standard output.\n"
"\n"
"  --preset NAME          po2 (default), fedx, torus, cmp, rs, damq or ncube;\n"
"                         other options override it\n"
"  --list-models          print the models and exit\n"
"  --show-config          print the effective configuration and exit\n");
	usage_table(fp, mp_opt_driver);
	usage_table(fp, mp_opt_network);
	const struct mp_model_ops *m;
	for (size_t i = 0; (m = mp_model_at(i)); i++) {
		fprintf(fp, "\nOptions of the %s model:\n", m->name);
		usage_table(fp, m->opts);
	}
	fprintf(fp,
"\nRun options:\n"
"  --check-interval T     units between saturation and deadlock checks\n"
"  --deadlock-time T      no progress this long means deadlock\n"
"  --dep-release max|gap  a message with dependencies (deps=1 streams) is\n"
"                         released at the later of its trace time and its\n"
"                         last dependency's delivery (max, the default), or\n"
"                         that delivery plus the trace gap between them (gap)\n"
"  --eager-retries        an event for every refused attempt (slow; to\n"
"                         check the retry-loop shortcut against)\n"
"  -f, --force            write the binary stream to a terminal too\n"
"  -k, --keep-going       on saturation, mark the run and go on (exit 0)\n"
"  --max-backlog P        saturated past P packets queued per node\n"
"  --no-packets           do not write per-packet records\n"
"  --prefill              start with every buffer full (ncube model)\n"
"  -o, --output FILE      write to FILE instead of standard output\n"
"  -q, --quiet            no progress display\n"
"  --raw                  write uncompressed\n"
"  --seed S               random seed for tie-breaks (default 1)\n"
"  --self-check           recount the model's state after every event\n"
"                         (slow; exit 1 at the first difference)\n"
"  --util-interval T      units between utilization snapshots\n"
"  -v, --verbose          print the end-of-run accounting on stderr\n"
"  -h, --help             this help\n");
}

/* Fatal signals: remove an -o file's temporary name, then die of it. */
static void on_signal(int sig)
{
	mp_tmpout_unlink_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

enum {
	O_CHECK_INTERVAL = 256, O_DEADLOCK_TIME, O_DEP_RELEASE, O_EAGER_RETRIES,
	O_LIST_MODELS, O_MAX_BACKLOG, O_NO_PACKETS, O_PREFILL, O_PRESET, O_RAW,
	O_SEED, O_SELF_CHECK, O_SHOW_CONFIG, O_UTIL_INTERVAL
};

static const struct option runopts[] = {
	{ "check-interval", required_argument, NULL, O_CHECK_INTERVAL },
	{ "deadlock-time", required_argument, NULL, O_DEADLOCK_TIME },
	{ "dep-release", required_argument, NULL, O_DEP_RELEASE },
	{ "eager-retries", no_argument, NULL, O_EAGER_RETRIES },
	{ "force", no_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ "keep-going", no_argument, NULL, 'k' },
	{ "list-models", no_argument, NULL, O_LIST_MODELS },
	{ "max-backlog", required_argument, NULL, O_MAX_BACKLOG },
	{ "no-packets", no_argument, NULL, O_NO_PACKETS },
	{ "output", required_argument, NULL, 'o' },
	{ "prefill", no_argument, NULL, O_PREFILL },
	{ "preset", required_argument, NULL, O_PRESET },
	{ "quiet", no_argument, NULL, 'q' },
	{ "raw", no_argument, NULL, O_RAW },
	{ "seed", required_argument, NULL, O_SEED },
	{ "self-check", no_argument, NULL, O_SELF_CHECK },
	{ "show-config", no_argument, NULL, O_SHOW_CONFIG },
	{ "util-interval", required_argument, NULL, O_UTIL_INTERVAL },
	{ "verbose", no_argument, NULL, 'v' },
};

#define NRUNOPTS (sizeof runopts / sizeof runopts[0])
static struct option longopts[NRUNOPTS + MAX_TOPTS + 1];

static void add_table(const struct mp_opt *t)
{
	for (const struct mp_opt *o = t; o && o->name; o++) {
		int dup = 0;
		if (o->flags & MP_OPT_HIDDEN)
			continue;
		for (size_t k = 0; k < ntopts; k++)
			dup |= strcmp(topts[k]->name, o->name) == 0;
		if (dup || ntopts == MAX_TOPTS)
			continue;
		topts[ntopts++] = o;
	}
}

/* getopt's table: the run options, then the tables' options. */
static void build_longopts(void)
{
	size_t n = 0;
	const struct mp_model_ops *m;
	add_table(mp_opt_driver);
	add_table(mp_opt_network);
	for (size_t i = 0; (m = mp_model_at(i)); i++)
		add_table(m->opts);
	for (size_t k = 0; k < NRUNOPTS; k++)
		longopts[n++] = runopts[k];
	for (size_t k = 0; k < ntopts; k++)
		longopts[n++] = (struct option){ topts[k]->name, required_argument,
						 NULL, OPT_BASE + (int)k };
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
}

struct out {
	mp_writer *w;
	mp_deps *deps;  /* closed-loop replay (deps=1 streams), or NULL */
	mp_sim *f;
	int in_run;     /* inside mp_sim_run */
	int yielded;    /* a delivery released messages during the run */
};

static int emit(void *ctx, const mp_rec *rec)
{
	struct out *o = ctx;
	if (o->deps && rec->tag == MP_REC_DLV) {
		int n = mp_deps_delivered(o->deps, rec->dlv.id, rec->dlv.t_done);
		if (n < 0)
			return -1;
		if (n > 0 && o->in_run) {
			o->yielded = 1;
			mp_sim_yield(o->f);
		}
	}
	return mp_writer_put(o->w, rec);
}

/* Give up on the output and exit 1 with a located message. */
MP_PRINTF(2, 3)
MP_NORETURN static void fail_out(struct out *o, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	mp_writer_abort(o->w);
	mp_die("%s", buf);
}

/*
 * The next record of the input into *rec; 0 at its end. Exits on a bad
 * stream.
 */
static int next_rec(mp_reader *r, struct out *o, mp_rec *rec)
{
	int rc = mp_reader_next(r, rec);
	if (rc < 0)
		fail_out(o, "%s", mp_reader_error(r));
	return rc;
}

/*
 * Closed-loop replay of a deps=1 stream: a message is released when its
 * trace time has come and all it waits for was delivered (mp_deps), so
 * the fabric runs up to the earlier of the next input message and the
 * next release, and returns early (mp_sim_yield) when a delivery
 * released something. A message to its own node is delivered locally.
 * Returns the status that ended the run (MP_SIM_OK once the input is
 * read and every message released).
 */
static int run_deps(mp_reader *r, mp_sim *f, struct out *o, uint64_t *nread)
{
	const char *in = mp_reader_name(r);
	mp_rec look;
	struct mp_msg cur;
	int have_look = 0, have_cur = 0, eof = 0, st;
	mp_err err;

	for (;;) {
		while (!have_cur && !eof) {
			if (!have_look && !next_rec(r, o, &look)) {
				eof = 1;
				break;
			}
			have_look = 0;
			if (look.tag == MP_REC_DEP)
				fail_out(o, "%s: record %llu: dep record of message "
					    "%llu follows no message", in,
					 (unsigned long long)mp_reader_recno(r),
					 (unsigned long long)look.dep.msg);
			if (look.tag != MP_REC_MSG && look.tag != MP_REC_INJ) {
				if (mp_writer_put(o->w, &look) < 0)
					return MP_SIM_ERROR;
				continue;
			}
			cur = look.msg;
			have_cur = 1;
			if (mp_deps_open(o->deps, &cur, &err) < 0)
				fail_out(o, "%s", err.msg);
			for (;;) {
				if (!next_rec(r, o, &look)) {
					eof = 1;
					break;
				}
				if (look.tag != MP_REC_DEP) {
					have_look = 1;
					break;
				}
				if (mp_deps_dep(o->deps, &look.dep, &err) < 0)
					fail_out(o, "%s: record %llu: %s", in,
						 (unsigned long long)
							 mp_reader_recno(r),
						 err.msg);
			}
		}
		uint64_t t_rel = 0;
		int has_rel = mp_deps_peek(o->deps, &t_rel);
		uint64_t until;
		if (have_cur && (!has_rel || cur.time < t_rel))
			until = cur.time;
		else if (has_rel)
			until = t_rel;
		else if (mp_deps_held(o->deps) > 0 || mp_sim_busy(f))
			until = UINT64_MAX; /* deliveries will release them */
		else
			return MP_SIM_OK;
		o->yielded = 0;
		o->in_run = 1;
		st = mp_sim_run(f, until);
		o->in_run = 0;
		if (st != MP_SIM_OK)
			return st;
		if (o->yielded)
			continue;
		if (until == UINT64_MAX) {
			/* The fabric emptied and released nothing. */
			if (mp_deps_held(o->deps) == 0)
				continue;
			fail_out(o, "%s: %llu messages wait for messages never "
				    "delivered", in,
				 (unsigned long long)mp_deps_held(o->deps));
		}
		if (has_rel && t_rel == until) {
			struct mp_msg m;
			mp_rec rel;
			mp_deps_pop(o->deps, &m, &rel.rel);
			if (mp_writer_put(o->w, &rel) < 0)
				return MP_SIM_ERROR;
			/* issue 17: a message to its own node never enters
			 * the network. */
			int rc = m.src == m.dst ? mp_sim_local(f, &m) :
						  mp_sim_add(f, &m);
			if (rc < 0)
				return MP_SIM_ERROR;
		} else {
			if (mp_deps_close(o->deps, cur.time, &err) < 0)
				fail_out(o, "%s: %s", in, err.msg);
			have_cur = 0;
			(*nread)++;
		}
	}
}

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void set_fabric_meta(mp_hdr *h, const struct mp_cfg *cfg,
			    const mp_sim *f, uint64_t seed)
{
	char topo[64];
	mp_cfg_topo(cfg, topo, sizeof topo);
	if (mp_hdr_setf(h, "nodes", "%u", mp_sim_nodes(f)) < 0 ||
	    mp_hdr_set(h, "topology", topo) < 0 ||
	    mp_hdr_setf(h, "packet_time", "%u", cfg->packet_time) < 0 ||
	    mp_hdr_setf(h, "pe_time", "%g", mp_cfg_pe_time(cfg)) < 0 ||
	    mp_cfg_hdr_write(cfg, h) < 0 ||
	    mp_hdr_setf(h, "fabric.seed", "%llu", (unsigned long long)seed) < 0)
		mp_die("header: out of memory");
}

int main(int argc, char **argv)
{
	struct mp_cfg cfg;
	struct mp_sim_opts fo;
	int show = 0, raw = 0, verbose = 0, quiet = 0, c;
	const char *outpath = NULL;
	mp_err err;
	int keep_going = 0, no_packets = 0, eager = 0, self_check = 0, force = 0;
	int prefill = 0;
	uint64_t seed = 1, util_iv = 0, check_iv = 0, dl_time = 0, max_bl = 0;
	int have_util = 0, have_check = 0, have_dl = 0, have_bl = 0, have_pf = 0;
	int dep_mode = MP_DEP_MAX;

	/* A closed pipe downstream ends netrun as it would any writer. */
	signal(SIGPIPE, SIG_DFL);
	signal(SIGHUP, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	mp_prog_init(prog, usage);
	build_longopts();
	mp_cfg_init(&cfg);
	/* The preset goes first, whatever its place on the command line. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":fhko:qv", longopts, NULL)) != -1)
		if (c == O_PRESET && mp_cfg_preset(&cfg, optarg, &err) < 0)
			mp_usage_error("%s", err.msg);
	if (!cfg.preset[0])
		mp_cfg_preset(&cfg, "po2", NULL);
	optind = 1;
	while ((c = getopt_long(argc, argv, ":fhko:qv", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			mp_usage_help();
		case 'k':
			keep_going = 1;
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case O_CHECK_INTERVAL:
			if (mp_parse_u64(optarg, 1, 1ull << 50, &check_iv,
					 "--check-interval", &err) < 0)
				mp_usage_error("%s", err.msg);
			have_check = 1;
			break;
		case O_DEADLOCK_TIME:
			if (mp_parse_u64(optarg, 1, 1ull << 50, &dl_time,
					 "--deadlock-time", &err) < 0)
				mp_usage_error("%s", err.msg);
			have_dl = 1;
			break;
		case O_DEP_RELEASE:
			if (strcmp(optarg, "max") == 0)
				dep_mode = MP_DEP_MAX;
			else if (strcmp(optarg, "gap") == 0)
				dep_mode = MP_DEP_GAP;
			else
				mp_usage_error("--dep-release: '%s' is not max or gap",
					  optarg);
			break;
		case O_EAGER_RETRIES:
			eager = 1;
			break;
		case O_LIST_MODELS: {
			const struct mp_model_ops *m;
			for (size_t i = 0; (m = mp_model_at(i)); i++)
				printf("%-10s %s\n", m->name, m->desc);
			mp_close_stdout();
			return 0;
		}
		case O_MAX_BACKLOG:
			if (mp_parse_u64(optarg, 1, 1ull << 40, &max_bl,
					 "--max-backlog", &err) < 0)
				mp_usage_error("%s", err.msg);
			have_bl = 1;
			break;
		case O_SELF_CHECK:
			self_check = 1;
			break;
		case O_NO_PACKETS:
			no_packets = 1;
			break;
		case O_PREFILL:
			prefill = 1;
			break;
		case O_PRESET:
			break;
		case O_RAW:
			raw = 1;
			break;
		case O_SEED:
			if (mp_parse_u64(optarg, 0, UINT64_MAX, &seed, "--seed",
					 &err) < 0)
				mp_usage_error("%s", err.msg);
			break;
		case O_SHOW_CONFIG:
			show = 1;
			break;
		case O_UTIL_INTERVAL:
			if (mp_parse_u64(optarg, 1, 1ull << 50, &util_iv,
					 "--util-interval", &err) < 0)
				mp_usage_error("%s", err.msg);
			have_util = 1;
			break;
		case '?':
		case ':':
			mp_opt_err(c, optopt, argv[optind - 1], &err);
			mp_usage_error("%s", err.msg);
		case 'f':
			force = 1;
			break;
		default: {
			if (c < OPT_BASE || (size_t)(c - OPT_BASE) >= ntopts) {
				usage(stderr);
				return 2;
			}
			const char *name = topts[c - OPT_BASE]->name;
			int rc = mp_cfg_set(&cfg, name, optarg, &err);
			if (rc < 0)
				mp_usage_error("%s", err.msg);
			if (rc > 0)
				mp_usage_error("--%s: not a fabric option", name);
			if (strcmp(name, "packet-flits") == 0)
				have_pf = 1;
			break;
		}
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1)
		mp_usage_error("too many inputs (one file or standard input)");
	if (mp_cfg_check(&cfg, &err) < 0)
		mp_usage_error("%s", err.msg);
	if (show) {
		char buf[4096];
		mp_cfg_format(&cfg, buf, sizeof buf);
		fputs(buf, stdout);
		mp_close_stdout();
		return 0;
	}
	mp_sim_defaults(&cfg, &fo);
	fo.seed = seed;
	fo.keep_going = keep_going;
	fo.no_packets = no_packets;
	fo.eager_retries = eager;
	fo.self_check = self_check;
	fo.prefill = prefill;
	if (have_util)
		fo.util_interval = util_iv;
	if (have_check)
		fo.check_interval = check_iv;
	if (have_dl)
		fo.deadlock_time = dl_time;
	if (have_bl)
		fo.max_backlog = max_bl;

	const char *inpath = argc ? argv[0] : "-";
	if (strcmp(inpath, "-") == 0 && isatty(STDIN_FILENO))
		mp_usage_error("standard input is a terminal: give a file or pipe a "
			  "stream (wlgen ... | netrun)");
	if ((!outpath || strcmp(outpath, "-") == 0) &&
	    isatty(STDOUT_FILENO) && !force)
		mp_usage_error("standard output is a terminal: netrun writes a "
			  "binary stream; pipe it, use -o FILE, or force with "
			  "-f");
	mp_reader *r = mp_reader_open(inpath, &err);
	if (!r)
		mp_die("%s", err.msg);
	const mp_hdr *ih = mp_reader_header(r);
	const char *in = mp_reader_name(r);
	int kind = mp_hdr_kind(ih);
	if (kind != MP_KIND_MESSAGES && kind != MP_KIND_INJECTIONS)
		mp_die("%s: a %s stream: netrun reads messages (wlgen) or "
		    "injections (sched)", in, mp_kind_name(kind));
	struct mp_ni_policy pol;
	if (mp_ni_policy_read(ih, &pol, &err) < 0)
		mp_die("%s: %s", in, err.msg);

	/* Boughton's model source (wlgen --arrival model:P): closed loop,
	 * so the stream only declares it and the model generates it. */
	const char *arr = mp_hdr_get(ih, "arrival");
	if (arr && strncmp(arr, "model:", 6) == 0) {
		char *end;
		fo.source_p = strtod(arr + 6, &end);
		if (end == arr + 6 || *end || !(fo.source_p > 0 &&
						fo.source_p <= 1))
			mp_die("%s: header: bad arrival '%s'", in, arr);
		if (mp_hdr_get_u64(ih, "messages", &fo.source_n) < 0 ||
		    !fo.source_n)
			mp_die("%s: header: model sources without a message "
			    "count (wlgen -n)", in);
		if (mp_hdr_get_u64(ih, "seed", &fo.source_seed) < 0)
			fo.source_seed = 1;
		const char *dst = mp_hdr_get(ih, "dest");
		if (dst && strncmp(dst, "local:", 6) == 0) {
			char *e2;
			unsigned long l = strtoul(dst + 6, &e2, 10);
			if (e2 == dst + 6 || *e2 || l < 1 || l > 65534)
				mp_die("%s: header: bad dest '%s'", in, dst);
			fo.source_local = (unsigned)l;
		} else if (dst && strcmp(dst, "uniform") != 0) {
			mp_die("%s: header: model sources with dest '%s' (uniform "
			    "or local:L)", in, dst);
		}
	}

	/* A load in flits (wlgen --preset damq) assumes a packet length:
	 * take the stream's when none is given, refuse a different one (it
	 * would change the offered load without a word). */
	const char *pfs = mp_hdr_get(ih, "packet_flits");
	if (pfs) {
		uint64_t spf;
		if (mp_hdr_get_u64(ih, "packet_flits", &spf) < 0 || spf < 1 ||
		    spf > 1u << 16)
			mp_die("%s: header: bad packet_flits '%s'", in, pfs);
		if (!have_pf) {
			if (mp_cfg_set(&cfg, "packet-flits", pfs, &err) != 0 ||
			    mp_cfg_check(&cfg, &err) < 0)
				mp_die("%s: packet_flits=%s from the stream: %s",
				       in, pfs, err.msg);
		} else if (spf != cfg.packet_flits) {
			mp_die("%s: the stream's load is for %llu-flit packets "
			       "(wlgen --packet-flits %llu), not --packet-flits "
			       "%u", in, (unsigned long long)spf,
			       (unsigned long long)spf, cfg.packet_flits);
		}
	}

	struct out out = { .w = NULL };
	mp_sim *f = mp_sim_new(mp_model_find(cfg.model), &cfg, &pol, &fo, emit, &out, &err);
	if (!f)
		mp_usage_error("%s", err.msg);
	uint64_t hn;
	if (mp_hdr_get_u64(ih, "nodes", &hn) == 0 && hn != mp_sim_nodes(f))
		mp_die("%s: the stream is for %llu nodes, the fabric has %u", in,
		    (unsigned long long)hn, mp_sim_nodes(f));
	/* dest=any lets a message go to its own source: through the
	 * network only where a terminal's input and output are different
	 * ports (wlgen refuses it elsewhere; a hand-made header may not). */
	const char *dany = mp_hdr_get(ih, "dest");
	const mp_net *fnet = mp_sim_net(f);
	if (dany && strcmp(dany, "any") == 0 && fnet && mp_net_direct(fnet))
		mp_die("%s: header: dest=any (messages to their own source) "
		    "needs an indirect network, not %s", in, mp_net_name(fnet));

	mp_hdr *oh = mp_hdr_dup(ih);
	if (!oh)
		mp_die("out of memory");
	mp_hdr_set_kind(oh, MP_KIND_DELIVERIES);
	set_fabric_meta(oh, &cfg, f, seed);
	/* Readers must know an absent packet record is not a lost one. */
	mp_hdr_set(oh, "pkt_records", no_packets ? "0" : "1");
	if (mp_hdr_deps(ih)) {
		mp_hdr_set(oh, "dep_release", dep_mode == MP_DEP_GAP ? "gap" :
								       "max");
		out.f = f;
		if (!(out.deps = mp_deps_new(dep_mode)))
			mp_die("out of memory");
	}
	mp_hdr_add_prov(oh, prog, argc + optind - 1, argv - optind + 1, 1, seed);
	out.w = mp_writer_open(outpath, oh, raw ? MP_W_RAW : 0, &err);
	mp_hdr_free(oh);
	if (!out.w)
		mp_die("%s", err.msg);

	int progress = !quiet && isatty(2);
	double t0 = wall(), last = t0;
	mp_rec rec;
	int st = MP_SIM_OK, rc;
	uint64_t nread = 0;
	/* Closed-loop replay releases messages as deliveries allow; an
	 * open-loop stream is offered as it is read. */
	if (out.deps)
		st = run_deps(r, f, &out, &nread);
	while (!out.deps) {
		rc = mp_reader_next(r, &rec);
		if (rc < 0) {
			mp_writer_abort(out.w);
			mp_die("%s", mp_reader_error(r));
		}
		if (rc == 0)
			break;
		if (rec.tag != MP_REC_MSG && rec.tag != MP_REC_INJ) {
			/* Not ours: pass it on. */
			if (mp_writer_put(out.w, &rec) < 0)
				break;
			continue;
		}
		st = mp_sim_offer(f, &rec.msg);
		if (st != MP_SIM_OK)
			break;
		nread++;
		if (progress && (nread & 1023) == 0) {
			double now = wall();
			if (now - last >= 0.5) {
				struct mp_sim_counts cn;
				mp_sim_counts(f, &cn);
				fprintf(stderr, "\r%s: t=%llu msgs %llu done %llu "
						"(%.0f msgs/s)   ", prog,
					(unsigned long long)mp_sim_now(f),
					(unsigned long long)cn.msgs_in,
					(unsigned long long)cn.msgs_done,
					(double)cn.msgs_in / (now - t0));
				last = now;
			}
		}
	}
	/* Model sources end the input themselves, at their last message. */
	if (st == MP_SIM_OK && fo.source_n)
		st = mp_sim_run(f, UINT64_MAX);
	if (st == MP_SIM_OK) {
		mp_sim_input_done(f);
		st = mp_sim_run(f, UINT64_MAX);
	}
	if (progress)
		fprintf(stderr, "\r%60s\r", "");
	if (st == MP_SIM_ERROR) {
		const char *we = mp_writer_error(out.w);
		if (we[0])
			mp_die("%s", we);
		mp_writer_abort(out.w);
		mp_die("%s: record %llu: %s", in,
		    (unsigned long long)mp_reader_recno(r), mp_sim_error(f));
	}
	int final = mp_sim_finish(f, st);
	struct mp_sim_counts cn;
	mp_sim_counts(f, &cn);
	if (verbose)
		fprintf(stderr,
			"%s: accounting at t=%llu: messages read %llu = delivered "
			"%llu + unfinished %llu; packets accepted %llu = "
			"delivered %llu + in flight %llu; %llu packets never "
			"accepted (queued at sources); %llu refusals; %llu "
			"packet-hops; %llu events; source backlog %llu packets "
			"halfway through the input, %llu at its end, %llu "
			"offered in between\n",
			prog, (unsigned long long)mp_sim_now(f),
			(unsigned long long)cn.msgs_in,
			(unsigned long long)cn.msgs_done,
			(unsigned long long)(cn.msgs_in - cn.msgs_done),
			(unsigned long long)cn.pkts_injected,
			(unsigned long long)cn.pkts_delivered,
			(unsigned long long)cn.pkts_in_flight,
			(unsigned long long)cn.pkts_queued,
			(unsigned long long)cn.refusals,
			(unsigned long long)cn.hops,
			(unsigned long long)cn.events,
			(unsigned long long)cn.backlog_mid,
			(unsigned long long)cn.backlog_end,
			(unsigned long long)cn.offered_between);
	if (mp_writer_close(out.w, &err) < 0)
		mp_die("%s", err.msg);
	if (final == MP_SIM_ERROR)
		mp_die("%s", mp_sim_error(f));
	int status = 0;
	if (st == MP_SIM_DEADLOCK) {
		char buf[4096];
		fprintf(stderr, "%s: %s\n", prog, mp_sim_error(f));
		mp_sim_report(f, 20, buf, sizeof buf);
		fprintf(stderr, "%s", buf);
		status = 1;
	} else if (st == MP_SIM_SATURATED) {
		fprintf(stderr, "%s: %s (use -k to mark and go on)\n", prog,
			mp_sim_error(f));
		status = 1;
	} else if (cn.msgs_in != cn.msgs_done || cn.pkts_in_flight ||
		   cn.pkts_queued) {
		char buf[4096];
		fprintf(stderr, "%s: internal error: %llu messages read, %llu "
				"delivered at the end of the run\n", prog,
			(unsigned long long)cn.msgs_in,
			(unsigned long long)cn.msgs_done);
		mp_sim_report(f, 20, buf, sizeof buf);
		fprintf(stderr, "%s", buf);
		status = 1;
	} else if (final == MP_SIM_SATURATED && !keep_going) {
		fprintf(stderr, "%s: saturated: source queues grew without "
				"bound over the run (use -k to accept)\n", prog);
		status = 1;
	}
	mp_reader_close(r);
	mp_sim_free(f);
	mp_deps_free(out.deps);
	return status;
}
