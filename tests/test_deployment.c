/*
** test_deployment.c — results/deployment.json: `ripsim tables deployment`
** turns the firmware tools' JSON lines into the canonical file (expected
** text written by hand), refuses malformed input with FILE:LINE: KEY, and
** the committed results keep every model's checksum equal base vs RiP on
** every core that ran it.  The real models (results/real-models.json,
** `ripsim tables real-models`): every image that ran computed TFLM's
** output (results/tflm-peer.tsv), person_detect's scores as TFLM's test
** asserts them, the table regenerates, bad inputs are refused.
*/
#include <criterion/criterion.h>

#include "deployment.h"
#include "rk_crc32.h"
#include "run_cmd.h"
#include "skip.h"
#include "tmpdir.h"

TEST_SUITE_WITH_TMPDIR(deployment, 60);

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}

static char *slurp(const char *path)
{
    static char buf[1 << 16];
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* Tools (one repeated, as both QEMU builds print theirs), a QEMU line
** (spaces, a timing key to drop), a Pico line, two model.json. */
static const char lines[] =
    "{\"tool\": \"qemu-system-arm\", \"version\": \"QEMU emulator version 7.2.22\"}\n"
    "{\"tool\":\"pico-sdk\",\"version\":\"2.2.0\"}\n"
    "{\"tool\": \"qemu-system-arm\", \"version\": \"QEMU emulator version 7.2.22\"}\n"
    "{\"model\": \"M-a\", \"plan\": \"rip\", \"target\": \"qemu-m0\", \"arena_bytes\": 768, \"ram_bytes\": 9000, "
    "\"fits\": true, \"ran\": true, \"checksum\": \"0badcafe\", \"instructions\": 1234, \"op_instructions\": [1000, 234], "
    "\"seconds\": 0.123}\n"
    "{\"model\":\"M-a\",\"plan\":\"base\",\"target\":\"pico\",\"arena_bytes\":768,\"ram_bytes\":null,\"fits\":null,"
    "\"ran\":null,\"checksum\":null,\"instructions\":null,\"op_instructions\":null}\n"
    "{\"model\": \"M-a\", \"plan\": \"base\", \"arena_bytes\": 768, \"scratch_bytes\": 64, \"n_ops\": 2,\n"
    " \"n_logits\": 256, \"graph\": \"g.csv\"}\n"
    "{\"model\": \"M-a\", \"plan\": \"rip\", \"arena_bytes\": 768, \"scratch_bytes\": 64, \"n_ops\": 2, "
    "\"n_logits\": 256, \"graph\": \"g.csv\"}\n";

static const char canonical[] =
    "[\n"
    "{\"tool\": \"pico-sdk\", \"version\": \"2.2.0\"},\n"
    "{\"tool\": \"qemu-system-arm\", \"version\": \"QEMU emulator version 7.2.22\"},\n"
    "{\"model\": \"M-a\", \"plan\": \"base\", \"target\": \"pico\", \"arena_bytes\": 768, \"scratch_bytes\": 64, "
    "\"ram_bytes\": null, \"fits\": null, \"ran\": null, \"checksum\": null, \"instructions\": null, "
    "\"op_instructions\": null},\n"
    "{\"model\": \"M-a\", \"plan\": \"rip\", \"target\": \"qemu-m0\", \"arena_bytes\": 768, \"scratch_bytes\": 64, "
    "\"ram_bytes\": 9000, \"fits\": true, \"ran\": true, \"checksum\": \"0badcafe\", \"instructions\": 1234, "
    "\"op_instructions\": [1000, 234]}\n"
    "]\n";

Test(deployment, lines_become_the_canonical_sorted_file)
{
    char in[300], out[300];
    snprintf(in, sizeof in, "%s", tmp("lines.txt"));
    snprintf(out, sizeof out, "%s", tmp("deployment.json"));
    put(in, lines);
    run_result *r = RUN("tables", "deployment", "--lines", in, "--out", out);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_str_eq(slurp(out), canonical);
    /* the canonical file reads back strictly and writes the same bytes */
    rip_deployment d;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_deploy_read(out, false, &d, err), RIP_OK, "%s", err);
    cr_expect_eq(d.n, 2);
    cr_expect_eq(d.n_tools, 2);
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    rip_deploy_write(m, &d);
    fclose(m);
    cr_expect_str_eq(text, canonical);
    free(text);
    rip_deploy_free(&d);
}

/*
** Case i: text as the tools' lines (tables deployment) or as deployment.json
** (tables table3) is refused with exit 65 and one line naming the file and
** holding want (and also, when not NULL); nothing is written.
*/
static void expect_refused(size_t i, const char *text, bool lines, const char *want, const char *also)
{
    char in[300];
    snprintf(in, sizeof in, "%s", tmp("bad.txt"));
    put(in, text);
    run_result *r = lines ? RUN("tables", "deployment", "--lines", in, "--out", tmp("x.json"))
                          : RUN("tables", "table3", "--deployment", in, "--out", tmp("t3.md"));
    cr_expect_eq(r->status, 65, "case %zu: status %d (%s)", i, r->status, r->err);
    cr_expect(strstr(r->err, want) && strstr(r->err, in) && (!also || strstr(r->err, also)),
              "case %zu: wanted '%s'%s%s and the file name in: %s", i, want, also ? ", " : "", also ? also : "",
              r->err);
    cr_expect_eq(count_lines(r->err), 1, "case %zu: one line: %s", i, r->err);
    cr_expect(!exists(tmp(lines ? "x.json" : "t3.md")), "case %zu: written", i);
}

/* Each hostile input: exit 65 and one line naming the file, line and key. */
Test(deployment, malformed_input_is_refused_with_file_line_key)
{
    static const struct { const char *text, *want; bool lines; } cases[] = {
        {"{\"model\":\"A\",\"plan\":\"base\",\"scratch_bytes\":1}\n"
         "{\"model\":\"A\",\"plan\":\"base\",\"target\":\"pico\",\"arena_bytes\":1,\"ram_bytes\":null,\"fits\":null,"
         "\"ran\":null,\"checksum\":null,\"instructions\":null}\n"
         "{\"model\":\"A\",\"plan\":\"base\",\"target\":\"pico\",\"arena_bytes\":1,\"ram_bytes\":null,\"fits\":null,"
         "\"ran\":null,\"checksum\":null,\"instructions\":null}\n", "given twice", true},
        {"{\"model\":\"A\",\"plan\":\"base\",\"target\":\"pico\",\"arena_bytes\":1,\"ram_bytes\":null,\"fits\":null,"
         "\"ran\":true,\"checksum\":\"XYZ\",\"instructions\":null}\n", ":1: checksum: expected 8 lowercase hex", true},
        {"{\"model\":\"A\",\"plan\":\"mid\"}\n", ":1: plan: expected \"base\" or \"rip\"", true},
        {"\n\n{\"model\":\"A\",\"plan\":\"base\",\"target\":\"pico\"}", ":3: arena_bytes: missing", true},
        {"{\"model\":\"A\",\"plan\":\"base\",\"target\":\"pico\",\"arena_bytes\":-5}", "arena_bytes: expected an integer >= 0", true},
        {"{\"model\":\"A\",\"plan\":\"base\",\"target\":\"pico\",\"arena_bytes\":99999999999999999999}", "out of range", true},
        {"{\"model\":\"A\\u0041\"}", "escape", true},
        {"{\"model\":\"A\",\"plan\":\"base\",\"target\":\"pico\",\"arena_bytes\":1,\"ram_bytes\":null,\"fits\":null,"
         "\"ran\":null,\"checksum\":null,\"instructions\":null}", "scratch_bytes: no model.json object", true},
        {"[{\"model\":\"A\",\"plan\":\"base\",\"target\":\"pico\",\"arena_bytes\":1,\"scratch_bytes\":1,"
         "\"ram_bytes\":null,\"fits\":null,\"ran\":null,\"checksum\":null,\"instructions\":null,\"seconds\":1}]",
         ":1: seconds: unknown key", false},
        {"[\n{\"model\":\"A\"}\n", ":2: plan: missing", false},
        {"{}", "expected '['", false},
        {"{\"tool\":\"gcc\",\"version\":\"12\"}\n{\"tool\":\"gcc\",\"version\":\"13\"}\n",
         ":2: tool: given again with another version", true},
        {"{\"tool\":\"gcc\"}\n", ":1: tool: a tool object has exactly the keys tool and version", true},
        {"{\"tool\":\"gcc\",\"version\":\"12\",\"model\":\"A\"}\n", "exactly the keys tool and version", true},
        {"{\"tool\":\"\",\"version\":\"12\"}\n", ":1: tool: expected a non-empty string", true},
        {"[{\"tool\":\"gcc\",\"version\":\"12\"},\n{\"tool\":\"gcc\",\"version\":\"12\"}]",
         ":2: tool: given twice", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_refused(i, cases[i].text, cases[i].lines, cases[i].want, NULL);
}

/*
** Records that contradict themselves or their model (issue 19, item 8):
** exit 65, one line naming the record (model, plan, target).  A run that
** did not fit, a run without a checksum or a checksum without a run, an
** arena other than the one the generator's model.json planned, a run whose
** checksum is not the generator's reference (model.json "checksum").
*/
Test(deployment, contradictory_records_are_refused_naming_the_record)
{
#define REC(fits, ran, sum, arena)                                                                       \
    "{\"model\":\"M-a\",\"plan\":\"rip\",\"target\":\"qemu-m0\",\"arena_bytes\":" arena ",\"ram_bytes\":9000," \
    "\"fits\":" fits ",\"ran\":" ran ",\"checksum\":" sum ",\"instructions\":null,\"op_instructions\":null}\n"
#define MODEL(sum) "{\"model\":\"M-a\",\"plan\":\"rip\",\"arena_bytes\":768,\"scratch_bytes\":64" sum "}\n"
    static const struct { const char *text, *want; bool lines; } cases[] = {
        {REC("false", "true", "\"0badcafe\"", "768") MODEL(""), "ran true but fits false", true},
        {REC("true", "true", "null", "768") MODEL(""), "ran true but no checksum", true},
        {REC("true", "false", "\"0badcafe\"", "768") MODEL(""), "a checksum but ran false", true},
        {REC("true", "true", "\"0badcafe\"", "1024") MODEL(""), "arena_bytes 1024, its model.json 768", true},
        {REC("true", "true", "\"0badcafe\"", "768") MODEL(",\"checksum\":\"12345678\""),
         "checksum 0badcafe, the reference of its model.json 12345678", true},
        {"[{\"model\":\"M-a\",\"plan\":\"rip\",\"target\":\"qemu-m0\",\"arena_bytes\":768,\"scratch_bytes\":64,"
         "\"ram_bytes\":9000,\"fits\":false,\"ran\":true,\"checksum\":\"0badcafe\",\"instructions\":null,"
         "\"op_instructions\":null}]", "ran true but fits false", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_refused(i, cases[i].text, cases[i].lines, cases[i].want, "M-a rip qemu-m0");
    /* the same record with the reference it ran to, and the arena planned, is taken */
    char in[300];
    snprintf(in, sizeof in, "%s", tmp("good.txt"));
    put(in, REC("true", "true", "\"0badcafe\"", "768") MODEL(",\"checksum\":\"0badcafe\""));
    run_result *r = RUN("tables", "deployment", "--lines", in, "--out", tmp("x.json"));
    cr_expect_eq(r->status, 0, "%s", r->err);
#undef REC
#undef MODEL
}

Test(deployment, command_line_mistakes_exit_64)
{
    cr_expect_eq(RUN("tables", "deployment")->status, 64);
    cr_expect_eq(RUN("tables", "table6", "--lines", "x")->status, 64);
    cr_expect_eq(RUN("tables", "table3", "--deployment", tmp("absent.json"), "--out", tmp("t.md"))->status, 66);
}

/* The committed results: every model that ran on a core under both plans
** gives the same CRC-32 of its logits (RiP only moves tensors). */
Test(deployment, committed_checksums_equal_between_plans)
{
    char path[600];
    const char *res = getenv("RIPSIM_RESULTS_DIR");
    cr_assert_not_null(res);
    snprintf(path, sizeof path, "%s/deployment.json", res);
    if (access(path, F_OK) != 0)
        rip_skip("no %s yet (./build.sh firmware writes it)", path);
    rip_deployment d;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_deploy_read(path, false, &d, err), RIP_OK, "%s", err);
    int compared = 0;
    for (size_t j = 0; j < d.n; j++) {
        const rip_deploy_rec *a = &d.rec[j];
        if (strcmp(a->plan, "base") != 0 || a->ran != 1)
            continue;
        const rip_deploy_rec *b = rip_deploy_find(&d, a->model, "rip", a->target);
        cr_assert_not_null(b, "%s %s: no rip record", a->model, a->target);
        cr_expect_eq(b->ran, 1, "%s %s: base ran, rip did not", a->model, a->target);
        cr_expect_eq(a->checksum, b->checksum, "%s on %s: checksum base %08llx, rip %08llx", a->model, a->target,
                     (unsigned long long)a->checksum, (unsigned long long)b->checksum);
        compared++;
    }
    rip_deploy_free(&d);
    cr_log_info("%d (model, core) pairs compared", compared);
}

/* The committed deployments say what built and ran them (issue 22 item 2):
** the compiler, the C library, QEMU, the pico-sdk the boards were linked
** with (2.2.0, the version the project deploys with) and its newlib. */
Test(deployment, committed_files_name_their_tool_versions)
{
    static const char *const files[] = {"deployment.json", "real-models.json"};
    static const char *const tools[] = {"arm-none-eabi-gcc", "newlib", "pico-sdk", "picolibc", "qemu-system-arm"};
    const char *res = getenv("RIPSIM_RESULTS_DIR");
    cr_assert_not_null(res);
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", res, files[f]);
        rip_deployment d;
        char err[RIP_ERR_LEN];
        cr_assert_eq(rip_deploy_read(path, false, &d, err), RIP_OK, "%s", err);
        cr_expect_eq(d.n_tools, sizeof tools / sizeof tools[0], "%s: %zu tools", files[f], d.n_tools);
        for (size_t t = 0; t < d.n_tools && t < sizeof tools / sizeof tools[0]; t++) {
            cr_expect_str_eq(d.tools[t].name, tools[t], "%s: tool %zu", files[f], t);
            cr_expect(strcmp(d.tools[t].version, "not installed") != 0, "%s: %s not installed", files[f],
                      d.tools[t].name);
        }
        if (d.n_tools == sizeof tools / sizeof tools[0])
            cr_expect_str_eq(d.tools[2].version, "2.2.0", "%s: the boards were linked with pico-sdk 2.2.0", files[f]);
        rip_deploy_free(&d);
    }
}

/* ---- the real models (results/real-models.json, results/tflm-peer.tsv) ---- */

static const char *result_path(const char *name)
{
    static char path[4][600];
    static int k;
    k = (k + 1) % 4;
    const char *res = getenv("RIPSIM_RESULTS_DIR");
    cr_assert_not_null(res);
    snprintf(path[k], sizeof path[k], "%s/%s", res, name);
    return path[k];
}

/* One case of results/tflm-peer.tsv, read here (tab-separated, '#' comments, a header). */
typedef struct tflm_row {
    char name[64], values[256];
    long long arena;
    unsigned long crc;
} tflm_row;

static int read_tflm_rows(const char *path, tflm_row *rows, int cap)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    char line[4096];
    int n = 0, header = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || !header++)
            continue;
        cr_assert_lt(n, cap);
        char crc[16];
        cr_assert_eq(sscanf(line, "%63[^\t]\t%*[^\t]\t%lld\t%*[^\t]\t%15[^\t]\t%255[^\t]", rows[n].name, &rows[n].arena,
                            crc, rows[n].values),
                     4, "%s: %s", path, line);
        rows[n].crc = strtoul(crc, NULL, 16);
        n++;
    }
    fclose(f);
    return n;
}

/*
** The committed real-model records against TFLM's committed figures:
** every case has its base and rip records on the four targets; every
** QEMU image that ran printed TFLM's output CRC (both plans, both cores),
** and every image fitting the M33 ran; the M0 image fits exactly when the
** Pico 1 link does.  TFLM's figures themselves: the arenas the tflm_peer
** suite measures, and person_detect's scores as TFLM's own test asserts
** them (person.bmp: no person -113, person 113; no_person.bmp: 57, -57),
** their CRC computed here.
*/
Test(deployment, committed_real_models_compute_tflms_output)
{
    if (access(result_path("real-models.json"), F_OK) != 0)
        rip_skip("no results/real-models.json (./build.sh firmware writes it with the vendor tree)");
    tflm_row rows[64];
    int n = read_tflm_rows(result_path("tflm-peer.tsv"), rows, 64);
    cr_expect_eq(n, 10, "the ten cases of tests/tflm/cases.tsv");
    static const struct { const char *name; long long arena; } arenas[] = {
        {"person", 85024}, {"no_person", 85024}, {"vww_96_int8", 103392}, {"pretrainedResnet_quant", 55712},
        {"kws_ref_model", 24000}, {"ad01_int8", 3424}, {"tinyengine_vww", 224704}, {"tinyengine_detection", 386032},
        {"micro_speech", 7312}, {"hello_world", 1184}};
    for (size_t a = 0; a < sizeof arenas / sizeof arenas[0]; a++) {
        int i = 0;
        while (i < n && strcmp(rows[i].name, arenas[a].name))
            i++;
        cr_assert_lt(i, n, "no %s in results/tflm-peer.tsv", arenas[a].name);
        cr_expect_eq(rows[i].arena, arenas[a].arena, "%s: TFLM arena %lld", arenas[a].name, rows[i].arena);
    }
    rip_deployment d;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_deploy_read(result_path("real-models.json"), false, &d, err), RIP_OK, "%s", err);
    static const char *const plans[] = {"base", "rip"}, *const targets[] = {"qemu-m0", "qemu-m33", "pico", "pico2"};
    for (int i = 0; i < n; i++) {
        int ran = 0;
        for (int p = 0; p < 2; p++) {
            const rip_deploy_rec *r[4];
            for (int t = 0; t < 4; t++) {
                r[t] = rip_deploy_find(&d, rows[i].name, plans[p], targets[t]);
                cr_assert_not_null(r[t], "%s %s %s: no record", rows[i].name, plans[p], targets[t]);
                if (t < 2 && r[t]->ran == 1) {
                    ran++;
                    cr_expect_eq(r[t]->checksum, (int64_t)rows[i].crc, "%s %s %s: checksum %08llx, TFLM's %08lx",
                                 rows[i].name, plans[p], targets[t], (unsigned long long)r[t]->checksum, rows[i].crc);
                }
            }
            cr_expect_eq(r[1]->ran, r[1]->fits == 1 ? 1 : 0, "%s %s: an M33 image that fits runs", rows[i].name,
                         plans[p]);
            cr_expect_eq(r[1]->fits, 1, "%s %s: every real model fits the M33", rows[i].name, plans[p]);
            if (r[2]->fits >= 0)
                cr_expect_eq(r[0]->fits, r[2]->fits, "%s %s: the M0 image fits as the Pico 1 link", rows[i].name,
                             plans[p]);
        }
        cr_expect_geq(ran, 3, "%s: at least both M33 images and one M0 image ran", rows[i].name);
    }
    static const struct { const char *name, *values; uint8_t bytes[2]; } scores[] = {
        {"person", "-113 113", {0x8f, 0x71}}, {"no_person", "57 -57", {0x39, 0xc7}}};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < n; i++)
            if (!strcmp(rows[i].name, scores[k].name)) {
                cr_expect_str_eq(rows[i].values, scores[k].values);
                cr_expect_eq(rows[i].crc, (unsigned long)rk_crc32(scores[k].bytes, 2), "%s", scores[k].name);
                for (int p = 0; p < 2; p++)
                    for (int t = 0; t < 2; t++)
                        cr_expect_eq(rip_deploy_find(&d, scores[k].name, plans[p], targets[t])->ran, 1,
                                     "%s %s %s ran", scores[k].name, plans[p], targets[t]);
            }
    rip_deploy_free(&d);
}

/* results/real-models.md is what `ripsim tables real-models` makes of the committed files. */
Test(deployment, real_models_table_regenerates_the_committed_file)
{
    if (access(result_path("real-models.json"), F_OK) != 0)
        rip_skip("no results/real-models.json (./build.sh firmware writes it with the vendor tree)");
    char out[300];
    snprintf(out, sizeof out, "%s", tmp("real-models.md"));
    run_result *r = RUN("tables", "real-models", "--out", out);
    cr_assert_eq(r->status, 0, "%s", r->err);
    char *made = strdup(slurp(out));
    cr_expect_str_eq(made, slurp(result_path("real-models.md")),
                     "results/real-models.md is stale (ripsim tables real-models rewrites it)");
    free(made);
}

/* A TFLM file that is missing (66), malformed or without the records of a case (65): one line, nothing written. */
Test(deployment, real_models_table_refuses_bad_inputs)
{
    char dep[300], tflm[300], out[300];
    snprintf(dep, sizeof dep, "%s", tmp("dep.json"));
    snprintf(tflm, sizeof tflm, "%s", tmp("tflm.tsv"));
    snprintf(out, sizeof out, "%s", tmp("rm.md"));
    put(dep, canonical);
    static const char head[] = "# tflm_commit abc, kernels reference\n"
                               "case\tmodel\tarena_used_bytes\toutput_bytes\toutput_crc32\toutput_values\toperators\n";
    static const struct { int status; const char *text, *want; } cases[] = {
        {65, "case\tmodel\n", ":1: expected the header line"},
        {65, "# tflm_commit abc\ncase\tmodel\tarena_used_bytes\toutput_bytes\toutput_crc32\toutput_values\toperators\n"
             "M-a\tm.tflite\t12\t2\tXYZ\t-\tADD:1\n", ":3: output_crc32 must be 8 lowercase hex digits"},
        {65, "case\tmodel\tarena_used_bytes\toutput_bytes\toutput_crc32\toutput_values\toperators\n",
         "no '# tflm_commit ...' provenance line"},
        {65, "", "M-b has no firmware record of each plan"},
        {66, NULL, "cannot open"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[1024];
        if (cases[i].text) {
            snprintf(text, sizeof text, "%s%s", i == 3 ? head : "", i == 3 ? "M-b\tm.tflite\t12\t2\t0badcafe\t-\tADD:1\n"
                                                                           : cases[i].text);
            put(tflm, text);
        } else
            unlink(tflm);
        run_result *r = RUN("tables", "real-models", "--deployment", dep, "--tflm", tflm, "--out", out);
        cr_expect_eq(r->status, cases[i].status, "case %zu: status %d: %s", i, r->status, r->err);
        cr_expect(strstr(r->err, cases[i].want) != NULL, "case %zu: %s", i, r->err);
        cr_expect_eq(count_lines(r->err), 1, "case %zu: %s", i, r->err);
        cr_expect(!exists(out), "case %zu: written", i);
    }
    /* a good file: the case's records are found */
    snprintf(dep, sizeof dep, "%s", tmp("dep.json"));
    char text[1024];
    snprintf(text, sizeof text, "%sM-a\tm.tflite\t1000\t2\t0badcafe\t1 2\tADD:1\n", head);
    put(tflm, text);
    run_result *r = RUN("tables", "real-models", "--deployment", dep, "--tflm", tflm, "--out", out);
    cr_expect_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(slurp(out), "| M-a | n/a | n/a | n/a | n/a | n/a | 1234 | n/a | n/a | 1 2 | yes (1 of 1 images) |") != NULL,
              "%s", slurp(out));
}
