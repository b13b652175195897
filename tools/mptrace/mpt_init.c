/*
 * The life of a recording on one rank. MPI_Init opens one OTF2 archive
 * for the whole run (every rank writes its own event file through OTF2's
 * collective interface, over a private duplicate of MPI_COMM_WORLD that
 * the program never sees); MPI_Finalize closes the event files, gives
 * every communicator a global id, writes each rank's local definitions
 * (the mapping of its communicator ids, its clock offsets) and rank 0's
 * global definitions, and closes the archive. Rank 0 also keeps a short
 * text account of the run, mptrace.txt, beside the archive.
 */
#include <sys/stat.h>
#include <sys/utsname.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpt_int.h"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#define OTF2_MPI_USE_PMPI
#include <otf2/OTF2_MPI_Collectives.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#ifndef MP_VERSION
#define MP_VERSION "0.0.0"
#endif

#define HOSTLEN 256
#define SYNC_ROUNDS 16
#define DEF_BUFFER (16u << 20)

int mpt_on;
int mpt_multiple;
pthread_t mpt_main;
int mpt_rank, mpt_size;

static OTF2_Archive *archive;
static MPI_Comm priv = MPI_COMM_NULL;
static char dir[4096];
static char host[HOSTLEN], host0[HOSTLEN];
static uint64_t t_program, t_start, t_end;
static uint64_t sync_at[2];
static int64_t sync_off[2];
static int sync_always;
static uint64_t chunk_size, max_chunks;
static uint64_t flushes;
unsigned mpt_gaps;
static char prog[256];
static int thread_level;

__attribute__((constructor)) static void mpt_ctor(void)
{
	t_program = mpt_now();
}

void mpt_warn(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "mptrace: rank %d: %s\n", mpt_rank, msg);
}

static const char *const gap_name[MPT_NGAPS] = {
	"operations on communicators not followed (intercommunicators, MPI_Comm_idup)",
	"MPI calls from threads other than the main one (MPI_THREAD_MULTIPLE)",
	"one-sided communication (not recorded)",
	"neighbourhood collectives (not recorded)",
	"requests lost for want of memory",
};

/* --- OTF2's callbacks --- */

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc,
				void *cd, bool final)
{
	(void)ud, (void)ft, (void)loc, (void)cd, (void)final;
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
	(void)ud, (void)loc;
	if (ft == OTF2_FILETYPE_EVENTS)
		flushes++;
	return mpt_now();
}

static OTF2_FlushCallbacks flush_cb = { pre_flush, post_flush };

/* The chunks one writer holds. An event writer may hold max_chunks; when
 * it needs one more, the allocation fails and OTF2 writes its chunks to
 * the file and frees them, so a rank's events never take more memory
 * than the buffer. Definition writers are not bounded. */
struct pool {
	void **chunk;
	uint64_t n, cap;
};

static void *mem_alloc(void *ud, OTF2_FileType ft, OTF2_LocationRef loc,
		       void **per, uint64_t size)
{
	struct pool *p = *per;
	void *c;
	(void)ud, (void)loc;
	if (!p) {
		if (!(p = calloc(1, sizeof *p)))
			return NULL;
		*per = p;
	}
	if (ft == OTF2_FILETYPE_EVENTS && p->n >= max_chunks)
		return NULL;
	if (p->n == p->cap) {
		uint64_t cap = p->cap ? 2 * p->cap : 16;
		void **a = realloc(p->chunk, cap * sizeof *a);
		if (!a)
			return NULL;
		p->chunk = a;
		p->cap = cap;
	}
	if (!(c = malloc(size)))
		return NULL;
	p->chunk[p->n++] = c;
	return c;
}

static void mem_free_all(void *ud, OTF2_FileType ft, OTF2_LocationRef loc,
			 void **per, bool final)
{
	struct pool *p = *per;
	(void)ud, (void)ft, (void)loc;
	if (!p)
		return;
	for (uint64_t i = 0; i < p->n; i++)
		free(p->chunk[i]);
	p->n = 0;
	if (final) {
		free(p->chunk);
		free(p);
		*per = NULL;
	}
}

static OTF2_MemoryCallbacks mem_cb = { mem_alloc, mem_free_all };

static OTF2_ErrorCode otf2_error(void *ud, const char *file, uint64_t line,
				 const char *func, OTF2_ErrorCode code,
				 const char *fmt, va_list va)
{
	char msg[400];
	(void)ud, (void)file, (void)line, (void)func;
	msg[0] = '\0';
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	if (fmt) /* OTF2's own format */
		vsnprintf(msg, sizeof msg, fmt, va);
#pragma GCC diagnostic pop
	mpt_warn("OTF2: %s: %s", OTF2_Error_GetName(code), msg);
	return code;
}

/* --- helpers --- */

/* The rank count, for sizes. */
static size_t nranks(void)
{
	return mpt_size > 0 ? (size_t)mpt_size : 1;
}

/* MPTRACE_BUFFER: bytes, with an optional k, M or G. */
static uint64_t buffer_size(void)
{
	const char *s = getenv("MPTRACE_BUFFER");
	char *end;
	unsigned long long v;
	if (!s || !*s)
		return DEF_BUFFER;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	else if (*end == 'g' || *end == 'G')
		v <<= 30, end++;
	if (errno || *end || v < OTF2_CHUNK_SIZE_MIN) {
		if (mpt_rank == 0)
			mpt_warn("MPTRACE_BUFFER=%s: not a size of at least 256k; using 16M", s);
		return DEF_BUFFER;
	}
	return v;
}

/* The offset of this rank's clock to rank 0's (what to add to a local
 * time), measured now by ping-pong with rank 0 (the round trip with the
 * shortest time; the reply's time taken as at its middle). Ranks on rank
 * 0's host share its clock (CLOCK_MONOTONIC is one per host) and get 0
 * unless MPTRACE_SYNC=always. Collective over priv. */
static int64_t sync_clock(uint64_t *at)
{
	int need = mpt_rank != 0 && (sync_always || strcmp(host, host0) != 0);
	int *all = NULL;
	int64_t off = 0;
	uint64_t best = UINT64_MAX;

	*at = mpt_now();
	if (mpt_rank == 0 && !(all = malloc(nranks() * sizeof *all)))
		mpt_warn("out of memory for clock synchronisation");
	PMPI_Gather(&need, 1, MPI_INT, all, 1, MPI_INT, 0, priv);
	if (mpt_rank == 0) {
		for (int r = 1; all && r < mpt_size; r++) {
			if (!all[r])
				continue;
			for (int k = 0; k < SYNC_ROUNDS; k++) {
				uint64_t t;
				PMPI_Recv(&t, 1, MPI_UINT64_T, r, 7, priv, MPI_STATUS_IGNORE);
				t = mpt_now();
				PMPI_Send(&t, 1, MPI_UINT64_T, r, 7, priv);
			}
		}
		free(all);
	} else if (need) {
		for (int k = 0; k < SYNC_ROUNDS; k++) {
			uint64_t t1 = mpt_now(), t0, t2;
			PMPI_Send(&t1, 1, MPI_UINT64_T, 0, 7, priv);
			PMPI_Recv(&t0, 1, MPI_UINT64_T, 0, 7, priv, MPI_STATUS_IGNORE);
			t2 = mpt_now();
			if (t2 - t1 < best) {
				best = t2 - t1;
				*at = t1 + (t2 - t1) / 2;
				off = (int64_t)(t0 - *at);
			}
		}
	}
	return off;
}

/* rank 0's program name (without its directory) and arguments. */
static void program_name(char *name, size_t n, char *args, size_t na)
{
	char buf[4096];
	size_t len = 0, pos = 0;
	FILE *f = fopen("/proc/self/cmdline", "r");
	snprintf(name, n, "unknown");
	args[0] = '\0';
	if (!f)
		return;
	len = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[len] = '\0';
	if (len == 0)
		return;
	const char *b = strrchr(buf, '/');
	b = b ? b + 1 : buf;
	size_t l = strlen(b) < n - 1 ? strlen(b) : n - 1;
	memcpy(name, b, l);
	name[l] = '\0';
	for (size_t i = strlen(buf) + 1; i < len; i += strlen(buf + i) + 1) {
		int w = snprintf(args + pos, na - pos, "%s%s", pos ? " " : "", buf + i);
		if (w < 0 || (size_t)w >= na - pos)
			break;
		pos += (size_t)w;
	}
}

static FILE *account(const char *mode)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/mptrace.txt", dir);
	return fopen(path, mode);
}

/* Rank 0 claims the directory: it creates mptrace.txt, which must not
 * exist (an earlier MPI job of the same command wrote there). Returns 0,
 * 1 when the directory holds a recording, -1 on another error. */
static int claim(const char *name, const char *args)
{
	char path[4200], lib[MPI_MAX_LIBRARY_VERSION_STRING];
	int fd, len = 0;
	time_t now = time(NULL);
	struct tm tm;
	FILE *f;
	static const char *const level[] = { "single", "funneled", "serialized", "multiple" };

	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		mpt_warn("%s: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof path, "%s/mptrace.txt", dir);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666)) < 0) {
		if (errno == EEXIST)
			return 1;
		mpt_warn("%s: %s", path, strerror(errno));
		return -1;
	}
	if (!(f = fdopen(fd, "w"))) {
		close(fd);
		return -1;
	}
	PMPI_Get_library_version(lib, &len);
	lib[strcspn(lib, ",\n")] = '\0';
	gmtime_r(&now, &tm);
	fprintf(f, "recorder: mptrace (meshpipe %s)\n", MP_VERSION);
	fprintf(f, "program: %s\n", name);
	fprintf(f, "arguments: %s\n", args);
	fprintf(f, "ranks: %d\n", mpt_size);
	fprintf(f, "mpi: %s\n", lib);
	fprintf(f, "thread level: %s\n", level[thread_level & 3]);
	fprintf(f, "started: %04d-%02d-%02dT%02d:%02d:%02dZ\n", tm.tm_year + 1900,
		tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	fprintf(f, "buffer: %llu bytes per rank (chunks of %llu)\n",
		(unsigned long long)(chunk_size * max_chunks), (unsigned long long)chunk_size);
	return fclose(f) == 0 ? 0 : -1;
}

/* --- the start --- */

void mpt_start(int region, uint64_t t0, int provided)
{
	const char *d = getenv("MPTRACE_DIR");
	char args[2048];
	int ok = 1, claimed = 0, all_ok = 0;
	uint64_t buf;

	PMPI_Comm_rank(MPI_COMM_WORLD, &mpt_rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &mpt_size);
	if (!d || !*d)
		return;
	if (strlen(d) >= sizeof dir) {
		if (mpt_rank == 0)
			mpt_warn("MPTRACE_DIR is too long; not recording");
		return;
	}
	strcpy(dir, d);
	thread_level = provided;
	sync_always = getenv("MPTRACE_SYNC") && strcmp(getenv("MPTRACE_SYNC"), "always") == 0;
	buf = buffer_size();
	chunk_size = buf / 4;
	if (chunk_size > (1u << 20))
		chunk_size = 1u << 20;
	if (chunk_size < OTF2_CHUNK_SIZE_MIN)
		chunk_size = OTF2_CHUNK_SIZE_MIN;
	max_chunks = buf / chunk_size;
	OTF2_Error_RegisterCallback(otf2_error, NULL);

	if (PMPI_Comm_dup(MPI_COMM_WORLD, &priv) != MPI_SUCCESS)
		return;
	program_name(prog, sizeof prog, args, sizeof args);
	if (mpt_rank == 0)
		claimed = claim(prog, args);
	PMPI_Bcast(&claimed, 1, MPI_INT, 0, priv);
	if (claimed != 0) {
		if (claimed > 0 && mpt_rank == 0)
			mpt_warn("%s already holds a recording (an earlier MPI run of the same "
				 "command?); this run is not recorded", dir);
		return;
	}
	if (gethostname(host, sizeof host) < 0)
		snprintf(host, sizeof host, "unknown");
	host[HOSTLEN - 1] = '\0';
	memcpy(host0, host, sizeof host0);
	PMPI_Bcast(host0, HOSTLEN, MPI_CHAR, 0, priv);

	archive = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, chunk_size,
				    1u << 20, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!archive ||
	    OTF2_Archive_SetFlushCallbacks(archive, &flush_cb, NULL) != OTF2_SUCCESS ||
	    OTF2_Archive_SetMemoryCallbacks(archive, &mem_cb, NULL) != OTF2_SUCCESS ||
	    OTF2_MPI_Archive_SetCollectiveCallbacks(archive, priv, MPI_COMM_NULL) != OTF2_SUCCESS)
		ok = 0;
	PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, priv);
	if (!all_ok) {
		if (!ok)
			mpt_warn("cannot open the archive in %s; not recording", dir);
		return;
	}
	OTF2_Archive_SetCreator(archive, "mptrace (meshpipe " MP_VERSION ")");
	OTF2_Archive_SetDescription(archive, "MPI program recorded by mptrace");
	ok = OTF2_Archive_OpenEvtFiles(archive) == OTF2_SUCCESS &&
	     (mpt_evt = OTF2_Archive_GetEvtWriter(archive, (OTF2_LocationRef)mpt_rank)) != NULL &&
	     mpt_comms_init() == 0;
	PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, priv);
	if (!all_ok) {
		if (!ok)
			mpt_warn("cannot open the event files in %s; not recording", dir);
		return;
	}
	sync_off[0] = sync_clock(&sync_at[0]);

	mpt_on = 1;
	mpt_multiple = provided == MPI_THREAD_MULTIPLE;
	mpt_main = pthread_self();
	t_start = t_program;
	/* String 1 is the program's name (rank 0's). */
	OTF2_EvtWriter_ProgramBegin(mpt_evt, NULL, t_program, 1, 0, NULL);
	mpt_calls[region]++;
	OTF2_EvtWriter_Enter(mpt_evt, NULL, t0, (OTF2_RegionRef)region);
	OTF2_EvtWriter_MpiCollectiveBegin(mpt_evt, NULL, t0);
	OTF2_EvtWriter_CommCreate(mpt_evt, NULL, mpt_now(), 0);
	OTF2_EvtWriter_CommCreate(mpt_evt, NULL, mpt_now(), 1);
	OTF2_EvtWriter_MpiCollectiveEnd(mpt_evt, NULL, mpt_now(), OTF2_COLLECTIVE_OP_CREATE_HANDLE,
					0, OTF2_COLLECTIVE_ROOT_NONE, 0, 0);
	mpt_after();
	mpt_leave(region);
}

/* --- the end --- */

/* A communicator as rank 0 learns it: its token, its parent's, its
 * members (from its leader). */
struct gcomm {
	int32_t leader, seq, pleader, pseq, size;
	const int32_t *members;
	uint32_t group;
	uint32_t gid; /* 0 while not given (ids from 2 up) */
};

static int cmp_token(const void *a, const void *b)
{
	const struct gcomm *x = a, *y = b;
	if (x->leader != y->leader)
		return x->leader < y->leader ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmp_members(const void *a, const void *b)
{
	const struct gcomm *x = *(struct gcomm *const *)a, *y = *(struct gcomm *const *)b;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	for (int32_t i = 0; i < x->size; i++)
		if (x->members[i] != y->members[i])
			return x->members[i] < y->members[i] ? -1 : 1;
	return 0;
}

/* The communicator of a token among the n sorted by token, or NULL. */
static struct gcomm *find_token(struct gcomm *g, uint32_t n, int32_t leader, int32_t seq)
{
	struct gcomm key;
	key.leader = leader;
	key.seq = seq;
	return n ? bsearch(&key, g, n, sizeof *g, cmp_token) : NULL;
}

/* The global id of a token (MPI_COMM_WORLD 0, MPI_COMM_SELF 1), or
 * OTF2_UNDEFINED_COMM. */
static uint32_t gid_of(struct gcomm *g, uint32_t n, int32_t leader, int32_t seq)
{
	const struct gcomm *f;
	if (leader == MPT_TOKEN_WORLD)
		return 0;
	if (leader == MPT_TOKEN_SELF)
		return 1;
	f = find_token(g, n, leader, seq);
	return f && f->gid ? f->gid : OTF2_UNDEFINED_COMM;
}

/* Give c its global id after its parent's (OTF2 wants a parent defined
 * before its children); depth bounds the walk up. */
static void give_id(struct gcomm *g, uint32_t n, struct gcomm *c, uint32_t *next, int depth)
{
	struct gcomm *p;
	if (c->gid)
		return;
	if (depth < 1000 && c->pleader >= 0 &&
	    (p = find_token(g, n, c->pleader, c->pseq)) != NULL && p != c)
		give_id(g, n, p, next, depth + 1);
	if (!c->gid)
		c->gid = (*next)++;
}

/* Rank 0's strings for the global definitions. */
struct strings {
	const char **s;
	uint32_t n, cap;
};

static uint32_t str(struct strings *t, const char *s)
{
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? 2 * t->cap : 256;
		const char **a = realloc(t->s, cap * sizeof *a);
		if (!a)
			return 0;
		t->s = a;
		t->cap = cap;
	}
	t->s[t->n] = s;
	return t->n++;
}

#define ROLE(r) OTF2_REGION_ROLE_##r,
static const OTF2_RegionRole region_role[MPT_NREGIONS] = {
#define MPT_REGION_ROLE(id, name, role) ROLE(role)
	MPT_REGIONS(MPT_REGION_ROLE)
#undef MPT_REGION_ROLE
};
#undef ROLE

/* Everything rank 0 needs for the global definitions. */
struct global {
	uint64_t *events;  /* by rank */
	char *hosts;       /* HOSTLEN each, by rank */
	uint64_t begin, length, realtime;
	struct gcomm *comms; /* derived, by global id - 2 */
	uint32_t ncomms;
	int32_t *data;     /* what the comms point into */
};

/* Gather every rank's communicators at rank 0, give each a global id,
 * and return this rank's local -> global map (mpt_ncomms entries; NULL
 * when out of memory). Collective over priv. */
static uint64_t *unify_comms(struct global *g)
{
	int32_t *rec = NULL, *counts = NULL, *displs = NULL, *all = NULL;
	uint64_t *map = NULL, *reply = NULL;
	int *ncount = NULL, *rcounts = NULL, *rdispls = NULL;
	int len = 0, total = 0, ok = 1;

	for (uint32_t i = 2; i < mpt_ncomms; i++)
		len += 5 + (mpt_comms[i].members ? mpt_comms[i].size : 0);
	rec = malloc(((size_t)len + 1) * sizeof *rec);
	map = malloc(mpt_ncomms * sizeof *map);
	if (!rec || !map)
		ok = 0;
	for (int32_t i = 2, k = 0; ok && (uint32_t)i < mpt_ncomms; i++) {
		const struct mpt_comm *c = &mpt_comms[i];
		const struct mpt_comm *p = c->parent >= 0 ? &mpt_comms[c->parent] : NULL;
		rec[k++] = c->leader;
		rec[k++] = c->seq;
		rec[k++] = p ? p->leader : MPT_TOKEN_NONE;
		rec[k++] = p ? p->seq : 0;
		rec[k++] = c->members ? c->size : 0;
		for (int32_t j = 0; c->members && j < c->size; j++)
			rec[k++] = c->members[j];
	}
	if (!ok)
		len = 0;
	if (mpt_rank == 0) {
		counts = calloc(nranks(), sizeof *counts);
		displs = calloc(nranks(), sizeof *displs);
		if (!counts || !displs)
			ok = 0;
	}
	PMPI_Gather(&len, 1, MPI_INT, counts, 1, MPI_INT, 0, priv);
	if (mpt_rank == 0 && ok) {
		for (int r = 0; r < mpt_size; r++) {
			displs[r] = total;
			total += counts[r];
		}
		if (!(all = malloc(((size_t)total + 1) * sizeof *all)))
			ok = 0;
	}
	PMPI_Gatherv(rec, len, MPI_INT, all, counts, displs, MPI_INT, 0, priv);

	if (mpt_rank == 0 && ok) {
		uint32_t n = 0;
		/* The leaders' records, one per communicator. */
		for (int k = 0; k < total; k += 5 + all[k + 4])
			if (all[k + 4] > 0)
				n++;
		g->comms = calloc(n + 1, sizeof *g->comms);
		ncount = calloc(nranks(), sizeof *ncount);
		rcounts = calloc(nranks(), sizeof *rcounts);
		rdispls = calloc(nranks(), sizeof *rdispls);
		if (!g->comms || !ncount || !rcounts || !rdispls)
			ok = 0;
		for (int k = 0; ok && k < total; k += 5 + all[k + 4]) {
			if (all[k + 4] == 0)
				continue;
			struct gcomm *c = &g->comms[g->ncomms++];
			c->leader = all[k];
			c->seq = all[k + 1];
			c->pleader = all[k + 2];
			c->pseq = all[k + 3];
			c->size = all[k + 4];
			c->members = &all[k + 5];
		}
		if (ok) {
			uint32_t next = 2;
			qsort(g->comms, g->ncomms, sizeof *g->comms, cmp_token);
			for (uint32_t i = 0; i < g->ncomms; i++)
				give_id(g->comms, g->ncomms, &g->comms[i], &next, 0);
		}
		uint64_t nrep = 0;
		for (int r = 0; ok && r < mpt_size; r++) {
			int nc = 2;
			for (int k = displs[r]; k < displs[r] + counts[r]; k += 5 + all[k + 4])
				nc++;
			rcounts[r] = nc;
			rdispls[r] = (int)nrep;
			nrep += (uint64_t)nc;
		}
		if (ok && !(reply = malloc(nrep * sizeof *reply)))
			ok = 0;
		for (int r = 0; ok && r < mpt_size; r++) {
			uint64_t *o = reply + rdispls[r];
			*o++ = 0;
			*o++ = 1;
			for (int k = displs[r]; k < displs[r] + counts[r]; k += 5 + all[k + 4])
				*o++ = gid_of(g->comms, g->ncomms, all[k], all[k + 1]);
		}
		g->data = all;
	}
	/* Ranks whose counts do not arrive (rank 0 out of memory) map their
	 * ids to themselves; rank 0 then writes no derived communicators. */
	PMPI_Bcast(&ok, 1, MPI_INT, 0, priv);
	if (ok) {
		PMPI_Scatterv(reply, rcounts, rdispls, MPI_UINT64_T, map, (int)mpt_ncomms,
			      MPI_UINT64_T, 0, priv);
	} else if (map) {
		for (uint32_t i = 0; i < mpt_ncomms; i++)
			map[i] = i < 2 ? i : OTF2_UNDEFINED_COMM;
		if (mpt_rank == 0) {
			mpt_warn("out of memory for the communicators' definitions");
			g->ncomms = 0;
		}
	}
	free(rec);
	free(counts);
	free(displs);
	free(ncount);
	free(rcounts);
	free(rdispls);
	free(reply);
	return map;
}

static void write_local_defs(const uint64_t *map)
{
	OTF2_DefWriter *dw;
	if (OTF2_Archive_OpenDefFiles(archive) != OTF2_SUCCESS)
		return;
	dw = OTF2_Archive_GetDefWriter(archive, (OTF2_LocationRef)mpt_rank);
	if (dw) {
		OTF2_IdMap *m = map ? OTF2_IdMap_CreateFromUint64Array(mpt_ncomms, map, true) : NULL;
		/* NULL from an identity map: nothing to write. */
		if (m) {
			OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_COMM, m);
			OTF2_IdMap_Free(m);
		}
		OTF2_DefWriter_WriteClockOffset(dw, sync_at[0], sync_off[0], 0.0);
		OTF2_DefWriter_WriteClockOffset(dw, sync_at[1], sync_off[1], 0.0);
		OTF2_Archive_CloseDefWriter(archive, dw);
	}
	OTF2_Archive_CloseDefFiles(archive);
}

static void write_global_defs(struct global *g)
{
	OTF2_GlobalDefWriter *w = OTF2_Archive_GetGlobalDefWriter(archive);
	struct strings t = { 0 };
	struct utsname un;
	uint32_t s_region[MPT_NREGIONS], *s_rank, *node_of, *s_host, nhosts = 0;
	struct gcomm **byg = NULL;
	uint64_t *members;
	uint32_t ngroups = 3;

	if (!w)
		return;
	s_rank = calloc(nranks(), sizeof *s_rank);
	node_of = calloc(nranks(), sizeof *node_of);
	s_host = calloc(nranks(), sizeof *s_host);
	members = calloc(nranks(), sizeof *members);
	if (g->ncomms)
		byg = malloc(g->ncomms * sizeof *byg);
	if (!s_rank || !node_of || !s_host || !members || (g->ncomms && !byg)) {
		mpt_warn("out of memory for the global definitions");
		goto out;
	}
	if (uname(&un) < 0)
		snprintf(un.sysname, sizeof un.sysname, "unknown");

	str(&t, "");
	str(&t, prog);                         /* 1: ProgramBegin's name */
	uint32_t s_mpi = str(&t, "MPI");
	uint32_t s_tmpl = str(&t, "Comm ${id}");
	uint32_t s_thread = str(&t, "Master thread");
	uint32_t s_machine = str(&t, "machine");
	uint32_t s_sys = str(&t, un.sysname);
	uint32_t s_node = str(&t, "node");
	uint32_t s_platform = str(&t, "platform");
	uint32_t s_world = str(&t, "MPI_COMM_WORLD");
	uint32_t s_self = str(&t, "MPI_COMM_SELF");
	for (int i = 0; i < MPT_NREGIONS; i++)
		s_region[i] = str(&t, mpt_region_name[i]);
	/* A node per host, in the order of the ranks. */
	for (int r = 0; r < mpt_size; r++) {
		const char *h = g->hosts + (size_t)r * HOSTLEN;
		uint32_t k;
		for (k = 0; k < nhosts; k++)
			if (strcmp(h, g->hosts + (size_t)s_host[k] * HOSTLEN) == 0)
				break;
		if (k == nhosts)
			s_host[nhosts++] = (uint32_t)r; /* first rank on it, for now */
		node_of[r] = k;
	}
	for (uint32_t k = 0; k < nhosts; k++)
		s_host[k] = str(&t, g->hosts + (size_t)s_host[k] * HOSTLEN);
	char (*rank_name)[32] = calloc(nranks(), sizeof *rank_name);
	if (!rank_name) {
		mpt_warn("out of memory for the global definitions");
		goto out;
	}
	for (int r = 0; r < mpt_size; r++) {
		snprintf(rank_name[r], sizeof rank_name[r], "MPI Rank %d", r);
		s_rank[r] = str(&t, rank_name[r]);
	}
	if (t.n < 12 + MPT_NREGIONS) {
		mpt_warn("out of memory for the global definitions");
		free(rank_name);
		goto out;
	}

	OTF2_GlobalDefWriter_WriteClockProperties(w, 1000000000u, g->begin, g->length,
						  g->realtime);
	for (uint32_t i = 0; i < t.n; i++)
		OTF2_GlobalDefWriter_WriteString(w, i, t.s[i]);
	OTF2_GlobalDefWriter_WriteParadigm(w, OTF2_PARADIGM_MPI, s_mpi, OTF2_PARADIGM_CLASS_PROCESS);
	OTF2_AttributeValue v;
	v.stringRef = s_tmpl;
	OTF2_GlobalDefWriter_WriteParadigmProperty(w, OTF2_PARADIGM_MPI,
		OTF2_PARADIGM_PROPERTY_COMM_NAME_TEMPLATE, OTF2_TYPE_STRING, v);
	OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, s_sys, s_machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(w, 0, OTF2_SYSTEM_TREE_DOMAIN_MACHINE);
	v.stringRef = s_sys;
	OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty(w, 0, s_platform, OTF2_TYPE_STRING, v);
	for (uint32_t k = 0; k < nhosts; k++) {
		OTF2_GlobalDefWriter_WriteSystemTreeNode(w, k + 1, s_host[k], s_node, 0);
		OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(w, k + 1, OTF2_SYSTEM_TREE_DOMAIN_SHARED_MEMORY);
	}
	for (int r = 0; r < mpt_size; r++)
		OTF2_GlobalDefWriter_WriteLocationGroup(w, (OTF2_LocationGroupRef)r, s_rank[r],
			OTF2_LOCATION_GROUP_TYPE_PROCESS, node_of[r] + 1, OTF2_UNDEFINED_LOCATION_GROUP);
	for (int r = 0; r < mpt_size; r++)
		OTF2_GlobalDefWriter_WriteLocation(w, (OTF2_LocationRef)r, s_thread,
			OTF2_LOCATION_TYPE_CPU_THREAD, g->events[r], (OTF2_LocationGroupRef)r);
	for (int i = 0; i < MPT_NREGIONS; i++)
		OTF2_GlobalDefWriter_WriteRegion(w, (OTF2_RegionRef)i, s_region[i], s_region[i], 0,
			region_role[i], OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, s_mpi, 0, 0);

	/* Groups: the locations (by world rank), MPI_COMM_WORLD's group,
	 * MPI_COMM_SELF's, then one per distinct list of members, members
	 * given as world ranks (indices into the first group). */
	for (int r = 0; r < mpt_size; r++)
		members[r] = (uint64_t)r;
	OTF2_GlobalDefWriter_WriteGroup(w, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS,
		OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)mpt_size, members);
	OTF2_GlobalDefWriter_WriteGroup(w, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP,
		OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)mpt_size, members);
	OTF2_GlobalDefWriter_WriteGroup(w, 2, 0, OTF2_GROUP_TYPE_COMM_SELF,
		OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0, NULL);
	for (uint32_t i = 0; i < g->ncomms; i++)
		byg[i] = &g->comms[i];
	if (g->ncomms)
		qsort(byg, g->ncomms, sizeof *byg, cmp_members);
	for (uint32_t i = 0; i < g->ncomms; i++) {
		struct gcomm *c = byg[i];
		int world = c->size == mpt_size;
		for (int32_t j = 0; world && j < c->size; j++)
			world = c->members[j] == j;
		if (world) {
			c->group = 1;
		} else if (i > 0 && cmp_members(&byg[i - 1], &byg[i]) == 0) {
			c->group = byg[i - 1]->group;
		} else {
			for (int32_t j = 0; j < c->size; j++)
				members[j] = (uint64_t)c->members[j];
			c->group = ngroups++;
			OTF2_GlobalDefWriter_WriteGroup(w, c->group, 0, OTF2_GROUP_TYPE_COMM_GROUP,
				OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)c->size, members);
		}
	}
	OTF2_GlobalDefWriter_WriteComm(w, 0, s_world, 1, OTF2_UNDEFINED_COMM,
				       OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS);
	OTF2_GlobalDefWriter_WriteComm(w, 1, s_self, 2, OTF2_UNDEFINED_COMM,
				       OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS);
	/* In the order of the ids, parents first. */
	for (uint32_t i = 0; i < g->ncomms; i++)
		byg[g->comms[i].gid - 2] = &g->comms[i];
	for (uint32_t i = 0; i < g->ncomms; i++) {
		const struct gcomm *c = byg[i];
		uint32_t parent = c->pleader == MPT_TOKEN_NONE ? OTF2_UNDEFINED_COMM :
			gid_of(g->comms, g->ncomms, c->pleader, c->pseq);
		OTF2_GlobalDefWriter_WriteComm(w, c->gid, 0, c->group, parent,
					       OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS);
	}
	free(rank_name);
out:
	OTF2_Archive_CloseGlobalDefWriter(archive, w);
	free(t.s);
	free(s_rank);
	free(node_of);
	free(s_host);
	free(members);
	free(byg);
}

/* The bytes of the archive's files. */
static uint64_t archive_bytes(void)
{
	char path[4200];
	struct stat st;
	uint64_t sum = 0;
	DIR *d;
	struct dirent *e;
	static const char *const top[] = { "traces.otf2", "traces.def" };
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, top[i]);
		if (stat(path, &st) == 0)
			sum += (uint64_t)st.st_size;
	}
	snprintf(path, sizeof path, "%s/traces", dir);
	if (!(d = opendir(path)))
		return sum;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			if (snprintf(path, sizeof path, "%s/traces/%s", dir, e->d_name) <
				    (int)sizeof path && stat(path, &st) == 0)
				sum += (uint64_t)st.st_size;
		}
	closedir(d);
	return sum;
}

void mpt_stop(void)
{
	struct global g = { 0 };
	uint64_t nev = 0, t, lo, hi, total = 0, nflush = 0;
	uint64_t calls[MPT_NREGIONS];
	unsigned gaps = 0;
	uint64_t *map;
	struct timespec rt, mono;

	if (!mpt_on) {
		if (priv != MPI_COMM_NULL)
			PMPI_Comm_free(&priv);
		return;
	}
	t = mpt_now();
	mpt_calls[R_FINALIZE]++;
	OTF2_EvtWriter_Enter(mpt_evt, NULL, t, R_FINALIZE);
	OTF2_EvtWriter_MpiCollectiveBegin(mpt_evt, NULL, t);
	OTF2_EvtWriter_CommDestroy(mpt_evt, NULL, mpt_now(), 0);
	OTF2_EvtWriter_CommDestroy(mpt_evt, NULL, mpt_now(), 1);
	OTF2_EvtWriter_MpiCollectiveEnd(mpt_evt, NULL, mpt_now(), OTF2_COLLECTIVE_OP_DESTROY_HANDLE,
					0, OTF2_COLLECTIVE_ROOT_NONE, 0, 0);
	OTF2_EvtWriter_Leave(mpt_evt, NULL, mpt_now(), R_FINALIZE);
	t_end = mpt_now();
	OTF2_EvtWriter_ProgramEnd(mpt_evt, NULL, t_end, OTF2_UNDEFINED_INT64);
	mpt_on = 0;
	OTF2_EvtWriter_GetNumberOfEvents(mpt_evt, &nev);
	OTF2_Archive_CloseEvtWriter(archive, mpt_evt);
	OTF2_Archive_CloseEvtFiles(archive);
	mpt_evt = NULL;

	sync_off[1] = sync_clock(&sync_at[1]);
	map = unify_comms(&g);
	write_local_defs(map);

	/* The trace's time span on rank 0's clock. */
	lo = (uint64_t)((int64_t)t_start + sync_off[0]);
	hi = (uint64_t)((int64_t)t_end + sync_off[1]);
	PMPI_Reduce(mpt_rank == 0 ? MPI_IN_PLACE : &lo, &lo, 1, MPI_UINT64_T, MPI_MIN, 0, priv);
	PMPI_Reduce(mpt_rank == 0 ? MPI_IN_PLACE : &hi, &hi, 1, MPI_UINT64_T, MPI_MAX, 0, priv);
	PMPI_Reduce(mpt_calls, calls, MPT_NREGIONS, MPI_UINT64_T, MPI_SUM, 0, priv);
	PMPI_Reduce(&flushes, &nflush, 1, MPI_UINT64_T, MPI_SUM, 0, priv);
	PMPI_Allreduce(&mpt_gaps, &gaps, 1, MPI_UNSIGNED, MPI_BOR, priv);
	if (mpt_rank == 0) {
		g.events = malloc(nranks() * sizeof *g.events);
		g.hosts = malloc(nranks() * HOSTLEN);
	}
	PMPI_Gather(&nev, 1, MPI_UINT64_T, g.events, 1, MPI_UINT64_T, 0, priv);
	PMPI_Gather(host, HOSTLEN, MPI_CHAR, g.hosts, HOSTLEN, MPI_CHAR, 0, priv);
	if (mpt_rank == 0) {
		g.begin = lo;
		g.length = hi > lo ? hi - lo : 0;
		/* The date of the trace's start, from rank 0's two clocks. */
		clock_gettime(CLOCK_REALTIME, &rt);
		clock_gettime(CLOCK_MONOTONIC, &mono);
		uint64_t rt_ns = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
		uint64_t mono_ns = (uint64_t)mono.tv_sec * 1000000000u + (uint64_t)mono.tv_nsec;
		g.realtime = rt_ns - (mono_ns - lo);
		if (g.events && g.hosts)
			write_global_defs(&g);
		else
			mpt_warn("out of memory for the global definitions");
	}
	OTF2_Archive_SetBoolProperty(archive, "OTF2::MPI_COMMUNICATION_COMPLETE", gaps == 0, true);
	if (OTF2_Archive_Close(archive) != OTF2_SUCCESS)
		mpt_warn("%s: the archive was not closed cleanly", dir);
	archive = NULL;

	if (mpt_rank == 0) {
		FILE *f = account("a");
		int nhosts = 0;
		for (int r = 0; g.events && r < mpt_size; r++)
			total += g.events[r];
		for (int r = 0; g.hosts && r < mpt_size; r++) {
			int seen = 0;
			for (int q = 0; q < r && !seen; q++)
				seen = strcmp(g.hosts + (size_t)q * HOSTLEN, g.hosts + (size_t)r * HOSTLEN) == 0;
			nhosts += !seen;
		}
		if (f) {
			fprintf(f, "hosts: %d\n", nhosts);
			fprintf(f, "duration: %.6f s\n", (double)g.length / 1e9);
			fprintf(f, "events: %llu\n", (unsigned long long)total);
			fprintf(f, "flushes: %llu\n", (unsigned long long)nflush);
			for (int i = 0; i < MPT_NREGIONS; i++)
				if (calls[i])
					fprintf(f, "calls: %s %llu\n", mpt_region_name[i],
						(unsigned long long)calls[i]);
			if (!gaps)
				fprintf(f, "complete: yes\n");
			for (int k = 0; k < MPT_NGAPS; k++)
				if (gaps & (1u << k))
					fprintf(f, "complete: no: %s\n", gap_name[k]);
			fprintf(f, "bytes: %llu\n", (unsigned long long)archive_bytes());
			fprintf(f, "status: finished\n");
			if (fclose(f) != 0)
				mpt_warn("%s/mptrace.txt: %s", dir, strerror(errno));
		}
	}
	free(g.events);
	free(g.hosts);
	free(g.comms);
	free(g.data);
	free(map);
	PMPI_Comm_free(&priv);
}
