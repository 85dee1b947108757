/*
** reproduce_firmware.c — the deployment artefact of `ripsim reproduce`
** (results/deployment.json), made as `./build.sh firmware` makes it: every
** MCUNet graph of firmware/models/mcunet generated under the base and the
** rip plan (rip_codegen, in process), the QEMU images of both cores built,
** run and counted (firmware/tools/build-images.sh), the Pico links
** (firmware/pico/link-boards.sh) and the tools' versions
** (firmware/tools/versions.sh), then the tools' lines and the models'
** model.json read, checked and written canonically (deployment.h).  The
** tools are shell scripts driving the cross compilers, QEMU and the
** pico-sdk: they run as child processes, which is the command line's job.
** Everything is built in the run's temporary folder.
*/
#define _XOPEN_SOURCE 700 /* scandir, alphasort */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "codegen.h"
#include "deployment.h"
#include "progress_line.h"
#include "reproduce.h"

/* Is tool an executable file in a folder of $PATH? */
static bool on_path(const char *tool)
{
    const char *path = getenv("PATH");
    for (const char *p = path; p && *p;) {
        size_t len = strcspn(p, ":");
        char file[4096];
        if (snprintf(file, sizeof file, "%.*s/%s", (int)len, len ? p : ".", tool) < (int)sizeof file &&
            access(file, X_OK) == 0)
            return true;
        p += len + (p[len] == ':');
    }
    return false;
}

/* The graphs of Tab. 3's deployment: the .csv files of
** firmware/models/mcunet but the table3_ references, sorted.  The count, or -1 (err) when the folder
** cannot be read; *list is the caller's (free each, then it). */
static int graphs(const char *dir, struct dirent ***list, char err[RIP_ERR_LEN])
{
    struct dirent **all;
    int n = scandir(dir, &all, NULL, alphasort), kept = 0;
    if (n < 0) {
        snprintf(err, RIP_ERR_LEN, "cannot read %.400s: %s", dir, strerror(errno));
        return -1;
    }
    for (int k = 0; k < n; k++) {
        size_t len = strlen(all[k]->d_name);
        if (len > 4 && strcmp(all[k]->d_name + len - 4, ".csv") == 0 && strncmp(all[k]->d_name, "table3_", 7) != 0)
            all[kept++] = all[k];
        else
            free(all[k]);
    }
    *list = all;
    return kept;
}

/* The last line of the file log, into buf (n bytes; "" when none). */
static void last_line(const char *log, char *buf, size_t n)
{
    FILE *f = fopen(log, "r");
    char line[1024];
    buf[0] = '\0';
    while (f && fgets(line, sizeof line, f))
        if (line[0] != '\n')
            snprintf(buf, n, "%.*s", (int)strcspn(line, "\n"), line);
    if (f)
        fclose(f);
}

/*
** Run argv (argv[0] a path) with its standard output appended to out_fd and
** its standard error to the file log.  RIP_OK when it exits with a status
** of at most max_ok; else RIP_S_UNAVAILABLE (127: not runnable) or
** RIP_S_FAILED, err naming the tool, its status and its log's last line.
*/
static rip_status run_tool(char *const argv[], int out_fd, const char *log, int max_ok, char err[RIP_ERR_LEN])
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int e = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
        if (e < 0 || dup2(out_fd, STDOUT_FILENO) < 0 || dup2(e, STDERR_FILENO) < 0)
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0) {
        snprintf(err, RIP_ERR_LEN, "cannot run %.300s: %s", argv[0], strerror(errno));
        return RIP_S_IO;
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) <= max_ok)
        return RIP_OK;
    char tail[200];
    last_line(log, tail, sizeof tail);
    snprintf(err, RIP_ERR_LEN, "%.200s %s %d%s%.200s", argv[0], WIFEXITED(st) ? "exited" : "killed by signal",
             WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), tail[0] ? ": " : "", tail);
    return WIFEXITED(st) && WEXITSTATUS(st) == 127 ? RIP_S_UNAVAILABLE : RIP_S_FAILED;
}

/* mkdir path, which may exist.  RIP_OK, or RIP_S_CANTCREATE with err. */
static rip_status make_dir(const char *path, char err[RIP_ERR_LEN])
{
    if (mkdir(path, 0700) != 0 && errno != EEXIST) {
        snprintf(err, RIP_ERR_LEN, "cannot create %.400s: %s", path, strerror(errno));
        return RIP_S_CANTCREATE;
    }
    return RIP_OK;
}

/* The n graphs of mcunet under both plans into gen/STEM/PLAN (rip_codegen).  RIP_OK, or codegen's status with err. */
static rip_status generate(const char *mcunet, const char *gen, struct dirent **list, int n, rip_progress *pr,
                           char err[RIP_ERR_LEN])
{
    rip_status s = make_dir(gen, err);
    for (int k = 0; k < n && s == RIP_OK; k++)
        for (int plan = RIP_CG_BASE; plan <= RIP_CG_RIP && s == RIP_OK; plan++) {
            char csv[4096], dir[4096], what[160];
            int stem = (int)strlen(list[k]->d_name) - 4;
            snprintf(csv, sizeof csv, "%.3000s/%.200s", mcunet, list[k]->d_name);
            snprintf(dir, sizeof dir, "%.3000s/%.*s", gen, stem < 200 ? stem : 200, list[k]->d_name);
            snprintf(what, sizeof what, "codegen %.*s %s", stem, list[k]->d_name, rip_cg_plan_name(plan));
            rip_progress_update(pr, 2 * k + plan, 2 * n + 3, what);
            if ((s = make_dir(dir, err)) != RIP_OK)
                break;
            snprintf(dir + strlen(dir), sizeof dir - strlen(dir), "/%s", rip_cg_plan_name(plan));
            rip_cg_opts o = {.plan = (rip_cg_plan_kind)plan, .arena = 0, .seed = RIP_CG_SEED_DEFAULT};
            rip_cg_summary sum;
            if ((s = make_dir(dir, err)) == RIP_OK)
                s = rip_codegen(csv, &o, dir, &sum, err);
        }
    return s;
}

/* Append every gen/STEM/PLAN/model.json to lines (after the tools' lines,
** as build.sh does).  RIP_OK, or RIP_S_NOINPUT / RIP_S_IO with err. */
static rip_status append_model_json(const char *gen, struct dirent **list, int n, FILE *lines,
                                    char err[RIP_ERR_LEN])
{
    for (int k = 0; k < n; k++)
        for (int plan = RIP_CG_BASE; plan <= RIP_CG_RIP; plan++) {
            char path[4096], buf[8192];
            snprintf(path, sizeof path, "%.3000s/%.*s/%s/model.json", gen, (int)strlen(list[k]->d_name) - 4,
                     list[k]->d_name, rip_cg_plan_name(plan));
            FILE *f = fopen(path, "r");
            if (!f) {
                snprintf(err, RIP_ERR_LEN, "cannot read %.400s: %s", path, strerror(errno));
                return RIP_S_NOINPUT;
            }
            size_t got;
            while ((got = fread(buf, 1, sizeof buf, f)) > 0)
                fwrite(buf, 1, got, lines);
            fclose(f);
        }
    if (fflush(lines) != 0 || ferror(lines)) {
        snprintf(err, RIP_ERR_LEN, "cannot write the firmware tools' lines");
        return RIP_S_IO;
    }
    return RIP_OK;
}

/* The four tools of build.sh's images_and_links, their output to lines. */
static rip_status run_tools(const repro_ctx *c, const char *gen, FILE *lines, rip_progress *pr, int step,
                            char err[RIP_ERR_LEN])
{
    char versions[4096], images[4096], links[4096], log[4096], m0[4096], m33[4096], pico[4096];
    snprintf(versions, sizeof versions, "%s/tools/versions.sh", c->firmware);
    snprintf(images, sizeof images, "%s/tools/build-images.sh", c->firmware);
    snprintf(links, sizeof links, "%s/pico/link-boards.sh", c->firmware);
    snprintf(log, sizeof log, "%s/firmware.log", c->tmpdir);
    snprintf(m0, sizeof m0, "%s/fw-qemu-m0", c->tmpdir);
    snprintf(m33, sizeof m33, "%s/fw-qemu-m33", c->tmpdir);
    snprintf(pico, sizeof pico, "%s/fw-pico", c->tmpdir);
    char *const v_argv[] = {versions, NULL};
    char *const m0_argv[] = {images, "--target", "qemu-m0", "--gen-dir", (char *)gen, "--build", m0, NULL};
    char *const m33_argv[] = {images, "--target", "qemu-m33", "--gen-dir", (char *)gen, "--build", m33, NULL};
    char *const pico_argv[] = {links, (char *)gen, pico, NULL};
    int fd = fileno(lines);
    rip_status s;
    fflush(lines);
    rip_progress_update(pr, step, step + 3, "QEMU images, Cortex-M0");
    if ((s = run_tool(v_argv, fd, log, 0, err)) != RIP_OK || (s = run_tool(m0_argv, fd, log, 1, err)) != RIP_OK)
        return s;
    rip_progress_update(pr, step + 1, step + 3, "QEMU images, Cortex-M33");
    if ((s = run_tool(m33_argv, fd, log, 1, err)) != RIP_OK)
        return s;
    rip_progress_update(pr, step + 2, step + 3, "Pico links");
    return run_tool(pico_argv, fd, log, 0, err);
}

/* The whole pipeline into *d, in c->tmpdir. */
static rip_status build_records(repro_ctx *c, rip_deployment *d, char err[RIP_ERR_LEN])
{
    char mcunet[4096], gen[4096], lines_path[4096];
    snprintf(mcunet, sizeof mcunet, "%s/mcunet", c->models);
    snprintf(gen, sizeof gen, "%s/gen", c->tmpdir);
    snprintf(lines_path, sizeof lines_path, "%s/deployment.lines", c->tmpdir);
    struct dirent **list = NULL;
    int n = graphs(mcunet, &list, err);
    if (n < 0)
        return RIP_S_NOINPUT;
    FILE *lines = fopen(lines_path, "w");
    rip_status s = lines ? RIP_OK : RIP_S_CANTCREATE;
    if (!lines)
        snprintf(err, RIP_ERR_LEN, "cannot create %.400s: %s", lines_path, strerror(errno));
    rip_progress pr;
    rip_progress_init(&pr, c->label, "steps", true);
    rip_progress_tick(&pr);
    if (s == RIP_OK && (s = generate(mcunet, gen, list, n, &pr, err)) == RIP_OK &&
        (s = run_tools(c, gen, lines, &pr, 2 * n, err)) == RIP_OK)
        s = append_model_json(gen, list, n, lines, err);
    rip_progress_end(&pr);
    if (lines && fclose(lines) != 0 && s == RIP_OK) {
        snprintf(err, RIP_ERR_LEN, "cannot write %.400s", lines_path);
        s = RIP_S_IO;
    }
    if (s == RIP_OK)
        s = rip_deploy_read(lines_path, true, d, err);
    for (int k = 0; k < n; k++)
        free(list[k]);
    free(list);
    return s;
}

/* Does $PICO_SDK_PATH, when set, name a pico-sdk (set to the empty string:
** none, on purpose)?  Then a missing SDK is known before the long build.
** Unset, firmware/pico/link-boards.sh applies its own default, and the
** records it writes say afterwards whether the boards were linked. */
static bool pico_sdk_unavailable(void)
{
    const char *sdk = getenv("PICO_SDK_PATH");
    char path[4096];
    if (!sdk)
        return false;
    return !sdk[0] || snprintf(path, sizeof path, "%s/external/pico_sdk_import.cmake", sdk) >= (int)sizeof path ||
           access(path, R_OK) != 0;
}

/* reproduce.h */
rip_status repro_make_deployment(repro_ctx *c, repro_file *files, char err[RIP_ERR_LEN])
{
    static const char *const tools[] = {"arm-none-eabi-gcc", "qemu-system-arm", "cmake", "ninja"};
    for (size_t k = 0; k < sizeof tools / sizeof tools[0]; k++)
        if (!on_path(tools[k])) {
            snprintf(err, RIP_ERR_LEN, "no %s on PATH (the firmware tools: ./build.sh firmware installs them)",
                     tools[k]);
            return RIP_S_UNAVAILABLE;
        }
    if (pico_sdk_unavailable()) {
        snprintf(err, RIP_ERR_LEN, "no pico-sdk found (set PICO_SDK_PATH): the board records would be null");
        return RIP_S_UNAVAILABLE;
    }
    rip_deployment d = {0};
    rip_status s = build_records(c, &d, err);
    for (size_t k = 0; s == RIP_OK && k < d.n; k++)
        if (strncmp(d.rec[k].target, "pico", 4) == 0 && d.rec[k].fits < 0) {
            snprintf(err, RIP_ERR_LEN, "no pico-sdk found (set PICO_SDK_PATH): the board records would be null");
            s = RIP_S_UNAVAILABLE;
        }
    FILE *f;
    if (s == RIP_OK && (s = repro_mem_open(&files[0], &f, err)) == RIP_OK) {
        rip_deploy_write(f, &d);
        s = repro_mem_close(f, RIP_OK, err);
    }
    rip_deploy_free(&d);
    return s;
}
