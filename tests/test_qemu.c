/*
** test_qemu.c — the QEMU images end to end (firmware/meson.build,
** firmware/tools/): for each target (qemu-m0, qemu-m33) the self-test
** images are cross-built and run under QEMU with the instruction counter
** by firmware/tools/build-images.sh, twice.  Asserted:
**   - every image that fits ran, and the checksums equal those of the same
**     sources built for the host (selftest-host-* executables), so the
**     targets compute what the host computes, and base equals rip;
**   - the instruction counts of the second run equal the first's, and the
**     per-operator counts (one per operator) sum to at most the total;
**   - the edge images: an arena 64 bytes below the board's model budget
**     links and runs, one byte above it fails to link ("region `ram'
**     overflowed"), reported as fits false, not as a build error;
**   - one generated model (MCUNet-in0, `ripsim codegen`, both plans) on
**     qemu-m0: both run, print the generator's reference checksum (its
**     dual-buffer host run, model.json), and count one entry per operator;
**   - the same from a checkout whose path has a space (issue 19, item 13:
**     qemu-run.sh split the plugin argument, and every image "ran" false):
**     firmware/ copied under "with space/", its self-tests and one
**     generated model (generated there too) built into the default build
**     folder and run.
** Skipped (exit 77) when arm-none-eabi-gcc or qemu-system-arm is missing.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tmpdir.h"

/* Is PROG an executable file in one of $PATH's folders? */
static bool on_path(const char *prog)
{
    const char *path = getenv("PATH");
    char dir[4096], file[4352];
    while (path != NULL && *path != '\0') {
        const char *colon = strchr(path, ':');
        const size_t n = colon ? (size_t)(colon - path) : strlen(path);
        if (n > 0 && n < sizeof dir) {
            memcpy(dir, path, n);
            dir[n] = '\0';
            snprintf(file, sizeof file, "%s/%s", dir, prog);
            if (access(file, X_OK) == 0)
                return true;
        }
        path = colon ? colon + 1 : NULL;
    }
    return false;
}

/* Before Criterion starts: without the cross tools the suite is skipped. */
__attribute__((constructor)) static void skip_without_tools(void)
{
    static const char *const tools[] = {"arm-none-eabi-gcc", "qemu-system-arm"};
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
        if (!on_path(tools[i])) {
            printf("qemu: skipped: %s not found (apt-get install gcc-arm-none-eabi "
                   "picolibc-arm-none-eabi qemu-system-arm)\n",
                   tools[i]);
            fflush(stdout);
            _exit(77);
        }
    }
}

TEST_SUITE_WITH_TMPDIR(qemu, 300);

#define MAX_IMAGES 8
#define MAX_OPS 128

typedef struct image {
    char model[64], plan[16];
    bool fits, ran;
    char checksum[16];
    long long instructions;
    long long ops[MAX_OPS];
    int n_ops;
} image;

/* The value text after "KEY": in a JSON line, or NULL. */
static const char *field(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = strstr(line, pat);
    return p ? p + strlen(pat) : NULL;
}

/* Copy the string value of KEY ("" when null or absent). */
static void str_field(const char *line, const char *key, char *out, size_t size)
{
    const char *p = field(line, key);
    out[0] = '\0';
    if (p == NULL || *p != '"')
        return;
    p++;
    size_t n = strcspn(p, "\"");
    if (n >= size)
        n = size - 1;
    memcpy(out, p, n);
    out[n] = '\0';
}

static void parse_line(const char *line, image *im)
{
    memset(im, 0, sizeof *im);
    str_field(line, "model", im->model, sizeof im->model);
    str_field(line, "plan", im->plan, sizeof im->plan);
    str_field(line, "checksum", im->checksum, sizeof im->checksum);
    const char *f = field(line, "fits"), *r = field(line, "ran");
    im->fits = f != NULL && strncmp(f, "true", 4) == 0;
    im->ran = r != NULL && strncmp(r, "true", 4) == 0;
    const char *n = field(line, "instructions");
    im->instructions = n != NULL && *n != 'n' ? atoll(n) : -1;
    const char *o = field(line, "op_instructions");
    if (o != NULL && *o == '[') {
        o++;
        while (*o != ']' && *o != '\0' && im->n_ops < MAX_OPS) {
            char *end;
            im->ops[im->n_ops++] = strtoll(o, &end, 10);
            o = end + strspn(end, ", ");
        }
    }
}

/* Run build-images.sh for TARGET into BUILD (with GEN: its models, else
** the self-tests); fill ims, return how many. */
static int build_and_run_gen(const char *target, const char *build, const char *gen, image *ims)
{
    const char *fw = getenv("RIPSIM_FIRMWARE_DIR");
    cr_assert_not_null(fw, "RIPSIM_FIRMWARE_DIR must name firmware/");
    char cmd[1400], genarg[400] = "--suite selftest";
    if (gen != NULL)
        snprintf(genarg, sizeof genarg, "--gen-dir '%s' --suite models", gen);
    snprintf(cmd, sizeof cmd, "'%s/tools/build-images.sh' --target %s --build '%s' %s 2>%s.err", fw, target, build,
             genarg, build);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, p) != NULL) {
        if (line[0] != '{')
            continue;
        cr_assert_lt(n, MAX_IMAGES, "more images than expected");
        parse_line(line, &ims[n]);
        n++;
    }
    const int st = pclose(p);
    cr_assert_eq(st, 0, "build-images.sh --target %s failed (status %d): see %s.err", target, st, build);
    return n;
}

static int build_and_run(const char *target, const char *build, image *ims)
{
    return build_and_run_gen(target, build, NULL, ims);
}

static const image *find(const image *ims, int n, const char *model, const char *plan)
{
    for (int i = 0; i < n; i++)
        if (strcmp(ims[i].model, model) == 0 && strcmp(ims[i].plan, plan) == 0)
            return &ims[i];
    cr_assert_fail("no image %s/%s", model, plan);
    return NULL;
}

/* The checksum the host build of a self-test prints (env var ENV names it). */
static void host_checksum(const char *env, char *out, size_t size)
{
    const char *exe = getenv(env);
    cr_assert_not_null(exe, "%s must name the host self-test build", env);
    FILE *p = popen(exe, "r");
    cr_assert_not_null(p);
    char line[256] = "";
    cr_assert_not_null(fgets(line, sizeof line, p));
    cr_assert_eq(pclose(p), 0, "%s failed", exe);
    const char *c = strstr(line, "checksum=");
    cr_assert_not_null(c, "no checksum in: %s", line);
    snprintf(out, size, "%.8s", c + 9);
}

static void check_target(const char *target)
{
    image a[MAX_IMAGES], b[MAX_IMAGES];
    const char *build = tmp(target);
    char build_copy[320];
    snprintf(build_copy, sizeof build_copy, "%s", build);
    const int n = build_and_run(target, build_copy, a);
    cr_assert_eq(n, 5, "%s: 5 self-test images expected, got %d", target, n);
    const int m = build_and_run(target, build_copy, b);
    cr_assert_eq(m, n);

    static const struct { const char *model, *plan, *env; } runs[] = {
        {"selftest-tiny", "base", "RIPSIM_SELFTEST_HOST_TINY_BASE"},
        {"selftest-tiny", "rip", "RIPSIM_SELFTEST_HOST_TINY_RIP"},
        {"selftest-kcheck", "rip", "RIPSIM_SELFTEST_HOST_KCHECK_RIP"},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        const image *x = find(a, n, runs[i].model, runs[i].plan);
        const image *y = find(b, m, runs[i].model, runs[i].plan);
        char host[16];
        host_checksum(runs[i].env, host, sizeof host);
        cr_assert(x->fits && x->ran, "%s: %s/%s did not run", target, x->model, x->plan);
        cr_expect_str_eq(x->checksum, host, "%s: %s/%s checksum %s, host %s", target, x->model, x->plan,
                         x->checksum, host);
        cr_expect_gt(x->instructions, 0, "%s: %s/%s: no instruction count", target, x->model, x->plan);
        cr_expect_eq(x->instructions, y->instructions, "%s: %s/%s: %lld then %lld instructions", target,
                     x->model, x->plan, x->instructions, y->instructions);
        cr_expect_eq(x->n_ops, y->n_ops);
        long long sum = 0;
        for (int k = 0; k < x->n_ops; k++) {
            cr_expect_eq(x->ops[k], y->ops[k], "%s: %s/%s op %d: %lld then %lld", target, x->model, x->plan, k,
                         x->ops[k], y->ops[k]);
            cr_expect_gt(x->ops[k], 0);
            sum += x->ops[k];
        }
        cr_expect_leq(sum, x->instructions, "%s: %s/%s: ops sum %lld > total %lld", target, x->model, x->plan, sum,
                      x->instructions);
    }
    /* the operators of each self-test: 6 (tiny), 4 layers x 5 runs (kcheck) */
    cr_expect_eq(find(a, n, "selftest-tiny", "base")->n_ops, 6);
    cr_expect_eq(find(a, n, "selftest-kcheck", "rip")->n_ops, 20);
    cr_expect_str_eq(find(a, n, "selftest-tiny", "base")->checksum, find(a, n, "selftest-tiny", "rip")->checksum,
                     "%s: base and rip logits differ", target);

    const image *fit = find(a, n, "selftest-edge", "fit"), *over = find(a, n, "selftest-edge", "over");
    cr_expect(fit->fits && fit->ran, "%s: an arena 64 B below the budget must link and run", target);
    cr_expect(!over->fits && !over->ran && over->checksum[0] == '\0' && over->instructions == -1,
              "%s: an arena 1 B above the budget must fail to link", target);
    char link[400], text[4096] = "";
    snprintf(link, sizeof link, "%s/selftest-edge-over.link", build_copy);
    FILE *f = fopen(link, "r");
    cr_assert_not_null(f, "%s: no link verdict", link);
    const size_t got = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[got] = '\0';
    cr_expect(strncmp(text, "overflow\n", 9) == 0 && strstr(text, "region `ram' overflowed by") != NULL,
              "%s: the edge link did not overflow the ram region:\n%s", target, text);
}

Test(qemu, m0_selftest_images)
{
    check_target("qemu-m0");
}

Test(qemu, m33_selftest_images)
{
    check_target("qemu-m33");
}

/* The "checksum" of a model.json (the generator's reference); *n_ops its
** operator count. */
static void json_checksum(const char *path, char *out, size_t size, int *n_ops)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s: cannot open", path);
    char text[2048] = "";
    const size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    str_field(text, "checksum", out, size);
    cr_assert(strlen(out) == 8, "%s: no checksum", path);
    const char *k = field(text, "n_ops");
    cr_assert_not_null(k, "%s: no n_ops", path);
    *n_ops = atoi(k);
}

Test(qemu, m0_generated_mcunet_in0)
{
    const char *bin = getenv("RIPSIM_BIN"), *fw = getenv("RIPSIM_FIRMWARE_DIR");
    cr_assert_not_null(bin);
    cr_assert_not_null(fw);
    char gen[320], cmd[1400], ref[2][16];
    int n_ops[2];
    snprintf(gen, sizeof gen, "%s", tmp("gen"));
    static const char *const plans[2] = {"base", "rip"};
    for (int i = 0; i < 2; i++) {
        snprintf(cmd, sizeof cmd, "mkdir -p '%s/mcunet-in0' && '%s' codegen '%s/models/mcunet/mcunet-in0.csv' "
                 "--plan %s --out '%s/mcunet-in0/%s' >/dev/null", gen, bin, fw, plans[i], gen, plans[i]);
        cr_assert_eq(system(cmd), 0, "%s", cmd);
        char json[400];
        snprintf(json, sizeof json, "%s/mcunet-in0/%s/model.json", gen, plans[i]);
        json_checksum(json, ref[i], sizeof ref[i], &n_ops[i]);
    }
    cr_assert_str_eq(ref[0], ref[1], "the generator's base and rip references differ");
    char build[320];
    snprintf(build, sizeof build, "%s", tmp("gen-m0"));
    image ims[MAX_IMAGES];
    const int n = build_and_run_gen("qemu-m0", build, gen, ims);
    cr_assert_eq(n, 2);
    for (int i = 0; i < 2; i++) {
        const image *x = find(ims, n, "MCUNet-in0", plans[i]);
        cr_expect(x->fits && x->ran, "MCUNet-in0/%s must fit the Pico 1 budget and run", plans[i]);
        cr_expect_str_eq(x->checksum, ref[i], "MCUNet-in0/%s: checksum %s, reference %s", plans[i], x->checksum,
                         ref[i]);
        cr_expect_gt(x->instructions, 0);
        cr_expect_eq(x->n_ops, n_ops[i], "MCUNet-in0/%s: %d operator counts, %d operators", plans[i], x->n_ops,
                     n_ops[i]);
        long long sum = 0;
        for (int k = 0; k < x->n_ops; k++)
            sum += x->ops[k];
        cr_expect_leq(sum, x->instructions);
    }
}

/* Item 13: firmware/ copied to a path with a space (and the default build
** folder under it, and the generated model there too): the self-tests and
** MCUNet-in0 base build and run, the model with its reference checksum. */
Test(qemu, images_build_and_run_from_a_path_with_a_space, .timeout = 900)
{
    const char *bin = getenv("RIPSIM_BIN"), *fw = getenv("RIPSIM_FIRMWARE_DIR");
    cr_assert_not_null(bin);
    cr_assert_not_null(fw);
    char root[320], gen[400], model[480], cmd[2400];
    snprintf(root, sizeof root, "%s", tmp("with space"));
    snprintf(gen, sizeof gen, "%s/gen dir", root);
    snprintf(model, sizeof model, "%s/mcunet-in0/base", gen);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/mcunet-in0' && cp -r '%s' '%s/firmware' && '%s' codegen "
             "'%s/firmware/models/mcunet/mcunet-in0.csv' --plan base --out '%s' >/dev/null",
             gen, fw, root, bin, root, model);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char json[600], ref[16];
    int n_ops;
    snprintf(json, sizeof json, "%s/model.json", model);
    json_checksum(json, ref, sizeof ref, &n_ops);
    snprintf(cmd, sizeof cmd, "'%s/firmware/tools/build-images.sh' --target qemu-m0 --gen-dir '%s' --suite all "
             "2>'%s/build.err'", root, gen, root);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    image ims[MAX_IMAGES];
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, p) != NULL)
        if (line[0] == '{' && n < MAX_IMAGES)
            parse_line(line, &ims[n++]);
    cr_assert_eq(pclose(p), 0, "build-images.sh from '%s' failed: see %s/build.err", root, root);
    cr_assert_eq(n, 6, "5 self-test images and MCUNet-in0 base expected, got %d", n);
    int ran = 0;
    for (int i = 0; i < n; i++) {
        cr_expect(ims[i].ran || !ims[i].fits, "%s/%s fits and did not run", ims[i].model, ims[i].plan);
        ran += ims[i].ran;
    }
    cr_expect_eq(ran, 5, "every image but the overflowing edge runs");
    const image *x = find(ims, n, "MCUNet-in0", "base");
    cr_expect(x->ran, "MCUNet-in0 base did not run");
    cr_expect_str_eq(x->checksum, ref, "MCUNet-in0 base: checksum %s, reference %s", x->checksum, ref);
    cr_expect_eq(x->n_ops, n_ops, "one instruction count per operator (the plugin ran)");
    char build[400];
    snprintf(build, sizeof build, "%s/build/firmware/qemu-m0/build.ninja", root);
    cr_expect(access(build, F_OK) == 0, "the default build folder is under the copy: %s", build);
}
