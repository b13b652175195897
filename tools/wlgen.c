/*
 * wlgen: write a stream of messages (kind "messages") for sched or
 * netrun: a generated workload (lib/mp_workload) for a preset's fabric,
 * or a recorded CSV trace replayed. Options, wiring and output only.
 */
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mp_config.h"
#include "mp_prog.h"
#include "mp_record.h"
#include "mp_stream.h"
#include "mp_util.h"
#include "mp_workload.h"

static const char synopsis[] =
	"usage: wlgen [--preset NAME] [--size N | --topo SPEC] --load U\n"
	"             (-n N | --duration T) [options]\n"
	"       wlgen [--preset NAME] --replay FILE.csv [replay options]\n"
	"       wlgen [--preset NAME] --netrace FILE.tra[.bz2] [replay options]\n"
	"       wlgen [--preset NAME] --chains N [--think T] (-n N | --duration T)\n";
static const char options_text[] =
	"Write a message stream (kind messages) in time order.\n"
	"  --preset NAME        fabric and workload preset (po2, fedx, torus,\n"
	"                       cmp, rs, damq, ncube; default po2); options\n"
	"                       override it\n"
	"  --size N, --topo S   E_N or an N x N mesh; hex:7, hexrect:8x8, torus:8x8,\n"
	"                       mesh:8x8, butterfly:A,D, omega:A,D, crossbar:N,\n"
	"                       kary:8,3 (unidirectional k-ary n-cube)\n"
	"  --stages D           butterfly of D stages of 2x2 routers (preset ncube)\n"
	"  --packet-flits L     flits per packet (preset damq: --load is in flits\n"
	"                       per node per cycle)\n"
	"  --nodes N            fail unless the fabric has N nodes\n"
	"  -n, --messages N     stop after N messages\n"
	"  --duration T         stop at time T (units of the preset)\n"
	"  --load U             offered load, fraction of PE-port bandwidth (0, 10]\n"
	"  --workload NAME      bimodal, uniform, wk1-5, wk30, wk-mixture, fixed:K\n"
	"  --uniform            single-packet messages (--workload uniform)\n"
	"  --long P             percentage of long messages (10 or 10%)\n"
	"  --short-min K, --short-max K, --long-len K   message lengths, packets\n"
	"  --payload B          payload bytes per packet (preset: 128)\n"
	"  --arrival A          poisson, geometric, saturated, bernoulli, or\n"
	"                       model:P (Boughton's source, made by netrun)\n"
	"  --dest D             uniform, transpose, bitcomp, neighbor, distance:K,\n"
	"                       local:L (within L hops), any (the source too;\n"
	"                       indirect networks)\n"
	"  --hot-spots K        K hot destination nodes chosen from the seed\n"
	"  --hot-nodes LIST     the hot nodes, e.g. 3,17,40\n"
	"  --hot-share P        percentage of PEs sending to them (default 30)\n"
	"  --hot-load U         load of those hot senders (default --load)\n"
	"  --gt-share P         percentage of guaranteed-class messages\n"
	"  --gt-load U          a separate guaranteed stream per node at load U\n"
	"  --gt-length K        its message length in packets (default 1)\n"
	"  --adaptive-share P   percentage of messages marked adaptive (route=2)\n"
	"  --chains N           N request/response chains between random nodes,\n"
	"                       each message waiting for the one before (deps)\n"
	"  --think T            chains: mean think time between messages (100)\n"
	"  --seed S             random seed (default 1)\n"
	"  --replay FILE        replay a CSV trace (time,src,dst,packets|bytes)\n"
	"  --netrace FILE       replay a Netrace trace (bzip2-compressed or not)\n"
	"  --time-scale X       replay: multiply trace times by X, then round\n"
	"  --remap LIST         replay: node ids old:new,old:new...\n"
	"  --remap-mod          replay: node ids modulo the node count\n"
	"  --drop-self          replay: skip rows whose src equals dst\n"
	"  --no-deps            Netrace: drop dependencies (open-loop replay)\n"
	"  --region K           Netrace: only region K of the trace\n"
	"  -f, --force          write the binary stream to a terminal too\n"
	"  -o, --output FILE    write to FILE instead of standard output\n"
	"  --raw                write uncompressed\n"
	"  -h, --help           this help\n";

/* Full help (-h). */
static void usage(FILE *f)
{
	fputs(synopsis, f);
	fputs(options_text, f);
}

/* Fatal signals: remove an -o file's temporary name, then die of it. */
static void on_signal(int sig)
{
	mp_tmpout_unlink_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Option codes beyond single letters. */
enum {
	O_WL = 0x100, /* a workload option: mp_wl_set by its long name */
	O_FABRIC,     /* a fabric option: mp_cfg_set by its long name */
	O_DURATION,
	O_NODES,
	O_PRESET,
	O_RAW
};

/* Options that only make sense when generating, or when replaying. */
static const char *const gen_only[] = {
	"adaptive-share", "arrival", "chains", "dest", "gt-length", "gt-load", "gt-share",
	"hot-load", "hot-nodes", "hot-share", "hot-spots", "load", "long",
	"long-len", "short-max", "short-min", "think", "uniform", "workload",
	NULL
};
static const char *const replay_only[] = { "drop-self", "no-deps", "region",
					   "remap", "remap-mod", "time-scale",
					   NULL };

/*
 * The dep records of message id (mp_workload_deps): its dependencies,
 * MP_DEP_IDS to a record, the count of later messages naming it in the
 * first. Returns 0, or -1 when a write failed.
 */
static int put_deps(mp_writer *wr, const mp_workload *w, uint64_t id)
{
	const uint64_t *after;
	size_t n;
	uint32_t users;
	mp_workload_deps(w, &after, &n, &users);
	for (size_t k = 0; k == 0 ? (n > 0 || users > 0) : k < n;
	     k += MP_DEP_IDS) {
		mp_rec r;
		memset(&r, 0, sizeof r);
		r.dep.tag = MP_REC_DEP;
		r.dep.msg = id;
		r.dep.users = k == 0 ? users : 0;
		for (size_t j = 0; j < MP_DEP_IDS && k + j < n; j++)
			r.dep.after[r.dep.n++] = after[k + j];
		if (mp_writer_put(wr, &r) < 0)
			return -1;
	}
	return 0;
}

/*
 * Open a Netrace trace for reading; a bzip2-compressed one (magic "BZh")
 * is read through `bzip2 -dc`, whose pid goes to *child. Returns the
 * descriptor of the uncompressed bytes; exits on failure.
 */
/*
 * FNV-1a (64-bit) of the bytes of the file at path, for the provenance of
 * a replayed trace: a name says which file, the hash which contents.
 * Exits on a read error.
 */
static uint64_t fnv1a64_file(const char *path)
{
	uint64_t h = 0xcbf29ce484222325ull;
	unsigned char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		mp_die("%s: %s", path, strerror(errno));
	while ((n = read(fd, buf, sizeof buf)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			mp_die("%s: read failed: %s", path, strerror(errno));
		}
		for (ssize_t i = 0; i < n; i++) {
			h ^= buf[i];
			h *= 0x100000001b3ull;
		}
	}
	close(fd);
	return h;
}

static int open_netrace(const char *path, pid_t *child)
{
	unsigned char m[3];
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		mp_die("%s: %s", path, strerror(errno));
	if (pread(fd, m, 3, 0) != 3 || memcmp(m, "BZh", 3) != 0)
		return fd;
	int p[2];
	if (pipe(p) < 0)
		mp_die("pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0)
		mp_die("fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(fd, 0);
		dup2(p[1], 1);
		close(fd);
		close(p[0]);
		close(p[1]);
		/* Whatever SIGPIPE disposition wlgen inherited, the
		 * decompressor must die of it when wlgen stops reading early. */
		signal(SIGPIPE, SIG_DFL);
		/* Its diagnostics would only repeat ours. */
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, 2);
		execlp("bzip2", "bzip2", "-dc", (char *)NULL);
		_exit(127);
	}
	close(fd);
	close(p[1]);
	*child = pid;
	return p[0];
}

/*
 * Close the decompressor's pipe and wait for it (nothing to do when
 * child < 0). Returns 0, or -1 when it failed (a corrupt or truncated
 * file; a decompressor stopped by the closed pipe has not failed).
 */
static int reap(pid_t child, int fd)
{
	int st;
	if (child < 0)
		return 0;
	close(fd);
	while (waitpid(child, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE)
		return 0;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int listed(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (strcmp(*list, name) == 0)
			return 1;
	return 0;
}

/* Wall-clock seconds, for the progress line on a terminal. */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct pair {
	const char *name, *val;
};

/* Workload and fabric options in command-line order, applied after the
 * preset. File-level so an early exit leaves them reachable. */
static struct pair *wl, *fab;

int main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "adaptive-share", required_argument, NULL, O_WL },
		{ "arrival", required_argument, NULL, O_WL },
		{ "chains", required_argument, NULL, O_WL },
		{ "dest", required_argument, NULL, O_WL },
		{ "drop-self", no_argument, NULL, O_WL },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "gt-length", required_argument, NULL, O_WL },
		{ "gt-load", required_argument, NULL, O_WL },
		{ "gt-share", required_argument, NULL, O_WL },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "hot-load", required_argument, NULL, O_WL },
		{ "hot-nodes", required_argument, NULL, O_WL },
		{ "hot-share", required_argument, NULL, O_WL },
		{ "hot-spots", required_argument, NULL, O_WL },
		{ "load", required_argument, NULL, O_WL },
		{ "long", required_argument, NULL, O_WL },
		{ "long-len", required_argument, NULL, O_WL },
		{ "messages", required_argument, NULL, 'n' },
		{ "netrace", required_argument, NULL, O_WL },
		{ "no-deps", no_argument, NULL, O_WL },
		{ "nodes", required_argument, NULL, O_NODES },
		{ "output", required_argument, NULL, 'o' },
		{ "packet-flits", required_argument, NULL, O_FABRIC },
		{ "payload", required_argument, NULL, O_WL },
		{ "preset", required_argument, NULL, O_PRESET },
		{ "raw", no_argument, NULL, O_RAW },
		{ "region", required_argument, NULL, O_WL },
		{ "remap", required_argument, NULL, O_WL },
		{ "remap-mod", no_argument, NULL, O_WL },
		{ "replay", required_argument, NULL, O_WL },
		{ "seed", required_argument, NULL, O_WL },
		{ "short-max", required_argument, NULL, O_WL },
		{ "short-min", required_argument, NULL, O_WL },
		{ "size", required_argument, NULL, O_FABRIC },
		{ "stages", required_argument, NULL, O_FABRIC },
		{ "think", required_argument, NULL, O_WL },
		{ "time-scale", required_argument, NULL, O_WL },
		{ "topo", required_argument, NULL, O_FABRIC },
		{ "uniform", no_argument, NULL, O_WL },
		{ "workload", required_argument, NULL, O_WL },
		{ NULL, 0, NULL, 0 }
	};
	int orig_argc = argc;
	char **orig_argv = argv;
	const char *preset = "po2", *out = NULL;
	uint64_t nmsgs = 0, duration = 0, nodes = 0;
	int has_n = 0, has_dur = 0, raw = 0, force = 0;
	size_t nwl = 0, nfab = 0;
	mp_err err;
	int c, idx;

	wl = calloc((size_t)argc + 1, sizeof *wl);
	fab = calloc((size_t)argc + 1, sizeof *fab);
	if (!wl || !fab)
		mp_die("out of memory");
	mp_prog_init("wlgen", usage);

	/* A closed pipe downstream ends wlgen as it would any writer. */
	signal(SIGPIPE, SIG_DFL);
	signal(SIGHUP, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":fhn:o:", longopts, &idx)) != -1) {
		switch (c) {
		case 'f':
			force = 1;
			break;
		case 'h':
			usage(stdout);
			free(wl);
			free(fab);
			if (fclose(stdout) != 0)
				mp_die("stdout: write failed: %s", strerror(errno));
			return 0;
		case 'n':
			if (mp_parse_u64(optarg, 0, UINT64_C(1) << 50, &nmsgs,
					 "-n", &err) < 0)
				mp_usage_error("%s", err.msg);
			has_n = 1;
			break;
		case 'o':
			out = optarg;
			break;
		case O_DURATION:
			if (mp_parse_u64(optarg, 0, UINT64_C(1) << 62, &duration,
					 "--duration", &err) < 0)
				mp_usage_error("%s", err.msg);
			has_dur = 1;
			break;
		case O_FABRIC:
			fab[nfab].name = longopts[idx].name;
			fab[nfab++].val = optarg;
			break;
		case O_NODES:
			if (mp_parse_u64(optarg, 2, UINT32_MAX, &nodes, "--nodes",
					 &err) < 0)
				mp_usage_error("%s", err.msg);
			break;
		case O_PRESET:
			preset = optarg;
			break;
		case O_RAW:
			raw = 1;
			break;
		case O_WL:
			wl[nwl].name = longopts[idx].name;
			wl[nwl++].val = optarg;
			break;
		default:
			mp_opt_err(c, optopt, argv[optind - 1], &err);
			mp_usage_error("%s", err.msg);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 0)
		mp_usage_error("unexpected argument '%s'", argv[0]);

	/* The preset first, then the command line, whatever its order. */
	struct mp_cfg cfg;
	struct mp_wl_cfg wc;
	mp_cfg_init(&cfg);
	if (mp_cfg_preset(&cfg, preset, &err) < 0)
		mp_usage_error("%s", err.msg);
	mp_wl_cfg_init(&wc);
	if (mp_wl_set_words(&wc, mp_preset_workload(preset), &err) < 0)
		mp_die("preset %s: %s", preset, err.msg);
	for (size_t i = 0; i < nfab; i++)
		if (mp_cfg_set(&cfg, fab[i].name, fab[i].val, &err) != 0)
			mp_usage_error("%s", err.msg);
	/* Only the network's shape matters here (routing, buffers and the
	 * like are netrun's business). */
	mp_net *net = mp_cfg_net(&cfg, &err);
	if (!net)
		mp_usage_error("%s", err.msg);
	struct mp_wl_shape shape = { net, mp_cfg_pe_time(&cfg), cfg.payload,
				     mp_cfg_load_flits(&cfg) };
	/* A workload resets the lengths: apply it before the length options. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < nwl; i++) {
			int first = strcmp(wl[i].name, "workload") == 0 ||
				    strcmp(wl[i].name, "uniform") == 0;
			if (first != (pass == 0))
				continue;
			if (mp_wl_set(&wc, wl[i].name, wl[i].val, &err) != 0)
				mp_usage_error("%s", err.msg);
		}
	for (size_t i = 0; i < nwl; i++) {
		if (wc.replay && listed(gen_only, wl[i].name))
			mp_usage_error("--%s: not used with --replay", wl[i].name);
		if (!wc.replay && listed(replay_only, wl[i].name))
			mp_usage_error("--%s: only used with --replay", wl[i].name);
	}
	if (!wc.replay && !has_n && !has_dur)
		mp_usage_error("give -n or --duration");
	if ((!out || strcmp(out, "-") == 0) && isatty(STDOUT_FILENO) && !force)
		mp_usage_error("standard output is a terminal: wlgen writes a "
			    "binary stream; pipe it, use -o FILE, or force with -f");
	if (!wc.replay && wc.arrival == MP_ARR_MODEL && !has_n)
		mp_usage_error("--arrival model:P: give -n (the messages the "
			       "model sources make in netrun)");

	pid_t unzip = -1;
	if (wc.replay && wc.replay_fmt == MP_WL_NETRACE &&
	    strcmp(wc.replay, "-") != 0)
		wc.replay_fd = open_netrace(wc.replay, &unzip);
	mp_workload *w = mp_workload_new(&wc, &shape, &err);
	if (!w)
		mp_usage_error("%s", err.msg);
	if (nodes && mp_workload_nodes(w) != nodes)
		mp_usage_error("--nodes: the fabric (%s) has %u nodes, not %llu",
			    mp_net_name(net), mp_workload_nodes(w),
			    (unsigned long long)nodes);
	if (mp_workload_start(w, &err) < 0) {
		if (reap(unzip, wc.replay_fd) < 0)
			mp_die("%s: bzip2 -dc failed: the file is corrupt or "
			    "truncated", wc.replay);
		mp_die("%s", err.msg);
	}

	mp_hdr *h = mp_hdr_new(MP_KIND_MESSAGES);
	if (!h)
		mp_die("out of memory");
	if (mp_workload_describe(w, h) < 0) {
		size_t ns;
		mp_workload_hot_senders(w, &ns);
		mp_die("header: out of memory, or %zu hot senders are too many to "
		    "list in a stream header", ns);
	}
	/* A trace read from standard input cannot be hashed before the
	 * header goes out: it then has no hash. */
	if (wc.replay && strcmp(wc.replay, "-") != 0 &&
	    mp_hdr_setf(h, "replay.fnv1a64", "%016llx",
			(unsigned long long)fnv1a64_file(wc.replay)) < 0)
		mp_die("header: out of memory");
	if (mp_hdr_set(h, "preset", preset) < 0 ||
	    mp_hdr_set(h, "time_unit", mp_preset_time_unit(preset)) < 0 ||
	    mp_hdr_setf(h, "packet_time", "%u", cfg.packet_time) < 0 ||
	    (has_n && mp_hdr_setf(h, "messages", "%llu",
				  (unsigned long long)nmsgs) < 0) ||
	    (has_dur && mp_hdr_setf(h, "duration", "%llu",
				    (unsigned long long)duration) < 0) ||
	    mp_hdr_add_prov(h, "wlgen", orig_argc - 1, orig_argv + 1, 1, wc.seed) < 0)
		mp_die("header: out of memory");
	mp_writer *wr = mp_writer_open(out, h, raw ? MP_W_RAW : 0, &err);
	mp_hdr_free(h);
	if (!wr)
		mp_die("%s", err.msg);

	int tty = isatty(STDERR_FILENO), shown = 0;
	double last = tty ? now() : 0;
	uint64_t count = 0;
	mp_rec rec;
	for (;;) {
		if (has_n && count == nmsgs)
			break;
		int rc = mp_workload_next(w, &rec.msg);
		if (rc < 0) {
			/* Cut the stream short without a trailer, so a reader
			 * downstream sees it truncated, not complete (an -o
			 * file is left as it was). */
			mp_writer_abort(wr);
			if (reap(unzip, wc.replay_fd) < 0)
				fprintf(stderr, "%swlgen: %s: bzip2 -dc failed: the "
						"file is corrupt or truncated\n",
					shown ? "\n" : "", wc.replay);
			else
				fprintf(stderr, "%swlgen: %s\n", shown ? "\n" : "",
					mp_workload_error(w));
			mp_workload_free(w);
			mp_net_free(net);
			free(wl);
			free(fab);
			return 1;
		}
		if (rc == 0 || (has_dur && rec.msg.time >= duration))
			break;
		if (mp_writer_put(wr, &rec) < 0)
			break;
		if (put_deps(wr, w, rec.msg.id) < 0)
			break;
		count++;
		if (tty && (count & 4095) == 0 && now() - last >= 0.25) {
			last = now();
			fprintf(stderr, "\rwlgen: %llu messages, time %llu ",
				(unsigned long long)count,
				(unsigned long long)rec.msg.time);
			shown = 1;
		}
	}
	if (shown)
		fprintf(stderr, "\rwlgen: %llu messages, time %llu\n",
			(unsigned long long)count, (unsigned long long)rec.msg.time);
	if (reap(unzip, wc.replay_fd) < 0) {
		mp_writer_abort(wr);
		mp_die("%s: bzip2 -dc failed: the file is corrupt or truncated",
		    wc.replay);
	}
	mp_workload_free(w);
	mp_net_free(net);
	free(wl);
	free(fab);
	if (mp_writer_close(wr, &err) < 0)
		mp_die("%s", err.msg);
	return 0;
}
