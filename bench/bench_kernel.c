/* bench_kernel — kernel mode's cost against task count, beside program
 * mode, and W3 replayed beside program mode and the thread-pool baseline.
 *
 * Rows, per task count n in {2, 10, 100, 1000} (the "vadd" test fixture:
 * a chain of n tasks, f = 2 * (a + b + n - 2)):
 *   kernel eager launch   simpler_kernel_mode_launch alone (enqueue), us
 *   kernel eager run      launch + synchronize the caller stream, us
 *   kernel replay         simdev_graph_launch + synchronize, us (after
 *                         REPLAY_WARMUP untimed replays)
 *   program run           simpler_run of the same graph, us (after one
 *                         untimed run)
 * and for W3 layers (bench_dag, 10,000 tasks): kernel replay, program run,
 * the baseline pool and oneTBB's replay (its flow graph built once and
 * run again each sample: try_put to the sources + wait_for_all; n/a
 * without oneTBB), ns per task; and whether this machine lets a host
 * build overlap a device execution: per sample, a replay + synchronize
 * then a host build of W3 (a SimplerGraphSizer measure) timed as one
 * ("replay, then host build"), and the same two with the build between
 * the launch and the synchronize ("host build during replay"), ns per
 * task, with their ratio: near 1 when the device's threads leave the
 * host no CPU to build on (simdev's engines on this 2-vCPU machine), near
 * max / sum where the device has processors of its own. Then the decode example's argument-slot
 * use, per decode step (examples/decode, steps 0 and 15: 4 and 49 tasks):
 *   decode slot replay    simpler_kernel_mode_write_args of the step's
 *                         arguments + simdev_graph_launch of the one
 *                         captured launch_slot + synchronize, us
 *   decode eager launch   simpler_kernel_mode_launch of the same step's
 *                         arguments + synchronize, us
 *   decode program run    simpler_run of the same step in a program-mode
 *                         context (no goal; what `simpler run decode`
 *                         prints beside the two), us
 * (each the mean of DECODE_REPEATS calls of the same step, each checked
 * against the golden once before the timed calls), back to back and
 * "paced": each call after a DECODE_PACE_US sleep (untimed; the timer's
 * default slack adds about 50 us), as a framework's decode loop runs its
 * other work between steps and simdev's threads go to sleep meanwhile.
 * The first row is the
 * machine's CPU-to-CPU cache-line round trip (as in bench_graph), the
 * second simdev's own round trip (an empty kernel launched on a plain
 * stream, then the stream synchronized, us; selected with the 2-task
 * group or by its own name). Last come the ratios issue 17's goals are
 * stated in (unit "x", timing.h's bench_report_ratio): 2-task replay /
 * program run (goal <= 0.5), 2-task replay / simdev round trip (<= 5),
 * W3 replay / pool execute (<= 1.5) and / oneTBB replay (< 1), with W3's
 * build during / then beside them (no goal), decode slot replay / eager
 * run (< 1), back to back and paced.
 *
 * Images are found beside this program's build tree: ../tests/fixtures/
 * program/vadd.callable (built with the tests), callables/
 * bench_dag.callable and ../examples/paged_attention.callable. A missing
 * image turns its rows into "n/a". */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "baseline_pool.h"
#include "dag_orch.h"
#include "decode_loop.h"
#include "dag_shapes.h"
#include "handoff.h"
#include "simpler/runtime_c_api.h"
#include "simpler/simdev.h"
#include "simpler_side.h"
#include "tbb_flow.h"
#include "timing.h"

#define VADD_ELEMS 256u
#define PATH_BYTES 4096
#define LAUNCHES_PER_SAMPLE 20u
/* Untimed replays before the timed ones: the first replays of a capture
 * start the graph's runner threads and settle where the stream worker
 * waits; with 15 samples they could be the median (docs/performance.md,
 * set BA). */
#define REPLAY_WARMUP 16u
#define TBB_THREADS 2u     /* as the baseline pool: one per core */
#define DECODE_REPEATS 20u /* calls of one decode step per sample */
#define DECODE_PACE_US 200u /* the sleep before each paced call */

/* Row names the goal ratios look up (goal_ratios). */
#define ROW_ROUND_TRIP "simdev round trip (launch + synchronize)"
#define ROW_KERNEL_REPLAY "kernel replay"
#define ROW_PROGRAM_RUN "program run"
#define ROW_W3_REPLAY "W3 layers: kernel replay"
#define ROW_W3_POOL "W3 layers: baseline pool execute"
#define ROW_W3_TBB "W3 layers: oneTBB replay"
#define ROW_W3_THEN "W3 layers: replay, then host build"
#define ROW_W3_DURING "W3 layers: host build during replay"
#define ROW_DECODE_SLOT "slot replay + sync"
#define ROW_DECODE_EAGER "eager run"
#define ROW_DECODE_PROGRAM "program run"

/* The decode steps measured: the first and the last. */
static const uint32_t decode_steps[] = {0, DECODE_DEFAULT_STEPS - 1};

typedef struct image {
    void *bytes;
    size_t size;
} image;

typedef struct kernel_session {
    DeviceContextHandle ctx;
    simdev_stream_t stream;
    ChipStorageTaskArgs args;
    void *buffers[3];
    size_t buffer_count;
} kernel_session;

static image image_read(const char *relative)
{
    char exe[PATH_BYTES], path[PATH_BYTES + 64];
    image img = {NULL, 0};
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return img;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash != NULL)
        *slash = '\0';
    snprintf(path, sizeof(path), "%s/%s", exe, relative);
    FILE *f = fopen(path, "rb");
    long size = -1;
    if (f != NULL && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0)
        img.bytes = aligned_alloc(64, ((size_t)size + 63) / 64 * 64);
    if (img.bytes != NULL && fread(img.bytes, 1, (size_t)size, f) == (size_t)size)
        img.size = (size_t)size;
    if (f != NULL)
        fclose(f);
    return img;
}

/* CONFIGURE from args' requirements, init, prepare 0, FREEZE. */
static int kernel_open(kernel_session *k, const image *img)
{
    SimplerGraphRequirements req;
    SimplerKernelCtxControl c, f;
    memset(&f, 0, sizeof(f));
    f.abi_version = SIMPLER_KERNEL_CTX_CONTROL_ABI_VERSION;
    f.struct_size = sizeof(f);
    f.action = SIMPLER_KERNEL_CTX_FREEZE;
    k->ctx = create_device_context();
    if (k->ctx == NULL || simdev_stream_create(&k->stream) != SIMDEV_SUCCESS)
        return PTO_RUNTIME_ERR_OUT_OF_MEMORY;
    int rc = simpler_graph_requirements(img->bytes, img->size, &k->args, &req);
    rc = rc ? rc : simpler_kernel_plan_capacity(&req, 1, &c);
    rc = rc ? rc : simpler_kernel_mode_ctx_control(k->ctx, &c);
    rc = rc ? rc : simpler_kernel_mode_init(k->ctx, 0, NULL, 1);
    rc = rc ? rc : simpler_kernel_mode_prepare_callable(k->ctx, 0, img->bytes, img->size, k->stream);
    return rc ? rc : simpler_kernel_mode_ctx_control(k->ctx, &f);
}

static void kernel_close(kernel_session *k)
{
    (void)simdev_stream_synchronize(k->stream);
    (void)finalize_device(k->ctx);
    destroy_device_context(k->ctx);
    (void)simdev_stream_destroy(k->stream);
    for (size_t i = 0; i < k->buffer_count; i++)
        (void)simdev_free(k->buffers[i]);
}

static void vadd_args(kernel_session *k, uint64_t rounds)
{
    uint32_t shape = VADD_ELEMS;
    memset(&k->args, 0, sizeof(k->args));
    for (int i = 0; i < 3; i++)
        simpler_tensor_make(&k->args.tensors[i], k->buffers[i], SIMPLER_DTYPE_FLOAT32, 1, &shape,
                            SIMPLER_ADDRESS_SPACE_DEVICE);
    k->args.tensor_count = 3;
    k->args.scalars[0] = rounds;
    k->args.scalar_count = 2;
}

/* Captures one launch of k's callable 0 with k's arguments into *graph,
 * then replays it REPLAY_WARMUP times untimed, each synchronized. */
static int capture_warm(kernel_session *k, simdev_graph_t *graph)
{
    int rc = simdev_capture_begin(k->stream, SIMDEV_CAPTURE_MODE_GLOBAL);
    if (rc != 0)
        return rc;
    rc = simpler_kernel_mode_launch(k->ctx, 0, &k->args, k->stream);
    int ended = simdev_capture_end(k->stream, graph);
    rc = rc ? rc : ended;
    for (unsigned w = 0; rc == 0 && w < REPLAY_WARMUP; w++) {
        rc = simdev_graph_launch(*graph, k->stream);
        rc = rc ? rc : simdev_stream_synchronize(k->stream);
    }
    return rc;
}

/* simdev's bare launch + synchronize on a stream of its own, us. */
static void bench_round_trip(struct bench_report *r, unsigned runs)
{
    double samples[BENCH_RUNS_MAX];
    simdev_stream_t s;
    int rc = simdev_stream_create(&s);
    double ns = rc == 0 ? bench_simdev_round_trip_ns(s, SIMDEV_ROUND_TRIPS) : -(double)rc; /* warm-up */
    for (unsigned i = 0; ns >= 0 && i < runs; i++)
        samples[i] = (ns = bench_simdev_round_trip_ns(s, SIMDEV_ROUND_TRIPS)) / 1e3;
    if (ns >= 0)
        bench_report_add(r, ROW_ROUND_TRIP, "us", samples, runs);
    else
        bench_report_skip(r, ROW_ROUND_TRIP, simdev_error_name((int)-ns));
    if (rc == 0)
        (void)simdev_stream_destroy(s);
}

/* Issue 17's goals as ratios of rows measured above. */
static void goal_ratios(struct bench_report *r, const struct bench_options *opt)
{
    if (bench_selected(opt, "2 tasks")) {
        bench_report_ratio(r, "2 tasks: replay / program run", "2 tasks: " ROW_KERNEL_REPLAY,
                           "2 tasks: " ROW_PROGRAM_RUN);
        bench_report_ratio(r, "2 tasks: replay / simdev round trip", "2 tasks: " ROW_KERNEL_REPLAY, ROW_ROUND_TRIP);
    }
    if (bench_selected(opt, "W3 layers")) {
        bench_report_ratio(r, "W3 layers: replay / pool execute", ROW_W3_REPLAY, ROW_W3_POOL);
        bench_report_ratio(r, "W3 layers: replay / oneTBB replay", ROW_W3_REPLAY, ROW_W3_TBB);
        bench_report_ratio(r, "W3 layers: build during / then", ROW_W3_DURING, ROW_W3_THEN);
    }
    for (size_t i = 0; i < sizeof(decode_steps) / sizeof(decode_steps[0]); i++) {
        char group[32], name[64], slot[64], eager[64];
        snprintf(group, sizeof(group), "decode step %u", decode_steps[i]);
        if (!bench_selected(opt, group))
            continue;
        for (int paced = 0; paced < 2; paced++) {
            const char *p = paced ? " paced" : "";
            snprintf(name, sizeof(name), "%s%s: slot replay / eager run", group, p);
            snprintf(slot, sizeof(slot), "%s%s: " ROW_DECODE_SLOT, group, p);
            snprintf(eager, sizeof(eager), "%s%s: " ROW_DECODE_EAGER, group, p);
            bench_report_ratio(r, name, slot, eager);
        }
    }
}

/* Launch cost, eager run and replay of an n-task vadd chain. */
static void bench_vadd(struct bench_report *r, const image *img, uint32_t n, unsigned runs)
{
    kernel_session k;
    double launch[BENCH_RUNS_MAX], eager[BENCH_RUNS_MAX], replay[BENCH_RUNS_MAX];
    simdev_graph_t graph = NULL;
    char name[64];
    memset(&k, 0, sizeof(k));
    for (k.buffer_count = 0; k.buffer_count < 3; k.buffer_count++)
        (void)simdev_malloc(&k.buffers[k.buffer_count], VADD_ELEMS * sizeof(float));
    vadd_args(&k, n - 2);
    int rc = kernel_open(&k, img);
    for (unsigned s = 0; rc == 0 && s < runs; s++) {
        uint64_t t0 = bench_now_ns(), spent = 0;
        for (unsigned i = 0; rc == 0 && i < LAUNCHES_PER_SAMPLE; i++) {
            uint64_t a = bench_now_ns();
            rc = simpler_kernel_mode_launch(k.ctx, 0, &k.args, k.stream);
            spent += bench_now_ns() - a;
        }
        rc = rc ? rc : simdev_stream_synchronize(k.stream);
        launch[s] = (double)spent / LAUNCHES_PER_SAMPLE / 1e3;
        eager[s] = (double)(bench_now_ns() - t0) / LAUNCHES_PER_SAMPLE / 1e3;
    }
    rc = rc ? rc : capture_warm(&k, &graph);
    for (unsigned s = 0; rc == 0 && s < runs; s++) {
        uint64_t t0 = bench_now_ns();
        rc = simdev_graph_launch(graph, k.stream);
        rc = rc ? rc : simdev_stream_synchronize(k.stream);
        replay[s] = (double)(bench_now_ns() - t0) / 1e3;
    }
    const char *what[3] = {"kernel eager launch (enqueue)", "kernel eager run", ROW_KERNEL_REPLAY};
    double *samples[3] = {launch, eager, replay};
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof(name), "%u tasks: %s", n, what[i]);
        if (rc == 0)
            bench_report_add(r, name, "us", samples[i], runs);
        else
            bench_report_skip(r, name, simpler_strerror(rc));
    }
    if (graph != NULL)
        (void)simdev_graph_destroy(graph);
    kernel_close(&k);
}

static void bench_vadd_program(struct bench_report *r, const image *img, uint32_t n, unsigned runs)
{
    double samples[BENCH_RUNS_MAX];
    static float a[VADD_ELEMS], b[VADD_ELEMS], f[VADD_ELEMS];
    kernel_session k;
    char name[64];
    memset(&k, 0, sizeof(k));
    k.buffers[0] = a, k.buffers[1] = b, k.buffers[2] = f;
    vadd_args(&k, n - 2);
    for (int i = 0; i < 3; i++)
        k.args.tensors[i].address_space = SIMPLER_ADDRESS_SPACE_HOST;
    DeviceContextHandle ctx = create_device_context();
    int rc = simpler_init(ctx, 0, NULL);
    rc = rc ? rc : simpler_register_callable(ctx, 0, img->bytes, img->size);
    rc = rc ? rc : simpler_run(ctx, 0, &k.args, NULL);
    for (unsigned s = 0; rc == 0 && s < runs; s++) {
        uint64_t t0 = bench_now_ns();
        rc = simpler_run(ctx, 0, &k.args, NULL);
        samples[s] = (double)(bench_now_ns() - t0) / 1e3;
    }
    snprintf(name, sizeof(name), "%u tasks: " ROW_PROGRAM_RUN, n);
    if (rc == 0)
        bench_report_add(r, name, "us", samples, runs);
    else
        bench_report_skip(r, name, simpler_strerror(rc));
    (void)finalize_device(ctx);
    destroy_device_context(ctx);
}

static void empty_task(uint32_t task, void *user)
{
    (void)task;
    (void)user;
}

/* Per sample: a replay of `graph` + synchronize, then a host build of
 * W3 (then[s]); a launch, the host build, a synchronize (during[s]); ns
 * per task. 0 or the first failed call's status. */
static int w3_overlap(kernel_session *k, simdev_graph_t graph, const char *image_path, unsigned runs,
                      double *then, double *during)
{
    struct simpler_build *b = NULL;
    uint32_t tasks = dag_shape_task_count(DAG_LAYERS), built = 0;
    double ns;
    int rc = simpler_build_create(image_path, &b);
    rc = rc ? rc : simpler_build_once(b, DAG_LAYERS, &ns, &built);
    for (unsigned s = 0; rc == 0 && s < runs; s++) {
        uint64_t t0 = bench_now_ns();
        rc = simdev_graph_launch(graph, k->stream);
        rc = rc ? rc : simdev_stream_synchronize(k->stream);
        rc = rc ? rc : simpler_build_once(b, DAG_LAYERS, &ns, &built);
        uint64_t t1 = bench_now_ns();
        rc = rc ? rc : simdev_graph_launch(graph, k->stream);
        rc = rc ? rc : simpler_build_once(b, DAG_LAYERS, &ns, &built);
        rc = rc ? rc : simdev_stream_synchronize(k->stream);
        then[s] = (double)(t1 - t0) / tasks;
        during[s] = (double)(bench_now_ns() - t1) / tasks;
    }
    simpler_build_destroy(b);
    return rc != 0 ? rc : built != tasks ? PTO_RUNTIME_ERR_INTERNAL : 0;
}

/* W3 layers: kernel replay beside program mode and the baseline pool,
 * then the overlap rows (w3_overlap). */
static void bench_w3(struct bench_report *r, const image *img, const char *image_path, unsigned runs)
{
    double samples[BENCH_RUNS_MAX];
    kernel_session k;
    simdev_graph_t graph = NULL;
    uint32_t tasks = dag_shape_task_count(DAG_LAYERS), elems = DAG_ORCH_SLOTS * DAG_ORCH_SLOT_ELEMS;
    memset(&k, 0, sizeof(k));
    (void)simdev_malloc(&k.buffers[0], (size_t)elems * sizeof(float));
    k.buffer_count = 1;
    simpler_tensor_make(&k.args.tensors[0], k.buffers[0], SIMPLER_DTYPE_FLOAT32, 1, &elems,
                        SIMPLER_ADDRESS_SPACE_DEVICE);
    k.args.tensor_count = 1;
    k.args.scalars[0] = DAG_LAYERS;
    k.args.scalars[1] = DAG_ORCH_FUNC_EMPTY;
    k.args.scalar_count = 2;
    int rc = kernel_open(&k, img);
    rc = rc ? rc : capture_warm(&k, &graph);
    for (unsigned s = 0; rc == 0 && s < runs; s++) {
        uint64_t t0 = bench_now_ns();
        rc = simdev_graph_launch(graph, k.stream);
        rc = rc ? rc : simdev_stream_synchronize(k.stream);
        samples[s] = (double)(bench_now_ns() - t0) / tasks;
    }
    if (rc == 0)
        bench_report_add(r, ROW_W3_REPLAY, "ns/task", samples, runs);
    else
        bench_report_skip(r, ROW_W3_REPLAY, simpler_strerror(rc));
    double during[BENCH_RUNS_MAX];
    rc = rc ? rc : w3_overlap(&k, graph, image_path, runs, samples, during);
    if (rc == 0) {
        bench_report_add(r, ROW_W3_THEN, "ns/task", samples, runs);
        bench_report_add(r, ROW_W3_DURING, "ns/task", during, runs);
    } else {
        bench_report_skip(r, ROW_W3_THEN, simpler_strerror(rc));
        bench_report_skip(r, ROW_W3_DURING, simpler_strerror(rc));
    }
    if (graph != NULL)
        (void)simdev_graph_destroy(graph);
    kernel_close(&k);
}

static void bench_w3_others(struct bench_report *r, const char *image_path, unsigned runs)
{
    double samples[BENCH_RUNS_MAX];
    struct simpler_run_sample sample;
    struct simpler_program *p = NULL;
    const char *stage = NULL;
    int rc = simpler_program_create(image_path, &p, &stage);
    for (unsigned s = 0; rc == 0 && s < runs; s++) {
        rc = simpler_program_run(p, DAG_LAYERS, &sample);
        samples[s] = sample.run;
    }
    if (rc == 0)
        bench_report_add(r, "W3 layers: program run", "ns/task", samples, runs);
    else
        bench_report_skip(r, "W3 layers: program run", simpler_strerror(rc));
    simpler_program_destroy(p);
    struct dag d;
    struct baseline_pool *pool = baseline_pool_create(2);
    if (pool != NULL && dag_create(&d, DAG_LAYERS) == 0) {
        uint64_t ns = 0;
        unsigned s = 0;
        for (; s < runs && baseline_pool_run(pool, &d, empty_task, NULL, &ns) == 0; s++)
            samples[s] = (double)ns / d.task_count;
        bench_report_add(r, ROW_W3_POOL, "ns/task", samples, s);
        dag_destroy(&d);
    }
    baseline_pool_destroy(pool);
}

struct w3_check {
    const struct dag *d;
    float *slots;
};

static void check_task(uint32_t task, void *user)
{
    struct w3_check *c = user;
    dag_task_body(&c->d->tasks[task], task, c->slots, 1);
}

/* Two runs of one built graph each leave W3's check values (ranks that
 * differ when a task ran before a predecessor): 0, or -1. */
static int tbb_replay_verify(struct tbb_flow *tbb, const struct dag *d)
{
    float *slots = calloc(d->task_count, sizeof(float)), *want = calloc(d->task_count, sizeof(float));
    struct w3_check c = {d, slots};
    struct tbb_flow_graph *g = slots && want ? tbb_flow_graph_build(tbb, d, check_task, &c) : NULL;
    int rc = g == NULL ? -1 : 0;
    if (rc == 0)
        dag_expected_values(d->shape, want);
    for (int run = 0; rc == 0 && run < 2; run++) {
        uint64_t ns;
        memset(slots, 0, d->task_count * sizeof(float));
        rc = tbb_flow_graph_run(g, &ns) == 0 && memcmp(slots, want, d->task_count * sizeof(float)) == 0 ? 0 : -1;
    }
    tbb_flow_graph_destroy(g);
    free(slots);
    free(want);
    return rc;
}

/* W3 on oneTBB's flow graph, built once, replayed per sample. */
static void bench_w3_tbb(struct bench_report *r, unsigned runs)
{
    static const char *name = ROW_W3_TBB;
    double samples[BENCH_RUNS_MAX];
    struct dag d;
    struct tbb_flow *tbb = tbb_flow_create(TBB_THREADS);
    if (tbb == NULL) {
        bench_report_skip(r, name, "built without oneTBB (libtbb-dev)");
        return;
    }
    if (dag_create(&d, DAG_LAYERS) != 0) {
        bench_report_skip(r, name, "out of memory");
        tbb_flow_destroy(tbb);
        return;
    }
    struct tbb_flow_graph *g = NULL;
    uint64_t ns = 0;
    int rc = tbb_replay_verify(tbb, &d);
    if (rc == 0 && (g = tbb_flow_graph_build(tbb, &d, empty_task, NULL)) == NULL)
        rc = -1;
    rc = rc ? rc : tbb_flow_graph_run(g, &ns); /* the first run warms the arena */
    for (unsigned s = 0; rc == 0 && s < runs; s++) {
        rc = tbb_flow_graph_run(g, &ns);
        samples[s] = (double)ns / d.task_count;
    }
    if (rc == 0)
        bench_report_add(r, name, "ns/task", samples, runs);
    else
        bench_report_skip(r, name, "a replay ran a task out of order or threw");
    tbb_flow_graph_destroy(g);
    dag_destroy(&d);
    tbb_flow_destroy(tbb);
}

/* One decode step `step`, DECODE_REPEATS times a sample, in `mode`
 * (DECODE_CAPTURED: write_args + replay; DECODE_EAGER: launch), each
 * followed by the synchronize, with `paced` after a DECODE_PACE_US
 * sleep; checked against the golden first. */
static void bench_decode_mode(struct bench_report *r, const image *img, uint32_t step, int mode, int paced,
                              unsigned runs)
{
    const struct timespec pace = {0, DECODE_PACE_US * 1000l};
    static decode_state st;
    double samples[BENCH_RUNS_MAX];
    decode_result res;
    ChipStorageTaskArgs args;
    example_check_result check;
    char name[96];
    uint64_t ns = 0;
    memset(&res, 0, sizeof(res));
    snprintf(name, sizeof(name), "decode step %u%s: %s", step, paced ? " paced" : "",
             mode == DECODE_CAPTURED ? ROW_DECODE_SLOT : mode == DECODE_EAGER ? ROW_DECODE_EAGER : ROW_DECODE_PROGRAM);
    int rc = decode_open(&st, img->bytes, img->size, mode, DECODE_DEFAULT_STEPS);
    decode_case(&st.c, step);
    rc = rc ? rc : example_inputs_prepare(st.ctx, &st.c, &st.b, step + 1);
    rc = rc ? rc : example_args_make(&st.c, &st.b, &args);
    rc = rc ? rc : decode_step_run(&st, mode, &args, &ns, &res);
    rc = rc ? rc : example_output_check(st.ctx, &st.c, &st.b, &check);
    if (rc == 0 && check.mismatches != 0)
        rc = PTO_RUNTIME_ERR_DEVICE;
    for (unsigned s = 0; rc == 0 && s < runs; s++) {
        uint64_t total = 0;
        for (unsigned i = 0; rc == 0 && i < DECODE_REPEATS; i++) {
            if (paced)
                (void)nanosleep(&pace, NULL);
            rc = decode_step_run(&st, mode, &args, &ns, &res);
            total += ns;
        }
        samples[s] = (double)total / DECODE_REPEATS / 1e3;
    }
    if (rc == 0)
        bench_report_add(r, name, "us", samples, runs);
    else
        bench_report_skip(r, name, check.mismatches != 0 ? "output missed the golden" : simpler_strerror(rc));
    (void)decode_close(&st, mode);
}

int main(int argc, char **argv)
{
    struct bench_options opt;
    struct bench_report report = {.title = "bench_kernel: kernel mode launch and replay"};
    int exit_code = 0;
    if (bench_options_parse(argc, argv, &opt, &exit_code) != 0)
        return exit_code;
    /* Before the pin: it pins two threads of its own, one per CPU. */
    bench_machine_row(&report, opt.runs);
    /* --host-cpu: simdev places its engines from the process's CPUs when
     * it starts, so it starts first; the kernel-mode and 2-task program
     * rows then run pinned, the baselines (whose threads inherit the
     * main thread's CPUs) unpinned. */
    if (opt.host_cpu >= 0 && (simdev_device_synchronize() != SIMDEV_SUCCESS || bench_pin_host(&opt) != 0)) {
        fprintf(stderr, "bench_kernel: cannot start simdev or pin the main thread to CPU %d\n", opt.host_cpu);
        return 1;
    }
    if (bench_selected(&opt, "simdev round trip") || bench_selected(&opt, "2 tasks"))
        bench_round_trip(&report, opt.runs);
    static const uint32_t counts[] = {2, 10, 100, 1000};
    image vadd = image_read("../tests/fixtures/program/vadd.callable");
    image dag = image_read("callables/bench_dag.callable");
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        char group[32];
        snprintf(group, sizeof(group), "%u tasks", counts[i]);
        if (!bench_selected(&opt, group))
            continue;
        if (vadd.size == 0) {
            bench_report_skip(&report, "vadd rows", "vadd.callable not built (build the tests)");
            break;
        }
        bench_vadd(&report, &vadd, counts[i], opt.runs);
        bench_vadd_program(&report, &vadd, counts[i], opt.runs);
    }
    if (dag.size != 0 && bench_selected(&opt, "W3 layers")) {
        char path[PATH_BYTES];
        ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 40);
        if (n > 0) {
            path[n] = '\0';
            char *slash = strrchr(path, '/');
            if (slash != NULL)
                strcpy(slash, "/callables/bench_dag.callable");
        }
        bench_w3(&report, &dag, path, opt.runs);
        bench_unpin_host();
        bench_w3_others(&report, path, opt.runs);
        bench_w3_tbb(&report, opt.runs);
        (void)bench_pin_host(&opt);
    } else if (dag.size == 0 && bench_selected(&opt, "W3 layers")) {
        bench_report_skip(&report, "W3 layers", "bench_dag.callable not built");
    }
    image pa = image_read("../examples/paged_attention.callable");
    for (size_t i = 0; i < sizeof(decode_steps) / sizeof(decode_steps[0]); i++) {
        char group[32];
        snprintf(group, sizeof(group), "decode step %u", decode_steps[i]);
        if (!bench_selected(&opt, group))
            continue;
        if (pa.size == 0) {
            bench_report_skip(&report, "decode rows", "paged_attention.callable not built");
            break;
        }
        for (int paced = 0; paced < 2; paced++) {
            bench_decode_mode(&report, &pa, decode_steps[i], DECODE_CAPTURED, paced, opt.runs);
            bench_decode_mode(&report, &pa, decode_steps[i], DECODE_EAGER, paced, opt.runs);
            bench_decode_mode(&report, &pa, decode_steps[i], DECODE_PROGRAM, paced, opt.runs);
        }
    }
    goal_ratios(&report, &opt);
    bench_report_print(&report, opt.json);
    free(pa.bytes);
    free(vadd.bytes);
    free(dag.bytes);
    return 0;
}
