/* simpler run decode: the decode loop of examples/decode over the
 * paged_attention image, run three ways in one process (kernel mode
 * with one captured launch_slot and write_args per step, kernel mode
 * with an eager launch per step, program mode with simpler_run per
 * step), every step checked against the golden; a summary or one JSON
 * object on stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "decode_loop.h"
#include "run_program.h"

static const char *const decode_mode_names[DECODE_MODES] = {"write_args + replay", "eager launch", "program run"};
static const char *const decode_mode_keys[DECODE_MODES] = {"captured", "eager", "program"};

static void summary(const decode_result *r)
{
    const decode_result *c = &r[DECODE_CAPTURED];
    printf("simpler run: decode, paged attention, KV +%u tokens (one block) per step\n", DECODE_BLOCK_SIZE);
    printf("  steps               %u\n", c->steps);
    printf("  tasks per step      %llu at the first step, %llu at the last\n", (unsigned long long)c->tasks_first,
           (unsigned long long)c->tasks_last);
    for (int m = 0; m < DECODE_MODES; m++)
        printf("  %-19s %.1f us per step (calls + synchronize)\n", decode_mode_names[m], r[m].step_us);
    printf("  allocations         %llu host, %llu device in write_args + replay (steps 2..)\n",
           (unsigned long long)c->host_allocs, (unsigned long long)c->device_allocs);
    int bad = r[0].mismatches + r[1].mismatches + r[2].mismatches;
    printf("  golden              %s\n", bad == 0 ? "every step matched" : "MISMATCH");
}

static void summary_json(const decode_result *r)
{
    const decode_result *c = &r[DECODE_CAPTURED];
    printf("{\"example\":\"decode\",\"steps\":%u,\"tasks_first\":%llu,\"tasks_last\":%llu,", c->steps,
           (unsigned long long)c->tasks_first, (unsigned long long)c->tasks_last);
    for (int m = 0; m < DECODE_MODES; m++)
        printf("\"%s_step_us\":%.3f,", decode_mode_keys[m], r[m].step_us);
    printf("\"host_allocs\":%llu,\"device_allocs\":%llu,", (unsigned long long)c->host_allocs,
           (unsigned long long)c->device_allocs);
    int bad = r[0].mismatches + r[1].mismatches + r[2].mismatches;
    printf("\"result\":\"%s\"}\n", bad == 0 ? "ok" : "FAILED");
}

int cmd_run_decode(int argc, char **argv)
{
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") != 0) {
            fprintf(stderr, "usage: simpler run decode [--json] ('%s' is not an option of decode)\n", argv[i]);
            return 2;
        }
        json = 1;
    }
    static decode_result r[DECODE_MODES];
    char path[4096] = "";
    void *image = NULL;
    size_t size = 0;
    if (example_image_path("paged_attention", path, sizeof(path)) != 0) {
        fprintf(stderr, "simpler run: decode needs the paged_attention image (%s)\n", path);
        return 2;
    }
    int read = example_image_read(path, &image, &size);
    if (read != 0) {
        char prefix[4200];
        snprintf(prefix, sizeof(prefix), "simpler run: decode needs the paged_attention image (%s)", path);
        cli_refusal(prefix, read, NULL);
        return 2;
    }
    int rc = 0, m = 0;
    for (; rc == 0 && m < DECODE_MODES; m++)
        rc = decode_run(image, size, m, DECODE_DEFAULT_STEPS, &r[m]);
    simpler_callable_free(image);
    if (rc != 0) {
        cli_refusal("simpler run: decode failed", rc, r[m - 1].reason);
        return 1;
    }
    if (json)
        summary_json(r);
    else
        summary(r);
    int bad = r[0].mismatches + r[1].mismatches + r[2].mismatches;
    return bad == 0 && r[DECODE_CAPTURED].host_allocs == 0 && r[DECODE_CAPTURED].device_allocs == 0 ? 0 : 1;
}
