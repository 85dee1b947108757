/*
** test_tflm_m33.c — TensorFlow Lite Micro with its CMSIS-NN kernels (DSP
** path) on a Cortex-M33 in QEMU's mps2-an505 (tests/tflm/README.md,
** "Cortex-M33"): the images tests/tflm/build-m33.sh makes, one per case of
** tests/tflm/cases.tsv, run with a timeout.
**
** What pins it to the outside:
**   - every case's outputs, and every operator's outputs (CRC-32), equal
**     the host reference peer's (build-tflm-peer/ref/tflm_peer: TFLM's
**     reference kernels, x86-64, another compiler) bit for bit;
**   - the M33's arena_used_bytes is below the host CMSIS-NN peer's by what
**     32-bit pointers save (within TFLM's per-tensor and per-node structs),
**     every operator output inside it; the tensor plan is the host's except
**     where CMSIS-NN's DSP path asks for another scratch buffer (person:
**     only AVERAGE_POOL_2D moves, by the 4 bytes per channel that
**     arm_avgpool_s8_get_buffer_size asks with ARM_MATH_DSP, 0 without);
**   - each case's model as `ripsim plan --for tflm-cmsis-nn --write` plans
**     it (image NAME_rip; TFLM unchanged, reading the plan's
**     OfflineMemoryAllocation): the same outputs and operator CRCs as the
**     host reference peer on the case's own model, and an arena below the
**     own-plan image's where the plan saves bytes on the host;
**   - TFLM's arena head on the M33 (the tensors and the DSP path's scratch
**     buffers) is the one `ripsim plan --for tflm-cmsis-nn --dsp`
**     predicts, on the own plan and on ripsim's;
**   - the CMSIS-NN code linked is the DSP one: the image holds SMLAD, which
**     only CMSIS-NN's ARM_MATH_DSP path emits here.
** The PRE_ALL hook of tflm_peer.h builds the host peer, then the images
** (both cached at the source root, flock'ed).
*/
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file_text.h"
#include "json_need.h"
#include "skip.h"
#include "tmpdir.h"

TEST_SUITE_WITH_TMPDIR(tflm_m33, 1800);

#include "tflm_peer.h"

/* build-m33.sh's folder; fails the test when that build failed. */
static const char *m33_dir(void)
{
    peer_dir();
    const char *err = getenv("TFLM_M33_SETUP_ERR");
    cr_assert_null(err, "%s", err);
    const char *d = getenv("TFLM_M33_DIR");
    cr_assert_not_null(d, "TFLM_M33_DIR must name build-m33.sh's output folder");
    return d;
}

/* Run the image of case name in QEMU (timeout TFLM_M33_TIMEOUT, 120 s). */
static run_out m33_run(const char *name)
{
    const char *t = getenv("TFLM_M33_TIMEOUT");
    char cmd[3000];
    snprintf(cmd, sizeof cmd,
             "timeout %s qemu-system-arm -M mps2-an505 -display none -monitor none -serial none "
             "-chardev stdio,id=sh0 -semihosting-config enable=on,target=native,chardev=sh0 "
             "-kernel '%s/%s.elf' < /dev/null",
             t && *t ? t : "120", m33_dir(), name);
    return run_sh(cmd);
}

/* operators[i].outputs[k][key] of a report. */
static const jm *op_output(const jm *doc, size_t i, size_t k)
{
    return jn_item(jn_get(jn_item(jn_get(doc, "operators"), i), "outputs"), k);
}

/* operators[i].outputs[k].arena_offset, -1 when null (outside the arena). */
static long long op_offset(const jm *doc, size_t i, size_t k)
{
    const jm *v = jn_get(op_output(doc, i, k), "arena_offset");
    return v->kind == JM_NULL ? -1 : jn_int(op_output(doc, i, k), "arena_offset");
}

/* The arenas of one image: the M33's and the host CMSIS-NN peer's on the
** same model. */
typedef struct arenas {
    long long m33, host;
    long long m33_head;      /* TFLM's head on the M33 (GetNonPersistentUsedBytes, tflm_m33.cc) */
} arenas;

/* The image `name` (case c's input, model `model`: c's own or the plan
** ripsim wrote of it) against the host peers: the reference peer on c's
** own model (outputs and operator CRCs), the CMSIS-NN peer on `model` (the
** plan's offsets and the arena). */
static arenas check_image(const char *name, const peer_case *c, const char *model)
{
    run_out m = m33_run(name);
    cr_assert_eq(m.status, 0, "%s: qemu status %d: %s%s", name, m.status, m.out, m.err);
    run_out r = peer_case_run("ref", c, NULL);
    cr_assert(have_cmsis(), "no host CMSIS-NN peer (the M33 build needs the CMSIS-NN tree too)");
    peer_case hc = *c;
    snprintf(hc.model, sizeof hc.model, "%s", model);
    run_out h = peer_case_run("cmsis", &hc, NULL);
    jm *md = report(&m), *rd = report(&r), *hd = report(&h);
    cr_assert_eq(jn_get(md, "operators")->n, jn_get(hd, "operators")->n);

    cr_expect_str_eq(jn_str(md, "kernels"), "cmsis-nn");
    const jm *mo = jn_get(md, "outputs"), *ro = jn_get(rd, "outputs");
    cr_assert_eq(mo->n, ro->n, "%s: %zu outputs, the reference peer %zu", name, mo->n, ro->n);
    for (size_t k = 0; k < mo->n; k++) {
        cr_expect_str_eq(jn_str(jn_item(mo, k), "hex"), jn_str(jn_item(ro, k), "hex"),
                         "%s: output %zu", name, k);
        cr_expect_str_eq(jn_str(jn_item(mo, k), "crc32"), jn_str(jn_item(ro, k), "crc32"));
    }
    const jm *mops = jn_get(md, "operators"), *rops = jn_get(rd, "operators");
    cr_assert_eq(mops->n, rops->n, "%s: %zu operators, the reference peer %zu", name, mops->n, rops->n);
    for (size_t i = 0; i < mops->n; i++) {
        cr_expect_str_eq(jn_str(jn_item(mops, i), "op"), jn_str(jn_item(rops, i), "op"));
        size_t n_out = jn_get(jn_item(mops, i), "outputs")->n;
        for (size_t k = 0; k < n_out; k++) {
            cr_expect_str_eq(jn_str(op_output(md, i, k), "crc32"), jn_str(op_output(rd, i, k), "crc32"),
                             "%s: operator %zu output %zu", name, i, k);
            long long off = op_offset(md, i, k), bytes = jn_int(op_output(md, i, k), "bytes");
            cr_expect(off >= 0 && off + bytes <= jn_int(md, "arena_used_bytes"),
                      "%s: operator %zu output %zu at %lld (%lld bytes), outside the used arena", name,
                      i, k, off, bytes);
        }
    }
    cr_expect(jn_bool(md, "repeats_identical"), "%s: the counted invoke gave other outputs", name);
    cr_expect(jn_bool(md, "min_arena_same_outputs"), "%s: the smallest arena gave other outputs", name);

    /* The arena: the host's less the pointers' halving: persistent data
    ** made of pointers and size_t (TfLiteEvalTensor, TfLiteNode, the
    ** allocation info) is smaller; at most 64 bytes per tensor and node
    ** here (the DSP path's extra scratch, below, is smaller still). */
    long long used = jn_int(md, "arena_used_bytes"), host = jn_int(hd, "arena_used_bytes");
    long long min = jn_int(md, "min_arena_bytes");
    size_t tensors_and_nodes = mops->n;
    for (size_t i = 0; i < mops->n; i++)
        tensors_and_nodes += jn_get(jn_item(mops, i), "outputs")->n;
    cr_expect(used > 0 && used < host, "%s: M33 arena_used_bytes %lld, host %lld", name, used, host);
    cr_expect_leq(host - used, 64 * (long long)tensors_and_nodes + 1024,
                  "%s: M33 arena_used_bytes %lld, host %lld", name, used, host);
    cr_expect(min > 0 && min <= jn_int(md, "arena_size"), "%s: min_arena_bytes %lld", name, min);
    cr_expect_lt(jn_int(md, "stack_peak_bytes"), jn_int(md, "stack_bytes"),
                 "%s: the stack reached its end (into the arena's top)", name);
    cr_expect_eq(jn_bool(md, "offline_memory_allocation"), jn_bool(hd, "offline_memory_allocation"),
                 "%s: the image and the host disagree on the model's offline plan", name);
    arenas a = {used, host, jn_int(md, "arena_head_bytes")};
    jm_free(md);
    jm_free(rd);
    jm_free(hd);
    run_free(&m);
    run_free(&r);
    run_free(&h);
    return a;
}

/* The value of "1,234,567" (digits and commas only). */
static long long grouped_value(const char *s)
{
    long long v = 0;
    for (; *s; s++)
        if (*s != ',')
            v = v * 10 + (*s - '0');
    return v;
}

/* ripsim's heads of model under CMSIS-NN's DSP path (`ripsim plan MODEL --for tflm-cmsis-nn --dsp`):
** *plan on its written plan, *own on TFLM's own. */
static void predicted_heads(const char *model, long long *plan, long long *own)
{
    const char *bin = getenv("RIPSIM_BIN");
    cr_assert(bin && *bin, "RIPSIM_BIN unset in the suite's environment");
    char cmd[2600], line[512], a[32], b[32];
    snprintf(cmd, sizeof cmd, "'%s' plan '%s' --for tflm-cmsis-nn --dsp", bin, model);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    bool found = false;
    while (fgets(line, sizeof line, p))
        if (sscanf(line, "arena head   %31[0-9,] B with this plan, %31[0-9,] B with TFLM's own", a, b) == 2)
            found = true;
    cr_assert_eq(pclose(p), 0, "%s failed", cmd);
    cr_assert(found, "%s: no exact arena head line", cmd);
    *plan = grouped_value(a);
    *own = grouped_value(b);
}

static void check_case(const char *name)
{
    const peer_case *c = find_case(name);
    check_image(name, c, c->model);
}

/* The image NAME_rip: case name's model as `ripsim plan --for tflm-cmsis-nn
** --write` plans it (tflm_peer.h's hook), its OfflineMemoryAllocation read
** by the unchanged TFLM on the M33: outputs and operator CRCs those of the
** host reference peer on the case's own model, and where the plan saves
** arena on the host (the CMSIS-NN peer: written plan below TFLM's own),
** the M33's arena below the own-plan image's too; never above it. */
static void check_rip_case(const char *name)
{
    const peer_case *c = find_case(name);
    char image[96], model[1200];
    snprintf(image, sizeof image, "%s_rip", name);
    snprintf(model, sizeof model, "%s/rip/%s.tflite", m33_dir(), name);
    cr_assert(exists(model), "%s: no plan written (RIPSIM_BIN unset in the suite's environment?)", model);
    arenas rip = check_image(image, c, model), own = check_image(name, c, c->model);
    if (rip.host < own.host)
        cr_expect_lt(rip.m33, own.m33, "%s: the plan saves %lld B on the host, the M33 arena %lld, its own %lld",
                     name, own.host - rip.host, rip.m33, own.m33);
    else
        cr_expect_leq(rip.m33, own.m33, "%s: M33 arena %lld, its own plan's %lld", name, rip.m33, own.m33);
    /* the heads ripsim predicts for CMSIS-NN's DSP path are TFLM's on the M33, on both plans */
    long long want_rip, want_own, head_rip = rip.m33_head, head_own = own.m33_head;
    predicted_heads(c->model, &want_rip, &want_own);
    cr_expect_eq(head_rip, want_rip, "%s: the M33's head on ripsim's plan %lld, ripsim predicts %lld", name, head_rip,
                 want_rip);
    cr_expect_eq(head_own, want_own, "%s: the M33's head on TFLM's own plan %lld, ripsim predicts %lld", name,
                 head_own, want_own);
    printf("tflm_m33: %s: M33 arena_used %lld (own plan %lld), host CMSIS-NN %lld (own plan %lld); M33 head %lld "
           "(own %lld), as ripsim predicts\n", name, rip.m33, own.m33, rip.host, own.host, head_rip, head_own);
}

#define M33_CASE(name)                                                          \
    Test(tflm_m33, name##_outputs_equal_the_host_reference_peer) { check_case(#name); } \
    Test(tflm_m33, name##_runs_ripsims_written_plan) { check_rip_case(#name); }

M33_CASE(person)
M33_CASE(no_person)
M33_CASE(vww_96_int8)
M33_CASE(pretrainedResnet_quant)
M33_CASE(kws_ref_model)
M33_CASE(ad01_int8)
M33_CASE(tinyengine_vww)
M33_CASE(tinyengine_detection)
M33_CASE(micro_speech)
M33_CASE(hello_world)

/* The one place person's plan differs from the host CMSIS-NN peer's:
** AVERAGE_POOL_2D (operator 27, 256 channels in) placed 1024 bytes higher,
** the scratch CMSIS-NN's DSP average pooling asks (ch_src * 4 bytes), which
** the host's pure-C path does not. */
Test(tflm_m33, person_plan_differs_from_the_host_only_by_the_dsp_pool_scratch)
{
    const peer_case *c = find_case("person");
    run_out m = m33_run("person");
    cr_assert_eq(m.status, 0, "qemu status %d: %s", m.status, m.err);
    cr_assert(have_cmsis(), "no host CMSIS-NN peer");
    run_out h = peer_case_run("cmsis", c, NULL);
    jm *md = report(&m), *hd = report(&h);
    size_t n = jn_get(md, "operators")->n;
    cr_assert_eq(n, 31u);
    for (size_t i = 0; i < n; i++) {
        const char *op = jn_str(jn_item(jn_get(md, "operators"), i), "op");
        long long want = op_offset(hd, i, 0) + (i == 27 ? 256 * 4 : 0);
        if (i == 27)
            cr_assert_str_eq(op, "AVERAGE_POOL_2D");
        cr_expect_eq(op_offset(md, i, 0), want, "operator %zu (%s): at %lld, the host's %lld", i, op,
                     op_offset(md, i, 0), op_offset(hd, i, 0));
    }
    jm_free(md);
    jm_free(hd);
    run_free(&m);
    run_free(&h);
}

/* Every case of cases.tsv has its test above. */
Test(tflm_m33, every_case_has_a_test)
{
    m33_dir();
    load_cases();
    cr_expect_eq(n_cases, 10, "cases.tsv lists %d cases: give each new one an M33_CASE", n_cases);
}

/* CMSIS-NN's DSP path is what is linked: SMLAD (dual 16-bit multiply-
** accumulate) appears only in CMSIS-NN's ARM_MATH_DSP code, and the
** person image's CONV_2D runs through it. */
Test(tflm_m33, cmsis_nn_dsp_path_is_linked)
{
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "arm-none-eabi-objdump -d '%s/person.elf' | grep -c -w smlad", m33_dir());
    run_out r = run_sh(cmd);
    cr_expect_gt(atoi(r.out), 0, "no SMLAD in the person image");
    run_free(&r);
}

/* A model with OfflineMemoryAllocation metadata: person_detect_vela, as
** Arm's Vela writes it, runs its whole network as one ethos-u custom
** operator (an Ethos-U NPU command stream), which no CPU build of TFLM has:
** the image must refuse it with one line naming it (exit 65), not crash. */
Test(tflm_m33, person_detect_vela_is_refused_naming_its_npu_operator)
{
    char elf[1200];
    snprintf(elf, sizeof elf, "%s/person_detect_vela.elf", m33_dir());
    if (access(elf, R_OK) != 0)
        rip_skip("no person_detect_vela.tflite in the models folder");
    run_out r = m33_run("person_detect_vela");
    cr_expect_eq(r.status, 65, "status %d: %s%s", r.status, r.out, r.err);
    cr_expect(strstr(r.out, "operator 0 is ethos-u") || strstr(r.err, "operator 0 is ethos-u"),
              "%s%s", r.out, r.err);
    run_free(&r);
}

/* results/tflm-link.tsv (the Pico 1 / Pico 2 fits of results/tflm.md) is what tests/tflm/link-pico.sh
** links now, byte for byte: the four cross builds (each board's core, CMSIS-NN and reference
** kernels; the M33 CMSIS-NN one is this suite's) and the 40 rows' links with their checks, in the
** folders the README's command names. */
Test(tflm_m33, pico_links_are_the_committed_ones, .timeout = 3600)
{
    const char *m33 = m33_dir(), *tree = getenv("RIPSIM_TFLM_PATH"), *cmsis = getenv("TFLM_PEER_CMSIS"),
               *root = getenv("RIPSIM_SOURCE_ROOT");
    cr_assert(tree && cmsis && *cmsis && root, "RIPSIM_TFLM_PATH, TFLM_PEER_CMSIS and RIPSIM_SOURCE_ROOT (meson test)");
    char cmd[7000], committed[1200];
    snprintf(cmd, sizeof cmd,
             "cd '%.900s' && bash tests/tflm/link-pico.sh --tflm '%.900s' --cmsis '%.900s' --src . "
             "--cases '%.900s/cases.tsv' --m33 '%.900s' --m0plus build-tflm-m0plus --m33-ref build-tflm-m33-ref "
             "--m0plus-ref build-tflm-m0plus-ref --out build-tflm-link",
             root, tree, cmsis, peer_dir(), m33);
    run_out r = run_sh(cmd);
    cr_assert_eq(r.status, 0, "link-pico.sh: status %d: %s", r.status, r.err);
    snprintf(committed, sizeof committed, "%.1000s/results/tflm-link.tsv", root);
    char *want = ft_slurp(committed, NULL);
    cr_expect_str_eq(r.out, want, "results/tflm-link.tsv is stale: rerun tests/tflm/link-pico.sh (tests/tflm/README.md), "
                                  "then ripsim tables tflm");
    free(want);
    run_free(&r);
}
