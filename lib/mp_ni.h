/*
 * The network interface's job lists: per node, the messages waiting to
 * be injected, in the order an injection policy gives. Alpha scheduling
 * (SPEC 3.2): a node clock c counts the packets the fabric accepted from
 * that node; a message enters with priority c + alpha * l (l: packets
 * not yet sent), the lowest priority is served first, and each accepted
 * packet lowers its message's priority by alpha; so alpha = 0 is FIFO
 * and a large alpha approaches shortest-message-first. Preemption
 * happens at packet boundaries because the fabric asks for the head
 * before every injection attempt. Shortest-remaining-first and a class
 * priority (guaranteed before best-effort) are also offered. Ties go to
 * the earlier arrival.
 *
 * Messages are named by small integer ids (the fabric's message slots);
 * the job lists own only their ordering state.
 *
 * Lanes: a node's job list may be split into independent lanes, one per
 * virtual network of a model that gives each traffic class its own
 * (mp_ni_set_lanes), so a message of one class never waits behind one
 * of another class that cannot be injected. Each lane is ordered by the
 * policy on its own; the clock c stays one per node. By default there
 * is one lane and every class uses it.
 */
#ifndef MP_NI_H
#define MP_NI_H

#include <stdint.h>

#include "mp_record.h"
#include "mp_util.h"

typedef struct mp_ni mp_ni;

enum mp_ni_kind { MP_NI_ALPHA = 0, MP_NI_SRF = 1 };

struct mp_ni_policy {
	int kind;       /* enum mp_ni_kind */
	double alpha;   /* MP_NI_ALPHA: 0 = FIFO */
	int class_prio; /* serve lower priority classes first */
};

#define MP_NI_NONE UINT32_MAX

/* Job lists for `nodes` nodes. NULL when out of memory. */
mp_ni *mp_ni_new(uint32_t nodes, const struct mp_ni_policy *pol);

#define MP_NI_MAXLANES 4
#define MP_NI_CLASSES 2 /* traffic classes (mp_record.h MP_CLASS_*) */

/*
 * Split each node's list into `lanes` lanes (1..MP_NI_MAXLANES); a
 * message of traffic class k joins lane lane_of_cls[k] (classes past
 * MP_NI_CLASSES use lane 0). Only before the first mp_ni_add. Returns
 * 0, or -1 (bad arguments, messages already added, out of memory).
 */
int mp_ni_set_lanes(mp_ni *ni, unsigned lanes, const uint8_t *lane_of_cls);

/* Lanes per node (1 unless set). */
unsigned mp_ni_lanes(const mp_ni *ni);

void mp_ni_free(mp_ni *ni);

/*
 * A message (id) of `packets` packets, priority class `pclass` and
 * traffic class `cls` joins node's list (the lane of cls). Returns 0, or
 * -1 when out of memory.
 */
int mp_ni_add(mp_ni *ni, uint32_t node, uint32_t id, uint32_t packets,
	      uint32_t pclass, uint32_t cls);

/* The message to take the next packet from at node (lane 0), or
 * MP_NI_NONE. */
uint32_t mp_ni_head(const mp_ni *ni, uint32_t node);

/* The same in a lane of node. */
uint32_t mp_ni_head_lane(const mp_ni *ni, uint32_t node, unsigned lane);

/*
 * The fabric accepted a packet of message id at node; `left` packets of
 * it remain unsent (0 removes it from the list). Advances the clock.
 */
void mp_ni_accepted(mp_ni *ni, uint32_t node, uint32_t id, uint32_t left);

/* Packets accepted from node so far (the clock c). */
uint64_t mp_ni_clock(const mp_ni *ni, uint32_t node);

/* Messages in node's list (every lane). */
uint32_t mp_ni_len(const mp_ni *ni, uint32_t node);

/*
 * Turn a message into a scheduled injection (MP_REC_INJ): its priority
 * class under pol (guaranteed first when class_prio), and, when segment
 * is not 0 and the message has a byte count, ceil(bytes / segment)
 * packets.
 */
void mp_ni_schedule(struct mp_msg *m, const struct mp_ni_policy *pol,
		    uint32_t segment);

#endif
