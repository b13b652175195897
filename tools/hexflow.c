/*
 * hexflow: the analytical flow model of derouting on the wrapped
 * hexagonal mesh E_n (SPEC 3.1). For each n in a range it prints the
 * highest attainable PE port utilization under minimal routing and under
 * derouting, and optionally the internal port utilization at a given PE
 * utilization, as an aligned table or CSV.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_flow.h"
#include "mp_prog.h"
#include "mp_util.h"

#define PROG "hexflow"

/* Set-up and packet times of SPEC 3.1, in units (bytes on a port). */
#define DEF_PACKET 160
#define DEF_INJECT 80
#define DEF_EJECT 20
#define DEF_MIN_N 6
#define DEF_MAX_N 16
#define MAX_TIME 1000000000ULL

enum {
	OPT_CSV = 256,
	OPT_EJECT,
	OPT_INJECT,
	OPT_MAX_N,
	OPT_MIN_N,
	OPT_NO_OVERHEAD,
	OPT_PACKET,
	OPT_PE_UTIL
};

static const struct option longopts[] = {
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "eject-setup", required_argument, NULL, OPT_EJECT },
	{ "help", no_argument, NULL, 'h' },
	{ "inject-setup", required_argument, NULL, OPT_INJECT },
	{ "max-n", required_argument, NULL, OPT_MAX_N },
	{ "min-n", required_argument, NULL, OPT_MIN_N },
	{ "no-overhead", no_argument, NULL, OPT_NO_OVERHEAD },
	{ "packet-time", required_argument, NULL, OPT_PACKET },
	{ "pe-util", required_argument, NULL, OPT_PE_UTIL },
	{ NULL, 0, NULL, 0 }
};

static const char *columns[] = {
	"n", "nodes", "mean_path", "minimal_max_pe_util",
	"derouting_max_pe_util", "minimal_int_util", "derouting_int_util"
};

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: " PROG " [-h] [--csv] [-n MIN-MAX] [--min-n N] [--max-n N]\n"
		"               [--no-overhead] [--packet-time T] [--inject-setup T]\n"
		"               [--eject-setup T] [--pe-util U]\n"
		"Flow model of derouting on the hexagonal mesh E_n (n >= %d):\n"
		"highest PE port utilization for minimal routing and derouting.\n"
		"  --csv             CSV instead of an aligned table\n"
		"  -n MIN-MAX        range of n (or a single n); default %d-%d\n"
		"  --min-n N, --max-n N\n"
		"                    ends of the range\n"
		"  --no-overhead     PE ports without set-up overhead (s = 1)\n"
		"  --packet-time T   packet time in units (default %d)\n"
		"  --inject-setup T  injection set-up in units (default %d)\n"
		"  --eject-setup T   ejection set-up in units (default %d)\n"
		"  --pe-util U       also internal utilization at PE utilization U\n"
		"                    in (0, 1] (a trailing %% divides by 100)\n"
		"  -h, --help        this help\n",
		MP_FLOW_MIN_N, DEF_MIN_N, DEF_MAX_N, DEF_PACKET, DEF_INJECT,
		DEF_EJECT);
}

static void parse_n(const char *s, const char *what, unsigned *out)
{
	uint64_t v;
	mp_err err;

	if (mp_parse_u64(s, MP_FLOW_MIN_N, MP_FLOW_MAX_N, &v, what, &err) < 0)
		mp_usage_error("%s", err.msg);
	*out = (unsigned)v;
}

/* -n A-B or -n A. */
static void parse_range(const char *s, unsigned *lo, unsigned *hi)
{
	const char *dash = strchr(s, '-');
	char buf[32];

	if (!dash) {
		parse_n(s, "-n", lo);
		*hi = *lo;
		return;
	}
	if ((size_t)(dash - s) >= sizeof buf)
		mp_usage_error("-n: '%s' is not a range MIN-MAX", s);
	memcpy(buf, s, (size_t)(dash - s));
	buf[dash - s] = '\0';
	if (buf[0] == '\0' || dash[1] == '\0')
		mp_usage_error("-n: '%s' is not a range MIN-MAX", s);
	parse_n(buf, "-n", lo);
	parse_n(dash + 1, "-n", hi);
}

static double parse_time(const char *s, const char *what, uint64_t min)
{
	uint64_t v;
	mp_err err;

	if (mp_parse_u64(s, min, MAX_TIME, &v, what, &err) < 0)
		mp_usage_error("%s", err.msg);
	return (double)v;
}

/* One row of cells, formatted so the output is deterministic. */
struct row {
	char cell[7][32];
};

static void print_row(const struct row *r, int ncol, int csv)
{
	for (int i = 0; i < ncol; i++) {
		if (csv) {
			printf("%s%s", i ? "," : "", r->cell[i]);
		} else {
			int w = (int)strlen(columns[i]);
			if (w < 10)
				w = 10;
			printf("%s%*s", i ? "  " : "", w, r->cell[i]);
		}
	}
	putchar('\n');
}

static void fmt_util(char *buf, size_t len, int r, double p, int csv)
{
	if (r == MP_FLOW_OK)
		snprintf(buf, len, "%.6f", p);
	else
		snprintf(buf, len, "%s", csv ? "" : "-");
}

/* Flush and close stdout; a failed write or close is a failure. */
static int finish(void)
{
	int bad = ferror(stdout);

	errno = 0;
	if (fflush(stdout) != 0)
		bad = 1;
	if (fclose(stdout) != 0)
		bad = 1;
	if (bad) {
		fprintf(stderr, PROG ": stdout: write failed%s%s\n",
			errno ? ": " : "", errno ? strerror(errno) : "");
		return 1;
	}
	return 0;
}

MP_NORETURN static void fail(unsigned n, const mp_err *err)
{
	fprintf(stderr, PROG ": E_%u: %s\n", n, err->msg);
	exit(1);
}

int main(int argc, char **argv)
{
	unsigned min_n = DEF_MIN_N, max_n = DEF_MAX_N;
	double packet = DEF_PACKET, inject = DEF_INJECT, eject = DEF_EJECT;
	double pe_util = 0.0;
	int csv = 0, no_overhead = 0, setup_given = 0, have_pe = 0;
	const char *setup_opt = NULL;
	int c;
	mp_err err;

	mp_prog_init(PROG, usage);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hn:", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_CSV:
			csv = 1;
			break;
		case OPT_EJECT:
			eject = parse_time(optarg, "--eject-setup", 0);
			setup_given = 1;
			setup_opt = "--eject-setup";
			break;
		case 'h':
			signal(SIGPIPE, SIG_DFL); /* a closed pipe ends us as any writer */
			usage(stdout);
			return finish();
		case OPT_INJECT:
			inject = parse_time(optarg, "--inject-setup", 0);
			setup_given = 1;
			setup_opt = "--inject-setup";
			break;
		case OPT_MAX_N:
			parse_n(optarg, "--max-n", &max_n);
			break;
		case OPT_MIN_N:
			parse_n(optarg, "--min-n", &min_n);
			break;
		case 'n':
			parse_range(optarg, &min_n, &max_n);
			break;
		case OPT_NO_OVERHEAD:
			no_overhead = 1;
			break;
		case OPT_PACKET:
			packet = parse_time(optarg, "--packet-time", 1);
			break;
		case OPT_PE_UTIL:
			if (mp_parse_double(optarg, 0.0, 1.0, 1, &pe_util,
					    "--pe-util", &err) < 0)
				mp_usage_error("%s", err.msg);
			if (pe_util <= 0.0)
				mp_usage_error("--pe-util: %s is out of range (0, 1]",
					  optarg);
			have_pe = 1;
			break;
		default: {
			mp_err oe;
			mp_opt_err(c, optopt, argv[optind - 1], &oe);
			mp_usage_error("%s", oe.msg);
		}
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 0)
		mp_usage_error("unexpected argument '%s'", argv[0]);
	if (min_n > max_n)
		mp_usage_error("empty range of n: %u > %u", min_n, max_n);
	if (no_overhead && setup_given)
		mp_usage_error("--no-overhead conflicts with %s", setup_opt);
	if (no_overhead)
		inject = eject = 0.0;
	double s = mp_flow_speed_ratio(packet, inject, eject);

	signal(SIGPIPE, SIG_DFL); /* a closed pipe ends us as any writer */
	int ncol = have_pe ? 7 : 5;
	struct row hdr;
	for (int i = 0; i < ncol; i++)
		snprintf(hdr.cell[i], sizeof hdr.cell[i], "%s", columns[i]);
	print_row(&hdr, ncol, csv);

	for (unsigned n = min_n; n <= max_n; n++) {
		mp_flow *f = mp_flow_new(n, &err);
		struct row r;
		double umin, uder, pmin = 0, pder = 0;
		int rmin = 0, rder = 0;

		if (!f)
			fail(n, &err);
		if (mp_flow_max_pe_util(f, MP_FLOW_MINIMAL, s, &umin, &err) < 0 ||
		    mp_flow_max_pe_util(f, MP_FLOW_DEROUTING, s, &uder, &err) < 0)
			fail(n, &err);
		if (have_pe &&
		    ((rmin = mp_flow_int_util(f, MP_FLOW_MINIMAL, pe_util, s,
					      &pmin, &err)) < 0 ||
		     (rder = mp_flow_int_util(f, MP_FLOW_DEROUTING, pe_util, s,
					      &pder, &err)) < 0))
			fail(n, &err);
		snprintf(r.cell[0], sizeof r.cell[0], "%u", n);
		snprintf(r.cell[1], sizeof r.cell[1], "%lu",
			 (unsigned long)mp_flow_nodes(f));
		snprintf(r.cell[2], sizeof r.cell[2], "%.6f", mp_flow_mean_dist(f));
		snprintf(r.cell[3], sizeof r.cell[3], "%.6f", umin);
		snprintf(r.cell[4], sizeof r.cell[4], "%.6f", uder);
		if (have_pe) {
			fmt_util(r.cell[5], sizeof r.cell[5], rmin, pmin, csv);
			fmt_util(r.cell[6], sizeof r.cell[6], rder, pder, csv);
		}
		print_row(&r, ncol, csv);
		mp_flow_free(f);
		if (ferror(stdout))
			break;
	}
	return finish();
}
