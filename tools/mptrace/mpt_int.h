/*
 * What the event recorder (mpt_rec.c) and the archive's start and end
 * (mpt_init.c) share: the event writer, this rank's communicators and
 * their ids, the call counts. Only these two modules include OTF2.
 *
 * Ownership: the communicator table and its member lists belong to
 * mpt_rec.c and live until the process ends.
 */
#ifndef MPT_INT_H
#define MPT_INT_H

#include <otf2/otf2.h>

#include "mpt.h"

/* A communicator this rank knows, by local id (its index). Its global
 * identity is the token (leader, seq): the world rank of its rank 0 and
 * that rank's count of the communicators it leads (-1 for
 * MPI_COMM_WORLD, -2 for MPI_COMM_SELF, seq 0). */
struct mpt_comm {
	MPI_Comm handle;  /* MPI_COMM_NULL once freed */
	int32_t leader, seq;
	int32_t parent;   /* local id of the parent, -1 for none */
	int32_t size;
	int32_t *members; /* world ranks by communicator rank; leader only */
};

#define MPT_TOKEN_WORLD (-1)
#define MPT_TOKEN_SELF (-2)
#define MPT_TOKEN_NONE (-3)

extern OTF2_EvtWriter *mpt_evt;
extern int mpt_rank, mpt_size;
extern struct mpt_comm *mpt_comms;
extern uint32_t mpt_ncomms;
extern uint64_t mpt_calls[MPT_NREGIONS];

/* Register MPI_COMM_WORLD and MPI_COMM_SELF (local ids 0 and 1). Returns
 * 0, or -1 when out of memory. */
int mpt_comms_init(void);

/* Lock the tables another thread may touch (MPI_THREAD_MULTIPLE). */
void mpt_lock(void);
void mpt_unlock(void);

#endif
