/*
 * Unit tests of the job lists (lib/mp_ni.c): alpha scheduling's order
 * in one lane, and lanes (one per virtual network): a message of one
 * class is at the head of its own lane whatever waits in another, the
 * lanes share the node's clock, the length counts every lane, and lanes
 * can only be set before the first message.
 */
#include <stdint.h>

#include "mp_ni.h"
#include "mp_record.h"
#include "t.h"

static void test_one_lane(void)
{
	struct mp_ni_policy pol = { MP_NI_ALPHA, 0, 0 };
	mp_ni *ni = mp_ni_new(2, &pol);
	T_OK(ni && mp_ni_lanes(ni) == 1, "one lane by default");
	mp_ni_add(ni, 0, 5, 2, 0, MP_CLASS_BE);
	mp_ni_add(ni, 0, 6, 1, 0, MP_CLASS_GT);
	T_OK(mp_ni_head(ni, 0) == 5 && mp_ni_head_lane(ni, 0, 0) == 5,
	     "FIFO across classes in one lane");
	T_OK(mp_ni_len(ni, 0) == 2 && mp_ni_head(ni, 1) == MP_NI_NONE, "two queued at node 0, none at 1");
	mp_ni_accepted(ni, 0, 5, 1);
	mp_ni_accepted(ni, 0, 5, 0);
	T_OK(mp_ni_head(ni, 0) == 6 && mp_ni_clock(ni, 0) == 2, "the gt message after both be packets");
	uint8_t lanes[MP_NI_CLASSES] = { 0, 1 };
	T_OK(mp_ni_set_lanes(ni, 2, lanes) < 0, "lanes refused once messages were added");
	mp_ni_free(ni);
}

static void test_lanes(void)
{
	struct mp_ni_policy pol = { MP_NI_ALPHA, 0, 0 };
	mp_ni *ni = mp_ni_new(3, &pol);
	uint8_t bad[MP_NI_CLASSES] = { 0, 2 };
	T_OK(mp_ni_set_lanes(ni, 2, bad) < 0, "a class's lane must exist");
	uint8_t lanes[MP_NI_CLASSES] = { 1, 0 }; /* be in lane 1, gt in 0 */
	T_OK(mp_ni_set_lanes(ni, 2, lanes) == 0 && mp_ni_lanes(ni) == 2, "two lanes");
	mp_ni_add(ni, 2, 1, 3, 0, MP_CLASS_BE);
	mp_ni_add(ni, 2, 2, 1, 0, MP_CLASS_BE);
	mp_ni_add(ni, 2, 3, 1, 0, MP_CLASS_GT);
	mp_ni_add(ni, 2, 4, 1, 0, 7); /* a class past the table: lane 0 */
	T_OK(mp_ni_head_lane(ni, 2, 0) == 3 && mp_ni_head_lane(ni, 2, 1) == 1,
	     "gt heads its lane while be messages wait in theirs");
	T_OK(mp_ni_head(ni, 2) == 3, "mp_ni_head is lane 0");
	T_OK(mp_ni_len(ni, 2) == 4, "the length counts every lane");
	mp_ni_accepted(ni, 2, 3, 0);
	T_OK(mp_ni_head_lane(ni, 2, 0) == 4 && mp_ni_head_lane(ni, 2, 1) == 1,
	     "accepting gt leaves the be lane alone");
	mp_ni_accepted(ni, 2, 1, 2);
	mp_ni_accepted(ni, 2, 1, 1);
	mp_ni_accepted(ni, 2, 1, 0);
	T_OK(mp_ni_head_lane(ni, 2, 1) == 2 && mp_ni_head_lane(ni, 2, 0) == 4,
	     "be message 1 done, 2 next; lane 0 unchanged");
	T_OK(mp_ni_clock(ni, 2) == 4 && mp_ni_clock(ni, 1) == 0, "one clock per node over its lanes");
	mp_ni_accepted(ni, 2, 2, 0);
	mp_ni_accepted(ni, 2, 4, 0);
	T_OK(mp_ni_len(ni, 2) == 0 && mp_ni_head_lane(ni, 2, 0) == MP_NI_NONE &&
	     mp_ni_head_lane(ni, 2, 1) == MP_NI_NONE, "empty again");
	mp_ni_free(ni);
}

int main(void)
{
	test_one_lane();
	test_lanes();
	return t_done();
}
