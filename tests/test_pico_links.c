/*
** test_pico_links.c — the pico-sdk links (firmware/pico/link-boards.sh) on
** the hand-written stand-in models of tests/data/firmware/standin: a 768 B
** arena fits both boards, a 300,000 B arena overflows the Pico 1's 256 KB
** RAM region (a result, fits false, not an error) and fits the Pico 2's
** 512 KB; RAM is read from the link, also when it overflows; the SDK's
** version is the one its pico_sdk_version.cmake sets (read here with
** sscanf, not with the script's awk).  Skipped with
** a message when no pico-sdk or no arm toolchain is found.  Not built in
** sanitizer builds (nothing of ripsim's own C runs here).
*/
#include <criterion/criterion.h>

#include "deployment.h"
#include "skip.h"
#include "tmpdir.h"

#include <unistd.h>

/* MAJOR.MINOR.REVISION of the SDK at sdk, from its pico_sdk_version.cmake. */
static void sdk_version(const char *sdk, char *out, size_t cap)
{
    char path[800], line[256];
    snprintf(path, sizeof path, "%s/pico_sdk_version.cmake", sdk);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    int v[3] = {-1, -1, -1};
    static const char *const part[] = {"MAJOR", "MINOR", "REVISION"};
    while (fgets(line, sizeof line, f))
        for (int k = 0; k < 3; k++) {
            char want[64];
            snprintf(want, sizeof want, " set(PICO_SDK_VERSION_%s %%d)", part[k]);
            sscanf(line, want, &v[k]);
        }
    fclose(f);
    cr_assert(v[0] >= 0 && v[1] >= 0 && v[2] >= 0, "%s: no version", path);
    snprintf(out, cap, "%d.%d.%d", v[0], v[1], v[2]);
}

TEST_SUITE_WITH_TMPDIR(pico_links, 600);

Test(pico_links, standins_fit_by_arena_size)
{
    const char *res = getenv("RIPSIM_RESULTS_DIR");
    cr_assert_not_null(res);
    char root[600], sdk[700], cmd[3000];
    snprintf(root, sizeof root, "%s/..", res);
    const char *env = getenv("PICO_SDK_PATH");
    snprintf(sdk, sizeof sdk, "%s/../../shared/vendor/pico-sdk", res);
    if (env && *env)
        snprintf(sdk, sizeof sdk, "%s", env);
    char probe[800];
    snprintf(probe, sizeof probe, "%s/external/pico_sdk_import.cmake", sdk);
    if (access(probe, F_OK) != 0 || (env && !*env))
        rip_skip("no pico-sdk (set PICO_SDK_PATH): board links not tested");
    if (system("command -v arm-none-eabi-gcc >/dev/null && command -v cmake >/dev/null && "
               "command -v ninja >/dev/null") != 0)
        rip_skip("no arm-none-eabi-gcc, cmake or ninja: board links not tested (./build.sh firmware installs them)");
    char lines[300];
    snprintf(lines, sizeof lines, "%s", tmp("lines.txt"));
    snprintf(cmd, sizeof cmd,
             "cd '%s' && PICO_SDK_PATH='%s' firmware/pico/link-boards.sh tests/data/firmware/standin '%s' "
             ">'%s' 2>'%s' && cat tests/data/firmware/standin/*/*/model.json >>'%s'",
             root, sdk, tmp("build"), lines, tmp("stderr.txt"), lines);
    int rc = system(cmd);
    cr_assert_eq(rc, 0, "link-boards.sh failed (stderr in %s)", tmp("stderr.txt"));
    rip_deployment d;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_deploy_read(lines, true, &d, err), RIP_OK, "%s", err);
    cr_expect_eq(d.n, 8, "2 models x 2 plans x 2 boards");
    char version[64];
    sdk_version(sdk, version, sizeof version);
    cr_assert_eq(d.n_tools, 2, "the links name the pico-sdk and newlib");
    cr_expect_str_eq(d.tools[0].name, "newlib");
    cr_expect_str_eq(d.tools[1].name, "pico-sdk");
    cr_expect_str_eq(d.tools[1].version, version, "the SDK's own version");
    static const struct { const char *model, *target; int fits; } want[] = {
        {"Standin-small", "pico", 1}, {"Standin-small", "pico2", 1},
        {"Standin-big", "pico", 0}, {"Standin-big", "pico2", 1},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        for (int p = 0; p < 2; p++) {
            const rip_deploy_rec *r = rip_deploy_find(&d, want[i].model, p ? "rip" : "base", want[i].target);
            cr_assert_not_null(r, "%s %s", want[i].model, want[i].target);
            cr_expect_eq(r->fits, want[i].fits, "%s %s %s fits", r->model, r->plan, r->target);
            /* arena + scratch + at least the 2 KB heap and 2 KB stack */
            cr_expect_geq(r->ram_bytes, r->arena_bytes + r->scratch_bytes + 4096, "%s %s ram", r->model, r->target);
            /* the Pico 1 overflow: above the 256 KB RAM region */
            if (!want[i].fits)
                cr_expect_gt(r->ram_bytes, 262144);
            cr_expect_eq(r->ran, -1);
            cr_expect_eq(r->checksum, -1);
        }
    rip_deploy_free(&d);
}
