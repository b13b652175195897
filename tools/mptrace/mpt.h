/*
 * libmptrace's internals, shared by its modules: the MPI functions it
 * records (regions), the state of the recording on this rank, and the
 * calls the C and Fortran wrappers make to record events. The library
 * is preloaded into an MPI program by the mptrace launcher; every
 * exported MPI_ and Fortran symbol it defines calls the MPI library's
 * profiling interface (PMPI_, pmpi_) and records around it.
 *
 * Ownership: all state is per process and lives until MPI_Finalize;
 * nothing here is thread safe (under MPI_THREAD_MULTIPLE only the thread
 * that initialized MPI is recorded, see mpt_active).
 */
#ifndef MPT_H
#define MPT_H

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#define MPT_PRINTF(f, a) __attribute__((format(printf, f, a)))

/*
 * The recorded MPI functions: X(id, name, role), role an OTF2 region
 * role without its prefix. The table is the same on every rank, so a
 * region's id is its index here in every event file and in the global
 * definitions.
 */
#define MPT_REGIONS(X) \
	X(ABORT, "MPI_Abort", FUNCTION) \
	X(ALLGATHER, "MPI_Allgather", COLL_ALL2ALL) \
	X(ALLGATHERV, "MPI_Allgatherv", COLL_ALL2ALL) \
	X(ALLREDUCE, "MPI_Allreduce", COLL_ALL2ALL) \
	X(ALLTOALL, "MPI_Alltoall", COLL_ALL2ALL) \
	X(ALLTOALLV, "MPI_Alltoallv", COLL_ALL2ALL) \
	X(ALLTOALLW, "MPI_Alltoallw", COLL_ALL2ALL) \
	X(BARRIER, "MPI_Barrier", BARRIER) \
	X(BCAST, "MPI_Bcast", COLL_ONE2ALL) \
	X(BSEND, "MPI_Bsend", POINT2POINT) \
	X(BSEND_INIT, "MPI_Bsend_init", POINT2POINT) \
	X(CANCEL, "MPI_Cancel", FUNCTION) \
	X(CART_CREATE, "MPI_Cart_create", FUNCTION) \
	X(CART_SUB, "MPI_Cart_sub", FUNCTION) \
	X(COMM_CREATE, "MPI_Comm_create", FUNCTION) \
	X(COMM_CREATE_GROUP, "MPI_Comm_create_group", FUNCTION) \
	X(COMM_DUP, "MPI_Comm_dup", FUNCTION) \
	X(COMM_DUP_WITH_INFO, "MPI_Comm_dup_with_info", FUNCTION) \
	X(COMM_FREE, "MPI_Comm_free", FUNCTION) \
	X(COMM_IDUP, "MPI_Comm_idup", FUNCTION) \
	X(COMM_RANK, "MPI_Comm_rank", FUNCTION) \
	X(COMM_SIZE, "MPI_Comm_size", FUNCTION) \
	X(COMM_SPLIT, "MPI_Comm_split", FUNCTION) \
	X(COMM_SPLIT_TYPE, "MPI_Comm_split_type", FUNCTION) \
	X(DIST_GRAPH_CREATE, "MPI_Dist_graph_create", FUNCTION) \
	X(DIST_GRAPH_CREATE_ADJACENT, "MPI_Dist_graph_create_adjacent", FUNCTION) \
	X(EXSCAN, "MPI_Exscan", COLL_OTHER) \
	X(FINALIZE, "MPI_Finalize", FUNCTION) \
	X(GATHER, "MPI_Gather", COLL_ALL2ONE) \
	X(GATHERV, "MPI_Gatherv", COLL_ALL2ONE) \
	X(GRAPH_CREATE, "MPI_Graph_create", FUNCTION) \
	X(IALLGATHER, "MPI_Iallgather", COLL_ALL2ALL) \
	X(IALLGATHERV, "MPI_Iallgatherv", COLL_ALL2ALL) \
	X(IALLREDUCE, "MPI_Iallreduce", COLL_ALL2ALL) \
	X(IALLTOALL, "MPI_Ialltoall", COLL_ALL2ALL) \
	X(IALLTOALLV, "MPI_Ialltoallv", COLL_ALL2ALL) \
	X(IALLTOALLW, "MPI_Ialltoallw", COLL_ALL2ALL) \
	X(IBARRIER, "MPI_Ibarrier", BARRIER) \
	X(IBCAST, "MPI_Ibcast", COLL_ONE2ALL) \
	X(IBSEND, "MPI_Ibsend", POINT2POINT) \
	X(IEXSCAN, "MPI_Iexscan", COLL_OTHER) \
	X(IGATHER, "MPI_Igather", COLL_ALL2ONE) \
	X(IGATHERV, "MPI_Igatherv", COLL_ALL2ONE) \
	X(IMPROBE, "MPI_Improbe", POINT2POINT) \
	X(IMRECV, "MPI_Imrecv", POINT2POINT) \
	X(INIT, "MPI_Init", FUNCTION) \
	X(INIT_THREAD, "MPI_Init_thread", FUNCTION) \
	X(INTERCOMM_CREATE, "MPI_Intercomm_create", FUNCTION) \
	X(INTERCOMM_MERGE, "MPI_Intercomm_merge", FUNCTION) \
	X(IPROBE, "MPI_Iprobe", POINT2POINT) \
	X(IRECV, "MPI_Irecv", POINT2POINT) \
	X(IREDUCE, "MPI_Ireduce", COLL_ALL2ONE) \
	X(IREDUCE_SCATTER, "MPI_Ireduce_scatter", COLL_ALL2ALL) \
	X(IREDUCE_SCATTER_BLOCK, "MPI_Ireduce_scatter_block", COLL_ALL2ALL) \
	X(IRSEND, "MPI_Irsend", POINT2POINT) \
	X(ISCAN, "MPI_Iscan", COLL_OTHER) \
	X(ISCATTER, "MPI_Iscatter", COLL_ONE2ALL) \
	X(ISCATTERV, "MPI_Iscatterv", COLL_ONE2ALL) \
	X(ISEND, "MPI_Isend", POINT2POINT) \
	X(ISSEND, "MPI_Issend", POINT2POINT) \
	X(MPROBE, "MPI_Mprobe", POINT2POINT) \
	X(MRECV, "MPI_Mrecv", POINT2POINT) \
	X(NEIGHBOR_ALLGATHER, "MPI_Neighbor_allgather", COLL_OTHER) \
	X(NEIGHBOR_ALLGATHERV, "MPI_Neighbor_allgatherv", COLL_OTHER) \
	X(NEIGHBOR_ALLTOALL, "MPI_Neighbor_alltoall", COLL_OTHER) \
	X(NEIGHBOR_ALLTOALLV, "MPI_Neighbor_alltoallv", COLL_OTHER) \
	X(NEIGHBOR_ALLTOALLW, "MPI_Neighbor_alltoallw", COLL_OTHER) \
	X(PROBE, "MPI_Probe", POINT2POINT) \
	X(RECV, "MPI_Recv", POINT2POINT) \
	X(RECV_INIT, "MPI_Recv_init", POINT2POINT) \
	X(REDUCE, "MPI_Reduce", COLL_ALL2ONE) \
	X(REDUCE_SCATTER, "MPI_Reduce_scatter", COLL_ALL2ALL) \
	X(REDUCE_SCATTER_BLOCK, "MPI_Reduce_scatter_block", COLL_ALL2ALL) \
	X(REQUEST_FREE, "MPI_Request_free", FUNCTION) \
	X(RSEND, "MPI_Rsend", POINT2POINT) \
	X(RSEND_INIT, "MPI_Rsend_init", POINT2POINT) \
	X(SCAN, "MPI_Scan", COLL_OTHER) \
	X(SCATTER, "MPI_Scatter", COLL_ONE2ALL) \
	X(SCATTERV, "MPI_Scatterv", COLL_ONE2ALL) \
	X(SEND, "MPI_Send", POINT2POINT) \
	X(SEND_INIT, "MPI_Send_init", POINT2POINT) \
	X(SENDRECV, "MPI_Sendrecv", POINT2POINT) \
	X(SENDRECV_REPLACE, "MPI_Sendrecv_replace", POINT2POINT) \
	X(SSEND, "MPI_Ssend", POINT2POINT) \
	X(SSEND_INIT, "MPI_Ssend_init", POINT2POINT) \
	X(START, "MPI_Start", POINT2POINT) \
	X(STARTALL, "MPI_Startall", POINT2POINT) \
	X(TEST, "MPI_Test", POINT2POINT) \
	X(TESTALL, "MPI_Testall", POINT2POINT) \
	X(TESTANY, "MPI_Testany", POINT2POINT) \
	X(TESTSOME, "MPI_Testsome", POINT2POINT) \
	X(WAIT, "MPI_Wait", POINT2POINT) \
	X(WAITALL, "MPI_Waitall", POINT2POINT) \
	X(WAITANY, "MPI_Waitany", POINT2POINT) \
	X(WAITSOME, "MPI_Waitsome", POINT2POINT) \
	X(WIN_ALLOCATE, "MPI_Win_allocate", FUNCTION) \
	X(WIN_ALLOCATE_SHARED, "MPI_Win_allocate_shared", FUNCTION) \
	X(WIN_CREATE, "MPI_Win_create", FUNCTION) \
	X(WIN_CREATE_DYNAMIC, "MPI_Win_create_dynamic", FUNCTION)

#define MPT_REGION_ENUM(id, name, role) R_##id,
enum { MPT_REGIONS(MPT_REGION_ENUM) MPT_NREGIONS };
#undef MPT_REGION_ENUM

/* Region names, by id. */
extern const char *const mpt_region_name[MPT_NREGIONS];

/* OTF2's collective operations (OTF2_CollectiveOp), so that the
 * wrappers need not include OTF2's headers. */
enum {
	MPT_OP_BARRIER = 0, MPT_OP_BCAST, MPT_OP_GATHER, MPT_OP_GATHERV,
	MPT_OP_SCATTER, MPT_OP_SCATTERV, MPT_OP_ALLGATHER, MPT_OP_ALLGATHERV,
	MPT_OP_ALLTOALL, MPT_OP_ALLTOALLV, MPT_OP_ALLTOALLW, MPT_OP_ALLREDUCE,
	MPT_OP_REDUCE, MPT_OP_REDUCE_SCATTER, MPT_OP_SCAN, MPT_OP_EXSCAN,
	MPT_OP_REDUCE_SCATTER_BLOCK, MPT_OP_CREATE_HANDLE,
	MPT_OP_DESTROY_HANDLE
};
/* A collective without a root (OTF2_COLLECTIVE_ROOT_NONE). */
#define MPT_ROOT_NONE UINT32_MAX

/* What the trace cannot show, by kind: when one happens the archive
 * says its MPI communication is not complete, and mptrace.txt says why. */
enum {
	MPT_GAP_COMM,     /* operations on communicators not followed */
	MPT_GAP_THREAD,   /* calls from other threads (MPI_THREAD_MULTIPLE) */
	MPT_GAP_RMA,      /* one-sided communication */
	MPT_GAP_NEIGHBOR, /* neighbourhood collectives */
	MPT_GAP_MEMORY,   /* requests lost for want of memory */
	MPT_NGAPS
};
extern unsigned mpt_gaps; /* a bit per kind */

static inline void mpt_incomplete(int kind)
{
	__atomic_or_fetch(&mpt_gaps, 1u << kind, __ATOMIC_RELAXED);
}

/* Recording: on from the end of MPI_Init to the start of MPI_Finalize
 * on ranks that record; mpt_multiple when MPI gave
 * MPI_THREAD_MULTIPLE, so only mpt_main's calls are recorded. */
extern int mpt_on;
extern int mpt_multiple;
extern pthread_t mpt_main;

/* Whether this call is to be recorded. */
static inline int mpt_active(void)
{
	if (!mpt_on)
		return 0;
	if (mpt_multiple && !pthread_equal(pthread_self(), mpt_main)) {
		mpt_incomplete(MPT_GAP_THREAD);
		return 0;
	}
	return 1;
}

/* Now, in nanoseconds of CLOCK_MONOTONIC (the trace's clock). */
static inline uint64_t mpt_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* --- mpt_init.c: starting and ending the recording --- */

/* After PMPI_Init or PMPI_Init_thread returned: open the archive when
 * MPTRACE_DIR is set, then record the call (region, entered at t0,
 * giving thread level `provided`). Collective over MPI_COMM_WORLD. */
void mpt_start(int region, uint64_t t0, int provided);

/* In MPI_Finalize, before PMPI_Finalize: record the call, then write
 * and close the archive. Collective over MPI_COMM_WORLD. */
void mpt_stop(void);

/* "mptrace: rank R: message" on stderr. */
void mpt_warn(const char *fmt, ...) MPT_PRINTF(1, 2);

/* --- mpt_rec.c: events --- */

/* The time of the events being written: set when a call is entered, and
 * again by mpt_after when the MPI library returns; every event of the
 * call takes one of the two, so a call costs two clock reads however
 * many events it writes. */
extern uint64_t mpt_t;

static inline void mpt_after(void)
{
	mpt_t = mpt_now();
}

/* Enter (now) and Leave (at mpt_t: call mpt_after first). */
void mpt_enter(int region);
void mpt_leave(int region);
/* MpiSend of a blocking send; nothing for MPI_PROC_NULL. */
void mpt_send(MPI_Comm comm, int dest, int tag, uint64_t bytes);
/* MpiRecv from a status of comm (nothing for MPI_PROC_NULL). */
void mpt_recv(MPI_Comm comm, const MPI_Status *st);
/* MpiIsend of a new request (req the handle the call returned). */
void mpt_isend(MPI_Comm comm, int dest, int tag, uint64_t bytes, MPI_Request req);
/* MpiIrecvRequest of a new receive request on comm from source. */
void mpt_irecv(MPI_Comm comm, int source, MPI_Request req);
/* Remember a new persistent request (MPI_Send_init and others): send
 * when send, dest or source the peer. */
void mpt_persistent(MPI_Comm comm, int send, int peer, int tag, uint64_t bytes,
		    MPI_Request req);
/* A matched probe returned message m on comm; MPI_Mrecv of m
 * completed with st (MpiRecv); MPI_Imrecv of m returned req
 * (MpiIrecvRequest). */
void mpt_message(MPI_Message m, MPI_Comm comm);
void mpt_mrecv(MPI_Message m, const MPI_Status *st);
void mpt_imrecv(MPI_Message m, MPI_Request req);
/* MPI_Start of a request: the MpiIsend or MpiIrecvRequest it begins. */
void mpt_start_req(MPI_Request req);
/* MPI_Request_free of req. */
void mpt_free_req(MPI_Request req);
/* NonBlockingCollectiveRequest of a new collective request. */
void mpt_icoll(int op, MPI_Comm comm, uint32_t root, uint64_t sent,
	       uint64_t recvd, MPI_Request req);
/* A request (its handle before the completing call) completed with
 * status st: MpiIsendComplete, MpiIrecv, NonBlockingCollectiveComplete
 * or MpiRequestCancelled. Unknown requests are ignored. */
void mpt_done(MPI_Request req, const MPI_Status *st);
/* MPI_Cancel of req: its completion may be a cancellation. */
void mpt_cancel(MPI_Request req);
/* A test that found req not complete: MpiRequestTest. */
void mpt_tested(MPI_Request req);
/* MpiCollectiveBegin of a collective on comm; returns 0 (and writes
 * nothing) when comm is not known, so the end is not written either. */
int mpt_coll_begin(MPI_Comm comm);
/* MpiCollectiveEnd: root a rank of comm or MPT_ROOT_NONE. */
void mpt_coll_end(int op, MPI_Comm comm, uint32_t root, uint64_t sent, uint64_t recvd);
/* A communicator was created with parent (MPI_COMM_NULL: none): learn
 * its group and its id (collective over newcomm), write CommCreate.
 * Intercommunicators are not followed. */
void mpt_comm_new(MPI_Comm parent, MPI_Comm newcomm);
/* comm is about to be freed: CommDestroy, then forget the handle. */
void mpt_comm_gone(MPI_Comm comm);

/* --- mpt_bytes.c: bytes a collective sends and receives --- */

/* The bytes this rank sends and receives in a collective, counted as
 * Score-P counts them (one transfer to every member, itself included,
 * in-place data excluded): see mptrace(1). Sizes of MPI_DATATYPE_NULL
 * or of arguments not significant at this rank count as 0. */
void mpt_bytes_bcast(int count, MPI_Datatype dt, int root, MPI_Comm comm,
		     uint64_t *s, uint64_t *r);
void mpt_bytes_gather(int scount, MPI_Datatype st, int rcount, MPI_Datatype rt,
		      int root, int inplace, MPI_Comm comm, uint64_t *s, uint64_t *r);
void mpt_bytes_gatherv(int scount, MPI_Datatype st, const int *rcounts,
		       MPI_Datatype rt, int root, int inplace, MPI_Comm comm,
		       uint64_t *s, uint64_t *r);
void mpt_bytes_scatter(int scount, MPI_Datatype st, int rcount, MPI_Datatype rt,
		       int root, int inplace, MPI_Comm comm, uint64_t *s, uint64_t *r);
void mpt_bytes_scatterv(const int *scounts, MPI_Datatype st, int rcount,
			MPI_Datatype rt, int root, int inplace, MPI_Comm comm,
			uint64_t *s, uint64_t *r);
void mpt_bytes_reduce(int count, MPI_Datatype dt, int root, int inplace,
		      MPI_Comm comm, uint64_t *s, uint64_t *r);
void mpt_bytes_alltoall(int scount, MPI_Datatype st, int rcount, MPI_Datatype rt,
			int inplace, MPI_Comm comm, uint64_t *s, uint64_t *r);
void mpt_bytes_alltoallv(const int *scounts, MPI_Datatype st, const int *rcounts,
			 MPI_Datatype rt, int inplace, MPI_Comm comm,
			 uint64_t *s, uint64_t *r);
void mpt_bytes_alltoallw(const int *scounts, const MPI_Datatype *st,
			 const int *rcounts, const MPI_Datatype *rt, int inplace,
			 MPI_Comm comm, uint64_t *s, uint64_t *r);
void mpt_bytes_allgatherv(int scount, MPI_Datatype st, const int *rcounts,
			  MPI_Datatype rt, int inplace, MPI_Comm comm,
			  uint64_t *s, uint64_t *r);
void mpt_bytes_reduce_scatter(const int *rcounts, MPI_Datatype dt, int inplace,
			      MPI_Comm comm, uint64_t *s, uint64_t *r);
void mpt_bytes_reduce_scatter_block(int rcount, MPI_Datatype dt, int inplace,
				    MPI_Comm comm, uint64_t *s, uint64_t *r);
void mpt_bytes_scan(int count, MPI_Datatype dt, int inplace, int exclusive,
		    MPI_Comm comm, uint64_t *s, uint64_t *r);
/* count elements of dt, in bytes (0 for MPI_DATATYPE_NULL). */
uint64_t mpt_type_bytes(int count, MPI_Datatype dt);

#endif
