/*
 * icount.c — a QEMU TCG plugin (QEMU 7.2, plugin API version 1) that counts
 * the guest instructions of one inference of a ripsim firmware image.
 *
 * Copyright (C) 2026 the ripsim authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * This program is free software; you can redistribute it and/or modify it
 * under the terms of the GNU General Public License as published by the Free
 * Software Foundation; either version 2 of the License, or (at your option)
 * any later version.  It is distributed WITHOUT ANY WARRANTY; see the GNU
 * General Public License for more details.  It is a separate program from
 * ripsim: it is loaded into QEMU (GPL-2.0), hence its own license
 * (firmware/tools/LICENSE).
 *
 * Build (no QEMU headers needed; Debian ships no qemu-plugin.h, so the few
 * API v1 declarations used are written out below):
 *   gcc -O2 -shared -fPIC -fvisibility=hidden -o libicount.so icount.c
 * Use:
 *   qemu-system-arm ... -plugin ./libicount.so,begin=ADDR,end=ADDR[,op=ADDR][,out=FILE]
 * with the addresses of rk_mark_begin, rk_mark_end and rk_mark_op from nm
 * (the Thumb bit may be set; it is cleared here).
 *
 * What is counted: every executed guest instruction adds one to a counter
 * (an inline add of the block's instruction count when a translation block
 * starts).  When the first instruction of a marker executes, the counter is
 * read minus the instructions of its block not executed yet, i.e. the
 * number of instructions executed before that marker instruction.  Then
 *   total = count at rk_mark_end - count at rk_mark_begin
 * (the instructions from rk_mark_begin's first one up to, not including,
 * rk_mark_end's), and op k = count at the (k+1)-th rk_mark_op (or at
 * rk_mark_end) - count at the k-th rk_mark_op; API v1 cannot read the
 * op index in r0, so operators are numbered in the order their markers run
 * (the models call rk_mark_op(0), rk_mark_op(1), ... in order).
 * Output, one line per begin/end pair, to FILE (appended) or stderr:
 *   icount total=N ops=n0,n1,...
 * The count depends only on the guest's execution, not on how QEMU splits
 * blocks, so it is the same from run to run (no interrupts are enabled in
 * the images).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- QEMU 7.2 plugin API, version 1 (the subset used) ---- */
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct qemu_info_t {
    const char *target_name;
    struct {
        int min;
        int cur;
    } version;
    bool system_emulation;
    union {
        struct {
            int smp_vcpus;
            int max_vcpus;
        } system;
    };
} qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op, void *ptr,
                                              uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);

#define EXPORT __attribute__((visibility("default")))
EXPORT int qemu_plugin_version = 1;

/* ---- the counter ---- */
enum marker { M_BEGIN, M_END, M_OP, M_COUNT };

static uint64_t g_insns;                 /* instructions of every block entered */
static uint64_t g_addr[M_COUNT];         /* marker addresses, Thumb bit cleared */
static bool g_has[M_COUNT];
static FILE *g_out;                      /* the out= file, or stderr */
static bool g_open;                      /* between begin and end */
static uint64_t g_begin, g_op_start;
static bool g_op_open;
static uint64_t *g_ops;
static size_t g_n_ops, g_cap_ops;
static bool g_oom;

/* Append one operator's count (a failed allocation marks the line). */
static void push_op(uint64_t n)
{
    if (g_n_ops == g_cap_ops) {
        size_t cap = g_cap_ops ? 2 * g_cap_ops : 64;
        uint64_t *p = realloc(g_ops, cap * sizeof *p);
        if (p == NULL) {
            g_oom = true;
            return;
        }
        g_ops = p;
        g_cap_ops = cap;
    }
    g_ops[g_n_ops++] = n;
}

/* A marker's first instruction is executing.  udata: the marker kind in
** bits 0-1, and above them how many instructions of its block (from this
** one on) the counter already includes. */
static void on_marker(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    const uintptr_t u = (uintptr_t)udata;
    const enum marker kind = (enum marker)(u & 3u);
    const uint64_t now = g_insns - (uint64_t)(u >> 2);
    switch (kind) {
    case M_BEGIN:
        g_open = true;
        g_begin = now;
        g_op_open = false;
        g_n_ops = 0;
        g_oom = false;
        break;
    case M_OP:
        if (!g_open)
            break;
        if (g_op_open)
            push_op(now - g_op_start);
        g_op_open = true;
        g_op_start = now;
        break;
    case M_END:
        if (!g_open)
            break;
        if (g_op_open)
            push_op(now - g_op_start);
        fprintf(g_out, "icount total=%" PRIu64 " ops=", now - g_begin);
        for (size_t i = 0; i < g_n_ops; i++)
            fprintf(g_out, "%s%" PRIu64, i ? "," : "", g_ops[i]);
        fprintf(g_out, "%s\n", g_oom ? ",oom" : "");
        fflush(g_out);
        g_open = false;
        g_op_open = false;
        break;
    default:
        break;
    }
}

/* Every new block: count its instructions when it runs, and watch the
** marker instructions it holds. */
static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    const size_t n = qemu_plugin_tb_n_insns(tb);
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &g_insns, n);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        const uint64_t va = qemu_plugin_insn_vaddr(insn);
        for (int k = 0; k < M_COUNT; k++) {
            if (g_has[k] && va == g_addr[k]) {
                const uintptr_t u = (uintptr_t)k | ((uintptr_t)(n - i) << 2);
                qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker, QEMU_PLUGIN_CB_NO_REGS, (void *)u);
            }
        }
    }
}

static void at_exit_cb(qemu_plugin_id_t id, void *udata)
{
    (void)id;
    (void)udata;
    if (g_open)
        fprintf(g_out, "icount unfinished: rk_mark_end never ran\n");
    if (g_out != stderr)
        fclose(g_out);
    free(g_ops);
}

/* Arguments begin=, end= (required), op=, out= (optional); a bad one is
** reported on stderr and refuses the plugin (QEMU then stops). */
EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    (void)info;
    const char *out = NULL;
    for (int i = 0; i < argc; i++) {
        static const char *const keys[M_COUNT] = {"begin=", "end=", "op="};
        const char *a = argv[i];
        if (strncmp(a, "arg=", 4) == 0) /* the older -plugin file=...,arg=K=V form */
            a += 4;
        bool known = false;
        for (int k = 0; k < M_COUNT; k++) {
            const size_t len = strlen(keys[k]);
            if (strncmp(a, keys[k], len) == 0) {
                char *end = NULL;
                const unsigned long long v = strtoull(a + len, &end, 0);
                if (end == a + len || *end != '\0') {
                    fprintf(stderr, "icount: %s: not an address\n", a);
                    return -1;
                }
                g_addr[k] = (uint64_t)v & ~(uint64_t)1;
                g_has[k] = v != 0;
                known = true;
            }
        }
        if (strncmp(a, "out=", 4) == 0) {
            out = a + 4;
            known = true;
        }
        if (!known) {
            fprintf(stderr, "icount: unknown argument %s (begin=, end=, op=, out=)\n", a);
            return -1;
        }
    }
    if (!g_has[M_BEGIN] || !g_has[M_END]) {
        fprintf(stderr, "icount: begin= and end= addresses are required\n");
        return -1;
    }
    g_out = stderr;
    if (out != NULL && (g_out = fopen(out, "a")) == NULL) {
        fprintf(stderr, "icount: %s: cannot open\n", out);
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit_cb, NULL);
    return 0;
}
