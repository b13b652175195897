/*
 * The Fortran interface. Open MPI's Fortran bindings do not call the C
 * MPI_ functions: the mpif.h and mpi-module ones (mpi_send_ and its
 * other spellings) call PMPI_ directly, and the mpi_f08 module calls the
 * same code under the name ompi_send_f. So a Fortran program's calls
 * reach none of the C wrappers; this file defines every spelling of the
 * recorded Fortran functions (mpi_x, mpi_x_, mpi_x__, MPI_X, ompi_x_f),
 * each calling the MPI library's Fortran profiling entry pmpi_x_ (found
 * at the first call) and recording around it, with handles and statuses
 * converted to C's to look at them. A Fortran status the program ignores
 * (MPI_STATUS_IGNORE) is replaced by one of ours, so that a receive's
 * source, tag and size are known. Fortran's LOGICAL is taken to be an
 * INTEGER (gfortran's default). What is covered is listed in mptrace(1).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpt.h"

typedef MPI_Fint F;

#define FST_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))

/* The MPI library's Fortran function name, or abort: a call that cannot
 * be passed on cannot be made at all. */
static void *real(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	if (!p) {
		fprintf(stderr, "mptrace: %s: not found in the MPI library: %s\n", name, dlerror());
		abort();
	}
	return p;
}

#define REAL(type, name) \
	static __typeof__(type) r_; \
	if (!r_) \
		r_ = (type)real(name)

/* Every spelling of a Fortran MPI function, as aliases of f_lo. */
#define FSYMS(lo, UP, params) \
	void mpi_##lo params __attribute__((alias("f_" #lo))); \
	void mpi_##lo##_ params __attribute__((alias("f_" #lo))); \
	void mpi_##lo##__ params __attribute__((alias("f_" #lo))); \
	void UP params __attribute__((alias("f_" #lo))); \
	void ompi_##lo##_f params __attribute__((alias("f_" #lo)));

static MPI_Comm C(const F *comm)
{
	return PMPI_Comm_f2c(*comm);
}

static MPI_Datatype T(const F *type)
{
	return PMPI_Type_f2c(*type);
}

/* Fortran's MPI_IN_PLACE, the address of a common block in the library. */
static int in_place(const void *buf)
{
	static const void *ip;
	static int looked;
	if (!looked) {
		ip = dlsym(RTLD_DEFAULT, "mpi_fortran_in_place_");
		if (!ip)
			ip = dlsym(RTLD_DEFAULT, "mpi_fortran_in_place");
		looked = 1;
	}
	return ip && buf == ip;
}

/* The status to pass for st: st, or own when the program ignores it. */
static F *fstatus(F *st, F *own)
{
	return st == MPI_F_STATUS_IGNORE ? own : st;
}

/* Scratch arrays for the Wait and Test families (recording thread only). */
static MPI_Request *old_req;
static F *own_st;
static char *hit;
static int scratch_n;

static int scratch(int n)
{
	if (n <= scratch_n)
		return 1;
	MPI_Request *r = realloc(old_req, (size_t)n * sizeof *r);
	if (r)
		old_req = r;
	F *s = realloc(own_st, (size_t)n * FST_SIZE * sizeof *s);
	if (s)
		own_st = s;
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

static void old_requests(int n, const F *req)
{
	for (int i = 0; i < n; i++)
		old_req[i] = PMPI_Request_f2c(req[i]);
}

static void fdone(MPI_Request old, const F *st)
{
	MPI_Status c;
	PMPI_Status_f2c(st, &c);
	mpt_done(old, &c);
}

/* --- start and end --- */

static void f_init(F *ierr)
{
	REAL(void (*)(F *), "pmpi_init_");
	uint64_t t0 = mpt_now();
	int provided = MPI_THREAD_SINGLE;
	r_(ierr);
	if (*ierr == MPI_SUCCESS) {
		PMPI_Query_thread(&provided);
		mpt_start(R_INIT, t0, provided);
	}
}
FSYMS(init, MPI_INIT, (F *))

static void f_init_thread(F *required, F *provided, F *ierr)
{
	REAL(void (*)(F *, F *, F *), "pmpi_init_thread_");
	uint64_t t0 = mpt_now();
	r_(required, provided, ierr);
	if (*ierr == MPI_SUCCESS)
		mpt_start(R_INIT_THREAD, t0, *provided);
}
FSYMS(init_thread, MPI_INIT_THREAD, (F *, F *, F *))

static void f_finalize(F *ierr)
{
	REAL(void (*)(F *), "pmpi_finalize_");
	mpt_stop();
	r_(ierr);
}
FSYMS(finalize, MPI_FINALIZE, (F *))

static void f_abort(F *comm, F *code, F *ierr)
{
	REAL(void (*)(F *, F *, F *), "pmpi_abort_");
	if (mpt_active())
		mpt_enter(R_ABORT);
	r_(comm, code, ierr);
}
FSYMS(abort, MPI_ABORT, (F *, F *, F *))

#define PLAIN(region, call) \
	do { \
		if (!mpt_active()) { \
			call; \
			return; \
		} \
		mpt_enter(region); \
		call; \
		mpt_after(); \
		mpt_leave(region); \
	} while (0)

static void f_comm_rank(F *comm, F *rank, F *ierr)
{
	REAL(void (*)(F *, F *, F *), "pmpi_comm_rank_");
	PLAIN(R_COMM_RANK, r_(comm, rank, ierr));
}
FSYMS(comm_rank, MPI_COMM_RANK, (F *, F *, F *))

static void f_comm_size(F *comm, F *size, F *ierr)
{
	REAL(void (*)(F *, F *, F *), "pmpi_comm_size_");
	PLAIN(R_COMM_SIZE, r_(comm, size, ierr));
}
FSYMS(comm_size, MPI_COMM_SIZE, (F *, F *, F *))

/* --- point-to-point --- */

typedef void (*send_t)(void *, F *, F *, F *, F *, F *, F *);

static void fsend(int region, send_t r, void *buf, F *count, F *type, F *dest, F *tag,
		  F *comm, F *ierr)
{
	if (!mpt_active()) {
		r(buf, count, type, dest, tag, comm, ierr);
		return;
	}
	mpt_enter(region);
	mpt_send(C(comm), *dest, *tag, mpt_type_bytes(*count, T(type)));
	r(buf, count, type, dest, tag, comm, ierr);
	mpt_after();
	mpt_leave(region);
}

#define FSEND(lo, UP, REGION) \
	static void f_##lo(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr) \
	{ \
		REAL(send_t, "pmpi_" #lo "_"); \
		fsend(REGION, r_, buf, count, type, dest, tag, comm, ierr); \
	} \
	FSYMS(lo, UP, (void *, F *, F *, F *, F *, F *, F *))

FSEND(send, MPI_SEND, R_SEND)
FSEND(bsend, MPI_BSEND, R_BSEND)
FSEND(ssend, MPI_SSEND, R_SSEND)
FSEND(rsend, MPI_RSEND, R_RSEND)

static void f_recv(void *buf, F *count, F *type, F *source, F *tag, F *comm, F *st, F *ierr)
{
	REAL(void (*)(void *, F *, F *, F *, F *, F *, F *, F *), "pmpi_recv_");
	F own[FST_SIZE], *s = fstatus(st, own);
	MPI_Status c;
	if (!mpt_active()) {
		r_(buf, count, type, source, tag, comm, st, ierr);
		return;
	}
	mpt_enter(R_RECV);
	r_(buf, count, type, source, tag, comm, s, ierr);
	mpt_after();
	if (*ierr == MPI_SUCCESS) {
		PMPI_Status_f2c(s, &c);
		mpt_recv(C(comm), &c);
	}
	mpt_leave(R_RECV);
}
FSYMS(recv, MPI_RECV, (void *, F *, F *, F *, F *, F *, F *, F *))

static void f_sendrecv(void *sbuf, F *scount, F *stype, F *dest, F *stag, void *rbuf,
		       F *rcount, F *rtype, F *source, F *rtag, F *comm, F *st, F *ierr)
{
	REAL(void (*)(void *, F *, F *, F *, F *, void *, F *, F *, F *, F *, F *, F *, F *),
	     "pmpi_sendrecv_");
	F own[FST_SIZE], *s = fstatus(st, own);
	MPI_Status c;
	if (!mpt_active()) {
		r_(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, st, ierr);
		return;
	}
	mpt_enter(R_SENDRECV);
	mpt_send(C(comm), *dest, *stag, mpt_type_bytes(*scount, T(stype)));
	r_(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, s, ierr);
	mpt_after();
	if (*ierr == MPI_SUCCESS) {
		PMPI_Status_f2c(s, &c);
		mpt_recv(C(comm), &c);
	}
	mpt_leave(R_SENDRECV);
}
FSYMS(sendrecv, MPI_SENDRECV, (void *, F *, F *, F *, F *, void *, F *, F *, F *, F *, F *, F *,
			       F *))

static void f_sendrecv_replace(void *buf, F *count, F *type, F *dest, F *stag, F *source,
			       F *rtag, F *comm, F *st, F *ierr)
{
	REAL(void (*)(void *, F *, F *, F *, F *, F *, F *, F *, F *, F *),
	     "pmpi_sendrecv_replace_");
	F own[FST_SIZE], *s = fstatus(st, own);
	MPI_Status c;
	if (!mpt_active()) {
		r_(buf, count, type, dest, stag, source, rtag, comm, st, ierr);
		return;
	}
	mpt_enter(R_SENDRECV_REPLACE);
	mpt_send(C(comm), *dest, *stag, mpt_type_bytes(*count, T(type)));
	r_(buf, count, type, dest, stag, source, rtag, comm, s, ierr);
	mpt_after();
	if (*ierr == MPI_SUCCESS) {
		PMPI_Status_f2c(s, &c);
		mpt_recv(C(comm), &c);
	}
	mpt_leave(R_SENDRECV_REPLACE);
}
FSYMS(sendrecv_replace, MPI_SENDRECV_REPLACE, (void *, F *, F *, F *, F *, F *, F *, F *, F *,
					       F *))

static void f_probe(F *source, F *tag, F *comm, F *st, F *ierr)
{
	REAL(void (*)(F *, F *, F *, F *, F *), "pmpi_probe_");
	PLAIN(R_PROBE, r_(source, tag, comm, st, ierr));
}
FSYMS(probe, MPI_PROBE, (F *, F *, F *, F *, F *))

static void f_iprobe(F *source, F *tag, F *comm, F *flag, F *st, F *ierr)
{
	REAL(void (*)(F *, F *, F *, F *, F *, F *), "pmpi_iprobe_");
	PLAIN(R_IPROBE, r_(source, tag, comm, flag, st, ierr));
}
FSYMS(iprobe, MPI_IPROBE, (F *, F *, F *, F *, F *, F *))

typedef void (*isend_t)(void *, F *, F *, F *, F *, F *, F *, F *);

static void fisend(int region, isend_t r, void *buf, F *count, F *type, F *dest, F *tag,
		   F *comm, F *req, F *ierr)
{
	if (!mpt_active()) {
		r(buf, count, type, dest, tag, comm, req, ierr);
		return;
	}
	mpt_enter(region);
	r(buf, count, type, dest, tag, comm, req, ierr);
	mpt_after();
	if (*ierr == MPI_SUCCESS)
		mpt_isend(C(comm), *dest, *tag, mpt_type_bytes(*count, T(type)),
			  PMPI_Request_f2c(*req));
	mpt_leave(region);
}

#define FISEND(lo, UP, REGION) \
	static void f_##lo(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, \
			   F *ierr) \
	{ \
		REAL(isend_t, "pmpi_" #lo "_"); \
		fisend(REGION, r_, buf, count, type, dest, tag, comm, req, ierr); \
	} \
	FSYMS(lo, UP, (void *, F *, F *, F *, F *, F *, F *, F *))

FISEND(isend, MPI_ISEND, R_ISEND)
FISEND(ibsend, MPI_IBSEND, R_IBSEND)
FISEND(issend, MPI_ISSEND, R_ISSEND)
FISEND(irsend, MPI_IRSEND, R_IRSEND)

static void f_irecv(void *buf, F *count, F *type, F *source, F *tag, F *comm, F *req, F *ierr)
{
	REAL(isend_t, "pmpi_irecv_");
	if (!mpt_active()) {
		r_(buf, count, type, source, tag, comm, req, ierr);
		return;
	}
	mpt_enter(R_IRECV);
	r_(buf, count, type, source, tag, comm, req, ierr);
	mpt_after();
	if (*ierr == MPI_SUCCESS)
		mpt_irecv(C(comm), *source, PMPI_Request_f2c(*req));
	mpt_leave(R_IRECV);
}
FSYMS(irecv, MPI_IRECV, (void *, F *, F *, F *, F *, F *, F *, F *))

static void fpinit(int region, isend_t r, int send, void *buf, F *count, F *type, F *peer,
		   F *tag, F *comm, F *req, F *ierr)
{
	if (!mpt_active()) {
		r(buf, count, type, peer, tag, comm, req, ierr);
		return;
	}
	mpt_enter(region);
	r(buf, count, type, peer, tag, comm, req, ierr);
	mpt_after();
	if (*ierr == MPI_SUCCESS)
		mpt_persistent(C(comm), send, *peer, *tag,
			       send ? mpt_type_bytes(*count, T(type)) : 0, PMPI_Request_f2c(*req));
	mpt_leave(region);
}

#define FPINIT(lo, UP, REGION, SEND) \
	static void f_##lo(void *buf, F *count, F *type, F *peer, F *tag, F *comm, F *req, \
			   F *ierr) \
	{ \
		REAL(isend_t, "pmpi_" #lo "_"); \
		fpinit(REGION, r_, SEND, buf, count, type, peer, tag, comm, req, ierr); \
	} \
	FSYMS(lo, UP, (void *, F *, F *, F *, F *, F *, F *, F *))

FPINIT(send_init, MPI_SEND_INIT, R_SEND_INIT, 1)
FPINIT(bsend_init, MPI_BSEND_INIT, R_BSEND_INIT, 1)
FPINIT(ssend_init, MPI_SSEND_INIT, R_SSEND_INIT, 1)
FPINIT(rsend_init, MPI_RSEND_INIT, R_RSEND_INIT, 1)
FPINIT(recv_init, MPI_RECV_INIT, R_RECV_INIT, 0)

static void f_start(F *req, F *ierr)
{
	REAL(void (*)(F *, F *), "pmpi_start_");
	if (!mpt_active()) {
		r_(req, ierr);
		return;
	}
	mpt_enter(R_START);
	mpt_start_req(PMPI_Request_f2c(*req));
	r_(req, ierr);
	mpt_after();
	mpt_leave(R_START);
}
FSYMS(start, MPI_START, (F *, F *))

static void f_startall(F *count, F *req, F *ierr)
{
	REAL(void (*)(F *, F *, F *), "pmpi_startall_");
	if (!mpt_active()) {
		r_(count, req, ierr);
		return;
	}
	mpt_enter(R_STARTALL);
	for (int i = 0; i < *count; i++)
		mpt_start_req(PMPI_Request_f2c(req[i]));
	r_(count, req, ierr);
	mpt_after();
	mpt_leave(R_STARTALL);
}
FSYMS(startall, MPI_STARTALL, (F *, F *, F *))

static void f_request_free(F *req, F *ierr)
{
	REAL(void (*)(F *, F *), "pmpi_request_free_");
	if (!mpt_active()) {
		r_(req, ierr);
		return;
	}
	mpt_enter(R_REQUEST_FREE);
	mpt_free_req(PMPI_Request_f2c(*req));
	r_(req, ierr);
	mpt_after();
	mpt_leave(R_REQUEST_FREE);
}
FSYMS(request_free, MPI_REQUEST_FREE, (F *, F *))

static void f_cancel(F *req, F *ierr)
{
	REAL(void (*)(F *, F *), "pmpi_cancel_");
	if (!mpt_active()) {
		r_(req, ierr);
		return;
	}
	mpt_enter(R_CANCEL);
	mpt_cancel(PMPI_Request_f2c(*req));
	r_(req, ierr);
	mpt_after();
	mpt_leave(R_CANCEL);
}
FSYMS(cancel, MPI_CANCEL, (F *, F *))

/* --- completion --- */

static void f_wait(F *req, F *st, F *ierr)
{
	REAL(void (*)(F *, F *, F *), "pmpi_wait_");
	F own[FST_SIZE], *s = fstatus(st, own);
	if (!mpt_active()) {
		r_(req, st, ierr);
		return;
	}
	MPI_Request old = PMPI_Request_f2c(*req);
	mpt_enter(R_WAIT);
	r_(req, s, ierr);
	mpt_after();
	if (*ierr == MPI_SUCCESS)
		fdone(old, s);
	mpt_leave(R_WAIT);
}
FSYMS(wait, MPI_WAIT, (F *, F *, F *))

static void f_test(F *req, F *flag, F *st, F *ierr)
{
	REAL(void (*)(F *, F *, F *, F *), "pmpi_test_");
	F own[FST_SIZE], *s = fstatus(st, own);
	if (!mpt_active()) {
		r_(req, flag, st, ierr);
		return;
	}
	MPI_Request old = PMPI_Request_f2c(*req);
	mpt_enter(R_TEST);
	r_(req, flag, s, ierr);
	mpt_after();
	if (*ierr == MPI_SUCCESS) {
		if (*flag)
			fdone(old, s);
		else
			mpt_tested(old);
	}
	mpt_leave(R_TEST);
}
FSYMS(test, MPI_TEST, (F *, F *, F *, F *))

/* Whether the request whose status is st completed, after an "all" or
 * "some" call that set ierr. */
static int fcompleted(F ierr, const F *st)
{
	MPI_Status c;
	if (ierr == MPI_SUCCESS)
		return 1;
	if (ierr != MPI_ERR_IN_STATUS)
		return 0;
	PMPI_Status_f2c(st, &c);
	return c.MPI_ERROR == MPI_SUCCESS;
}

static F *fstatuses(F *st)
{
	return st == MPI_F_STATUSES_IGNORE ? own_st : st;
}

static void f_waitall(F *count, F *req, F *st, F *ierr)
{
	REAL(void (*)(F *, F *, F *, F *), "pmpi_waitall_");
	if (!mpt_active() || !scratch(*count)) {
		r_(count, req, st, ierr);
		return;
	}
	F *s = fstatuses(st);
	mpt_enter(R_WAITALL);
	old_requests(*count, req);
	r_(count, req, s, ierr);
	mpt_after();
	for (int i = 0; i < *count; i++)
		if (fcompleted(*ierr, s + i * FST_SIZE))
			fdone(old_req[i], s + i * FST_SIZE);
	mpt_leave(R_WAITALL);
}
FSYMS(waitall, MPI_WAITALL, (F *, F *, F *, F *))

/* Fortran's indices count from 1. */
static void f_waitany(F *count, F *req, F *index, F *st, F *ierr)
{
	REAL(void (*)(F *, F *, F *, F *, F *), "pmpi_waitany_");
	F own[FST_SIZE], *s = fstatus(st, own);
	if (!mpt_active() || !scratch(*count)) {
		r_(count, req, index, st, ierr);
		return;
	}
	mpt_enter(R_WAITANY);
	old_requests(*count, req);
	r_(count, req, index, s, ierr);
	mpt_after();
	if (*ierr == MPI_SUCCESS && *index != MPI_UNDEFINED && *index >= 1)
		fdone(old_req[*index - 1], s);
	mpt_leave(R_WAITANY);
}
FSYMS(waitany, MPI_WAITANY, (F *, F *, F *, F *, F *))

static void f_waitsome(F *incount, F *req, F *outcount, F *indices, F *st, F *ierr)
{
	REAL(void (*)(F *, F *, F *, F *, F *, F *), "pmpi_waitsome_");
	if (!mpt_active() || !scratch(*incount)) {
		r_(incount, req, outcount, indices, st, ierr);
		return;
	}
	F *s = fstatuses(st);
	mpt_enter(R_WAITSOME);
	old_requests(*incount, req);
	r_(incount, req, outcount, indices, s, ierr);
	mpt_after();
	if ((*ierr == MPI_SUCCESS || *ierr == MPI_ERR_IN_STATUS) && *outcount != MPI_UNDEFINED)
		for (int k = 0; k < *outcount; k++)
			if (fcompleted(*ierr, s + k * FST_SIZE))
				fdone(old_req[indices[k] - 1], s + k * FST_SIZE);
	mpt_leave(R_WAITSOME);
}
FSYMS(waitsome, MPI_WAITSOME, (F *, F *, F *, F *, F *, F *))

static void f_testall(F *count, F *req, F *flag, F *st, F *ierr)
{
	REAL(void (*)(F *, F *, F *, F *, F *), "pmpi_testall_");
	if (!mpt_active() || !scratch(*count)) {
		r_(count, req, flag, st, ierr);
		return;
	}
	F *s = fstatuses(st);
	mpt_enter(R_TESTALL);
	old_requests(*count, req);
	r_(count, req, flag, s, ierr);
	mpt_after();
	if (*ierr == MPI_SUCCESS || *ierr == MPI_ERR_IN_STATUS)
		for (int i = 0; i < *count; i++) {
			if (*flag && fcompleted(*ierr, s + i * FST_SIZE))
				fdone(old_req[i], s + i * FST_SIZE);
			else if (!*flag)
				mpt_tested(old_req[i]);
		}
	mpt_leave(R_TESTALL);
}
FSYMS(testall, MPI_TESTALL, (F *, F *, F *, F *, F *))

static void f_testany(F *count, F *req, F *index, F *flag, F *st, F *ierr)
{
	REAL(void (*)(F *, F *, F *, F *, F *, F *), "pmpi_testany_");
	F own[FST_SIZE], *s = fstatus(st, own);
	if (!mpt_active() || !scratch(*count)) {
		r_(count, req, index, flag, st, ierr);
		return;
	}
	mpt_enter(R_TESTANY);
	old_requests(*count, req);
	r_(count, req, index, flag, s, ierr);
	mpt_after();
	if (*ierr == MPI_SUCCESS) {
		if (*flag && *index != MPI_UNDEFINED && *index >= 1)
			fdone(old_req[*index - 1], s);
		else if (!*flag)
			for (int i = 0; i < *count; i++)
				mpt_tested(old_req[i]);
	}
	mpt_leave(R_TESTANY);
}
FSYMS(testany, MPI_TESTANY, (F *, F *, F *, F *, F *, F *))

static void f_testsome(F *incount, F *req, F *outcount, F *indices, F *st, F *ierr)
{
	REAL(void (*)(F *, F *, F *, F *, F *, F *), "pmpi_testsome_");
	if (!mpt_active() || !scratch(*incount)) {
		r_(incount, req, outcount, indices, st, ierr);
		return;
	}
	F *s = fstatuses(st);
	mpt_enter(R_TESTSOME);
	old_requests(*incount, req);
	r_(incount, req, outcount, indices, s, ierr);
	mpt_after();
	if ((*ierr == MPI_SUCCESS || *ierr == MPI_ERR_IN_STATUS) && *outcount != MPI_UNDEFINED) {
		memset(hit, 0, (size_t)*incount);
		for (int k = 0; k < *outcount; k++) {
			hit[indices[k] - 1] = 1;
			if (fcompleted(*ierr, s + k * FST_SIZE))
				fdone(old_req[indices[k] - 1], s + k * FST_SIZE);
		}
		for (int i = 0; i < *incount; i++)
			if (!hit[i])
				mpt_tested(old_req[i]);
	}
	mpt_leave(R_TESTSOME);
}
FSYMS(testsome, MPI_TESTSOME, (F *, F *, F *, F *, F *, F *))

/* --- collectives --- */

#define FCOLL(region, op, comm, root, bytes, call) \
	do { \
		if (!mpt_active()) { \
			call; \
			return; \
		} \
		MPI_Comm c_ = C(comm); \
		mpt_enter(region); \
		int b_ = mpt_coll_begin(c_); \
		call; \
		mpt_after(); \
		if (b_) { \
			uint64_t s_ = 0, v_ = 0; \
			bytes; \
			mpt_coll_end(op, c_, root, s_, v_); \
		} \
		mpt_leave(region); \
	} while (0)

#define NOROOT MPT_ROOT_NONE

static void f_barrier(F *comm, F *ierr)
{
	REAL(void (*)(F *, F *), "pmpi_barrier_");
	FCOLL(R_BARRIER, MPT_OP_BARRIER, comm, NOROOT, (void)0, r_(comm, ierr));
}
FSYMS(barrier, MPI_BARRIER, (F *, F *))

static void f_bcast(void *buf, F *count, F *type, F *root, F *comm, F *ierr)
{
	REAL(void (*)(void *, F *, F *, F *, F *, F *), "pmpi_bcast_");
	FCOLL(R_BCAST, MPT_OP_BCAST, comm, (uint32_t)*root,
	      mpt_bytes_bcast(*count, T(type), *root, c_, &s_, &v_),
	      r_(buf, count, type, root, comm, ierr));
}
FSYMS(bcast, MPI_BCAST, (void *, F *, F *, F *, F *, F *))

static void f_reduce(void *sb, void *rb, F *count, F *type, F *op, F *root, F *comm, F *ierr)
{
	REAL(void (*)(void *, void *, F *, F *, F *, F *, F *, F *), "pmpi_reduce_");
	FCOLL(R_REDUCE, MPT_OP_REDUCE, comm, (uint32_t)*root,
	      mpt_bytes_reduce(*count, T(type), *root, in_place(sb), c_, &s_, &v_),
	      r_(sb, rb, count, type, op, root, comm, ierr));
}
FSYMS(reduce, MPI_REDUCE, (void *, void *, F *, F *, F *, F *, F *, F *))

static void f_allreduce(void *sb, void *rb, F *count, F *type, F *op, F *comm, F *ierr)
{
	REAL(void (*)(void *, void *, F *, F *, F *, F *, F *), "pmpi_allreduce_");
	FCOLL(R_ALLREDUCE, MPT_OP_ALLREDUCE, comm, NOROOT,
	      mpt_bytes_alltoall(*count, T(type), *count, T(type), in_place(sb), c_, &s_, &v_),
	      r_(sb, rb, count, type, op, comm, ierr));
}
FSYMS(allreduce, MPI_ALLREDUCE, (void *, void *, F *, F *, F *, F *, F *))

static void f_scan(void *sb, void *rb, F *count, F *type, F *op, F *comm, F *ierr)
{
	REAL(void (*)(void *, void *, F *, F *, F *, F *, F *), "pmpi_scan_");
	FCOLL(R_SCAN, MPT_OP_SCAN, comm, NOROOT,
	      mpt_bytes_scan(*count, T(type), in_place(sb), 0, c_, &s_, &v_),
	      r_(sb, rb, count, type, op, comm, ierr));
}
FSYMS(scan, MPI_SCAN, (void *, void *, F *, F *, F *, F *, F *))

static void f_exscan(void *sb, void *rb, F *count, F *type, F *op, F *comm, F *ierr)
{
	REAL(void (*)(void *, void *, F *, F *, F *, F *, F *), "pmpi_exscan_");
	FCOLL(R_EXSCAN, MPT_OP_EXSCAN, comm, NOROOT,
	      mpt_bytes_scan(*count, T(type), in_place(sb), 1, c_, &s_, &v_),
	      r_(sb, rb, count, type, op, comm, ierr));
}
FSYMS(exscan, MPI_EXSCAN, (void *, void *, F *, F *, F *, F *, F *))

static void f_reduce_scatter_block(void *sb, void *rb, F *count, F *type, F *op, F *comm,
				   F *ierr)
{
	REAL(void (*)(void *, void *, F *, F *, F *, F *, F *), "pmpi_reduce_scatter_block_");
	FCOLL(R_REDUCE_SCATTER_BLOCK, MPT_OP_REDUCE_SCATTER_BLOCK, comm, NOROOT,
	      mpt_bytes_reduce_scatter_block(*count, T(type), in_place(sb), c_, &s_, &v_),
	      r_(sb, rb, count, type, op, comm, ierr));
}
FSYMS(reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK, (void *, void *, F *, F *, F *, F *, F *))

static void f_reduce_scatter(void *sb, void *rb, F *counts, F *type, F *op, F *comm, F *ierr)
{
	REAL(void (*)(void *, void *, F *, F *, F *, F *, F *), "pmpi_reduce_scatter_");
	FCOLL(R_REDUCE_SCATTER, MPT_OP_REDUCE_SCATTER, comm, NOROOT,
	      mpt_bytes_reduce_scatter(counts, T(type), in_place(sb), c_, &s_, &v_),
	      r_(sb, rb, counts, type, op, comm, ierr));
}
FSYMS(reduce_scatter, MPI_REDUCE_SCATTER, (void *, void *, F *, F *, F *, F *, F *))

typedef void (*coll8_t)(void *, F *, F *, void *, F *, F *, F *, F *);
typedef void (*coll9_t)(void *, F *, F *, void *, F *, F *, F *, F *, F *);

static void f_gather(void *sb, F *sc, F *st, void *rb, F *rc, F *rt, F *root, F *comm, F *ierr)
{
	REAL(coll9_t, "pmpi_gather_");
	FCOLL(R_GATHER, MPT_OP_GATHER, comm, (uint32_t)*root,
	      mpt_bytes_gather(*sc, T(st), *rc, T(rt), *root, in_place(sb), c_, &s_, &v_),
	      r_(sb, sc, st, rb, rc, rt, root, comm, ierr));
}
FSYMS(gather, MPI_GATHER, (void *, F *, F *, void *, F *, F *, F *, F *, F *))

static void f_scatter(void *sb, F *sc, F *st, void *rb, F *rc, F *rt, F *root, F *comm, F *ierr)
{
	REAL(coll9_t, "pmpi_scatter_");
	FCOLL(R_SCATTER, MPT_OP_SCATTER, comm, (uint32_t)*root,
	      mpt_bytes_scatter(*sc, T(st), *rc, T(rt), *root, in_place(rb), c_, &s_, &v_),
	      r_(sb, sc, st, rb, rc, rt, root, comm, ierr));
}
FSYMS(scatter, MPI_SCATTER, (void *, F *, F *, void *, F *, F *, F *, F *, F *))

static void f_allgather(void *sb, F *sc, F *st, void *rb, F *rc, F *rt, F *comm, F *ierr)
{
	REAL(coll8_t, "pmpi_allgather_");
	FCOLL(R_ALLGATHER, MPT_OP_ALLGATHER, comm, NOROOT,
	      mpt_bytes_alltoall(*sc, T(st), *rc, T(rt), in_place(sb), c_, &s_, &v_),
	      r_(sb, sc, st, rb, rc, rt, comm, ierr));
}
FSYMS(allgather, MPI_ALLGATHER, (void *, F *, F *, void *, F *, F *, F *, F *))

static void f_alltoall(void *sb, F *sc, F *st, void *rb, F *rc, F *rt, F *comm, F *ierr)
{
	REAL(coll8_t, "pmpi_alltoall_");
	FCOLL(R_ALLTOALL, MPT_OP_ALLTOALL, comm, NOROOT,
	      mpt_bytes_alltoall(*sc, T(st), *rc, T(rt), in_place(sb), c_, &s_, &v_),
	      r_(sb, sc, st, rb, rc, rt, comm, ierr));
}
FSYMS(alltoall, MPI_ALLTOALL, (void *, F *, F *, void *, F *, F *, F *, F *))

static void f_gatherv(void *sb, F *sc, F *st, void *rb, F *rcs, F *displs, F *rt, F *root,
		      F *comm, F *ierr)
{
	REAL(void (*)(void *, F *, F *, void *, F *, F *, F *, F *, F *, F *), "pmpi_gatherv_");
	FCOLL(R_GATHERV, MPT_OP_GATHERV, comm, (uint32_t)*root,
	      mpt_bytes_gatherv(*sc, T(st), rcs, T(rt), *root, in_place(sb), c_, &s_, &v_),
	      r_(sb, sc, st, rb, rcs, displs, rt, root, comm, ierr));
}
FSYMS(gatherv, MPI_GATHERV, (void *, F *, F *, void *, F *, F *, F *, F *, F *, F *))

static void f_scatterv(void *sb, F *scs, F *displs, F *st, void *rb, F *rc, F *rt, F *root,
		       F *comm, F *ierr)
{
	REAL(void (*)(void *, F *, F *, F *, void *, F *, F *, F *, F *, F *), "pmpi_scatterv_");
	FCOLL(R_SCATTERV, MPT_OP_SCATTERV, comm, (uint32_t)*root,
	      mpt_bytes_scatterv(scs, T(st), *rc, T(rt), *root, in_place(rb), c_, &s_, &v_),
	      r_(sb, scs, displs, st, rb, rc, rt, root, comm, ierr));
}
FSYMS(scatterv, MPI_SCATTERV, (void *, F *, F *, F *, void *, F *, F *, F *, F *, F *))

static void f_allgatherv(void *sb, F *sc, F *st, void *rb, F *rcs, F *displs, F *rt, F *comm,
			 F *ierr)
{
	REAL(void (*)(void *, F *, F *, void *, F *, F *, F *, F *, F *), "pmpi_allgatherv_");
	FCOLL(R_ALLGATHERV, MPT_OP_ALLGATHERV, comm, NOROOT,
	      mpt_bytes_allgatherv(*sc, T(st), rcs, T(rt), in_place(sb), c_, &s_, &v_),
	      r_(sb, sc, st, rb, rcs, displs, rt, comm, ierr));
}
FSYMS(allgatherv, MPI_ALLGATHERV, (void *, F *, F *, void *, F *, F *, F *, F *, F *))

static void f_alltoallv(void *sb, F *scs, F *sdispls, F *st, void *rb, F *rcs, F *rdispls,
			F *rt, F *comm, F *ierr)
{
	REAL(void (*)(void *, F *, F *, F *, void *, F *, F *, F *, F *, F *), "pmpi_alltoallv_");
	FCOLL(R_ALLTOALLV, MPT_OP_ALLTOALLV, comm, NOROOT,
	      mpt_bytes_alltoallv(scs, T(st), rcs, T(rt), in_place(sb), c_, &s_, &v_),
	      r_(sb, scs, sdispls, st, rb, rcs, rdispls, rt, comm, ierr));
}
FSYMS(alltoallv, MPI_ALLTOALLV, (void *, F *, F *, F *, void *, F *, F *, F *, F *, F *))

/* --- communicators --- */

#define FCREATE(region, parent, newc, call) \
	do { \
		if (!mpt_on) { \
			call; \
			return; \
		} \
		MPI_Comm p_ = C(parent); \
		int a_ = mpt_active(), b_ = 0; \
		if (a_) { \
			mpt_enter(region); \
			b_ = mpt_coll_begin(p_); \
		} \
		call; \
		if (a_) \
			mpt_after(); \
		if (*ierr == MPI_SUCCESS) \
			mpt_comm_new(p_, C(newc)); \
		if (a_) { \
			if (b_) \
				mpt_coll_end(MPT_OP_CREATE_HANDLE, p_, MPT_ROOT_NONE, 0, 0); \
			mpt_leave(region); \
		} \
	} while (0)

static void f_comm_dup(F *comm, F *newcomm, F *ierr)
{
	REAL(void (*)(F *, F *, F *), "pmpi_comm_dup_");
	FCREATE(R_COMM_DUP, comm, newcomm, r_(comm, newcomm, ierr));
}
FSYMS(comm_dup, MPI_COMM_DUP, (F *, F *, F *))

static void f_comm_split(F *comm, F *color, F *key, F *newcomm, F *ierr)
{
	REAL(void (*)(F *, F *, F *, F *, F *), "pmpi_comm_split_");
	FCREATE(R_COMM_SPLIT, comm, newcomm, r_(comm, color, key, newcomm, ierr));
}
FSYMS(comm_split, MPI_COMM_SPLIT, (F *, F *, F *, F *, F *))

static void f_comm_create(F *comm, F *group, F *newcomm, F *ierr)
{
	REAL(void (*)(F *, F *, F *, F *), "pmpi_comm_create_");
	FCREATE(R_COMM_CREATE, comm, newcomm, r_(comm, group, newcomm, ierr));
}
FSYMS(comm_create, MPI_COMM_CREATE, (F *, F *, F *, F *))

static void f_cart_create(F *comm, F *ndims, F *dims, F *periods, F *reorder, F *newcomm,
			  F *ierr)
{
	REAL(void (*)(F *, F *, F *, F *, F *, F *, F *), "pmpi_cart_create_");
	FCREATE(R_CART_CREATE, comm, newcomm, r_(comm, ndims, dims, periods, reorder, newcomm, ierr));
}
FSYMS(cart_create, MPI_CART_CREATE, (F *, F *, F *, F *, F *, F *, F *))

static void f_cart_sub(F *comm, F *remain, F *newcomm, F *ierr)
{
	REAL(void (*)(F *, F *, F *, F *), "pmpi_cart_sub_");
	FCREATE(R_CART_SUB, comm, newcomm, r_(comm, remain, newcomm, ierr));
}
FSYMS(cart_sub, MPI_CART_SUB, (F *, F *, F *, F *))

static void f_comm_free(F *comm, F *ierr)
{
	REAL(void (*)(F *, F *), "pmpi_comm_free_");
	if (!mpt_on) {
		r_(comm, ierr);
		return;
	}
	MPI_Comm c = C(comm);
	int a = mpt_active(), b = 0;
	if (a) {
		mpt_enter(R_COMM_FREE);
		b = mpt_coll_begin(c);
	}
	r_(comm, ierr);
	if (a)
		mpt_after();
	if (a && b)
		mpt_coll_end(MPT_OP_DESTROY_HANDLE, c, MPT_ROOT_NONE, 0, 0);
	if (*ierr == MPI_SUCCESS)
		mpt_comm_gone(c);
	if (a)
		mpt_leave(R_COMM_FREE);
}
FSYMS(comm_free, MPI_COMM_FREE, (F *, F *))
