/*
 * simpler run: a simdev demo until the runtime's example replaces it.
 *
 * On device 0 it captures a fork/join graph over three streams (GLOBAL
 * mode): the origin scales the input, two side streams each derive one
 * output from it, and the origin joins them back and sums the outputs.
 * It then replays the graph with fresh input copied in place and checks
 * every result. With --dot FILE it also writes the graph as Graphviz DOT.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "simpler/simdev.h"

#define WORDS 256u
#define REPLAYS 3

struct vec_args {
    const int32_t *in;
    int32_t *out;
    int32_t factor;
    int32_t offset;
};

/* out[i] = in[i] * factor + offset; blocks split the words. */
static void affine_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    const struct vec_args *a = args;
    for (uint32_t i = block_idx; i < WORDS; i += block_dim)
        a->out[i] = a->in[i] * a->factor + a->offset;
}

struct sum_args {
    const int32_t *a, *b;
    int32_t *out;
};

static void sum_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    const struct sum_args *s = args;
    for (uint32_t i = block_idx; i < WORDS; i += block_dim)
        s->out[i] = s->a[i] + s->b[i];
}

struct demo {
    simdev_stream_t origin, left, right;
    simdev_event_t fork, join_left, join_right;
    int32_t *in, *scaled, *l, *r, *out;
};

#define TRY(call)                                                                               \
    do {                                                                                        \
        int rc_ = (call);                                                                       \
        if (rc_ != SIMDEV_SUCCESS) {                                                            \
            fprintf(stderr, "simpler run: %s failed: %s\n", #call, simdev_error_name(rc_));     \
            return rc_;                                                                         \
        }                                                                                       \
    } while (0)

static int demo_create(struct demo *d)
{
    int32_t **bufs[] = {&d->in, &d->scaled, &d->l, &d->r, &d->out};
    for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
        TRY(simdev_malloc((void **)bufs[i], WORDS * sizeof(int32_t)));
    TRY(simdev_stream_create(&d->origin));
    TRY(simdev_stream_create(&d->left));
    TRY(simdev_stream_create(&d->right));
    TRY(simdev_event_create(&d->fork));
    TRY(simdev_event_create(&d->join_left));
    TRY(simdev_event_create(&d->join_right));
    return 0;
}

/* scaled = 2*in; l = 3*scaled + 1 (AICORE); r = scaled - 7 (AICPU); out = l + r. */
static int demo_capture(struct demo *d, simdev_graph_t *graph)
{
    struct vec_args scale = {d->in, d->scaled, 2, 0};
    struct vec_args left = {d->scaled, d->l, 3, 1};
    struct vec_args right = {d->scaled, d->r, 1, -7};
    struct sum_args sum = {d->l, d->r, d->out};
    TRY(simdev_capture_begin(d->origin, SIMDEV_CAPTURE_MODE_GLOBAL));
    TRY(simdev_launch_kernel(d->origin, SIMDEV_ENGINE_AICORE, affine_kernel, 4, &scale, sizeof(scale)));
    TRY(simdev_event_record(d->fork, d->origin));
    TRY(simdev_stream_wait_event(d->left, d->fork));
    TRY(simdev_stream_wait_event(d->right, d->fork));
    TRY(simdev_launch_kernel(d->left, SIMDEV_ENGINE_AICORE, affine_kernel, 6, &left, sizeof(left)));
    TRY(simdev_launch_kernel(d->right, SIMDEV_ENGINE_AICPU, affine_kernel, 3, &right, sizeof(right)));
    TRY(simdev_event_record(d->join_left, d->left));
    TRY(simdev_event_record(d->join_right, d->right));
    TRY(simdev_stream_wait_event(d->origin, d->join_left));
    TRY(simdev_stream_wait_event(d->origin, d->join_right));
    TRY(simdev_launch_kernel(d->origin, SIMDEV_ENGINE_AICORE, sum_kernel, 2, &sum, sizeof(sum)));
    TRY(simdev_capture_end(d->origin, graph));
    return 0;
}

/* One replay on fresh input; returns the number of wrong words. */
static int demo_replay(struct demo *d, simdev_graph_t graph, int round, int *wrong)
{
    int32_t host[WORDS];
    for (uint32_t i = 0; i < WORDS; i++)
        host[i] = (int32_t)i + 100 * round;
    TRY(simdev_memcpy_async(d->in, host, sizeof(host), d->origin));
    TRY(simdev_graph_launch(graph, d->origin));
    TRY(simdev_stream_synchronize(d->origin));
    TRY(simdev_memcpy(host, d->out, sizeof(host)));
    *wrong = 0;
    for (uint32_t i = 0; i < WORDS; i++) {
        int32_t scaled = 2 * ((int32_t)i + 100 * round);
        *wrong += host[i] != (3 * scaled + 1) + (scaled - 7);
    }
    return 0;
}

static int demo_destroy(struct demo *d)
{
    int32_t *bufs[] = {d->in, d->scaled, d->l, d->r, d->out};
    for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
        TRY(simdev_free(bufs[i]));
    simdev_event_t events[] = {d->fork, d->join_left, d->join_right};
    for (size_t i = 0; i < 3; i++)
        TRY(simdev_event_destroy(events[i]));
    simdev_stream_t streams[] = {d->origin, d->left, d->right};
    for (size_t i = 0; i < 3; i++)
        TRY(simdev_stream_destroy(streams[i]));
    return 0;
}

static int demo_run(const char *dot_path)
{
    struct demo d;
    memset(&d, 0, sizeof(d));
    simdev_graph_t graph = NULL;
    size_t nodes = 0;
    if (demo_create(&d) != 0 || demo_capture(&d, &graph) != 0)
        return 1;
    TRY(simdev_graph_node_count(graph, &nodes));
    printf("captured a graph of %zu nodes over 3 streams (fork/join, GLOBAL mode)\n", nodes);
    if (dot_path != NULL) {
        TRY(simdev_graph_debug_dot(graph, dot_path));
        printf("wrote the graph to %s\n", dot_path);
    }
    int failures = 0;
    for (int round = 1; round <= REPLAYS; round++) {
        int wrong = 0;
        if (demo_replay(&d, graph, round, &wrong) != 0)
            return 1;
        printf("replay %d: %u words, %d wrong\n", round, WORDS, wrong);
        failures += wrong != 0;
    }
    TRY(simdev_graph_destroy(graph));
    if (demo_destroy(&d) != 0)
        return 1;
    return failures;
}

int cmd_run(int argc, char **argv)
{
    const char *dot_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--dot") == 0 && i + 1 < argc) {
            dot_path = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            puts("usage: simpler run [--dot FILE]\n"
                 "  captures a fork/join graph on simdev, replays it and checks the results");
            return 0;
        } else {
            fprintf(stderr, "simpler run: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    int failed = demo_run(dot_path);
    int rc = simdev_finalize();
    if (failed == 0 && rc != SIMDEV_SUCCESS)
        failed = 1;
    puts(failed == 0 ? "ok" : "FAILED");
    return failed == 0 ? 0 : 1;
}
