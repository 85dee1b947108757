/*
** rk_markers.c — the marker functions of rk_markers.h: empty, never
** inlined, never merged (the empty asm keeps each body distinct).
*/
#include "rk_markers.h"

__attribute__((noinline)) void rk_mark_begin(void) { __asm__ volatile("" ::: "memory"); }
__attribute__((noinline)) void rk_mark_op(uint32_t op_index) { __asm__ volatile("" : : "r"(op_index) : "memory"); }
__attribute__((noinline)) void rk_mark_end(void) { __asm__ volatile("" ::: "memory"); }
