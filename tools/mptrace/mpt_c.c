/*
 * The C interface: every recorded MPI function, defined here so that the
 * dynamic linker binds the program's calls to it (the library is
 * preloaded), calls its PMPI_ twin and records around it. When recording
 * is off (no MPTRACE_DIR, before MPI_Init, after MPI_Finalize, another
 * thread under MPI_THREAD_MULTIPLE) a wrapper only calls PMPI.
 */
#include <stdlib.h>
#include <string.h>

#include "mpt.h"

/* Wrappers of MPI functions have MPI's prototypes, from mpi.h. */

/* --- scratch arrays for the Wait and Test families (recording thread
 * only) --- */

static MPI_Request *old_req;
static MPI_Status *tmp_st;
static char *hit;
static int scratch_n;

/* Room for n requests, statuses and marks; 0 when out of memory. */
static int scratch(int n)
{
	if (n <= scratch_n)
		return 1;
	MPI_Request *r = realloc(old_req, (size_t)n * sizeof *r);
	if (r)
		old_req = r;
	MPI_Status *s = realloc(tmp_st, (size_t)n * sizeof *s);
	if (s)
		tmp_st = s;
	char *h = realloc(hit, (size_t)n);
	if (h)
		hit = h;
	if (!r || !s || !h) {
		mpt_incomplete(MPT_GAP_MEMORY);
		return 0;
	}
	scratch_n = n;
	return 1;
}

#define RETURN_PLAIN(region, call) \
	do { \
		if (!mpt_active()) \
			return call; \
		mpt_enter(region); \
		int r_ = call; \
		mpt_after(); \
		mpt_leave(region); \
		return r_; \
	} while (0)

/* --- start and end --- */

int MPI_Init(int *argc, char ***argv)
{
	uint64_t t0 = mpt_now();
	int provided = MPI_THREAD_SINGLE;
	int r = PMPI_Init(argc, argv);
	if (r == MPI_SUCCESS) {
		PMPI_Query_thread(&provided);
		mpt_start(R_INIT, t0, provided);
	}
	return r;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	uint64_t t0 = mpt_now();
	int r = PMPI_Init_thread(argc, argv, required, provided);
	if (r == MPI_SUCCESS)
		mpt_start(R_INIT_THREAD, t0, *provided);
	return r;
}

int MPI_Finalize(void)
{
	mpt_stop();
	return PMPI_Finalize();
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
	if (mpt_active())
		mpt_enter(R_ABORT);
	return PMPI_Abort(comm, errorcode);
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
	RETURN_PLAIN(R_COMM_RANK, PMPI_Comm_rank(comm, rank));
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
	RETURN_PLAIN(R_COMM_SIZE, PMPI_Comm_size(comm, size));
}

/* --- blocking point-to-point --- */

#define SEND(region, call, buf, count, dt, dest, tag, comm) \
	do { \
		if (!mpt_active()) \
			return call; \
		mpt_enter(region); \
		mpt_send(comm, dest, tag, mpt_type_bytes(count, dt)); \
		int r_ = call; \
		mpt_after(); \
		mpt_leave(region); \
		return r_; \
	} while (0)

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	SEND(R_SEND, PMPI_Send(buf, count, datatype, dest, tag, comm), buf, count, datatype, dest, tag, comm);
}

int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	SEND(R_BSEND, PMPI_Bsend(buf, count, datatype, dest, tag, comm), buf, count, datatype, dest, tag, comm);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	SEND(R_SSEND, PMPI_Ssend(buf, count, datatype, dest, tag, comm), buf, count, datatype, dest, tag, comm);
}

int MPI_Rsend(const void *ibuf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	SEND(R_RSEND, PMPI_Rsend(ibuf, count, datatype, dest, tag, comm), ibuf, count, datatype, dest, tag, comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
	     MPI_Status *status)
{
	MPI_Status tmp, *st = status == MPI_STATUS_IGNORE ? &tmp : status;
	if (!mpt_active())
		return PMPI_Recv(buf, count, datatype, source, tag, comm, status);
	mpt_enter(R_RECV);
	int r = PMPI_Recv(buf, count, datatype, source, tag, comm, st);
	mpt_after();
	if (r == MPI_SUCCESS)
		mpt_recv(comm, st);
	mpt_leave(R_RECV);
	return r;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
		 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
		 MPI_Comm comm, MPI_Status *status)
{
	MPI_Status tmp, *st = status == MPI_STATUS_IGNORE ? &tmp : status;
	if (!mpt_active())
		return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
				     recvcount, recvtype, source, recvtag, comm, status);
	mpt_enter(R_SENDRECV);
	mpt_send(comm, dest, sendtag, mpt_type_bytes(sendcount, sendtype));
	int r = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
			      recvtype, source, recvtag, comm, st);
	mpt_after();
	if (r == MPI_SUCCESS)
		mpt_recv(comm, st);
	mpt_leave(R_SENDRECV);
	return r;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
			 int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
	MPI_Status tmp, *st = status == MPI_STATUS_IGNORE ? &tmp : status;
	if (!mpt_active())
		return PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag,
					     comm, status);
	mpt_enter(R_SENDRECV_REPLACE);
	mpt_send(comm, dest, sendtag, mpt_type_bytes(count, datatype));
	int r = PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, st);
	mpt_after();
	if (r == MPI_SUCCESS)
		mpt_recv(comm, st);
	mpt_leave(R_SENDRECV_REPLACE);
	return r;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	RETURN_PLAIN(R_PROBE, PMPI_Probe(source, tag, comm, status));
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
	RETURN_PLAIN(R_IPROBE, PMPI_Iprobe(source, tag, comm, flag, status));
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
	if (!mpt_active())
		return PMPI_Mprobe(source, tag, comm, message, status);
	mpt_enter(R_MPROBE);
	int r = PMPI_Mprobe(source, tag, comm, message, status);
	mpt_after();
	if (r == MPI_SUCCESS)
		mpt_message(*message, comm);
	mpt_leave(R_MPROBE);
	return r;
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
		MPI_Status *status)
{
	if (!mpt_active())
		return PMPI_Improbe(source, tag, comm, flag, message, status);
	mpt_enter(R_IMPROBE);
	int r = PMPI_Improbe(source, tag, comm, flag, message, status);
	mpt_after();
	if (r == MPI_SUCCESS && *flag)
		mpt_message(*message, comm);
	mpt_leave(R_IMPROBE);
	return r;
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message, MPI_Status *status)
{
	MPI_Status tmp, *st = status == MPI_STATUS_IGNORE ? &tmp : status;
	MPI_Message m = *message;
	if (!mpt_active())
		return PMPI_Mrecv(buf, count, type, message, status);
	mpt_enter(R_MRECV);
	int r = PMPI_Mrecv(buf, count, type, message, st);
	mpt_after();
	if (r == MPI_SUCCESS)
		mpt_mrecv(m, st);
	mpt_leave(R_MRECV);
	return r;
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message, MPI_Request *request)
{
	MPI_Message m = *message;
	if (!mpt_active())
		return PMPI_Imrecv(buf, count, type, message, request);
	mpt_enter(R_IMRECV);
	int r = PMPI_Imrecv(buf, count, type, message, request);
	mpt_after();
	if (r == MPI_SUCCESS)
		mpt_imrecv(m, *request);
	mpt_leave(R_IMRECV);
	return r;
}

/* --- non-blocking and persistent point-to-point --- */

#define ISEND(region, call, count, dt, dest, tag, comm, req) \
	do { \
		if (!mpt_active()) \
			return call; \
		mpt_enter(region); \
		int r_ = call; \
		mpt_after(); \
		if (r_ == MPI_SUCCESS) \
			mpt_isend(comm, dest, tag, mpt_type_bytes(count, dt), *(req)); \
		mpt_leave(region); \
		return r_; \
	} while (0)

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
	      MPI_Request *request)
{
	ISEND(R_ISEND, PMPI_Isend(buf, count, datatype, dest, tag, comm, request),
	      count, datatype, dest, tag, comm, request);
}

int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
	       MPI_Request *request)
{
	ISEND(R_IBSEND, PMPI_Ibsend(buf, count, datatype, dest, tag, comm, request),
	      count, datatype, dest, tag, comm, request);
}

int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
	       MPI_Request *request)
{
	ISEND(R_ISSEND, PMPI_Issend(buf, count, datatype, dest, tag, comm, request),
	      count, datatype, dest, tag, comm, request);
}

int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
	       MPI_Request *request)
{
	ISEND(R_IRSEND, PMPI_Irsend(buf, count, datatype, dest, tag, comm, request),
	      count, datatype, dest, tag, comm, request);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
	      MPI_Request *request)
{
	if (!mpt_active())
		return PMPI_Irecv(buf, count, datatype, source, tag, comm, request);
	mpt_enter(R_IRECV);
	int r = PMPI_Irecv(buf, count, datatype, source, tag, comm, request);
	mpt_after();
	if (r == MPI_SUCCESS)
		mpt_irecv(comm, source, *request);
	mpt_leave(R_IRECV);
	return r;
}

#define PINIT(region, call, send, count, dt, peer, tag, comm, req) \
	do { \
		if (!mpt_active()) \
			return call; \
		mpt_enter(region); \
		int r_ = call; \
		mpt_after(); \
		if (r_ == MPI_SUCCESS) \
			mpt_persistent(comm, send, peer, tag, (send) ? mpt_type_bytes(count, dt) : 0, *(req)); \
		mpt_leave(region); \
		return r_; \
	} while (0)

int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
		  MPI_Comm comm, MPI_Request *request)
{
	PINIT(R_SEND_INIT, PMPI_Send_init(buf, count, datatype, dest, tag, comm, request),
	      1, count, datatype, dest, tag, comm, request);
}

int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
		   MPI_Comm comm, MPI_Request *request)
{
	PINIT(R_BSEND_INIT, PMPI_Bsend_init(buf, count, datatype, dest, tag, comm, request),
	      1, count, datatype, dest, tag, comm, request);
}

int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
		   MPI_Comm comm, MPI_Request *request)
{
	PINIT(R_SSEND_INIT, PMPI_Ssend_init(buf, count, datatype, dest, tag, comm, request),
	      1, count, datatype, dest, tag, comm, request);
}

int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
		   MPI_Comm comm, MPI_Request *request)
{
	PINIT(R_RSEND_INIT, PMPI_Rsend_init(buf, count, datatype, dest, tag, comm, request),
	      1, count, datatype, dest, tag, comm, request);
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag,
		  MPI_Comm comm, MPI_Request *request)
{
	PINIT(R_RECV_INIT, PMPI_Recv_init(buf, count, datatype, source, tag, comm, request),
	      0, count, datatype, source, tag, comm, request);
}

int MPI_Start(MPI_Request *request)
{
	if (!mpt_active())
		return PMPI_Start(request);
	mpt_enter(R_START);
	mpt_start_req(*request);
	int r = PMPI_Start(request);
	mpt_after();
	mpt_leave(R_START);
	return r;
}

int MPI_Startall(int count, MPI_Request array_of_requests[])
{
	if (!mpt_active())
		return PMPI_Startall(count, array_of_requests);
	mpt_enter(R_STARTALL);
	for (int i = 0; i < count; i++)
		mpt_start_req(array_of_requests[i]);
	int r = PMPI_Startall(count, array_of_requests);
	mpt_after();
	mpt_leave(R_STARTALL);
	return r;
}

int MPI_Request_free(MPI_Request *request)
{
	if (!mpt_active())
		return PMPI_Request_free(request);
	mpt_enter(R_REQUEST_FREE);
	mpt_free_req(*request);
	int r = PMPI_Request_free(request);
	mpt_after();
	mpt_leave(R_REQUEST_FREE);
	return r;
}

int MPI_Cancel(MPI_Request *request)
{
	if (!mpt_active())
		return PMPI_Cancel(request);
	mpt_enter(R_CANCEL);
	mpt_cancel(*request);
	int r = PMPI_Cancel(request);
	mpt_after();
	mpt_leave(R_CANCEL);
	return r;
}

/* --- completion --- */

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
	MPI_Status tmp, *st = status == MPI_STATUS_IGNORE ? &tmp : status;
	MPI_Request old = *request;
	if (!mpt_active())
		return PMPI_Wait(request, status);
	mpt_enter(R_WAIT);
	int r = PMPI_Wait(request, st);
	mpt_after();
	if (r == MPI_SUCCESS)
		mpt_done(old, st);
	mpt_leave(R_WAIT);
	return r;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
	MPI_Status tmp, *st = status == MPI_STATUS_IGNORE ? &tmp : status;
	MPI_Request old = *request;
	if (!mpt_active())
		return PMPI_Test(request, flag, status);
	mpt_enter(R_TEST);
	int r = PMPI_Test(request, flag, st);
	mpt_after();
	if (r == MPI_SUCCESS) {
		if (*flag)
			mpt_done(old, st);
		else
			mpt_tested(old);
	}
	mpt_leave(R_TEST);
	return r;
}

/* The statuses to pass: the caller's, or the scratch ones (room for
 * the request count, see scratch) when it ignores them. */
static MPI_Status *statuses(MPI_Status *given)
{
	return given != MPI_STATUSES_IGNORE ? given : tmp_st;
}

/* The completions of an "all" or "some" call that returned err: with
 * MPI_ERR_IN_STATUS only the requests whose status says MPI_SUCCESS
 * completed. */
static int completed(int err, const MPI_Status *st)
{
	return err == MPI_SUCCESS || (err == MPI_ERR_IN_STATUS && st->MPI_ERROR == MPI_SUCCESS);
}

int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses)
{
	if (!mpt_active() || !scratch(count))
		return PMPI_Waitall(count, array_of_requests, array_of_statuses);
	MPI_Status *st = statuses(array_of_statuses);
	mpt_enter(R_WAITALL);
	memcpy(old_req, array_of_requests, (size_t)count * sizeof *old_req);
	int r = PMPI_Waitall(count, array_of_requests, st);
	mpt_after();
	for (int i = 0; i < count; i++)
		if (completed(r, &st[i]))
			mpt_done(old_req[i], &st[i]);
	mpt_leave(R_WAITALL);
	return r;
}

int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
	MPI_Status tmp, *st = status == MPI_STATUS_IGNORE ? &tmp : status;
	if (!mpt_active() || !scratch(count))
		return PMPI_Waitany(count, array_of_requests, index, status);
	mpt_enter(R_WAITANY);
	memcpy(old_req, array_of_requests, (size_t)count * sizeof *old_req);
	int r = PMPI_Waitany(count, array_of_requests, index, st);
	mpt_after();
	if (r == MPI_SUCCESS && *index != MPI_UNDEFINED)
		mpt_done(old_req[*index], st);
	mpt_leave(R_WAITANY);
	return r;
}

int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
		 int array_of_indices[], MPI_Status array_of_statuses[])
{
	if (!mpt_active() || !scratch(incount))
		return PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices,
				     array_of_statuses);
	MPI_Status *st = statuses(array_of_statuses);
	mpt_enter(R_WAITSOME);
	memcpy(old_req, array_of_requests, (size_t)incount * sizeof *old_req);
	int r = PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices, st);
	mpt_after();
	if ((r == MPI_SUCCESS || r == MPI_ERR_IN_STATUS) && *outcount != MPI_UNDEFINED)
		for (int k = 0; k < *outcount; k++)
			if (completed(r, &st[k]))
				mpt_done(old_req[array_of_indices[k]], &st[k]);
	mpt_leave(R_WAITSOME);
	return r;
}

int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
		MPI_Status array_of_statuses[])
{
	if (!mpt_active() || !scratch(count))
		return PMPI_Testall(count, array_of_requests, flag, array_of_statuses);
	MPI_Status *st = statuses(array_of_statuses);
	mpt_enter(R_TESTALL);
	memcpy(old_req, array_of_requests, (size_t)count * sizeof *old_req);
	int r = PMPI_Testall(count, array_of_requests, flag, st);
	mpt_after();
	if (r == MPI_SUCCESS || r == MPI_ERR_IN_STATUS)
		for (int i = 0; i < count; i++) {
			if (*flag && completed(r, &st[i]))
				mpt_done(old_req[i], &st[i]);
			else if (!*flag)
				mpt_tested(old_req[i]);
		}
	mpt_leave(R_TESTALL);
	return r;
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
		MPI_Status *status)
{
	MPI_Status tmp, *st = status == MPI_STATUS_IGNORE ? &tmp : status;
	if (!mpt_active() || !scratch(count))
		return PMPI_Testany(count, array_of_requests, index, flag, status);
	mpt_enter(R_TESTANY);
	memcpy(old_req, array_of_requests, (size_t)count * sizeof *old_req);
	int r = PMPI_Testany(count, array_of_requests, index, flag, st);
	mpt_after();
	if (r == MPI_SUCCESS) {
		if (*flag && *index != MPI_UNDEFINED)
			mpt_done(old_req[*index], st);
		else if (!*flag)
			for (int i = 0; i < count; i++)
				mpt_tested(old_req[i]);
	}
	mpt_leave(R_TESTANY);
	return r;
}

int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
		 int array_of_indices[], MPI_Status array_of_statuses[])
{
	if (!mpt_active() || !scratch(incount))
		return PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices,
				     array_of_statuses);
	MPI_Status *st = statuses(array_of_statuses);
	mpt_enter(R_TESTSOME);
	memcpy(old_req, array_of_requests, (size_t)incount * sizeof *old_req);
	int r = PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, st);
	mpt_after();
	if ((r == MPI_SUCCESS || r == MPI_ERR_IN_STATUS) && *outcount != MPI_UNDEFINED) {
		memset(hit, 0, (size_t)incount);
		for (int k = 0; k < *outcount; k++) {
			hit[array_of_indices[k]] = 1;
			if (completed(r, &st[k]))
				mpt_done(old_req[array_of_indices[k]], &st[k]);
		}
		for (int i = 0; i < incount; i++)
			if (!hit[i])
				mpt_tested(old_req[i]);
	}
	mpt_leave(R_TESTSOME);
	return r;
}

/* --- collectives --- */

/* A blocking collective on comm: enter, begin, the call, end with the
 * bytes that `bytes` computes into s_ and v_, leave. */
#define COLL(region, op, comm, root, bytes, call) \
	do { \
		if (!mpt_active()) \
			return call; \
		mpt_enter(region); \
		int b_ = mpt_coll_begin(comm); \
		int r_ = call; \
		mpt_after(); \
		if (b_) { \
			uint64_t s_ = 0, v_ = 0; \
			bytes; \
			mpt_coll_end(op, comm, root, s_, v_); \
		} \
		mpt_leave(region); \
		return r_; \
	} while (0)

/* A non-blocking one: its completion is recorded when a Wait or Test
 * completes its request. */
#define ICOLL(region, op, comm, root, bytes, call, req) \
	do { \
		if (!mpt_active()) \
			return call; \
		mpt_enter(region); \
		int r_ = call; \
		mpt_after(); \
		if (r_ == MPI_SUCCESS) { \
			uint64_t s_ = 0, v_ = 0; \
			bytes; \
			mpt_icoll(op, comm, root, s_, v_, *(req)); \
		} \
		mpt_leave(region); \
		return r_; \
	} while (0)

#define NOROOT MPT_ROOT_NONE
#define INPLACE(b) ((b) == MPI_IN_PLACE)

int MPI_Barrier(MPI_Comm comm)
{
	COLL(R_BARRIER, MPT_OP_BARRIER, comm, NOROOT, (void)0, PMPI_Barrier(comm));
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
	COLL(R_BCAST, MPT_OP_BCAST, comm, (uint32_t)root,
	     mpt_bytes_bcast(count, datatype, root, comm, &s_, &v_),
	     PMPI_Bcast(buffer, count, datatype, root, comm));
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
	       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	COLL(R_GATHER, MPT_OP_GATHER, comm, (uint32_t)root,
	     mpt_bytes_gather(sendcount, sendtype, recvcount, recvtype, root, INPLACE(sendbuf),
			      comm, &s_, &v_),
	     PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
		MPI_Comm comm)
{
	COLL(R_GATHERV, MPT_OP_GATHERV, comm, (uint32_t)root,
	     mpt_bytes_gatherv(sendcount, sendtype, recvcounts, recvtype, root, INPLACE(sendbuf),
			       comm, &s_, &v_),
	     PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
			  root, comm));
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	COLL(R_SCATTER, MPT_OP_SCATTER, comm, (uint32_t)root,
	     mpt_bytes_scatter(sendcount, sendtype, recvcount, recvtype, root, INPLACE(recvbuf),
			       comm, &s_, &v_),
	     PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
		 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
		 int root, MPI_Comm comm)
{
	COLL(R_SCATTERV, MPT_OP_SCATTERV, comm, (uint32_t)root,
	     mpt_bytes_scatterv(sendcounts, sendtype, recvcount, recvtype, root, INPLACE(recvbuf),
				comm, &s_, &v_),
	     PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
			   root, comm));
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	COLL(R_ALLGATHER, MPT_OP_ALLGATHER, comm, NOROOT,
	     mpt_bytes_alltoall(sendcount, sendtype, recvcount, recvtype, INPLACE(sendbuf), comm,
				&s_, &v_),
	     PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
		   MPI_Comm comm)
{
	COLL(R_ALLGATHERV, MPT_OP_ALLGATHERV, comm, NOROOT,
	     mpt_bytes_allgatherv(sendcount, sendtype, recvcounts, recvtype, INPLACE(sendbuf),
				  comm, &s_, &v_),
	     PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
			     recvtype, comm));
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	COLL(R_ALLTOALL, MPT_OP_ALLTOALL, comm, NOROOT,
	     mpt_bytes_alltoall(sendcount, sendtype, recvcount, recvtype, INPLACE(sendbuf), comm,
				&s_, &v_),
	     PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
		  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
		  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
	COLL(R_ALLTOALLV, MPT_OP_ALLTOALLV, comm, NOROOT,
	     mpt_bytes_alltoallv(sendcounts, sendtype, recvcounts, recvtype, INPLACE(sendbuf),
				 comm, &s_, &v_),
	     PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
			    rdispls, recvtype, comm));
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
		  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
		  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
	COLL(R_ALLTOALLW, MPT_OP_ALLTOALLW, comm, NOROOT,
	     mpt_bytes_alltoallw(sendcounts, sendtypes, recvcounts, recvtypes, INPLACE(sendbuf),
				 comm, &s_, &v_),
	     PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
			    rdispls, recvtypes, comm));
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
	       int root, MPI_Comm comm)
{
	COLL(R_REDUCE, MPT_OP_REDUCE, comm, (uint32_t)root,
	     mpt_bytes_reduce(count, datatype, root, INPLACE(sendbuf), comm, &s_, &v_),
	     PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm));
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		  MPI_Op op, MPI_Comm comm)
{
	COLL(R_ALLREDUCE, MPT_OP_ALLREDUCE, comm, NOROOT,
	     mpt_bytes_alltoall(count, datatype, count, datatype, INPLACE(sendbuf), comm, &s_, &v_),
	     PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm));
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
		       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	COLL(R_REDUCE_SCATTER, MPT_OP_REDUCE_SCATTER, comm, NOROOT,
	     mpt_bytes_reduce_scatter(recvcounts, datatype, INPLACE(sendbuf), comm, &s_, &v_),
	     PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm));
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
			     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	COLL(R_REDUCE_SCATTER_BLOCK, MPT_OP_REDUCE_SCATTER_BLOCK, comm, NOROOT,
	     mpt_bytes_reduce_scatter_block(recvcount, datatype, INPLACE(sendbuf), comm, &s_, &v_),
	     PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm));
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
	     MPI_Comm comm)
{
	COLL(R_SCAN, MPT_OP_SCAN, comm, NOROOT,
	     mpt_bytes_scan(count, datatype, INPLACE(sendbuf), 0, comm, &s_, &v_),
	     PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm));
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
	       MPI_Comm comm)
{
	COLL(R_EXSCAN, MPT_OP_EXSCAN, comm, NOROOT,
	     mpt_bytes_scan(count, datatype, INPLACE(sendbuf), 1, comm, &s_, &v_),
	     PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm));
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
	ICOLL(R_IBARRIER, MPT_OP_BARRIER, comm, NOROOT, (void)0, PMPI_Ibarrier(comm, request),
	      request);
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
	       MPI_Request *request)
{
	ICOLL(R_IBCAST, MPT_OP_BCAST, comm, (uint32_t)root,
	      mpt_bytes_bcast(count, datatype, root, comm, &s_, &v_),
	      PMPI_Ibcast(buffer, count, datatype, root, comm, request), request);
}

int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
		MPI_Request *request)
{
	ICOLL(R_IGATHER, MPT_OP_GATHER, comm, (uint32_t)root,
	      mpt_bytes_gather(sendcount, sendtype, recvcount, recvtype, root, INPLACE(sendbuf),
			       comm, &s_, &v_),
	      PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
			   request), request);
}

int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
		 MPI_Comm comm, MPI_Request *request)
{
	ICOLL(R_IGATHERV, MPT_OP_GATHERV, comm, (uint32_t)root,
	      mpt_bytes_gatherv(sendcount, sendtype, recvcounts, recvtype, root, INPLACE(sendbuf),
				comm, &s_, &v_),
	      PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
			    root, comm, request), request);
}

int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
		 MPI_Request *request)
{
	ICOLL(R_ISCATTER, MPT_OP_SCATTER, comm, (uint32_t)root,
	      mpt_bytes_scatter(sendcount, sendtype, recvcount, recvtype, root, INPLACE(recvbuf),
				comm, &s_, &v_),
	      PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
			    comm, request), request);
}

int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
		  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
		  int root, MPI_Comm comm, MPI_Request *request)
{
	ICOLL(R_ISCATTERV, MPT_OP_SCATTERV, comm, (uint32_t)root,
	      mpt_bytes_scatterv(sendcounts, sendtype, recvcount, recvtype, root,
				 INPLACE(recvbuf), comm, &s_, &v_),
	      PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
			     root, comm, request), request);
}

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	ICOLL(R_IALLGATHER, MPT_OP_ALLGATHER, comm, NOROOT,
	      mpt_bytes_alltoall(sendcount, sendtype, recvcount, recvtype, INPLACE(sendbuf), comm,
				 &s_, &v_),
	      PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
			      request), request);
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
		    MPI_Comm comm, MPI_Request *request)
{
	ICOLL(R_IALLGATHERV, MPT_OP_ALLGATHERV, comm, NOROOT,
	      mpt_bytes_allgatherv(sendcount, sendtype, recvcounts, recvtype, INPLACE(sendbuf),
				   comm, &s_, &v_),
	      PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
			       recvtype, comm, request), request);
}

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	ICOLL(R_IALLTOALL, MPT_OP_ALLTOALL, comm, NOROOT,
	      mpt_bytes_alltoall(sendcount, sendtype, recvcount, recvtype, INPLACE(sendbuf), comm,
				 &s_, &v_),
	      PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
			     request), request);
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
		   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
		   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
		   MPI_Request *request)
{
	ICOLL(R_IALLTOALLV, MPT_OP_ALLTOALLV, comm, NOROOT,
	      mpt_bytes_alltoallv(sendcounts, sendtype, recvcounts, recvtype, INPLACE(sendbuf),
				  comm, &s_, &v_),
	      PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
			      rdispls, recvtype, comm, request), request);
}

int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
		   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
		   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
		   MPI_Request *request)
{
	ICOLL(R_IALLTOALLW, MPT_OP_ALLTOALLW, comm, NOROOT,
	      mpt_bytes_alltoallw(sendcounts, sendtypes, recvcounts, recvtypes, INPLACE(sendbuf),
				  comm, &s_, &v_),
	      PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
			      rdispls, recvtypes, comm, request), request);
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
		int root, MPI_Comm comm, MPI_Request *request)
{
	ICOLL(R_IREDUCE, MPT_OP_REDUCE, comm, (uint32_t)root,
	      mpt_bytes_reduce(count, datatype, root, INPLACE(sendbuf), comm, &s_, &v_),
	      PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request), request);
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		   MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	ICOLL(R_IALLREDUCE, MPT_OP_ALLREDUCE, comm, NOROOT,
	      mpt_bytes_alltoall(count, datatype, count, datatype, INPLACE(sendbuf), comm, &s_,
				 &v_),
	      PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request), request);
}

int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
			MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	ICOLL(R_IREDUCE_SCATTER, MPT_OP_REDUCE_SCATTER, comm, NOROOT,
	      mpt_bytes_reduce_scatter(recvcounts, datatype, INPLACE(sendbuf), comm, &s_, &v_),
	      PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request),
	      request);
}

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
			      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
			      MPI_Request *request)
{
	ICOLL(R_IREDUCE_SCATTER_BLOCK, MPT_OP_REDUCE_SCATTER_BLOCK, comm, NOROOT,
	      mpt_bytes_reduce_scatter_block(recvcount, datatype, INPLACE(sendbuf), comm, &s_,
					     &v_),
	      PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm,
					 request), request);
}

int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
	      MPI_Comm comm, MPI_Request *request)
{
	ICOLL(R_ISCAN, MPT_OP_SCAN, comm, NOROOT,
	      mpt_bytes_scan(count, datatype, INPLACE(sendbuf), 0, comm, &s_, &v_),
	      PMPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, request), request);
}

int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
		MPI_Comm comm, MPI_Request *request)
{
	ICOLL(R_IEXSCAN, MPT_OP_EXSCAN, comm, NOROOT,
	      mpt_bytes_scan(count, datatype, INPLACE(sendbuf), 1, comm, &s_, &v_),
	      PMPI_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, request), request);
}

/* Neighbourhood collectives have no OTF2 record of their own: only their
 * enter and leave are recorded, and the archive says it is incomplete. */
#define NEIGHBOR(region, call) \
	do { \
		if (!mpt_active()) \
			return call; \
		mpt_incomplete(MPT_GAP_NEIGHBOR); \
		mpt_enter(region); \
		int r_ = call; \
		mpt_after(); \
		mpt_leave(region); \
		return r_; \
	} while (0)

int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			   void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	NEIGHBOR(R_NEIGHBOR_ALLGATHER, PMPI_Neighbor_allgather(sendbuf, sendcount, sendtype,
		 recvbuf, recvcount, recvtype, comm));
}

int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			    void *recvbuf, const int recvcounts[], const int displs[],
			    MPI_Datatype recvtype, MPI_Comm comm)
{
	NEIGHBOR(R_NEIGHBOR_ALLGATHERV, PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype,
		 recvbuf, recvcounts, displs, recvtype, comm));
}

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			  void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	NEIGHBOR(R_NEIGHBOR_ALLTOALL, PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype,
		 recvbuf, recvcount, recvtype, comm));
}

int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
			   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
			   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
	NEIGHBOR(R_NEIGHBOR_ALLTOALLV, PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls,
		 sendtype, recvbuf, recvcounts, rdispls, recvtype, comm));
}

int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
			   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
			   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
	NEIGHBOR(R_NEIGHBOR_ALLTOALLW, PMPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls,
		 sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm));
}

/* --- communicators --- */

/* A call creating *newc from parent: a collective on parent (the
 * CREATE_HANDLE of OTF2) around it, and the new communicator followed.
 * The new one is learnt whenever recording is on, from any thread, since
 * learning it is collective over its members. */
#define CREATE(region, parent, newc, call) \
	do { \
		if (!mpt_on) \
			return call; \
		int a_ = mpt_active(), b_ = 0; \
		if (a_) { \
			mpt_enter(region); \
			b_ = mpt_coll_begin(parent); \
		} \
		int r_ = call; \
		if (a_) \
			mpt_after(); \
		if (r_ == MPI_SUCCESS) \
			mpt_comm_new(parent, *(newc)); \
		if (a_) { \
			if (b_) \
				mpt_coll_end(MPT_OP_CREATE_HANDLE, parent, MPT_ROOT_NONE, 0, 0); \
			mpt_leave(region); \
		} \
		return r_; \
	} while (0)

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
	CREATE(R_COMM_DUP, comm, newcomm, PMPI_Comm_dup(comm, newcomm));
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
	CREATE(R_COMM_DUP_WITH_INFO, comm, newcomm, PMPI_Comm_dup_with_info(comm, info, newcomm));
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
	CREATE(R_COMM_SPLIT, comm, newcomm, PMPI_Comm_split(comm, color, key, newcomm));
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
	CREATE(R_COMM_SPLIT_TYPE, comm, newcomm,
	       PMPI_Comm_split_type(comm, split_type, key, info, newcomm));
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
	CREATE(R_COMM_CREATE, comm, newcomm, PMPI_Comm_create(comm, group, newcomm));
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
	/* Collective over the group only, not over comm. */
	if (!mpt_on)
		return PMPI_Comm_create_group(comm, group, tag, newcomm);
	int a = mpt_active();
	if (a)
		mpt_enter(R_COMM_CREATE_GROUP);
	int r = PMPI_Comm_create_group(comm, group, tag, newcomm);
	if (a)
		mpt_after();
	if (r == MPI_SUCCESS)
		mpt_comm_new(comm, *newcomm);
	if (a)
		mpt_leave(R_COMM_CREATE_GROUP);
	return r;
}

int MPI_Cart_create(MPI_Comm old_comm, int ndims, const int dims[], const int periods[],
		    int reorder, MPI_Comm *comm_cart)
{
	CREATE(R_CART_CREATE, old_comm, comm_cart,
	       PMPI_Cart_create(old_comm, ndims, dims, periods, reorder, comm_cart));
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *new_comm)
{
	CREATE(R_CART_SUB, comm, new_comm, PMPI_Cart_sub(comm, remain_dims, new_comm));
}

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
		     int reorder, MPI_Comm *comm_graph)
{
	CREATE(R_GRAPH_CREATE, comm_old, comm_graph,
	       PMPI_Graph_create(comm_old, nnodes, index, edges, reorder, comm_graph));
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int nodes[], const int degrees[],
			  const int targets[], const int weights[], MPI_Info info, int reorder,
			  MPI_Comm *newcomm)
{
	CREATE(R_DIST_GRAPH_CREATE, comm_old, newcomm,
	       PMPI_Dist_graph_create(comm_old, n, nodes, degrees, targets, weights, info,
				      reorder, newcomm));
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
				   const int sourceweights[], int outdegree,
				   const int destinations[], const int destweights[],
				   MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
	CREATE(R_DIST_GRAPH_CREATE_ADJACENT, comm_old, comm_dist_graph,
	       PMPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights,
					       outdegree, destinations, destweights, info,
					       reorder, comm_dist_graph));
}

int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintercomm)
{
	/* The parent is an intercommunicator, which the trace does not
	 * follow; the merged one is an intracommunicator it does. */
	if (!mpt_on)
		return PMPI_Intercomm_merge(intercomm, high, newintercomm);
	int a = mpt_active();
	if (a)
		mpt_enter(R_INTERCOMM_MERGE);
	int r = PMPI_Intercomm_merge(intercomm, high, newintercomm);
	if (a)
		mpt_after();
	if (r == MPI_SUCCESS)
		mpt_comm_new(MPI_COMM_NULL, *newintercomm);
	if (a)
		mpt_leave(R_INTERCOMM_MERGE);
	return r;
}

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm bridge_comm,
			 int remote_leader, int tag, MPI_Comm *newintercomm)
{
	RETURN_PLAIN(R_INTERCOMM_CREATE, PMPI_Intercomm_create(local_comm, local_leader,
		     bridge_comm, remote_leader, tag, newintercomm));
}

int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
	/* The new communicator is not usable before the request completes,
	 * so it cannot be learnt here; operations on it are not followed. */
	RETURN_PLAIN(R_COMM_IDUP, PMPI_Comm_idup(comm, newcomm, request));
}

int MPI_Comm_free(MPI_Comm *comm)
{
	MPI_Comm c = *comm;
	if (!mpt_on)
		return PMPI_Comm_free(comm);
	int a = mpt_active(), b = 0;
	if (a) {
		mpt_enter(R_COMM_FREE);
		b = mpt_coll_begin(c);
	}
	int r = PMPI_Comm_free(comm);
	if (a)
		mpt_after();
	if (a && b)
		mpt_coll_end(MPT_OP_DESTROY_HANDLE, c, MPT_ROOT_NONE, 0, 0);
	if (r == MPI_SUCCESS)
		mpt_comm_gone(c);
	if (a)
		mpt_leave(R_COMM_FREE);
	return r;
}

/* --- one-sided communication: not recorded; a window's creation is
 * recorded, and makes the archive say it is incomplete --- */

#define WIN(region, call) \
	do { \
		if (!mpt_active()) \
			return call; \
		mpt_incomplete(MPT_GAP_RMA); \
		mpt_enter(region); \
		int r_ = call; \
		mpt_after(); \
		mpt_leave(region); \
		return r_; \
	} while (0)

int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
		   MPI_Win *win)
{
	WIN(R_WIN_CREATE, PMPI_Win_create(base, size, disp_unit, info, comm, win));
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
		     MPI_Win *win)
{
	WIN(R_WIN_ALLOCATE, PMPI_Win_allocate(size, disp_unit, info, comm, baseptr, win));
}

int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
			    void *baseptr, MPI_Win *win)
{
	WIN(R_WIN_ALLOCATE_SHARED, PMPI_Win_allocate_shared(size, disp_unit, info, comm, baseptr,
							    win));
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
	WIN(R_WIN_CREATE_DYNAMIC, PMPI_Win_create_dynamic(info, comm, win));
}
