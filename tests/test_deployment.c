/*
** test_deployment.c — results/deployment.json: `ripsim tables deployment`
** turns the firmware tools' JSON lines into the canonical file (expected
** text written by hand), refuses malformed input with FILE:LINE: KEY, and
** the committed results keep every model's checksum equal base vs RiP on
** every core that ran it.
*/
#include <criterion/criterion.h>

#include "deployment.h"
#include "run_cmd.h"
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

/* A QEMU line (spaces, a timing key to drop), a Pico line, two model.json. */
static const char lines[] =
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
        cr_skip_test("no %s yet (./build.sh firmware writes it)", path);
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
