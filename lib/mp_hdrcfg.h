/*
 * What the simulator's configuration and the injection policy look like
 * in a stream header, written and read back: the fabric.* keys (one per
 * option of the tables of mp_opt.h, so none can be missing) and the
 * sched.* keys. Kept apart so the simulator itself (mp_sim, the models,
 * the job lists) does not depend on the stream module.
 */
#ifndef MP_HDRCFG_H
#define MP_HDRCFG_H

#include "mp_config.h"
#include "mp_ni.h"
#include "mp_stream.h"
#include "mp_util.h"

/*
 * The configuration in a stream header: fabric.preset and a fabric.*
 * key for every option --show-config prints (dashes as underscores).
 * Returns 0, or -1 when out of memory.
 */
int mp_cfg_hdr_write(const struct mp_cfg *c, mp_hdr *h);

/*
 * The configuration a header written by mp_cfg_hdr_write describes,
 * into c. Returns 0, or -1 with a message (no fabric keys, a bad
 * value).
 */
int mp_cfg_hdr_read(const mp_hdr *h, struct mp_cfg *c, mp_err *err);

/*
 * The policy as sched records it in a stream header: sched.policy (fifo,
 * alpha or srf), sched.alpha, sched.class_priority. Returns 0, or -1
 * when out of memory.
 */
int mp_ni_policy_write(const struct mp_ni_policy *pol, mp_hdr *h);

/*
 * The policy a stream header asks for: FIFO for a messages stream or a
 * header without one. Returns 0, or -1 with a message (an unknown
 * policy, a missing or negative alpha) in err.
 */
int mp_ni_policy_read(const mp_hdr *h, struct mp_ni_policy *pol, mp_err *err);

#endif
