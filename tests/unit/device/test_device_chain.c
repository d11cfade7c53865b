/* The device chain enqueues exactly the chain of device_chain.h, with nothing
 * allocated or synchronized, and a captured chain replays. */
#include "device_test_util.h"

#include "common/host_alloc.h"

/* ---- a recording launch table (no device behind it) ---- */

enum { OP_RECORD = 1, OP_WAIT, OP_MEMSET, OP_MEMCPY, OP_LAUNCH, OP_QUERY };

typedef struct op {
    int kind;
    const void *stream;
    const void *event;
    int engine;
    platform_kernel_fn fn;
    uint32_t blocks;
    size_t bytes;
} op;

typedef struct recorder {
    op ops[32];
    int count;
    int fail_at; /* 1-based call that fails, 0 none */
} recorder;

static int rec(void *user, op o)
{
    recorder *r = user;
    if (r->count < 32)
        r->ops[r->count] = o;
    r->count++;
    return r->count == r->fail_at ? SIMDEV_ERROR_MEMORY_ALLOCATION : 0;
}

static int r_memcpy(void *user, void *dst, const void *src, size_t size, platform_stream *stream)
{
    (void)dst, (void)src;
    return rec(user, (op){.kind = OP_MEMCPY, .stream = stream, .bytes = size});
}

static int r_memset(void *user, void *dev, int value, size_t size, platform_stream *stream)
{
    (void)dev, (void)value;
    return rec(user, (op){.kind = OP_MEMSET, .stream = stream, .bytes = size});
}

static int r_record(void *user, platform_event *event, platform_stream *stream)
{
    return rec(user, (op){.kind = OP_RECORD, .stream = stream, .event = event});
}

static int r_wait(void *user, platform_stream *stream, platform_event *event)
{
    return rec(user, (op){.kind = OP_WAIT, .stream = stream, .event = event});
}

static int r_launch(void *user, platform_stream *stream, int engine, platform_kernel_fn fn, uint32_t blocks,
                    const void *args, size_t bytes)
{
    (void)args;
    return rec(user, (op){.kind = OP_LAUNCH, .stream = stream, .engine = engine, .fn = fn, .blocks = blocks,
                          .bytes = bytes});
}

static int r_query(void *user, platform_event *event)
{
    return rec(user, (op){.kind = OP_QUERY, .event = event});
}

static char handles[8];
#define S(i) ((platform_stream *)&handles[i])
#define E(i) ((platform_event *)&handles[3 + (i)])

typedef struct fake {
    recorder r;
    platform_launch_ops ops;
    device_streams streams;
    device_events events;
    device_run_desc desc;
    uint64_t arena[4096];
    uint8_t image[256];
    _Alignas(8) uint8_t scratch[sizeof(device_run_desc) + 256];
} fake;

static fake *fake_new(void)
{
    fake *k = calloc(1, sizeof(*k));
    assert_non_null(k);
    k->ops = (platform_launch_ops){&k->r, r_memcpy, r_memset, r_record, r_wait, r_launch, r_query};
    k->streams = (device_streams){S(0), S(1), S(2)};
    k->events = (device_events){E(0), E(1), E(2), E(3), E(4)};
    device_run_desc *d = &k->desc;
    d->version = DEVICE_RUN_DESC_VERSION;
    d->desc_bytes = sizeof(*d);
    d->aic_count = 1;
    d->aiv_count = 2;
    d->task_count = 4;
    d->inline_bytes = 256;
    d->image_bytes = 256;
    d->runtime_base = (uintptr_t)k->arena;
    d->runtime_bytes = sizeof(k->arena);
    d->definition_base = d->scheduler_base = (uintptr_t)k->arena;
    d->definition_bytes = 256;
    d->kernels = &dt_table;
    return k;
}

static int fake_enqueue(fake *k)
{
    return dt_chain_enqueue(&k->ops, &k->streams, &k->events, &k->desc, k->image, k->desc.inline_bytes,
                                k->scratch, sizeof(k->scratch));
}

/* The recorder saw exactly `count` operations, those of `want`. */
static void assert_ops(const recorder *r, const op *want, int count)
{
    assert_int_equal(r->count, count);
    for (int i = 0; i < count; i++) {
        const op *got = &r->ops[i];
        assert_int_equal(got->kind, want[i].kind);
        assert_ptr_equal(got->stream, want[i].stream);
        assert_ptr_equal(got->event, want[i].event);
        assert_int_equal(got->engine, want[i].engine);
        assert_true(got->fn == want[i].fn);
        assert_int_equal(got->blocks, want[i].blocks);
        assert_int_equal(got->bytes, want[i].bytes);
    }
}

static void chain_enqueues_exactly_the_spec_sequence(void **state)
{
    (void)state;
    fake *k = fake_new();
    const op want[] = {
        {OP_RECORD, S(0), E(0), 0, NULL, 0, 0},
        {OP_WAIT, S(1), E(0), 0, NULL, 0, 0},
        {OP_MEMSET, S(1), NULL, 0, NULL, 0, graph_runtime_clear_bytes(3)},
        {OP_RECORD, S(1), E(1), 0, NULL, 0, 0},
        {OP_WAIT, S(2), E(1), 0, NULL, 0, 0},
        {OP_LAUNCH, S(2), NULL, PLATFORM_ENGINE_AICORE, device_executor_kernel, 3, sizeof(device_run_desc)},
        {OP_RECORD, S(2), E(2), 0, NULL, 0, 0},
        {OP_LAUNCH, S(1), NULL, PLATFORM_ENGINE_AICPU, device_scheduler_kernel, 1, sizeof(device_run_desc) + 256},
        {OP_WAIT, S(1), E(2), 0, NULL, 0, 0},
        {OP_RECORD, S(1), E(3), 0, NULL, 0, 0},
        {OP_WAIT, S(0), E(3), 0, NULL, 0, 0},
        {OP_RECORD, S(0), E(4), 0, NULL, 0, 0},
    };
    assert_int_equal(fake_enqueue(k), 0);
    assert_ops(&k->r, want, 12);
    free(k);
}

/* A descriptor naming its started cores launches one executor block per
 * started core, in both chains; the clear still covers every core's slot
 * (the capacity), and without started cores every core's block starts. */
static void chain_launches_one_block_per_started_core(void **state)
{
    (void)state;
    for (int program = 0; program < 2; program++) {
        fake *k = fake_new();
        k->desc.aiv_started = 1;
        if (program) {
            k->desc.inline_bytes = 0;
            assert_int_equal(device_chain_enqueue_program(&k->ops, S(1), S(2), &k->desc, k->scratch,
                                                          sizeof(k->scratch)),
                             0);
        } else {
            assert_int_equal(fake_enqueue(k), 0);
        }
        int launches = 0;
        for (int i = 0; i < k->r.count; i++) {
            const op *o = &k->r.ops[i];
            if (o->kind == OP_MEMSET)
                assert_int_equal(o->bytes, graph_runtime_clear_bytes(3));
            if (o->kind == OP_LAUNCH && o->fn == device_executor_kernel) {
                assert_int_equal(o->blocks, 1);
                launches++;
            }
        }
        assert_int_equal(launches, 1);
        free(k);
    }
}

static void chain_stops_at_the_first_failing_enqueue_and_returns_its_code(void **state)
{
    (void)state;
    for (int at = 1; at <= 12; at++) {
        fake *k = fake_new();
        k->r.fail_at = at;
        assert_int_equal(fake_enqueue(k), SIMDEV_ERROR_MEMORY_ALLOCATION);
        assert_int_equal(k->r.count, at);
        free(k);
    }
}

static void chain_refuses_bad_arguments_before_any_enqueue(void **state)
{
    (void)state;
    fake *k = fake_new();
    device_streams no_aicore = {S(0), S(1), NULL};
    device_events no_tail = {E(0), E(1), E(2), E(3), NULL};

    assert_int_equal(dt_chain_enqueue(NULL, &k->streams, &k->events, &k->desc, k->image, 256, k->scratch,
                                          sizeof(k->scratch)), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(dt_chain_enqueue(&k->ops, &no_aicore, &k->events, &k->desc, k->image, 256, k->scratch,
                                          sizeof(k->scratch)), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(dt_chain_enqueue(&k->ops, &k->streams, &no_tail, &k->desc, k->image, 256, k->scratch,
                                          sizeof(k->scratch)), SIMDEV_ERROR_INVALID_PARAM);
    /* Inline bytes unlike the descriptor's, no image, short scratch. */
    assert_int_equal(dt_chain_enqueue(&k->ops, &k->streams, &k->events, &k->desc, k->image, 128, k->scratch,
                                          sizeof(k->scratch)), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(dt_chain_enqueue(&k->ops, &k->streams, &k->events, &k->desc, NULL, 256, k->scratch,
                                          sizeof(k->scratch)), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(dt_chain_enqueue(&k->ops, &k->streams, &k->events, &k->desc, k->image, 256, k->scratch,
                                          sizeof(k->scratch) - 1), SIMDEV_ERROR_INVALID_PARAM);
    /* Descriptors that cannot place the handshake slots. */
    k->desc.runtime_bytes = graph_runtime_arena_bytes(4) - 1;
    assert_int_equal(fake_enqueue(k), SIMDEV_ERROR_INVALID_PARAM);
    k->desc.runtime_bytes = sizeof(k->arena);
    k->desc.aiv_count = DEVICE_CORE_MAX;
    assert_int_equal(fake_enqueue(k), SIMDEV_ERROR_INVALID_PARAM);
    k->desc.aiv_count = 2;
    k->desc.version++;
    assert_int_equal(fake_enqueue(k), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(k->r.count, 0);
    free(k);
}

static void fake_scheduler(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx, (void)block_dim, (void)args;
}

static void chain_launch_variant_runs_the_given_scheduler_on_the_given_bytes(void **state)
{
    (void)state;
    fake *k = fake_new();
    int enqueued = -1;
    k->desc.inline_bytes = 0;
    memcpy(k->scratch, &k->desc, sizeof(k->desc));
    assert_int_equal(device_chain_enqueue_launch(&k->ops, &k->streams, &k->events, fake_scheduler, k->scratch,
                                                 sizeof(k->scratch), &enqueued), 0);
    assert_int_equal(enqueued, 1);
    /* Up to the caller's join: SerialTail is the caller's to record. */
    assert_int_equal(k->r.count, 11);
    assert_true(k->r.ops[5].fn == device_executor_kernel);
    assert_int_equal(k->r.ops[5].bytes, sizeof(device_run_desc));
    assert_true(k->r.ops[7].fn == fake_scheduler);
    assert_int_equal(k->r.ops[7].bytes, sizeof(k->scratch));
    assert_int_equal(k->r.ops[10].kind, OP_WAIT);
    assert_ptr_equal(k->r.ops[10].stream, S(0));
    assert_int_equal(device_chain_enqueue_tail(&k->ops, &k->streams, &k->events), 0);
    assert_int_equal(k->r.ops[11].kind, OP_RECORD);
    assert_ptr_equal(k->r.ops[11].event, E(4));
    assert_ptr_equal(k->r.ops[11].stream, S(0));

    /* Shorter than the descriptor, no body, or a slot-less descriptor:
     * nothing enqueued. */
    k->r.count = 0;
    assert_int_equal(device_chain_enqueue_launch(&k->ops, &k->streams, &k->events, fake_scheduler, k->scratch,
                                                 sizeof(device_run_desc) - 8, &enqueued), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(enqueued, 0);
    assert_int_equal(device_chain_enqueue_launch(&k->ops, &k->streams, &k->events, NULL, k->scratch,
                                                 sizeof(k->scratch), NULL), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(device_chain_enqueue_tail(NULL, &k->streams, &k->events), SIMDEV_ERROR_INVALID_PARAM);
    ((device_run_desc *)k->scratch)->aic_count = 0;
    ((device_run_desc *)k->scratch)->aiv_count = 0;
    assert_int_equal(device_chain_enqueue_launch(&k->ops, &k->streams, &k->events, fake_scheduler, k->scratch,
                                                 sizeof(k->scratch), NULL), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(k->r.count, 0);
    free(k);
}

/* Kernel mode poisons its context only when part of a chain is on the
 * streams: *enqueued says so from the first operation on. */
static void chain_launch_reports_whether_anything_was_enqueued(void **state)
{
    (void)state;
    for (int at = 1; at <= 11; at++) {
        fake *k = fake_new();
        int enqueued = -1;
        k->desc.inline_bytes = 0;
        memcpy(k->scratch, &k->desc, sizeof(k->desc));
        k->r.fail_at = at;
        assert_int_equal(device_chain_enqueue_launch(&k->ops, &k->streams, &k->events, fake_scheduler, k->scratch,
                                                     sizeof(k->scratch), &enqueued), SIMDEV_ERROR_MEMORY_ALLOCATION);
        assert_int_equal(k->r.count, at);
        assert_int_equal(enqueued, at > 1);
        free(k);
    }
}

/* ---- the program-mode chain: the engine streams only ---- */

static int fake_enqueue_program(fake *k, size_t scratch_bytes)
{
    return device_chain_enqueue_program(&k->ops, k->streams.aicpu, k->streams.aicore, &k->desc, k->scratch,
                                        scratch_bytes);
}

/* The two launches only: the caller clears the arena itself (a
 * synchronous memset), so no clear, record or wait is enqueued. */
static void program_chain_enqueues_the_engine_part_only(void **state)
{
    (void)state;
    fake *k = fake_new();
    k->desc.inline_bytes = 0;
    const op want[] = {
        {OP_LAUNCH, S(2), NULL, PLATFORM_ENGINE_AICORE, device_executor_kernel, 3, sizeof(device_run_desc)},
        {OP_LAUNCH, S(1), NULL, PLATFORM_ENGINE_AICPU, device_scheduler_kernel, 1, sizeof(device_run_desc)},
    };
    assert_int_equal(fake_enqueue_program(k, sizeof(k->scratch)), 0);
    assert_ops(&k->r, want, 2);
    assert_memory_equal(k->scratch, &k->desc, sizeof(k->desc)); /* the scheduler's argument */
    for (int at = 1; at <= 2; at++) {
        k->r.count = 0;
        k->r.fail_at = at;
        assert_int_equal(fake_enqueue_program(k, sizeof(k->scratch)), SIMDEV_ERROR_MEMORY_ALLOCATION);
        assert_int_equal(k->r.count, at);
    }
    free(k);
}

static void program_chain_refuses_bad_arguments_before_any_enqueue(void **state)
{
    (void)state;
    fake *k = fake_new();
    k->desc.inline_bytes = 0;
    assert_int_equal(device_chain_enqueue_program(NULL, S(1), S(2), &k->desc, k->scratch, sizeof(k->scratch)),
                     SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(device_chain_enqueue_program(&k->ops, NULL, S(2), &k->desc, k->scratch,
                                                  sizeof(k->scratch)), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(device_chain_enqueue_program(&k->ops, S(1), NULL, &k->desc, k->scratch,
                                                  sizeof(k->scratch)), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(device_chain_enqueue_program(&k->ops, S(1), S(2), NULL, k->scratch, sizeof(k->scratch)),
                     SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(device_chain_enqueue_program(&k->ops, S(1), S(2), &k->desc, NULL, sizeof(k->scratch)),
                     SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(fake_enqueue_program(k, sizeof(device_run_desc) - 8), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(device_chain_enqueue_program(&k->ops, S(1), S(2), &k->desc, k->scratch + 4,
                                                  sizeof(k->scratch) - 8), SIMDEV_ERROR_INVALID_PARAM);
    k->desc.inline_bytes = 256; /* program mode uploads its image itself */
    assert_int_equal(fake_enqueue_program(k, sizeof(k->scratch)), SIMDEV_ERROR_INVALID_PARAM);
    k->desc.inline_bytes = 0;
    k->desc.runtime_bytes = graph_runtime_arena_bytes(4) - 1; /* no room for the slots */
    assert_int_equal(fake_enqueue_program(k, sizeof(k->scratch)), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(k->r.count, 0);
    free(k);
}

/* ---- over simdev ---- */

#define N 32u

static ChipStorageTaskArgs *square_args(void **x, void **y)
{
    *x = dt_dev_alloc(N * 4);
    *y = dt_dev_alloc(N * 4);
    ChipStorageTaskArgs *args = fixture_args_new();
    dt_args_add(args, *x, N, SIMPLER_ADDRESS_SPACE_DEVICE);
    dt_args_add(args, *y, N, SIMPLER_ADDRESS_SPACE_DEVICE);
    return args;
}

static void check_square(void *x, void *y, float seed)
{
    float in[N], out[N];
    dt_download_floats(in, x, N);
    dt_download_floats(out, y, N);
    for (uint32_t i = 0; i < N; i++) {
        assert_true(in[i] == seed + (float)i);
        assert_true(out[i] == (seed + (float)i + 1.0f) * (seed + (float)i + 1.0f));
    }
}

static void upload_seed(void *x, float seed)
{
    float in[N];
    for (uint32_t i = 0; i < N; i++)
        in[i] = seed + (float)i;
    dt_upload_floats(x, in, N);
}

static void chain_enqueue_allocates_synchronizes_and_queries_nothing(void **state)
{
    dt_fixture *f = *state;
    void *x, *y;
    ChipStorageTaskArgs *args = square_args(&x, &y);
    upload_seed(x, 3.0f);
    dt_build(f, dt_orch_square, args);

    simdev_counters before, after;
    assert_int_equal(simdev_get_thread_counters(&before), SIMDEV_SUCCESS);
    uint64_t allocs = host_alloc_count();
    assert_int_equal(dt_enqueue(f), 0);
    assert_int_equal(host_alloc_count(), allocs);
    assert_int_equal(simdev_get_thread_counters(&after), SIMDEV_SUCCESS);
    assert_int_equal(after.malloc_calls, before.malloc_calls);
    assert_int_equal(after.free_calls, before.free_calls);
    assert_int_equal(after.memcpy_sync_calls, before.memcpy_sync_calls);
    assert_int_equal(after.memcpy_async_calls, before.memcpy_async_calls);
    assert_int_equal(after.synchronize_calls, before.synchronize_calls);
    assert_int_equal(after.query_calls, before.query_calls);
    assert_int_equal(after.capture_query_calls, before.capture_query_calls);
    assert_int_equal(after.stream_create_calls, before.stream_create_calls);
    assert_int_equal(after.event_create_calls, before.event_create_calls);
    assert_int_equal(after.memset_calls, before.memset_calls + 1);
    assert_int_equal(after.kernel_launches, before.kernel_launches + 2);
    assert_int_equal(after.event_record_calls, before.event_record_calls + 5);
    assert_int_equal(after.event_wait_calls, before.event_wait_calls + 4);

    assert_int_equal(dt_sync(f), 0);
    assert_int_equal(dt_status(f), DEVICE_STATUS_OK);
    check_square(x, y, 3.0f);
    free(args);
}

static void chain_captured_on_caller_stream_replays_with_fresh_inputs(void **state)
{
    dt_fixture *f = *state;
    simdev_stream_t caller = (simdev_stream_t)f->streams.caller;
    simdev_graph_t captured = NULL;
    size_t nodes = 0;
    void *x, *y;
    ChipStorageTaskArgs *args = square_args(&x, &y);
    dt_build(f, dt_orch_square, args);

    assert_int_equal(simdev_capture_begin(caller, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(dt_enqueue(f), 0);
    /* The scratch is free again at once: the captured launch holds a copy. */
    memset(f->args_scratch, 0xFF, f->args_scratch_bytes);
    assert_int_equal(simdev_capture_end(caller, &captured), SIMDEV_SUCCESS);
    /* Device work only: the memset and the two launches. */
    assert_int_equal(simdev_graph_node_count(captured, &nodes), SIMDEV_SUCCESS);
    assert_int_equal(nodes, 3);
    assert_int_equal(atomic_load(&dt_runs), 0);

    for (int replay = 0; replay < 6; replay++) {
        float seed = (float)(replay * 10);
        upload_seed(x, seed);
        assert_int_equal(simdev_memset(f->status, 0x7F, 4), SIMDEV_SUCCESS);
        assert_int_equal(simdev_graph_launch(captured, caller), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_synchronize(caller), SIMDEV_SUCCESS);
        assert_int_equal(dt_status(f), DEVICE_STATUS_OK);
        check_square(x, y, seed);
    }
    assert_int_equal(atomic_load(&dt_runs), 12);
    assert_int_equal(atomic_load(&dt_bad_calls), 0);
    assert_int_equal(simdev_graph_destroy(captured), SIMDEV_SUCCESS);
    free(args);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chain_enqueues_exactly_the_spec_sequence),
        cmocka_unit_test(chain_launches_one_block_per_started_core),
        cmocka_unit_test(chain_stops_at_the_first_failing_enqueue_and_returns_its_code),
        cmocka_unit_test(chain_refuses_bad_arguments_before_any_enqueue),
        cmocka_unit_test(chain_launch_variant_runs_the_given_scheduler_on_the_given_bytes),
        cmocka_unit_test(chain_launch_reports_whether_anything_was_enqueued),
        cmocka_unit_test(program_chain_enqueues_the_engine_part_only),
        cmocka_unit_test(program_chain_refuses_bad_arguments_before_any_enqueue),
        DT_TEST(chain_enqueue_allocates_synchronizes_and_queries_nothing),
        DT_TEST(chain_captured_on_caller_stream_replays_with_fresh_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
