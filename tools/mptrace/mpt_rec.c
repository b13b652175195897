/*
 * The events of the recorded MPI calls, written to this rank's OTF2
 * event writer, and the two tables behind them: the communicators this
 * rank knows (events name a communicator by a local id that the archive's
 * mapping table turns into a global one) and the pending requests
 * (handle -> OTF2 request id and what completing it means).
 */
#include <stdlib.h>
#include <string.h>

#include "mpt_int.h"

OTF2_EvtWriter *mpt_evt;
struct mpt_comm *mpt_comms;
uint32_t mpt_ncomms;
uint64_t mpt_calls[MPT_NREGIONS];
uint64_t mpt_t;

#define MPT_REGION_NAME(id, name, role) name,
const char *const mpt_region_name[MPT_NREGIONS] = { MPT_REGIONS(MPT_REGION_NAME) };
#undef MPT_REGION_NAME

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

void mpt_lock(void)
{
	if (mpt_multiple)
		pthread_mutex_lock(&table_lock);
}

void mpt_unlock(void)
{
	if (mpt_multiple)
		pthread_mutex_unlock(&table_lock);
}

/* --- handle -> index maps: open addressing, linear probing, deletion by
 * backward shift; key 0 is never a handle. --- */

struct map {
	uintptr_t *keys;
	uint32_t *vals;
	uint32_t cap, n; /* cap a power of two, or 0 */
};

static uint32_t slot(const struct map *m, uintptr_t k)
{
	uint64_t h = (uint64_t)(k >> 3) * 0x9E3779B97F4A7C15ull;
	return (uint32_t)(h >> 32) & (m->cap - 1);
}

static int map_get(const struct map *m, uintptr_t k, uint32_t *v)
{
	if (m->cap == 0)
		return 0;
	for (uint32_t i = slot(m, k);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == k) {
			*v = m->vals[i];
			return 1;
		}
		if (m->keys[i] == 0)
			return 0;
	}
}

static int map_grow(struct map *m)
{
	struct map g;
	g.cap = m->cap ? m->cap * 2 : 64;
	g.n = 0;
	g.keys = calloc(g.cap, sizeof *g.keys);
	g.vals = malloc(g.cap * sizeof *g.vals);
	if (!g.keys || !g.vals) {
		free(g.keys);
		free(g.vals);
		return -1;
	}
	for (uint32_t i = 0; i < m->cap; i++)
		if (m->keys[i]) {
			uint32_t j = slot(&g, m->keys[i]);
			while (g.keys[j])
				j = (j + 1) & (g.cap - 1);
			g.keys[j] = m->keys[i];
			g.vals[j] = m->vals[i];
			g.n++;
		}
	free(m->keys);
	free(m->vals);
	*m = g;
	return 0;
}

/* Insert or replace; -1 when out of memory. */
static int map_put(struct map *m, uintptr_t k, uint32_t v)
{
	if (2 * (m->n + 1) > m->cap && map_grow(m) < 0)
		return -1;
	uint32_t i = slot(m, k);
	while (m->keys[i] && m->keys[i] != k)
		i = (i + 1) & (m->cap - 1);
	if (!m->keys[i])
		m->n++;
	m->keys[i] = k;
	m->vals[i] = v;
	return 0;
}

static int map_del(struct map *m, uintptr_t k, uint32_t *v)
{
	if (m->cap == 0)
		return 0;
	uint32_t i = slot(m, k);
	while (m->keys[i] != k) {
		if (!m->keys[i])
			return 0;
		i = (i + 1) & (m->cap - 1);
	}
	*v = m->vals[i];
	/* Shift later members of the run back over the hole. */
	for (uint32_t j = (i + 1) & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1)) {
		uint32_t h = slot(m, m->keys[j]);
		if (((j - h) & (m->cap - 1)) >= ((j - i) & (m->cap - 1))) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			i = j;
		}
	}
	m->keys[i] = 0;
	m->n--;
	return 1;
}

/* --- communicators --- */

static struct map comm_map;
static uint32_t comm_cap;
static int32_t lead_seq; /* communicators this rank leads */
static MPI_Comm last_comm = MPI_COMM_NULL;
static int64_t last_id = -1;

static int comm_add(MPI_Comm h, int32_t leader, int32_t seq, int32_t parent,
		    int32_t size, int32_t *members)
{
	if (mpt_ncomms == comm_cap) {
		uint32_t cap = comm_cap ? comm_cap * 2 : 16;
		struct mpt_comm *c = realloc(mpt_comms, cap * sizeof *c);
		if (!c)
			return -1;
		mpt_comms = c;
		comm_cap = cap;
	}
	if (map_put(&comm_map, (uintptr_t)h, mpt_ncomms) < 0)
		return -1;
	struct mpt_comm *c = &mpt_comms[mpt_ncomms];
	c->handle = h;
	c->leader = leader;
	c->seq = seq;
	c->parent = parent;
	c->size = size;
	c->members = members;
	return (int)mpt_ncomms++;
}

int mpt_comms_init(void)
{
	if (comm_add(MPI_COMM_WORLD, MPT_TOKEN_WORLD, 0, -1, mpt_size, NULL) < 0 ||
	    comm_add(MPI_COMM_SELF, MPT_TOKEN_SELF, 0, -1, 1, NULL) < 0)
		return -1;
	return 0;
}

/* The local id of comm, or -1 when this rank does not know it. */
static int64_t comm_lookup(MPI_Comm comm)
{
	uint32_t v;
	mpt_lock();
	int found = map_get(&comm_map, (uintptr_t)comm, &v);
	mpt_unlock();
	return found ? (int64_t)v : -1;
}

/* The local id of comm for an event of the recording thread, or -1 (and
 * the trace is marked incomplete) when this rank does not know it. */
static int64_t comm_id(MPI_Comm comm)
{
	int64_t v;
	if (comm == MPI_COMM_WORLD)
		return 0;
	if (comm == last_comm)
		return last_id;
	if ((v = comm_lookup(comm)) < 0) {
		mpt_incomplete(MPT_GAP_COMM);
		return -1;
	}
	last_comm = comm;
	last_id = v;
	return v;
}

void mpt_comm_new(MPI_Comm parent, MPI_Comm newcomm)
{
	int inter = 0, me = 0, n = 0, wme = 0;
	int32_t tok[2];
	int32_t *members = NULL;
	int64_t pid;

	if (newcomm == MPI_COMM_NULL || !mpt_on)
		return;
	PMPI_Comm_test_inter(newcomm, &inter);
	if (inter)
		return;
	PMPI_Comm_rank(newcomm, &me);
	PMPI_Comm_size(newcomm, &n);
	PMPI_Comm_rank(MPI_COMM_WORLD, &wme);
	mpt_lock();
	if (me == 0) {
		tok[0] = wme;
		tok[1] = ++lead_seq;
	}
	mpt_unlock();
	/* Every member must learn the token: the leader tells them. */
	PMPI_Bcast(tok, 2, MPI_INT, 0, newcomm);
	if (me == 0) {
		MPI_Group g, wg;
		int *idx = malloc((size_t)n * sizeof *idx);
		members = malloc((size_t)n * sizeof *members);
		if (!idx || !members) {
			free(idx);
			free(members);
			mpt_warn("out of memory for a communicator's group");
			return;
		}
		for (int i = 0; i < n; i++)
			idx[i] = i;
		PMPI_Comm_group(newcomm, &g);
		PMPI_Comm_group(MPI_COMM_WORLD, &wg);
		PMPI_Group_translate_ranks(g, n, idx, wg, (int *)members);
		PMPI_Group_free(&g);
		PMPI_Group_free(&wg);
		free(idx);
	}
	pid = parent == MPI_COMM_NULL ? -1 : comm_lookup(parent);
	mpt_lock();
	int id = comm_add(newcomm, tok[0], tok[1], (int32_t)pid, n, members);
	mpt_unlock();
	if (id < 0) {
		free(members);
		mpt_warn("out of memory for a communicator");
		return;
	}
	if (mpt_active())
		OTF2_EvtWriter_CommCreate(mpt_evt, NULL, mpt_t, (OTF2_CommRef)id);
}

void mpt_comm_gone(MPI_Comm comm)
{
	uint32_t v;
	if (!mpt_on || comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF)
		return;
	mpt_lock();
	int found = map_del(&comm_map, (uintptr_t)comm, &v);
	if (found)
		mpt_comms[v].handle = MPI_COMM_NULL;
	if (comm == last_comm)
		last_comm = MPI_COMM_NULL;
	mpt_unlock();
	if (found && mpt_active())
		OTF2_EvtWriter_CommDestroy(mpt_evt, NULL, mpt_t, v);
}

/* --- requests --- */

/* A pending request. Handles are not unique: Open MPI returns one shared
 * pre-completed request for every small send it finished at once, so a
 * handle maps to a queue of requests, completed oldest first. */
enum { REQ_SEND, REQ_RECV, REQ_COLL };

struct req {
	uint64_t id;           /* OTF2 request id of the current use */
	uint64_t bytes, recvd; /* message bytes; a collective's sent and received */
	uint32_t comm;
	int32_t peer, tag;
	uint32_t root;
	uint8_t kind, op, persistent, active, cancel;
	uint32_t next;         /* the next request of the same handle, or free */
	uint32_t last;         /* in a queue's first: its last */
};

#define NONE UINT32_MAX

static struct map req_map;
static struct req *reqs;
static uint32_t req_cap, req_free = NONE;
static uint64_t req_seq;

/* A new request queued on handle h, or NULL when out of memory. */
static struct req *req_new(MPI_Request h)
{
	uint32_t i, first;
	if (req_free == NONE) {
		uint32_t cap = req_cap ? req_cap * 2 : 64;
		struct req *r = realloc(reqs, cap * sizeof *r);
		if (!r)
			return NULL;
		reqs = r;
		for (uint32_t k = req_cap; k < cap; k++)
			reqs[k].next = k + 1 < cap ? k + 1 : NONE;
		req_free = req_cap;
		req_cap = cap;
	}
	i = req_free;
	if (map_get(&req_map, (uintptr_t)h, &first)) {
		reqs[reqs[first].last].next = i;
		reqs[first].last = i;
	} else if (map_put(&req_map, (uintptr_t)h, i) < 0) {
		return NULL;
	} else {
		first = i;
	}
	req_free = reqs[i].next;
	memset(&reqs[i], 0, sizeof reqs[i]);
	reqs[i].next = NONE;
	if (first == i)
		reqs[i].last = i;
	return &reqs[i];
}

/* The oldest request of handle h, or NULL. */
static struct req *req_find(MPI_Request h)
{
	uint32_t i;
	if (h == MPI_REQUEST_NULL || !map_get(&req_map, (uintptr_t)h, &i))
		return NULL;
	return &reqs[i];
}

/* Forget the oldest request of handle h. */
static void req_forget(MPI_Request h)
{
	uint32_t i, next;
	if (!map_get(&req_map, (uintptr_t)h, &i))
		return;
	next = reqs[i].next;
	if (next == NONE) {
		map_del(&req_map, (uintptr_t)h, &i);
	} else {
		reqs[next].last = reqs[i].last;
		map_put(&req_map, (uintptr_t)h, next);
	}
	reqs[i].next = req_free;
	req_free = i;
}

/* --- events --- */

void mpt_enter(int region)
{
	mpt_calls[region]++;
	mpt_t = mpt_now();
	OTF2_EvtWriter_Enter(mpt_evt, NULL, mpt_t, (OTF2_RegionRef)region);
}

void mpt_leave(int region)
{
	OTF2_EvtWriter_Leave(mpt_evt, NULL, mpt_t, (OTF2_RegionRef)region);
}

void mpt_send(MPI_Comm comm, int dest, int tag, uint64_t bytes)
{
	int64_t c;
	if (dest == MPI_PROC_NULL || (c = comm_id(comm)) < 0)
		return;
	OTF2_EvtWriter_MpiSend(mpt_evt, NULL, mpt_t, (uint32_t)dest,
			       (OTF2_CommRef)c, (uint32_t)tag, bytes);
}

static uint64_t status_bytes(const MPI_Status *st)
{
	int n = 0;
	if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n < 0)
		return 0;
	return (uint64_t)n;
}

void mpt_recv(MPI_Comm comm, const MPI_Status *st)
{
	int64_t c;
	if (st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0 ||
	    (c = comm_id(comm)) < 0)
		return;
	OTF2_EvtWriter_MpiRecv(mpt_evt, NULL, mpt_t, (uint32_t)st->MPI_SOURCE,
			       (OTF2_CommRef)c, (uint32_t)st->MPI_TAG, status_bytes(st));
}

void mpt_isend(MPI_Comm comm, int dest, int tag, uint64_t bytes, MPI_Request req)
{
	int64_t c;
	struct req *r;
	if (dest == MPI_PROC_NULL || req == MPI_REQUEST_NULL || (c = comm_id(comm)) < 0)
		return;
	if (!(r = req_new(req))) {
		mpt_incomplete(MPT_GAP_MEMORY);
		return;
	}
	r->kind = REQ_SEND;
	r->active = 1;
	r->id = ++req_seq;
	OTF2_EvtWriter_MpiIsend(mpt_evt, NULL, mpt_t, (uint32_t)dest,
				(OTF2_CommRef)c, (uint32_t)tag, bytes, r->id);
}

void mpt_irecv(MPI_Comm comm, int source, MPI_Request req)
{
	int64_t c;
	struct req *r;
	if (source == MPI_PROC_NULL || req == MPI_REQUEST_NULL || (c = comm_id(comm)) < 0)
		return;
	if (!(r = req_new(req))) {
		mpt_incomplete(MPT_GAP_MEMORY);
		return;
	}
	r->kind = REQ_RECV;
	r->active = 1;
	r->comm = (uint32_t)c;
	r->id = ++req_seq;
	OTF2_EvtWriter_MpiIrecvRequest(mpt_evt, NULL, mpt_t, r->id);
}

/* Messages of matched probes: handle -> local id of their communicator. */
static struct map msg_map;

void mpt_message(MPI_Message m, MPI_Comm comm)
{
	int64_t c;
	if (m == MPI_MESSAGE_NULL || m == MPI_MESSAGE_NO_PROC || (c = comm_id(comm)) < 0)
		return;
	if (map_put(&msg_map, (uintptr_t)m, (uint32_t)c) < 0)
		mpt_incomplete(MPT_GAP_MEMORY);
}

void mpt_mrecv(MPI_Message m, const MPI_Status *st)
{
	uint32_t c;
	if (!map_del(&msg_map, (uintptr_t)m, &c) || st->MPI_SOURCE < 0)
		return;
	OTF2_EvtWriter_MpiRecv(mpt_evt, NULL, mpt_t, (uint32_t)st->MPI_SOURCE,
			       c, (uint32_t)st->MPI_TAG, status_bytes(st));
}

void mpt_imrecv(MPI_Message m, MPI_Request req)
{
	uint32_t c;
	struct req *r;
	if (!map_del(&msg_map, (uintptr_t)m, &c) || req == MPI_REQUEST_NULL)
		return;
	if (!(r = req_new(req))) {
		mpt_incomplete(MPT_GAP_MEMORY);
		return;
	}
	r->kind = REQ_RECV;
	r->active = 1;
	r->comm = c;
	r->id = ++req_seq;
	OTF2_EvtWriter_MpiIrecvRequest(mpt_evt, NULL, mpt_t, r->id);
}

void mpt_persistent(MPI_Comm comm, int send, int peer, int tag, uint64_t bytes,
		    MPI_Request req)
{
	int64_t c;
	struct req *r;
	if (peer == MPI_PROC_NULL || req == MPI_REQUEST_NULL || (c = comm_id(comm)) < 0)
		return;
	if (!(r = req_new(req))) {
		mpt_incomplete(MPT_GAP_MEMORY);
		return;
	}
	r->kind = send ? REQ_SEND : REQ_RECV;
	r->persistent = 1;
	r->comm = (uint32_t)c;
	r->peer = peer;
	r->tag = tag;
	r->bytes = bytes;
}

void mpt_start_req(MPI_Request req)
{
	struct req *r = req_find(req);
	if (!r || !r->persistent)
		return;
	r->active = 1;
	r->id = ++req_seq;
	if (r->kind == REQ_SEND)
		OTF2_EvtWriter_MpiIsend(mpt_evt, NULL, mpt_t, (uint32_t)r->peer,
					r->comm, (uint32_t)r->tag, r->bytes, r->id);
	else
		OTF2_EvtWriter_MpiIrecvRequest(mpt_evt, NULL, mpt_t, r->id);
}

void mpt_free_req(MPI_Request req)
{
	/* An active request freed completes unseen: its MpiIsend stays, with
	 * no completion (OTF2 allows that). */
	req_forget(req);
}

void mpt_icoll(int op, MPI_Comm comm, uint32_t root, uint64_t sent,
	       uint64_t recvd, MPI_Request req)
{
	int64_t c;
	struct req *r;
	if (req == MPI_REQUEST_NULL || (c = comm_id(comm)) < 0)
		return;
	if (!(r = req_new(req))) {
		mpt_incomplete(MPT_GAP_MEMORY);
		return;
	}
	r->kind = REQ_COLL;
	r->active = 1;
	r->op = (uint8_t)op;
	r->comm = (uint32_t)c;
	r->root = root;
	r->bytes = sent;
	r->recvd = recvd;
	r->id = ++req_seq;
	OTF2_EvtWriter_NonBlockingCollectiveRequest(mpt_evt, NULL, mpt_t, r->id);
}

void mpt_done(MPI_Request req, const MPI_Status *st)
{
	struct req *r = req_find(req);
	int cancelled = 0;
	if (!r || !r->active)
		return;
	if (r->cancel) /* only then can it have been */
		PMPI_Test_cancelled(st, &cancelled);
	if (cancelled)
		OTF2_EvtWriter_MpiRequestCancelled(mpt_evt, NULL, mpt_t, r->id);
	else if (r->kind == REQ_SEND)
		OTF2_EvtWriter_MpiIsendComplete(mpt_evt, NULL, mpt_t, r->id);
	else if (r->kind == REQ_RECV)
		OTF2_EvtWriter_MpiIrecv(mpt_evt, NULL, mpt_t, (uint32_t)st->MPI_SOURCE,
					r->comm, (uint32_t)st->MPI_TAG, status_bytes(st), r->id);
	else
		OTF2_EvtWriter_NonBlockingCollectiveComplete(mpt_evt, NULL, mpt_t,
			r->op, r->comm, r->root, r->bytes, r->recvd, r->id);
	if (r->persistent) {
		r->active = 0;
		r->cancel = 0;
	} else
		req_forget(req);
}

void mpt_cancel(MPI_Request req)
{
	struct req *r = req_find(req);
	if (r)
		r->cancel = 1;
}

void mpt_tested(MPI_Request req)
{
	struct req *r = req_find(req);
	if (r && r->active)
		OTF2_EvtWriter_MpiRequestTest(mpt_evt, NULL, mpt_t, r->id);
}

int mpt_coll_begin(MPI_Comm comm)
{
	if (comm_id(comm) < 0)
		return 0;
	OTF2_EvtWriter_MpiCollectiveBegin(mpt_evt, NULL, mpt_t);
	return 1;
}

void mpt_coll_end(int op, MPI_Comm comm, uint32_t root, uint64_t sent, uint64_t recvd)
{
	int64_t c = comm_id(comm);
	if (c < 0) /* cannot be: the begin found it */
		return;
	OTF2_EvtWriter_MpiCollectiveEnd(mpt_evt, NULL, mpt_t, (OTF2_CollectiveOp)op,
					(OTF2_CommRef)c, root, sent, recvd);
}
