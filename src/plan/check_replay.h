/*
** check_replay.h — the plan checker's replay of an ALIAS candidate's
** operator (internal to src/plan/: check.c, and the tests of the replay).
**
** The operator's reads of its input and writes of its output are replayed
** scalar by scalar, in the order its kernel makes them (check_replay.c
** states each order and the kernel it is read from), with the input at
** byte x_in and the output at byte x_out.  A write is a violation when its
** bytes meet an input scalar the operator reads again afterwards, or (the
** channel-in-place depthwise, which is handed its input's bytes alone)
** when it falls outside the input.
*/
#ifndef RIPSIM_PLAN_CHECK_REPLAY_H
#define RIPSIM_PLAN_CHECK_REPLAY_H

#include <stdint.h>

#include "plan.h"

/*
** Replay candidate c's operator (c->alias_op not RIP_ALIAS_NONE; its
** geometry, c->dtype_bytes in [1, 16], n_in and n_out bytes already matched
** by the caller, n_in / dtype + n_out / dtype at most
** RIP_PLAN_REPLAY_SCALARS_MAX; x_in, x_out >= 0, below RIP_PLAN_TOTAL_MAX).
** RIP_OK when no write is a violation; RIP_S_FAILED with the earliest
** violating write in kernel order named in err; RIP_S_NOMEM.  O(n_in +
** n_out) time, n_in / (8 dtype) bytes of memory.
*/
rip_status rip_replay_alias(const rip_candidate *c, int64_t n_in, int64_t n_out, int64_t x_in, int64_t x_out,
                            char err[RIP_ERR_LEN]);

#endif
