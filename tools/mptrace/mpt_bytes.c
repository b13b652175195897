/*
 * The bytes a rank sends and receives in a collective operation, for the
 * sizeSent and sizeReceived of OTF2's MpiCollectiveEnd. The convention is
 * Score-P's, so that archives of both read alike: an operation counts as
 * if every rank exchanged its blocks directly with every member of the
 * communicator, itself included (an allreduce of B bytes on N ranks sends
 * and receives N * B), and MPI_IN_PLACE data, which is not moved, is left
 * out. The algorithm the MPI library really uses is not known here.
 * Intercommunicators are not followed by the tracer (mptrace(1)), so only
 * intracommunicators are counted.
 */
#include "mpt.h"

uint64_t mpt_type_bytes(int count, MPI_Datatype dt)
{
	int sz = 0;
	if (count <= 0 || dt == MPI_DATATYPE_NULL)
		return 0;
	if (PMPI_Type_size(dt, &sz) != MPI_SUCCESS || sz < 0)
		return 0;
	return (uint64_t)count * (uint64_t)sz;
}

static int comm_rank(MPI_Comm comm)
{
	int r = 0;
	PMPI_Comm_rank(comm, &r);
	return r;
}

static uint64_t comm_size(MPI_Comm comm)
{
	int n = 0;
	PMPI_Comm_size(comm, &n);
	return n > 0 ? (uint64_t)n : 0;
}

/* Gather-like: every rank sends a block to root, which receives N. */
static void all_to_one(uint64_t sblock, uint64_t rblock, int root, int inplace,
		       MPI_Comm comm, uint64_t *s, uint64_t *r)
{
	if (comm_rank(comm) == root) {
		uint64_t n = comm_size(comm);
		*s = inplace ? 0 : rblock;
		*r = inplace ? (n - 1) * rblock : n * rblock;
	} else {
		*s = sblock;
		*r = 0;
	}
}

void mpt_bytes_bcast(int count, MPI_Datatype dt, int root, MPI_Comm comm,
		     uint64_t *s, uint64_t *r)
{
	uint64_t b = mpt_type_bytes(count, dt);
	all_to_one(b, b, root, 0, comm, r, s);
}

void mpt_bytes_gather(int scount, MPI_Datatype st, int rcount, MPI_Datatype rt,
		      int root, int inplace, MPI_Comm comm, uint64_t *s, uint64_t *r)
{
	uint64_t rb = comm_rank(comm) == root ? mpt_type_bytes(rcount, rt) : 0;
	uint64_t sb = comm_rank(comm) == root ? 0 : mpt_type_bytes(scount, st);
	all_to_one(sb, rb, root, inplace, comm, s, r);
}

void mpt_bytes_reduce(int count, MPI_Datatype dt, int root, int inplace,
		      MPI_Comm comm, uint64_t *s, uint64_t *r)
{
	uint64_t b = mpt_type_bytes(count, dt);
	all_to_one(b, b, root, inplace, comm, s, r);
}

void mpt_bytes_scatter(int scount, MPI_Datatype st, int rcount, MPI_Datatype rt,
		       int root, int inplace, MPI_Comm comm, uint64_t *s, uint64_t *r)
{
	/* A gather with send and receive exchanged. */
	uint64_t sb = comm_rank(comm) == root ? mpt_type_bytes(scount, st) : 0;
	uint64_t rb = comm_rank(comm) == root ? 0 : mpt_type_bytes(rcount, rt);
	all_to_one(rb, sb, root, inplace, comm, r, s);
}

/* Gatherv-like: root receives counts[i] blocks from rank i. */
static void all_to_one_v(uint64_t sblock, const int *counts, MPI_Datatype t,
			 int root, int inplace, MPI_Comm comm, uint64_t *s,
			 uint64_t *r)
{
	int me = comm_rank(comm);
	if (me == root) {
		uint64_t n = comm_size(comm), sum = 0, mine;
		for (uint64_t i = 0; i < n; i++)
			sum += mpt_type_bytes(counts[i], t);
		mine = mpt_type_bytes(counts[me], t);
		*s = inplace ? 0 : mine;
		*r = inplace ? sum - mine : sum;
	} else {
		*s = sblock;
		*r = 0;
	}
}

void mpt_bytes_gatherv(int scount, MPI_Datatype st, const int *rcounts,
		       MPI_Datatype rt, int root, int inplace, MPI_Comm comm,
		       uint64_t *s, uint64_t *r)
{
	uint64_t sb = comm_rank(comm) == root ? 0 : mpt_type_bytes(scount, st);
	all_to_one_v(sb, rcounts, rt, root, inplace, comm, s, r);
}

void mpt_bytes_scatterv(const int *scounts, MPI_Datatype st, int rcount,
			MPI_Datatype rt, int root, int inplace, MPI_Comm comm,
			uint64_t *s, uint64_t *r)
{
	uint64_t rb = comm_rank(comm) == root ? 0 : mpt_type_bytes(rcount, rt);
	all_to_one_v(rb, scounts, st, root, inplace, comm, r, s);
}

void mpt_bytes_alltoall(int scount, MPI_Datatype st, int rcount, MPI_Datatype rt,
			int inplace, MPI_Comm comm, uint64_t *s, uint64_t *r)
{
	uint64_t n = comm_size(comm);
	if (inplace) {
		*s = *r = (n - 1) * mpt_type_bytes(rcount, rt);
	} else {
		*s = n * mpt_type_bytes(scount, st);
		*r = n * mpt_type_bytes(rcount, rt);
	}
}

void mpt_bytes_alltoallv(const int *scounts, MPI_Datatype st, const int *rcounts,
			 MPI_Datatype rt, int inplace, MPI_Comm comm,
			 uint64_t *s, uint64_t *r)
{
	uint64_t n = comm_size(comm);
	*s = *r = 0;
	for (uint64_t i = 0; i < n; i++)
		*r += mpt_type_bytes(rcounts[i], rt);
	if (inplace) {
		*r -= mpt_type_bytes(rcounts[comm_rank(comm)], rt);
		*s = *r;
		return;
	}
	for (uint64_t i = 0; i < n; i++)
		*s += mpt_type_bytes(scounts[i], st);
}

void mpt_bytes_alltoallw(const int *scounts, const MPI_Datatype *st,
			 const int *rcounts, const MPI_Datatype *rt, int inplace,
			 MPI_Comm comm, uint64_t *s, uint64_t *r)
{
	uint64_t n = comm_size(comm);
	*s = *r = 0;
	for (uint64_t i = 0; i < n; i++)
		*r += mpt_type_bytes(rcounts[i], rt[i]);
	if (inplace) {
		int me = comm_rank(comm);
		*r -= mpt_type_bytes(rcounts[me], rt[me]);
		*s = *r;
		return;
	}
	for (uint64_t i = 0; i < n; i++)
		*s += mpt_type_bytes(scounts[i], st[i]);
}

void mpt_bytes_allgatherv(int scount, MPI_Datatype st, const int *rcounts,
			  MPI_Datatype rt, int inplace, MPI_Comm comm,
			  uint64_t *s, uint64_t *r)
{
	uint64_t n = comm_size(comm);
	*r = 0;
	for (uint64_t i = 0; i < n; i++)
		*r += mpt_type_bytes(rcounts[i], rt);
	if (inplace) {
		uint64_t mine = mpt_type_bytes(rcounts[comm_rank(comm)], rt);
		*r -= mine;
		*s = (n - 1) * mine;
	} else {
		*s = n * mpt_type_bytes(scount, st);
	}
}

void mpt_bytes_reduce_scatter(const int *rcounts, MPI_Datatype dt, int inplace,
			      MPI_Comm comm, uint64_t *s, uint64_t *r)
{
	uint64_t n = comm_size(comm), sum = 0;
	int me = comm_rank(comm);
	for (uint64_t i = 0; i < n; i++)
		sum += mpt_type_bytes(rcounts[i], dt);
	uint64_t mine = mpt_type_bytes(rcounts[me], dt);
	if (inplace) {
		*s = sum - mine;
		*r = (n - 1) * mine;
	} else {
		*s = sum;
		*r = n * mine;
	}
}

void mpt_bytes_reduce_scatter_block(int rcount, MPI_Datatype dt, int inplace,
				    MPI_Comm comm, uint64_t *s, uint64_t *r)
{
	uint64_t n = comm_size(comm), b = mpt_type_bytes(rcount, dt);
	*s = *r = (inplace ? n - 1 : n) * b;
}

void mpt_bytes_scan(int count, MPI_Datatype dt, int inplace, int exclusive,
		    MPI_Comm comm, uint64_t *s, uint64_t *r)
{
	uint64_t n = comm_size(comm), me = (uint64_t)comm_rank(comm);
	uint64_t b = mpt_type_bytes(count, dt);
	/* Rank i sends to ranks i..N-1 and receives from 0..i; an
	 * exclusive scan, like an in-place one, leaves itself out. */
	if (inplace || exclusive) {
		*s = (n - me - 1) * b;
		*r = me * b;
	} else {
		*s = (n - me) * b;
		*r = (me + 1) * b;
	}
}
