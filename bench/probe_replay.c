/* probe_replay — fixed amounts of one kind of simdev work, for counting
 * tools rather than clocks (strace -f -c, perf stat, callgrind): the
 * counts a run reports divided by its repetitions are the per-operation
 * figures of docs/performance.md (set L). Not a benchmark: it times
 * nothing. Usage:
 *   probe_replay replay R [N]    R x (replay of a captured N-task vadd
 *                                kernel-mode launch + synchronize; N >= 2,
 *                                default 2: an AIV task, N - 2 AIC tasks,
 *                                an AIV task, as bench_kernel's rows)
 *   probe_replay bare R          R x (empty 1-block kernel + synchronize)
 *   probe_replay launch NODES R  R x simdev_graph_launch of a captured
 *                                chain of NODES empty kernels, then one
 *                                synchronize (callgrind: --toggle-collect=
 *                                simdev_graph_launch)
 *   probe_replay w3 R            R x (replay of a captured W3 kernel-mode
 *                                launch + synchronize; bench_dag image)
 *   probe_replay slot STEP R     R x (decode step STEP, 0-based: write_args
 *                                + replay of the captured launch_slot +
 *                                synchronize; paged_attention image)
 *   probe_replay eager STEP R    R x (the same step: eager launch +
 *                                synchronize)
 *   probe_replay vadd N R        R x eager launch of the N-task vadd
 *                                chain (N >= 2; bench_kernel's "N tasks"
 *                                rows), a synchronize after every 20 as
 *                                there (callgrind: --toggle-collect=
 *                                simpler_kernel_mode_launch; per launch =
 *                                total / R)
 *   probe_replay prun N R        R x simpler_run (program mode) of the
 *                                N-task vadd chain on host tensors, after
 *                                one run (bench_kernel's "N tasks:
 *                                program run" rows)
 *   probe_replay run SHAPE R     R x simpler_run (program mode, end to
 *                                end) of bench_graph's shape SHAPE (0 W1
 *                                chain, 1 W2 fan, 2 W3 layers) with the
 *                                empty kernel, after one checked run
 *                                (callgrind: --toggle-collect=simpler_run
 *                                for the host thread's part)
 * PROBE_DOT=path writes the captured graph (replay, w3, slot) as
 * Graphviz DOT. PROBE_PIN_CPU=n pins the calling thread (only it: simdev's
 * threads started before keep their placement) to CPU n before the
 * repeated work of replay, w3, slot, eager, prun and run, so each of a process's
 * two modes (the caller beside the AICPU or the AICore engine) can be
 * probed alone (docs/performance.md, sets AQ and AU). The images are read beside this program:
 * ../tests/fixtures/program/vadd.callable (built with the tests),
 * callables/bench_dag.callable and ../examples/paged_attention.callable.
 * The decode modes check the step's output against the golden once,
 * after the first call. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dag_orch.h"
#include "dag_shapes.h"
#include "decode_loop.h"
#include "simpler/runtime_c_api.h"
#include "simpler/simdev.h"
#include "simpler_side.h"

#define VADD_ELEMS 256u
#define PATH_BYTES 4096

#include <sched.h>

static void check(int rc, const char *what);

static void pin_main(void)
{
    const char *cpu = getenv("PROBE_PIN_CPU");
    if (cpu == NULL)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(atoi(cpu), &set);
    check(sched_setaffinity(0, sizeof(set), &set), "PROBE_PIN_CPU");
}

static void check(int rc, const char *what)
{
    if (rc != 0) {
        fprintf(stderr, "probe_replay: %s failed (%d)\n", what, rc);
        exit(1);
    }
}

static void empty_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    (void)args;
}

/* `relative` to the directory of this program, into path. */
static void beside_exe(const char *relative, char *path, size_t bytes)
{
    char exe[PATH_BYTES];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    check(n <= 0, "readlink");
    exe[n] = '\0';
    *strrchr(exe, '/') = '\0';
    snprintf(path, bytes, "%s/%s", exe, relative);
}

static void *image_read(const char *relative, size_t *size)
{
    char path[PATH_BYTES + 64];
    beside_exe(relative, path, sizeof(path));
    FILE *f = fopen(path, "rb");
    check(f == NULL, path);
    check(fseek(f, 0, SEEK_END), "fseek");
    long len = ftell(f);
    check(len <= 0 || fseek(f, 0, SEEK_SET), "ftell");
    void *bytes = aligned_alloc(64, ((size_t)len + 63) / 64 * 64);
    check(bytes == NULL || fread(bytes, 1, (size_t)len, f) != (size_t)len, "fread");
    fclose(f);
    *size = (size_t)len;
    return bytes;
}

/* R replays of one captured kernel-mode launch of `img` on `args`, or
 * with `eager` R eager launches, in rounds of 20 and a synchronize, as
 * bench_kernel times them. */
static void probe_kernel(const char *relative, const ChipStorageTaskArgs *in, unsigned repeats, int eager)
{
    size_t size = 0;
    void *img = image_read(relative, &size);
    ChipStorageTaskArgs args = *in;
    SimplerGraphRequirements req;
    SimplerKernelCtxControl c, f;
    simdev_stream_t s;
    simdev_graph_t g = NULL;
    memset(&f, 0, sizeof(f));
    f.abi_version = SIMPLER_KERNEL_CTX_CONTROL_ABI_VERSION;
    f.struct_size = sizeof(f);
    f.action = SIMPLER_KERNEL_CTX_FREEZE;
    DeviceContextHandle ctx = create_device_context();
    check(ctx == NULL || simdev_stream_create(&s), "context");
    check(simpler_graph_requirements(img, size, &args, &req), "requirements");
    check(simpler_kernel_plan_capacity(&req, 1, &c), "plan");
    check(simpler_kernel_mode_ctx_control(ctx, &c), "configure");
    check(simpler_kernel_mode_init(ctx, 0, NULL, 1), "init");
    check(simpler_kernel_mode_prepare_callable(ctx, 0, img, size, s), "prepare");
    check(simpler_kernel_mode_ctx_control(ctx, &f), "freeze");
    pin_main();
    if (eager) {
        for (unsigned i = 0; i < repeats; i++) {
            check(simpler_kernel_mode_launch(ctx, 0, &args, s), "launch");
            if (i % 20 == 19 || i + 1 == repeats)
                check(simdev_stream_synchronize(s), "synchronize");
        }
    } else {
        check(simdev_capture_begin(s, SIMDEV_CAPTURE_MODE_GLOBAL), "capture_begin");
        check(simpler_kernel_mode_launch(ctx, 0, &args, s), "launch");
        check(simdev_capture_end(s, &g), "capture_end");
        if (getenv("PROBE_DOT") != NULL)
            check(simdev_graph_debug_dot(g, getenv("PROBE_DOT")), "graph_debug_dot");
        for (unsigned i = 0; i < repeats; i++) {
            check(simdev_graph_launch(g, s), "graph_launch");
            check(simdev_stream_synchronize(s), "synchronize");
        }
        check(simdev_graph_destroy(g), "graph_destroy");
    }
    check(finalize_device(ctx), "finalize_device");
    destroy_device_context(ctx);
    check(simdev_stream_destroy(s), "stream_destroy");
    free(img);
}

/* The n-task vadd chain (AIV, n - 2 AIC tasks, AIV), R times: replays
 * of its capture, or eager launches. */
static void probe_vadd(unsigned tasks, unsigned repeats, int eager)
{
    void *buf[3];
    uint32_t shape = VADD_ELEMS;
    ChipStorageTaskArgs args;
    memset(&args, 0, sizeof(args));
    for (int i = 0; i < 3; i++) {
        check(simdev_malloc(&buf[i], VADD_ELEMS * sizeof(float)), "simdev_malloc");
        simpler_tensor_make(&args.tensors[i], buf[i], SIMPLER_DTYPE_FLOAT32, 1, &shape,
                            SIMPLER_ADDRESS_SPACE_DEVICE);
    }
    args.tensor_count = 3;
    check(tasks < 2, "N >= 2");
    args.scalars[0] = tasks - 2; /* extra rounds: AIC tasks between the two AIV ones */
    args.scalar_count = 2;
    probe_kernel("../tests/fixtures/program/vadd.callable", &args, repeats, eager);
    for (int i = 0; i < 3; i++)
        check(simdev_free(buf[i]), "simdev_free");
}

/* R x simpler_run of the n-task vadd chain, host tensors, after one run
 * that starts what a run needs once. */
static void probe_vadd_program(unsigned tasks, unsigned repeats)
{
    static float buf[3][VADD_ELEMS];
    uint32_t shape = VADD_ELEMS;
    size_t size = 0;
    void *img = image_read("../tests/fixtures/program/vadd.callable", &size);
    ChipStorageTaskArgs args;
    memset(&args, 0, sizeof(args));
    for (int i = 0; i < 3; i++)
        simpler_tensor_make(&args.tensors[i], buf[i], SIMPLER_DTYPE_FLOAT32, 1, &shape, SIMPLER_ADDRESS_SPACE_HOST);
    args.tensor_count = 3;
    check(tasks < 2, "N >= 2");
    args.scalars[0] = tasks - 2;
    args.scalar_count = 2;
    DeviceContextHandle ctx = create_device_context();
    check(ctx == NULL || simpler_init(ctx, 0, NULL), "init");
    check(simpler_register_callable(ctx, 0, img, size), "register");
    check(simpler_run(ctx, 0, &args, NULL), "first run");
    pin_main();
    for (unsigned i = 0; i < repeats; i++)
        check(simpler_run(ctx, 0, &args, NULL), "simpler_run");
    check(finalize_device(ctx), "finalize_device");
    destroy_device_context(ctx);
    free(img);
}

static void probe_w3(unsigned repeats)
{
    void *buf;
    uint32_t elems = DAG_ORCH_SLOTS * DAG_ORCH_SLOT_ELEMS;
    ChipStorageTaskArgs args;
    memset(&args, 0, sizeof(args));
    check(simdev_malloc(&buf, (size_t)elems * sizeof(float)), "simdev_malloc");
    simpler_tensor_make(&args.tensors[0], buf, SIMPLER_DTYPE_FLOAT32, 1, &elems, SIMPLER_ADDRESS_SPACE_DEVICE);
    args.tensor_count = 1;
    args.scalars[0] = DAG_LAYERS;
    args.scalars[1] = DAG_ORCH_FUNC_EMPTY;
    args.scalar_count = 2;
    probe_kernel("callables/bench_dag.callable", &args, repeats, 0);
    check(simdev_free(buf), "simdev_free");
}

/* R x decode step `step` in `mode` (DECODE_CAPTURED or DECODE_EAGER). */
static void probe_decode(int mode, unsigned step, unsigned repeats)
{
    static decode_state st;
    size_t size = 0;
    void *img = image_read("../examples/paged_attention.callable", &size);
    ChipStorageTaskArgs args;
    decode_result res;
    example_check_result ok;
    uint64_t ns;
    memset(&res, 0, sizeof(res));
    check(step >= DECODE_DEFAULT_STEPS, "step < 16");
    check(decode_open(&st, img, size, mode, DECODE_DEFAULT_STEPS), "decode_open");
    if (mode == DECODE_CAPTURED && getenv("PROBE_DOT") != NULL)
        check(simdev_graph_debug_dot(st.graph, getenv("PROBE_DOT")), "graph_debug_dot");
    decode_case(&st.c, step);
    check(example_inputs_prepare(st.ctx, &st.c, &st.b, step + 1), "inputs");
    check(example_args_make(&st.c, &st.b, &args), "args");
    pin_main();
    for (unsigned i = 0; i < repeats; i++) {
        check(decode_step_run(&st, mode, &args, &ns, &res), "decode step");
        if (i == 0) {
            check(example_output_check(st.ctx, &st.c, &st.b, &ok), "output check");
            check(ok.mismatches != 0, "golden");
        }
    }
    check(decode_close(&st, mode), "decode_close");
    free(img);
}

static void probe_bare(unsigned repeats)
{
    simdev_stream_t s;
    check(simdev_stream_create(&s), "stream_create");
    for (unsigned i = 0; i < repeats; i++) {
        check(simdev_launch_kernel(s, SIMDEV_ENGINE_AICORE, empty_kernel, 1, NULL, 0), "launch");
        check(simdev_stream_synchronize(s), "synchronize");
    }
    check(simdev_stream_destroy(s), "stream_destroy");
}

static void probe_launch(unsigned nodes, unsigned repeats)
{
    simdev_stream_t s;
    simdev_graph_t g = NULL;
    check(simdev_stream_create(&s), "stream_create");
    check(simdev_capture_begin(s, SIMDEV_CAPTURE_MODE_GLOBAL), "capture_begin");
    for (unsigned i = 0; i < nodes; i++)
        check(simdev_launch_kernel(s, SIMDEV_ENGINE_AICORE, empty_kernel, 1, NULL, 0), "launch");
    check(simdev_capture_end(s, &g), "capture_end");
    /* The first launch starts what a graph needs once; keep it apart. */
    check(simdev_graph_launch(g, s), "graph_launch");
    check(simdev_stream_synchronize(s), "synchronize");
    for (unsigned i = 0; i < repeats; i++)
        check(simdev_graph_launch(g, s), "graph_launch");
    check(simdev_stream_synchronize(s), "synchronize");
    check(simdev_graph_destroy(g), "graph_destroy");
    check(simdev_stream_destroy(s), "stream_destroy");
}

/* R x simpler_run of `shape` after one run that checks the result. */
static void probe_run(unsigned shape, unsigned repeats)
{
    struct simpler_program *p = NULL;
    struct simpler_run_sample sample;
    const char *stage = "";
    char path[PATH_BYTES + 64];
    uint32_t bad = 0;
    check(shape >= DAG_SHAPE_COUNT, "shape 0..2");
    beside_exe("callables/bench_dag.callable", path, sizeof(path));
    check(simpler_program_create(path, &p, &stage), stage);
    check(simpler_program_verify(p, (enum dag_shape)shape, &bad), "check-value run");
    pin_main();
    for (unsigned i = 0; i < repeats; i++)
        check(simpler_program_run(p, (enum dag_shape)shape, &sample), "simpler_run");
    simpler_program_destroy(p);
}

int main(int argc, char **argv)
{
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "replay") == 0)
        probe_vadd(argc == 4 ? (unsigned)atoi(argv[3]) : 2u, (unsigned)atoi(argv[2]), 0);
    else if (argc == 3 && strcmp(argv[1], "w3") == 0)
        probe_w3((unsigned)atoi(argv[2]));
    else if (argc == 4 && strcmp(argv[1], "slot") == 0)
        probe_decode(DECODE_CAPTURED, (unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]));
    else if (argc == 4 && strcmp(argv[1], "eager") == 0)
        probe_decode(DECODE_EAGER, (unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]));
    else if (argc == 4 && strcmp(argv[1], "vadd") == 0)
        probe_vadd((unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]), 1);
    else if (argc == 3 && strcmp(argv[1], "bare") == 0)
        probe_bare((unsigned)atoi(argv[2]));
    else if (argc == 4 && strcmp(argv[1], "launch") == 0)
        probe_launch((unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]));
    else if (argc == 4 && strcmp(argv[1], "prun") == 0)
        probe_vadd_program((unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]));
    else if (argc == 4 && strcmp(argv[1], "run") == 0)
        probe_run((unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]));
    else {
        fprintf(stderr, "usage: probe_replay replay R [N] | w3 R | slot STEP R | eager STEP R | vadd N R |\n"
                        "       bare R | launch NODES R | prun N R | run SHAPE R\n");
        return 2;
    }
    check(simdev_finalize(), "simdev_finalize");
    return 0;
}
