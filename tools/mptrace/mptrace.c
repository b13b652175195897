/*
 * mptrace: record an MPI program into an OTF2 archive. The launcher runs
 * a command (usually mpirun ... program) with libmptrace.so preloaded
 * and the archive's directory in the environment that the command and
 * the MPI ranks it starts inherit; the library records every rank and
 * writes one archive. Afterwards the launcher says whether a recording
 * was made and complete.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_prog.h"
#include "mp_util.h"

#define PROG "mptrace"
#define LIBNAME "libmptrace.so"

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: " PROG " [-fhv] [-b size] -o dir [--] command [argument ...]\n"
		"Run command (e.g. mpirun -np 8 program) with every MPI rank recorded\n"
		"into the OTF2 archive dir/traces.otf2.\n"
		"  -o, --output dir   the archive's directory (must not exist)\n"
		"  -f, --force        replace an archive already in dir\n"
		"  -b, --buffer size  event buffer per rank, bytes or with k, M, G\n"
		"                     (default 16M; when full it is written to dir)\n"
		"  -v, --verbose      say what was recorded even when stderr is not a terminal\n"
		"  -h, --help         this text\n"
		"Ranks on other hosts need the environment passed on, with Open MPI:\n"
		"  mpirun -x LD_PRELOAD -x MPTRACE_DIR -x MPTRACE_BUFFER ...\n"
		"and dir on a file system they share. See mptrace(1).\n");
}

/* The library: beside the launcher (the build tree), or in
 * ../lib/meshpipe from it (installed). Returns 0 and the path in out. */
static int find_library(char *out, size_t n, char *tried, size_t nt)
{
	char exe[PATH_MAX], dir[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	const char *rel[] = { LIBNAME, "../lib/meshpipe/" LIBNAME };
	if (len <= 0)
		return -1;
	exe[len] = '\0';
	snprintf(dir, sizeof dir, "%s", exe);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	tried[0] = '\0';
	for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
		char p[PATH_MAX + 64], real[PATH_MAX];
		snprintf(p, sizeof p, "%s/%s", dir, rel[i]);
		size_t tl = strlen(tried);
		snprintf(tried + tl, nt - tl, "%s%s", tl ? ", " : "", p);
		if (access(p, R_OK) == 0 && realpath(p, real)) {
			snprintf(out, n, "%s", real);
			return 0;
		}
	}
	return -1;
}

/* Whether the library loads (its MPI and OTF2 libraries are there): in
 * a child, so that loading MPI leaves no trace here. Returns 0, or -1
 * with the loader's message in msg. */
static int library_loads(const char *lib, char *msg, size_t n)
{
	int fd[2];
	pid_t pid;
	int st;
	ssize_t got;

	if (pipe(fd) < 0)
		mp_die("pipe: %s", strerror(errno));
	if ((pid = fork()) < 0)
		mp_die("fork: %s", strerror(errno));
	if (pid == 0) {
		close(fd[0]);
		if (!dlopen(lib, RTLD_LAZY | RTLD_LOCAL)) {
			const char *e = dlerror();
			if (write(fd[1], e, strlen(e)) < 0)
				_exit(2);
			_exit(1);
		}
		_exit(0);
	}
	close(fd[1]);
	got = read(fd[0], msg, n - 1);
	msg[got > 0 ? got : 0] = '\0';
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (!msg[0])
		snprintf(msg, n, "the check ended abnormally");
	return -1;
}

/* What an archive's directory may hold: the archive, mptrace's account,
 * and in traces/ only the ranks' event and definition files. */
static int archive_entry(const char *name)
{
	return strcmp(name, "traces.otf2") == 0 || strcmp(name, "traces.def") == 0 ||
	       strcmp(name, "mptrace.txt") == 0 || strcmp(name, "traces") == 0;
}

static int rank_file(const char *name)
{
	size_t d = strspn(name, "0123456789");
	return d > 0 && (strcmp(name + d, ".evt") == 0 || strcmp(name + d, ".def") == 0);
}

/* Check that every entry of dir passes ok (ignoring . and ..), then, when
 * remove, delete them (directories with rmdir). Returns 0, or -1 with
 * the offending name in bad. */
static int scan(const char *dir, int (*ok)(const char *), int remove, char *bad, size_t n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;
	if (!d) {
		snprintf(bad, n, "%s: %s", dir, strerror(errno));
		return -1;
	}
	while (rc == 0 && (e = readdir(d))) {
		char p[PATH_MAX + 300];
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		if (!ok(e->d_name)) {
			snprintf(bad, n, "%s", p);
			rc = -1;
		} else if (remove && strcmp(e->d_name, "traces") != 0 && unlink(p) < 0) {
			snprintf(bad, n, "%s: %s", p, strerror(errno));
			rc = -1;
		}
	}
	closedir(d);
	return rc;
}

/* -f: empty dir of an earlier archive; refuse anything else. */
static void replace_archive(const char *dir)
{
	char sub[PATH_MAX + 16], bad[PATH_MAX + 400];
	struct stat st;
	snprintf(sub, sizeof sub, "%s/traces", dir);
	if (scan(dir, archive_entry, 0, bad, sizeof bad) < 0)
		mp_die("%s: holds %s, which is not part of an mptrace archive; not replaced", dir, bad);
	int has_sub = stat(sub, &st) == 0;
	if (has_sub && !S_ISDIR(st.st_mode))
		mp_die("%s: not a directory; not replaced", sub);
	if (has_sub && scan(sub, rank_file, 0, bad, sizeof bad) < 0)
		mp_die("%s: holds %s, which is not part of an mptrace archive; not replaced", dir, bad);
	if ((has_sub && scan(sub, rank_file, 1, bad, sizeof bad) < 0) ||
	    scan(dir, archive_entry, 1, bad, sizeof bad) < 0)
		mp_die("%s", bad);
	if (has_sub && rmdir(sub) < 0)
		mp_die("%s: %s", sub, strerror(errno));
}

/* An absolute path for dir (which need not exist; its parent must). */
static void absolute(const char *dir, char *out, size_t n)
{
	char parent[PATH_MAX], real[PATH_MAX];
	size_t len = strlen(dir);
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (len >= sizeof parent)
		mp_die("%s: name too long", dir);
	memcpy(parent, dir, len);
	parent[len] = '\0';
	char *slash = strrchr(parent, '/');
	const char *base = parent;
	const char *pdir = ".";
	if (slash == parent) {
		pdir = "/";
		base = parent + 1;
	} else if (slash) {
		*slash = '\0';
		pdir = parent;
		base = slash + 1;
	}
	if (strcmp(base, ".") == 0 || strcmp(base, "..") == 0 || base[0] == '\0') {
		if (!realpath(dir, real))
			mp_die("%s: %s", dir, strerror(errno));
		snprintf(out, n, "%s", real);
		return;
	}
	if (!realpath(pdir, real))
		mp_die("%s: %s", pdir, strerror(errno));
	if ((size_t)snprintf(out, n, "%s/%s", strcmp(real, "/") ? real : "", base) >= n)
		mp_die("%s: name too long", dir);
}

/* The value of "key: value" in dir/mptrace.txt, or NULL. Returns
 * whether the file exists. */
static int account(const char *dir, const char *key, char *val, size_t n)
{
	char path[PATH_MAX + 32], line[1024];
	size_t kl = strlen(key);
	FILE *f;
	snprintf(path, sizeof path, "%s/mptrace.txt", dir);
	if (!(f = fopen(path, "r")))
		return 0;
	val[0] = '\0';
	while (fgets(line, sizeof line, f))
		if (strncmp(line, key, kl) == 0 && line[kl] == ':' && line[kl + 1] == ' ') {
			line[strcspn(line, "\n")] = '\0';
			snprintf(val, n, "%s", line + kl + 2);
			break;
		}
	fclose(f);
	return 1;
}

/* Every "complete: no: why" line of the account, as warnings. */
static void say_gaps(const char *dir)
{
	char path[PATH_MAX + 32], line[1024];
	FILE *f;
	snprintf(path, sizeof path, "%s/mptrace.txt", dir);
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "complete: no: ", 14) == 0) {
			line[strcspn(line, "\n")] = '\0';
			fprintf(stderr, PROG ": %s: not in the trace: %s\n", dir, line + 14);
		}
	fclose(f);
}

static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v;
	errno = 0;
	if (!s[0] || s[0] == '-')
		mp_usage_error("-b: '%s' is not a size", s);
	v = strtoull(s, &end, 10);
	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	else if (*end == 'g' || *end == 'G')
		v <<= 30, end++;
	if (errno || *end || end == s)
		mp_usage_error("-b: '%s' is not a size", s);
	if (v < (256u << 10) || v > (4ull << 30))
		mp_usage_error("-b: %s is out of range 256k..4G", s);
	return v;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "buffer", required_argument, NULL, 'b' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "output", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	int force = 0, verbose = 0, c;
	uint64_t buffer = 0;
	char lib[PATH_MAX], tried[2 * PATH_MAX + 8], dir[PATH_MAX], msg[1024];
	struct stat st;

	mp_prog_init(PROG, usage);
	opterr = 0;
	/* "+": options end at the command. */
	while ((c = getopt_long(argc, argv, "+:b:fho:v", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			buffer = parse_size(optarg);
			break;
		case 'f':
			force = 1;
			break;
		case 'h':
			signal(SIGPIPE, SIG_DFL);
			mp_usage_help();
		case 'o':
			out = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		case ':':
			mp_usage_error("%s needs an argument", argv[optind - 1]);
		default:
			mp_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	argc -= optind;
	argv += optind;
	if (!out)
		mp_usage_error("-o dir is required");
	if (!out[0])
		mp_usage_error("-o: empty directory name");
	if (argc == 0)
		mp_usage_error("no command to run");

	if (find_library(lib, sizeof lib, tried, sizeof tried) < 0)
		mp_die(LIBNAME ": not found (looked at %s); meshpipe was built without MPI "
		       "(make deps installs Open MPI and OTF2)", tried);
	if (library_loads(lib, msg, sizeof msg) < 0)
		mp_die("%s: cannot be loaded (is Open MPI installed?): %s", lib, msg);

	absolute(out, dir, sizeof dir);
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			mp_die("%s: exists and is not a directory", out);
		if (!force)
			mp_die("%s: exists (-f replaces an archive there)", out);
		replace_archive(dir);
	} else if (errno != ENOENT) {
		mp_die("%s: %s", out, strerror(errno));
	} else if (mkdir(dir, 0777) < 0) {
		mp_die("%s: %s", out, strerror(errno));
	}

	/* The environment the command and its ranks inherit. */
	const char *pre = getenv("LD_PRELOAD");
	size_t plen = strlen(lib) + (pre ? strlen(pre) + 1 : 0) + 1;
	char *preload = malloc(plen);
	if (!preload)
		mp_die("out of memory");
	snprintf(preload, plen, "%s%s%s", lib, pre && *pre ? " " : "", pre && *pre ? pre : "");
	if (setenv("LD_PRELOAD", preload, 1) < 0 || setenv("MPTRACE_DIR", dir, 1) < 0)
		mp_die("setenv: %s", strerror(errno));
	free(preload);
	if (buffer) {
		char b[32];
		snprintf(b, sizeof b, "%llu", (unsigned long long)buffer);
		if (setenv("MPTRACE_BUFFER", b, 1) < 0)
			mp_die("setenv: %s", strerror(errno));
	}

	/* Run it; a pipe closed on exec tells an exec failure apart. */
	int fd[2], err = 0, status;
	pid_t pid;
	if (pipe(fd) < 0 || fcntl(fd[1], F_SETFD, FD_CLOEXEC) < 0)
		mp_die("pipe: %s", strerror(errno));
	fflush(NULL);
	if ((pid = fork()) < 0)
		mp_die("fork: %s", strerror(errno));
	if (pid == 0) {
		close(fd[0]);
		execvp(argv[0], argv);
		err = errno;
		if (write(fd[1], &err, sizeof err) < 0)
			_exit(127);
		_exit(127);
	}
	close(fd[1]);
	/* Like system(3): an interrupt is for the command, which we wait for. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	ssize_t got = read(fd[0], &err, sizeof err);
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			mp_die("wait: %s", strerror(errno));
	if (got == (ssize_t)sizeof err) {
		rmdir(dir);
		const char *b = strrchr(argv[0], '/');
		b = b ? b + 1 : argv[0];
		int mpi = strcmp(b, "mpirun") == 0 || strcmp(b, "mpiexec") == 0 ||
			  strcmp(b, "orterun") == 0;
		mp_die("%s: %s%s", argv[0], err == ENOENT ? "command not found" : strerror(err),
		       mpi && err == ENOENT ? " (is Open MPI installed? make deps installs it)" : "");
	}

	char v[256];
	int code = 0;
	if (WIFSIGNALED(status)) {
		fprintf(stderr, PROG ": %s: killed by signal %d\n", argv[0], WTERMSIG(status));
		code = 1;
	} else if (WEXITSTATUS(status) != 0) {
		fprintf(stderr, PROG ": %s: exited with status %d\n", argv[0], WEXITSTATUS(status));
		code = 1;
	}
	if (!account(dir, "status", v, sizeof v)) {
		rmdir(dir); /* only if the run left it empty */
		mp_die("%s: no MPI rank was recorded (not an MPI program, or one that does not "
		       "use the MPI mptrace was built with)", argv[0]);
	}
	if (strcmp(v, "finished") != 0)
		mp_die("%s: the recording is incomplete (the program did not reach MPI_Finalize)",
		       out);
	say_gaps(out);
	if (verbose || isatty(STDERR_FILENO)) {
		char ranks[64], events[64], bytes[64];
		account(dir, "ranks", ranks, sizeof ranks);
		account(dir, "events", events, sizeof events);
		account(dir, "bytes", bytes, sizeof bytes);
		fprintf(stderr, PROG ": %s/traces.otf2: %s ranks, %s events, %s bytes\n", out,
			ranks, events, bytes);
	}
	return code;
}
