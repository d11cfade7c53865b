/* The thread-safety statements of runtime_c_api.h, each exercised from
 * several threads at once over the "vadd" fixture image (f = 2 * (a + b
 * + R)): one kernel context whose entry points (launch, write_args,
 * launch_slot, prepare_callable, errors, the getters) are called from
 * four threads at once; concurrent trace exports of one context, to
 * distinct paths and to one path; kernel contexts living their whole
 * life on different threads and devices at once; a program context
 * shared by a runner and a thread using its other entry points; the
 * host sizing entries from many threads; the per-thread refusal
 * reason; and what the calling thread's current device is after each
 * context entry point. Every result is checked exactly; nothing depends
 * on timing. Workers never call cmocka: they record the first failing
 * line for the test thread, which asserts. TSan runs this suite too. */
#define _GNU_SOURCE
#include "support.h"

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../integration/kernel/kernel_fixture.h"
#include "../../integration/program/image_fixture.h"
#include "stress_scale.h"

#define ROUNDS_MAX 4u
#define SLOTS 3u
#define OTHER_ID (KFIX_ID + 1)
#define OUT_DIR SIMPLER_BINARY_DIR "/tests"

/* Loading callables on several threads at once (sizing, prepare, init
 * of distinct contexts) once made TSan report the dynamic loader's own
 * bookkeeping as a race; loader.c now runs every dlopen and dlclose under
 * a lock TSan sees, so this suite needs no suppression. */

/* ---- failure notes from worker threads ---- */

static atomic_int fail_count;
static atomic_int fail_line;

static int note_fail(int line)
{
    int none = 0;
    atomic_fetch_add(&fail_count, 1);
    atomic_compare_exchange_strong(&fail_line, &none, line);
    return 0;
}

/* 1 when cond holds; otherwise notes the line and gives 0. */
#define WCHECK(cond) ((cond) ? 1 : note_fail(__LINE__))

static void fails_reset(void)
{
    atomic_store(&fail_count, 0);
    atomic_store(&fail_line, 0);
}

static void fails_assert_none(void)
{
    if (atomic_load(&fail_count) != 0)
        fail_msg("%d worker check(s) failed; the first at line %d of %s", atomic_load(&fail_count),
                 atomic_load(&fail_line), __FILE__);
}

static void threads_run(void *(*fn)(void *), void *args, size_t stride, int count)
{
    pthread_t t[8];
    assert_true(count <= 8);
    for (int i = 0; i < count; i++)
        assert_int_equal(pthread_create(&t[i], NULL, fn, (char *)args + (size_t)i * stride), 0);
    for (int i = 0; i < count; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
}

/* ---- cmocka-free helpers for the workers ---- */

static int bufs_alloc(kbufs *d)
{
    size_t bytes = VADD_N * sizeof(float);
    return simdev_malloc(&d->a, bytes) == SIMDEV_SUCCESS && simdev_malloc(&d->b, bytes) == SIMDEV_SUCCESS &&
                   simdev_malloc(&d->f, bytes) == SIMDEV_SUCCESS
               ? 0
               : -1;
}

static int bufs_free(kbufs *d)
{
    return simdev_free(d->a) == SIMDEV_SUCCESS && simdev_free(d->b) == SIMDEV_SUCCESS &&
                   simdev_free(d->f) == SIMDEV_SUCCESS
               ? 0
               : -1;
}

static int bufs_upload(const kbufs *d, vadd_buffers *v, float seed)
{
    vadd_buffers_fill(v, seed);
    return simdev_memcpy(d->a, v->a, sizeof v->a) == SIMDEV_SUCCESS &&
                   simdev_memcpy(d->b, v->b, sizeof v->b) == SIMDEV_SUCCESS &&
                   simdev_memcpy(d->f, v->f, sizeof v->f) == SIMDEV_SUCCESS
               ? 0
               : -1;
}

static int bufs_check(const kbufs *d, vadd_buffers *v, uint64_t rounds)
{
    if (simdev_memcpy(v->f, d->f, sizeof v->f) != SIMDEV_SUCCESS)
        return -1;
    return vadd_check(v, rounds);
}

static void args_of(ChipStorageTaskArgs *args, const kbufs *d, uint64_t rounds)
{
    vadd_args_make(args, d->a, d->b, d->f, SIMPLER_ADDRESS_SPACE_DEVICE, rounds, 0);
}

/* What a vadd graph of `rounds` needs (DEVICE tensors; the addresses are
 * never dereferenced by the sizing). */
static int requirements_of(uint64_t rounds, SimplerGraphRequirements *req)
{
    static const float dummy[3][VADD_N];
    ChipStorageTaskArgs args;
    vadd_args_make(&args, (void *)dummy[0], (void *)dummy[1], (void *)dummy[2], SIMPLER_ADDRESS_SPACE_DEVICE,
                   rounds, 0);
    return simpler_graph_requirements(image.bytes, image.size, &args, req);
}

/* A kernel context of the calling thread on `device` (made current),
 * with its own caller stream, ready to launch KFIX_ID. */
typedef struct kctx {
    DeviceContextHandle ctx;
    simdev_stream_t stream;
    uint32_t task_records; /* trace records for a graph of ROUNDS_MAX */
} kctx;

static int kctx_open(kctx *k, int device, int traced, uint32_t slots)
{
    SimplerGraphRequirements req;
    SimplerKernelCtxControl c, freeze = kfix_freeze();
    memset(k, 0, sizeof *k);
    if (simdev_set_device(device) != SIMDEV_SUCCESS || requirements_of(ROUNDS_MAX, &req) != 0 ||
        simpler_kernel_plan_capacity(&req, 1, &c) != 0)
        return -1;
    k->task_records = (uint32_t)req.task_count;
    c.trace_records = traced ? k->task_records : 0;
    c.arg_slot_count = slots;
    if ((k->ctx = create_device_context()) == NULL || simdev_stream_create(&k->stream) != SIMDEV_SUCCESS)
        return -1;
    if (simpler_kernel_mode_ctx_control(k->ctx, &c) != 0 || simpler_kernel_mode_init(k->ctx, device, NULL, 7) != 0 ||
        simpler_kernel_mode_prepare_callable(k->ctx, KFIX_ID, image.bytes, image.size, k->stream) != 0 ||
        simpler_kernel_mode_ctx_control(k->ctx, &freeze) != 0)
        return -1;
    return 0;
}

static int kctx_close(kctx *k)
{
    int ok = simdev_stream_synchronize(k->stream) == SIMDEV_SUCCESS;
    ok = ok && finalize_device(k->ctx) == 0;
    destroy_device_context(k->ctx);
    ok = ok && simdev_stream_destroy(k->stream) == SIMDEV_SUCCESS;
    return ok ? 0 : -1;
}

static int read_file(const char *path, char **bytes, size_t *size)
{
    FILE *f = fopen(path, "rb");
    long n;
    *bytes = NULL;
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
        (*bytes = malloc((size_t)n + 1)) == NULL || fread(*bytes, 1, (size_t)n, f) != (size_t)n) {
        if (f != NULL)
            fclose(f);
        free(*bytes);
        *bytes = NULL;
        return -1;
    }
    fclose(f);
    (*bytes)[n] = '\0';
    *size = (size_t)n;
    return 0;
}

/* 0 when the two files exist and hold the same bytes. */
static int files_equal(const char *p, const char *q)
{
    char *a, *b;
    size_t na, nb;
    if (read_file(p, &a, &na) != 0)
        return -1;
    if (read_file(q, &b, &nb) != 0) {
        free(a);
        return -1;
    }
    int same = na == nb && na > 0 && memcmp(a, b, na) == 0;
    free(a);
    free(b);
    return same ? 0 : -1;
}

/* ---- 1. one kernel context, its entry points from four threads ---- */

#define SHARED_LAUNCHES STRESS_COUNT(96)
#define SHARED_SLOT_STEPS STRESS_COUNT(96)
#define SHARED_OBSERVES STRESS_COUNT(800)
#define SHARED_PREPARES 4

typedef struct shared_kernel {
    kctx k;
    kbufs launch_d[SHARED_LAUNCHES];
    vadd_buffers launch_v[SHARED_LAUNCHES];
    kbufs slot_d[SHARED_SLOT_STEPS];
    vadd_buffers slot_v[SHARED_SLOT_STEPS];
    size_t committed;
    uint64_t heap_base, temp_base;
    atomic_int writers_done;
} shared_kernel;

static shared_kernel sk;

typedef struct role {
    int which;
} role;

static void shared_launcher(void)
{
    for (uint32_t i = 0; i < SHARED_LAUNCHES; i++) {
        ChipStorageTaskArgs args;
        args_of(&args, &sk.launch_d[i], i % (ROUNDS_MAX + 1));
        WCHECK(simpler_kernel_mode_launch(sk.k.ctx, KFIX_ID, &args, sk.k.stream) == 0);
        WCHECK(simpler_last_error_message()[0] == '\0');
    }
}

/* write_args then launch_slot, both on the shared stream: the store of
 * step i precedes its launch_slot in stream order, whatever the other
 * threads enqueue between them. */
static void shared_slot_writer(void)
{
    for (uint32_t i = 0; i < SHARED_SLOT_STEPS; i++) {
        ChipStorageTaskArgs args;
        uint32_t slot = i % SLOTS;
        args_of(&args, &sk.slot_d[i], (i + 1) % (ROUNDS_MAX + 1));
        WCHECK(simpler_kernel_mode_write_args(sk.k.ctx, slot, KFIX_ID, &args, sk.k.stream) == 0);
        WCHECK(simpler_kernel_mode_launch_slot(sk.k.ctx, slot, sk.k.stream) == 0);
    }
}

/* Prepares another id again and again (never launched, so unloading its
 * old binary is allowed) on the shared stream. */
static void shared_preparer(void)
{
    size_t before = get_host_dlopen_count(sk.k.ctx);
    for (int i = 0; i < SHARED_PREPARES; i++)
        WCHECK(simpler_kernel_mode_prepare_callable(sk.k.ctx, OTHER_ID, image.bytes, image.size, sk.k.stream) == 0);
    WCHECK(get_host_dlopen_count(sk.k.ctx) >= before + SHARED_PREPARES);
}

/* The entries that only read: each answer is the same throughout. */
static void shared_observer(void)
{
    for (uint32_t i = 0; i < SHARED_OBSERVES; i++) {
        int runtime = -1, teardown = -1;
        WCHECK(simpler_kernel_mode_errors(sk.k.ctx, &runtime, &teardown) == 0);
        WCHECK(runtime == 0 && teardown == 0);
        WCHECK(simpler_kernel_mode_supported(sk.k.ctx) == 1);
        WCHECK(committed_device_memory_ctx(sk.k.ctx) == sk.committed);
        WCHECK(get_arena_bank_gm_heap_base_ctx(sk.k.ctx, 0) == sk.heap_base);
        WCHECK(get_retained_temp_addr_ctx(sk.k.ctx, 0) == sk.temp_base);
        (void)get_aicpu_dlopen_count(sk.k.ctx);
        /* A refusal of this thread's own, then a success that clears it. */
        WCHECK(simpler_kernel_mode_launch_slot(sk.k.ctx, SLOTS, sk.k.stream) == PTO_RUNTIME_ERR_INVALID_ARGUMENT);
        WCHECK(strstr(simpler_last_error_message(), "slot") != NULL);
        WCHECK(simpler_kernel_mode_supported(sk.k.ctx) == 1 && simpler_last_error_message()[0] == '\0');
    }
}

static void *shared_main(void *arg)
{
    const role *r = arg;
    /* Every thread launches on device 0's stream: make it current. */
    WCHECK(simdev_set_device(0) == SIMDEV_SUCCESS);
    switch (r->which) {
    case 0:
        shared_launcher();
        break;
    case 1:
        shared_slot_writer();
        break;
    case 2:
        shared_preparer();
        break;
    default:
        shared_observer();
        break;
    }
    return NULL;
}

static void kernel_one_context_entry_points_from_four_threads_at_once(void **state)
{
    static role roles[4] = {{0}, {1}, {2}, {3}};
    int runtime = -1, teardown = -1;
    (void)state;
    fails_reset();
    assert_int_equal(kctx_open(&sk.k, 0, 1, SLOTS), 0);
    for (uint32_t i = 0; i < SHARED_LAUNCHES; i++) {
        assert_int_equal(bufs_alloc(&sk.launch_d[i]), 0);
        assert_int_equal(bufs_upload(&sk.launch_d[i], &sk.launch_v[i], 1.0f + (float)i), 0);
    }
    for (uint32_t i = 0; i < SHARED_SLOT_STEPS; i++) {
        assert_int_equal(bufs_alloc(&sk.slot_d[i]), 0);
        assert_int_equal(bufs_upload(&sk.slot_d[i], &sk.slot_v[i], 1000.0f + (float)i), 0);
    }
    sk.committed = committed_device_memory_ctx(sk.k.ctx);
    sk.heap_base = get_arena_bank_gm_heap_base_ctx(sk.k.ctx, 0);
    sk.temp_base = get_retained_temp_addr_ctx(sk.k.ctx, 0);
    threads_run(shared_main, roles, sizeof roles[0], 4);
    fails_assert_none();
    assert_int_equal(simdev_stream_synchronize(sk.k.stream), SIMDEV_SUCCESS);
    assert_int_equal(simpler_kernel_mode_errors(sk.k.ctx, &runtime, &teardown), 0);
    assert_int_equal(runtime, 0);
    assert_int_equal(teardown, 0);
    for (uint32_t i = 0; i < SHARED_LAUNCHES; i++)
        if (bufs_check(&sk.launch_d[i], &sk.launch_v[i], i % (ROUNDS_MAX + 1)) != 0)
            fail_msg("launch %u: result differs from its golden", i);
    for (uint32_t i = 0; i < SHARED_SLOT_STEPS; i++)
        if (bufs_check(&sk.slot_d[i], &sk.slot_v[i], (i + 1) % (ROUNDS_MAX + 1)) != 0)
            fail_msg("slot step %u: result differs from its golden", i);
    for (uint32_t i = 0; i < SHARED_LAUNCHES; i++)
        assert_int_equal(bufs_free(&sk.launch_d[i]), 0);
    for (uint32_t i = 0; i < SHARED_SLOT_STEPS; i++)
        assert_int_equal(bufs_free(&sk.slot_d[i]), 0);
    assert_int_equal(kctx_close(&sk.k), 0);
}

/* ---- 2. trace exports of one context from several threads ---- */

#define EXPORTS STRESS_COUNT(24)
#define EXPORTERS 3

static kctx ek;

typedef struct exporter {
    int index;
    char own[256];
} exporter;

static const char shared_path[] = OUT_DIR "/threads_claims_trace_shared.json";

/* Exports (no execution in flight: the caller synchronized first) to its
 * own path and to one path all exporters share, and reads the errors. */
static void *exporter_main(void *arg)
{
    exporter *e = arg;
    for (int i = 0; i < EXPORTS; i++) {
        int runtime = -1;
        WCHECK(simpler_kernel_mode_trace_export(ek.ctx, e->own) == 0);
        WCHECK(simpler_kernel_mode_trace_export(ek.ctx, shared_path) == 0);
        WCHECK(simpler_kernel_mode_errors(ek.ctx, &runtime, NULL) == 0 && runtime == 0);
    }
    return NULL;
}

/* No "<name>.partial.*" file left beside `path`'s name in OUT_DIR. */
static int partial_files_left(const char *name)
{
    DIR *dir = opendir(OUT_DIR);
    struct dirent *entry;
    char prefix[256];
    int left = 0;
    snprintf(prefix, sizeof prefix, "%s.partial.", name);
    if (dir == NULL)
        return -1;
    while ((entry = readdir(dir)) != NULL)
        left += strncmp(entry->d_name, prefix, strlen(prefix)) == 0;
    closedir(dir);
    return left;
}

static void kernel_trace_exports_of_one_context_from_three_threads_are_identical(void **state)
{
    static exporter ex[EXPORTERS];
    static vadd_buffers v;
    static const char reference[] = OUT_DIR "/threads_claims_trace_reference.json";
    kbufs d;
    ChipStorageTaskArgs args;
    (void)state;
    fails_reset();
    assert_int_equal(kctx_open(&ek, 0, 1, 0), 0);
    assert_int_equal(bufs_alloc(&d), 0);
    assert_int_equal(bufs_upload(&d, &v, 5.0f), 0);
    args_of(&args, &d, 3);
    assert_int_equal(simpler_kernel_mode_launch(ek.ctx, KFIX_ID, &args, ek.stream), 0);
    assert_int_equal(simdev_stream_synchronize(ek.stream), SIMDEV_SUCCESS);
    assert_int_equal(bufs_check(&d, &v, 3), 0);
    assert_int_equal(simpler_kernel_mode_trace_export(ek.ctx, reference), 0);
    for (int i = 0; i < EXPORTERS; i++) {
        ex[i].index = i;
        snprintf(ex[i].own, sizeof ex[i].own, OUT_DIR "/threads_claims_trace_%d.json", i);
    }
    threads_run(exporter_main, ex, sizeof ex[0], EXPORTERS);
    fails_assert_none();
    for (int i = 0; i < EXPORTERS; i++) {
        assert_int_equal(files_equal(reference, ex[i].own), 0);
        unlink(ex[i].own);
    }
    assert_int_equal(files_equal(reference, shared_path), 0);
    assert_int_equal(partial_files_left("threads_claims_trace_shared.json"), 0);
    unlink(shared_path);
    unlink(reference);
    assert_int_equal(bufs_free(&d), 0);
    assert_int_equal(kctx_close(&ek), 0);
}

/* ---- 3. kernel contexts living their whole life on different threads ---- */

#define LIFE_THREADS 3
#define LIVES 2
#define LIFE_LAUNCHES STRESS_COUNT(24)

typedef struct life {
    int index;
    int device;
    char path[256];
    vadd_buffers v;
} life;

static void *life_main(void *arg)
{
    life *l = arg;
    for (int n = 0; n < LIVES; n++) {
        kctx k;
        kbufs d;
        if (!WCHECK(kctx_open(&k, l->device, 1, 0) == 0))
            return NULL;
        WCHECK(bufs_alloc(&d) == 0);
        for (uint32_t i = 0; i < LIFE_LAUNCHES; i++) {
            ChipStorageTaskArgs args;
            uint64_t rounds = (uint64_t)(i + (uint32_t)l->index) % (ROUNDS_MAX + 1);
            WCHECK(bufs_upload(&d, &l->v, 100.0f * (float)l->index + (float)i) == 0);
            args_of(&args, &d, rounds);
            WCHECK(simpler_kernel_mode_launch(k.ctx, KFIX_ID, &args, k.stream) == 0);
            WCHECK(simdev_stream_synchronize(k.stream) == SIMDEV_SUCCESS);
            WCHECK(bufs_check(&d, &l->v, rounds) == 0);
        }
        WCHECK(simpler_kernel_mode_trace_export(k.ctx, l->path) == 0);
        WCHECK(bufs_free(&d) == 0);
        WCHECK(kctx_close(&k) == 0);
    }
    return NULL;
}

static void kernel_contexts_whole_lives_on_three_threads_and_two_devices_at_once(void **state)
{
    static life lives[LIFE_THREADS];
    (void)state;
    fails_reset();
    for (int i = 0; i < LIFE_THREADS; i++) {
        lives[i].index = i;
        lives[i].device = i % 2;
        snprintf(lives[i].path, sizeof lives[i].path, OUT_DIR "/threads_claims_life_%d.json", i);
    }
    threads_run(life_main, lives, sizeof lives[0], LIFE_THREADS);
    fails_assert_none();
    for (int i = 0; i < LIFE_THREADS; i++) {
        assert_int_equal(access(lives[i].path, F_OK), 0);
        unlink(lives[i].path);
    }
}

/* ---- 4. one program context: a runner and the other entry points ---- */

#define PROGRAM_RUNS STRESS_COUNT(48)
#define PROGRAM_OTHERS STRESS_COUNT(48)

typedef struct program_shared {
    DeviceContextHandle ctx;
    vadd_buffers run_v;
    vadd_buffers copy_v;
} program_shared;

static program_shared ps;

static void *program_runner(void *arg)
{
    (void)arg;
    for (uint32_t i = 0; i < PROGRAM_RUNS; i++) {
        ChipStorageTaskArgs args;
        uint64_t rounds = i % (ROUNDS_MAX + 1);
        vadd_buffers_fill(&ps.run_v, 2.0f * (float)i);
        vadd_args_make(&args, ps.run_v.a, ps.run_v.b, ps.run_v.f, SIMPLER_ADDRESS_SPACE_HOST, rounds, 0);
        WCHECK(simpler_run(ps.ctx, 0, &args, NULL) == 0);
        WCHECK(vadd_check(&ps.run_v, rounds) == 0);
    }
    return NULL;
}

static void *program_other(void *arg)
{
    (void)arg;
    for (uint32_t i = 0; i < PROGRAM_OTHERS; i++) {
        SimplerRunTimes t = {.struct_size = sizeof t};
        size_t bytes = sizeof ps.copy_v.a;
        /* A run completed before the threads started, and every run here
         * succeeds, so the times are always there. */
        WCHECK(simpler_run_times(ps.ctx, &t) == 0);
        if (i % 8 == 0) {
            WCHECK(simpler_register_callable(ps.ctx, 1, image.bytes, image.size) == 0);
            WCHECK(simpler_unregister_callable(ps.ctx, 1) == 0);
        }
        void *dev = device_malloc_ctx(ps.ctx, bytes);
        if (!WCHECK(dev != NULL))
            continue;
        vadd_buffers_fill(&ps.copy_v, (float)i);
        memcpy(ps.copy_v.f, ps.copy_v.a, bytes);
        memset(ps.copy_v.a, 0, bytes);
        WCHECK(copy_to_device_ctx(ps.ctx, dev, ps.copy_v.f, bytes) == 0);
        WCHECK(copy_from_device_ctx(ps.ctx, ps.copy_v.a, dev, bytes) == 0);
        WCHECK(memcmp(ps.copy_v.a, ps.copy_v.f, bytes) == 0);
        device_free_ctx(ps.ctx, dev);
        WCHECK(simpler_last_error_message()[0] == '\0');
        WCHECK(committed_device_memory_ctx(ps.ctx) > 0);
    }
    return NULL;
}

static void program_one_context_runner_and_other_entry_points_at_once(void **state)
{
    pthread_t runner, other;
    ChipStorageTaskArgs args;
    (void)state;
    fails_reset();
    ps.ctx = create_device_context();
    assert_non_null(ps.ctx);
    assert_int_equal(simpler_init(ps.ctx, 1, NULL), 0);
    assert_int_equal(simpler_register_callable(ps.ctx, 0, image.bytes, image.size), 0);
    vadd_buffers_fill(&ps.run_v, 9.0f);
    vadd_args_make(&args, ps.run_v.a, ps.run_v.b, ps.run_v.f, SIMPLER_ADDRESS_SPACE_HOST, 1, 0);
    assert_int_equal(simpler_run(ps.ctx, 0, &args, NULL), 0);
    assert_int_equal(pthread_create(&runner, NULL, program_runner, NULL), 0);
    assert_int_equal(pthread_create(&other, NULL, program_other, NULL), 0);
    assert_int_equal(pthread_join(runner, NULL), 0);
    assert_int_equal(pthread_join(other, NULL), 0);
    fails_assert_none();
    assert_int_equal(finalize_device(ps.ctx), 0);
    destroy_device_context(ps.ctx);
}

/* ---- 5. host sizing from many threads ---- */

#define SIZERS 4
#define SIZINGS STRESS_COUNT(32)

static SimplerGraphRequirements sizing_reference[ROUNDS_MAX + 1];

typedef struct sizing {
    int index;
    char dot[256];
} sizing;

static void *sizing_main(void *arg)
{
    sizing *s = arg;
    static const float dummy[3][VADD_N];
    SimplerGraphSizer *sizer = NULL;
    if (!WCHECK(simpler_graph_sizer_create(image.bytes, image.size, 4, &sizer) == 0))
        return NULL;
    for (uint32_t i = 0; i < SIZINGS; i++) {
        SimplerGraphRequirements req, via_sizer;
        SimplerKernelCtxControl c, reference_c;
        SimplerKernelLayout layout, reference_layout;
        ChipStorageTaskArgs args;
        uint64_t rounds = (i + (uint32_t)s->index) % (ROUNDS_MAX + 1);
        vadd_args_make(&args, (void *)dummy[0], (void *)dummy[1], (void *)dummy[2], SIMPLER_ADDRESS_SPACE_DEVICE,
                       rounds, 0);
        WCHECK(simpler_graph_requirements(image.bytes, image.size, &args, &req) == 0);
        WCHECK(memcmp(&req, &sizing_reference[rounds], sizeof req) == 0);
        WCHECK(simpler_graph_sizer_measure(sizer, &args, &via_sizer) == 0);
        WCHECK(memcmp(&via_sizer, &sizing_reference[rounds], sizeof req) == 0);
        WCHECK(simpler_kernel_plan_capacity(&req, 1, &c) == 0);
        WCHECK(simpler_kernel_plan_capacity(&sizing_reference[rounds], 1, &reference_c) == 0);
        WCHECK(memcmp(&c, &reference_c, sizeof c) == 0);
        WCHECK(simpler_kernel_layout(&c, &layout) == 0 && simpler_kernel_layout(&reference_c, &reference_layout) == 0);
        WCHECK(memcmp(&layout, &reference_layout, sizeof layout) == 0);
        if (i % 8 == 0)
            WCHECK(simpler_graph_dot(image.bytes, image.size, &args, s->dot) == 0);
    }
    simpler_graph_sizer_destroy(sizer);
    return NULL;
}

static void sizing_entries_from_four_threads_match_a_single_thread(void **state)
{
    static sizing s[SIZERS];
    (void)state;
    fails_reset();
    for (uint64_t r = 0; r <= ROUNDS_MAX; r++)
        assert_int_equal(requirements_of(r, &sizing_reference[r]), 0);
    for (int i = 0; i < SIZERS; i++) {
        s[i].index = i;
        snprintf(s[i].dot, sizeof s[i].dot, OUT_DIR "/threads_claims_%d.dot", i);
    }
    threads_run(sizing_main, s, sizeof s[0], SIZERS);
    fails_assert_none();
    for (int i = 0; i < SIZERS; i++) {
        assert_int_equal(access(s[i].dot, F_OK), 0);
        unlink(s[i].dot);
    }
}

/* ---- 6. simpler_last_error_message belongs to the calling thread ---- */

#define REASON_ROUNDS STRESS_COUNT(64)
#define REASON_THREADS 4

static pthread_barrier_t reason_barrier;

typedef struct reasoner {
    int index;
    DeviceContextHandle ctx; /* a kernel context in New, shared by all */
} reasoner;

/* Each thread is refused for a reason of its own, all wait until every
 * thread was refused, then each reads its own reason back; then half of
 * them succeed and the other half still read their own reason. */
static void *reason_main(void *arg)
{
    reasoner *r = arg;
    char expect[64];
    for (int n = 0; n < REASON_ROUNDS; n++) {
        SimplerGraphSizer *sizer = NULL;
        uint32_t window = (1u << 20) + 1u + (uint32_t)r->index;
        snprintf(expect, sizeof expect, "task_window = %u", window);
        WCHECK(simpler_unregister_callable(NULL, 0) == PTO_RUNTIME_ERR_INVALID_ARGUMENT);
        /* A refusal naming this thread's own value. */
        WCHECK(simpler_graph_sizer_create(image.bytes, image.size, window, &sizer) ==
               PTO_RUNTIME_ERR_INVALID_ARGUMENT);
        WCHECK(sizer == NULL);
        pthread_barrier_wait(&reason_barrier);
        WCHECK(strstr(simpler_last_error_message(), expect) != NULL);
        pthread_barrier_wait(&reason_barrier);
        if (r->index % 2 == 0)
            WCHECK(simpler_kernel_mode_supported(r->ctx) == 1 && simpler_last_error_message()[0] == '\0');
        pthread_barrier_wait(&reason_barrier);
        if (r->index % 2 == 1)
            WCHECK(strstr(simpler_last_error_message(), expect) != NULL);
        else
            WCHECK(simpler_last_error_message()[0] == '\0');
        pthread_barrier_wait(&reason_barrier);
    }
    return NULL;
}

static void reasons_belong_to_the_calling_thread(void **state)
{
    static reasoner rs[REASON_THREADS];
    (void)state;
    fails_reset();
    DeviceContextHandle shared = create_device_context();
    assert_non_null(shared);
    assert_int_equal(pthread_barrier_init(&reason_barrier, NULL, REASON_THREADS), 0);
    for (int i = 0; i < REASON_THREADS; i++) {
        rs[i].index = i;
        rs[i].ctx = shared;
    }
    /* This thread's reason is its own: "" before, and after the workers. */
    assert_int_equal(simpler_kernel_mode_supported(shared), 1);
    threads_run(reason_main, rs, sizeof rs[0], REASON_THREADS);
    assert_string_equal(simpler_last_error_message(), "");
    fails_assert_none();
    assert_int_equal(pthread_barrier_destroy(&reason_barrier), 0);
    destroy_device_context(shared);
}

/* ---- 7. the calling thread's current device after program entries ---- */

static int current_device(void)
{
    int device = -1;
    assert_int_equal(simdev_get_device(&device), SIMDEV_SUCCESS);
    return device;
}

/* docs/program-mode.md: program entry points select the context's
 * device, "but none leaves the caller switched". destroy_device_context
 * finalizes a program context that was not finalized; that finalize
 * selects the device too, so it must restore it as well. */
static void program_destroy_without_finalize_leaves_the_callers_device(void **state)
{
    (void)state;
    assert_int_equal(simdev_set_device(0), SIMDEV_SUCCESS);
    DeviceContextHandle ctx = create_device_context();
    assert_non_null(ctx);
    assert_int_equal(simpler_init(ctx, 1, NULL), 0);
    assert_int_equal(current_device(), 0);
    destroy_device_context(ctx);
    int after = current_device();
    /* Leave the thread as the other tests expect it, then judge. */
    assert_int_equal(simdev_set_device(0), SIMDEV_SUCCESS);
    assert_int_equal(after, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kernel_one_context_entry_points_from_four_threads_at_once),
        cmocka_unit_test(kernel_trace_exports_of_one_context_from_three_threads_are_identical),
        cmocka_unit_test(kernel_contexts_whole_lives_on_three_threads_and_two_devices_at_once),
        cmocka_unit_test(program_one_context_runner_and_other_entry_points_at_once),
        cmocka_unit_test(sizing_entries_from_four_threads_match_a_single_thread),
        cmocka_unit_test(reasons_belong_to_the_calling_thread),
        cmocka_unit_test(program_destroy_without_finalize_leaves_the_callers_device),
    };
    return cmocka_run_group_tests(tests, image_group_setup, image_group_teardown);
}
