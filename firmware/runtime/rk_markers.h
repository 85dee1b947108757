/*
** rk_markers.h — marker functions an instruction counter watches.
**
** A generated model calls rk_mark_begin() right before its first operator,
** rk_mark_op(i) right before operator i, and rk_mark_end() after its last.
** They do nothing; they are never inlined, so each has an address that a
** QEMU TCG plugin (firmware/tools/) can watch to count the instructions of
** one inference, and of each operator, between them.
*/
#ifndef RK_MARKERS_H
#define RK_MARKERS_H

#include <stdint.h>

void rk_mark_begin(void);
void rk_mark_op(uint32_t op_index);
void rk_mark_end(void);

#endif
