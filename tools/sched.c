/*
 * sched: decide the injection policy of a message stream. It segments
 * messages into packets, assigns priority classes, and records the
 * policy (FIFO, alpha scheduling, shortest-remaining-first) in the
 * stream header; netrun's network interface applies that policy against
 * the packets the fabric actually accepts, which is what makes alpha
 * scheduling closed-loop (see sched(1)).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_hdrcfg.h"
#include "mp_ni.h"
#include "mp_prog.h"
#include "mp_stream.h"
#include "mp_util.h"

static const char *prog = "sched";

static void usage(FILE *fp)
{
	fprintf(fp,
"usage: sched [options] [file]\n"
"Turn a message stream (wlgen) into an injection stream for netrun.\n"
"\n"
"  -a, --alpha A        alpha scheduling: priority c + A*l (default 0: FIFO)\n"
"  -c, --class-priority guaranteed messages before best-effort ones\n"
"  -f, --fifo           first come, first served (= --alpha 0)\n"
"  --force              write the binary stream to a terminal too\n"
"  -o, --output FILE    write to FILE instead of standard output\n"
"  --raw                write uncompressed\n"
"  -s, --segment B      re-segment: packets = ceil(bytes / B)\n"
"  --srf                shortest remaining message first\n"
"  -h, --help           this help\n");
}

/* Fatal signals: remove an -o file's temporary name, then die of it. */
static void on_signal(int sig)
{
	mp_tmpout_unlink_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

enum { O_RAW = 256, O_SRF, O_FORCE };

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "alpha", required_argument, NULL, 'a' },
		{ "class-priority", no_argument, NULL, 'c' },
		{ "fifo", no_argument, NULL, 'f' },
		{ "force", no_argument, NULL, O_FORCE },
		{ "help", no_argument, NULL, 'h' },
		{ "output", required_argument, NULL, 'o' },
		{ "raw", no_argument, NULL, O_RAW },
		{ "segment", required_argument, NULL, 's' },
		{ "srf", no_argument, NULL, O_SRF },
		{ NULL, 0, NULL, 0 }
	};
	double alpha = 0;
	int c, raw = 0, srf = 0, class_prio = 0, force = 0;
	uint64_t segment = 0;
	const char *outpath = NULL;
	mp_err err;
	int nargc = argc;
	char **nargv = argv;

	mp_prog_init(prog, usage);

	/* A closed pipe downstream ends sched as it would any writer. */
	signal(SIGPIPE, SIG_DFL);
	signal(SIGHUP, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":a:cfho:s:", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (mp_parse_double(optarg, 0, 1e9, 0, &alpha, "--alpha",
					    &err) < 0)
				mp_usage_error("%s", err.msg);
			break;
		case 'c':
			class_prio = 1;
			break;
		case 'f':
			alpha = 0;
			srf = 0;
			break;
		case O_FORCE:
			force = 1;
			break;
		case 'h':
			usage(stdout);
			if (fclose(stdout) != 0)
				mp_die("stdout: write failed: %s", strerror(errno));
			return 0;
		case 'o':
			outpath = optarg;
			break;
		case O_RAW:
			raw = 1;
			break;
		case 's':
			if (mp_parse_u64(optarg, 1, 1u << 30, &segment, "--segment",
					 &err) < 0)
				mp_usage_error("%s", err.msg);
			break;
		case O_SRF:
			srf = 1;
			break;
		default:
			mp_opt_err(c, optopt, argv[optind - 1], &err);
			mp_usage_error("%s", err.msg);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1)
		mp_usage_error("too many inputs (one file or standard input)");
	if (argc == 0 && isatty(0))
		mp_usage_error("standard input is a terminal: give a file or pipe a "
		       "stream from wlgen");
	if ((!outpath || strcmp(outpath, "-") == 0) && isatty(1) && !force)
		mp_usage_error("standard output is a terminal: sched writes a binary "
		       "stream; pipe it, use -o FILE, or --force");

	mp_reader *r = mp_reader_open(argc ? argv[0] : "-", &err);
	if (!r)
		mp_die("%s", err.msg);
	const mp_hdr *ih = mp_reader_header(r);
	int kind = mp_hdr_kind(ih);
	if (kind != MP_KIND_MESSAGES && kind != MP_KIND_INJECTIONS)
		mp_die("%s: a %s stream: sched reads messages", mp_reader_name(r),
		    mp_kind_name(kind));
	mp_hdr *oh = mp_hdr_dup(ih);
	if (!oh)
		mp_die("out of memory");
	mp_hdr_set_kind(oh, MP_KIND_INJECTIONS);
	struct mp_ni_policy pol = { srf ? MP_NI_SRF : MP_NI_ALPHA, alpha,
				    class_prio };
	if (mp_ni_policy_write(&pol, oh) < 0)
		mp_die("out of memory");
	if (segment)
		mp_hdr_setf(oh, "payload", "%llu", (unsigned long long)segment);
	mp_hdr_add_prov(oh, prog, nargc - 1, nargv + 1, 0, 0);
	mp_writer *w = mp_writer_open(outpath, oh, raw ? MP_W_RAW : 0, &err);
	mp_hdr_free(oh);
	if (!w)
		mp_die("%s", err.msg);

	mp_rec rec;
	int rc;
	while ((rc = mp_reader_next(r, &rec)) > 0) {
		if (rec.tag == MP_REC_MSG || rec.tag == MP_REC_INJ)
			mp_ni_schedule(&rec.msg, &pol, (uint32_t)segment);
		if (mp_writer_put(w, &rec) < 0)
			break;
	}
	if (rc < 0) {
		mp_writer_abort(w);
		mp_die("%s", mp_reader_error(r));
	}
	if (mp_writer_close(w, &err) < 0)
		mp_die("%s", err.msg);
	mp_reader_close(r);
	return 0;
}
