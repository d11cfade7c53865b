/* The scheduler refuses a bad execution before consuming anything: a
 * negative status word, a stream fault, cores that quit, and not one byte
 * written to the heap or the caller's output. */
#include "device_test_util.h"

#include "device/device_core_plan.h"

#define N 32u

static int orch_absent(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    dt_orch_square(orch, args);
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &args->tensors[1]);
    return simpler_orch_submit(orch, K_ABSENT, SIMPLER_CORE_TYPE_AIV);
}

static int orch_wrong_type(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    dt_orch_square(orch, args);
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &args->tensors[1]);
    /* K_NOOP_AIV is an AIV kernel. */
    return simpler_orch_submit(orch, K_NOOP_AIV, SIMPLER_CORE_TYPE_AIC);
}

/* Two tasks of one kernel, the second on a core type unlike the
 * kernel's: the check of the first must not pass the second. */
static int orch_same_kernel_then_wrong_type(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &args->tensors[0]);
    int rc = simpler_orch_submit(orch, K_NOOP_AIV, SIMPLER_CORE_TYPE_AIV);
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &args->tensors[1]);
    return rc != 0 ? rc : simpler_orch_submit(orch, K_NOOP_AIV, SIMPLER_CORE_TYPE_AIC);
}

typedef struct refusal {
    void *x, *out;
    ChipStorageTaskArgs *args;
} refusal;

static void refusal_init(refusal *r)
{
    float host[N];
    for (uint32_t i = 0; i < N; i++)
        host[i] = 1.0f;
    r->x = dt_dev_alloc(N * 4);
    r->out = dt_dev_alloc(N * 4);
    dt_upload_floats(r->x, host, N);
    assert_int_equal(simdev_memset(r->out, DT_CANARY, N * 4), SIMDEV_SUCCESS);
    r->args = fixture_args_new();
    dt_args_add(r->args, r->x, N, SIMPLER_ADDRESS_SPACE_DEVICE);
    dt_args_add(r->args, r->out, N, SIMPLER_ADDRESS_SPACE_DEVICE);
}

/* Enqueues f->desc, expects `status` in the status word and a fault on
 * the AICPU stream, and checks that nothing ran and nothing was written:
 * every kernel idle, heap and output canaries intact, every stream
 * synchronized (so every core quit). */
static void expect_refusal(dt_fixture *f, refusal *r, int32_t status)
{
    assert_int_equal(dt_enqueue(f), 0);
    assert_int_equal(dt_sync(f), PLATFORM_KERNEL_FAULT_CODE);
    assert_int_equal(dt_status(f), status);
    assert_int_equal(atomic_load(&dt_runs), 0);
    dt_assert_device_bytes(f->heap, DT_HEAP_BYTES, DT_CANARY);
    dt_assert_device_bytes(r->out, N * 4, DT_CANARY);
    free(r->args);
}

static void scheduler_refuses_corrupt_image(void **state)
{
    dt_fixture *f = *state;
    refusal r;
    refusal_init(&r);
    dt_build(f, dt_orch_square, r.args);
    /* Task 0 names itself its successor: a cycle. */
    graph_image_header *h = f->image;
    uint32_t *fanout = (uint32_t *)((uint8_t *)f->image + h->fanout_offset);
    fanout[0] = 0;
    expect_refusal(f, &r, DEVICE_ERR_IMAGE_INVALID);
}

static void scheduler_refuses_bad_magic(void **state)
{
    dt_fixture *f = *state;
    refusal r;
    refusal_init(&r);
    dt_build(f, dt_orch_square, r.args);
    ((graph_image_header *)f->image)->magic ^= 1;
    expect_refusal(f, &r, DEVICE_ERR_IMAGE_INVALID);
}

/* The host plans the started cores from the header's chain heads
 * without walking the tasks (device_core_plan); the device recounts them
 * and refuses a header that disagrees, before anything runs. */
static void scheduler_refuses_image_whose_chain_heads_disagree(void **state)
{
    dt_fixture *f = *state;
    refusal r;
    refusal_init(&r);
    dt_build(f, dt_orch_square, r.args);
    graph_image_header *h = f->image;
    h->chain_heads[SIMPLER_CORE_TYPE_AIV]++;
    assert_int_equal(device_core_plan(&f->desc, f->image, f->image_bytes), 0);
    expect_refusal(f, &r, DEVICE_ERR_IMAGE_INVALID);
}

static void scheduler_refuses_missing_kernel(void **state)
{
    dt_fixture *f = *state;
    refusal r;
    refusal_init(&r);
    dt_build(f, orch_absent, r.args);
    expect_refusal(f, &r, DEVICE_ERR_MISSING_KERNEL);
}

static void scheduler_refuses_task_core_type_unlike_its_kernel(void **state)
{
    dt_fixture *f = *state;
    refusal r;
    refusal_init(&r);
    dt_build(f, orch_wrong_type, r.args);
    expect_refusal(f, &r, DEVICE_ERR_CORE_TYPE);
}

static void scheduler_refuses_a_wrong_core_type_after_a_right_one_of_the_same_kernel(void **state)
{
    dt_fixture *f = *state;
    refusal r;
    refusal_init(&r);
    dt_build(f, orch_same_kernel_then_wrong_type, r.args);
    expect_refusal(f, &r, DEVICE_ERR_CORE_TYPE);
}

static void scheduler_refuses_task_without_a_core_of_its_type(void **state)
{
    dt_fixture *f = *state;
    refusal r;
    refusal_init(&r);
    dt_build(f, dt_orch_square, r.args);
    f->desc.aic_count = 0;
    expect_refusal(f, &r, DEVICE_ERR_NO_CORE);
}

/* The AIC tasks' type has cores but none among those the descriptor
 * starts (its plan lost the type): refused, not left unrun. */
static void scheduler_refuses_task_without_a_started_core_of_its_type(void **state)
{
    dt_fixture *f = *state;
    refusal r;
    refusal_init(&r);
    dt_build(f, dt_orch_square, r.args);
    assert_true(f->desc.aic_count > 0 && f->desc.aiv_count > 0);
    f->desc.aic_started = 0;
    f->desc.aiv_started = 1;
    expect_refusal(f, &r, DEVICE_ERR_NO_CORE);
}

static void scheduler_refuses_heap_capacity_too_small(void **state)
{
    dt_fixture *f = *state;
    refusal r;
    refusal_init(&r);
    dt_build(f, dt_orch_square, r.args);
    assert_int_equal(f->g->heap_bytes, 1024);
    f->desc.heap_bytes = 1023;
    expect_refusal(f, &r, DEVICE_ERR_CAPACITY);
}

static void scheduler_refuses_scheduler_state_too_small(void **state)
{
    dt_fixture *f = *state;
    refusal r;
    refusal_init(&r);
    dt_build(f, dt_orch_square, r.args);
    f->desc.scheduler_bytes = graph_scheduler_state_bytes(2) - 1;
    expect_refusal(f, &r, DEVICE_ERR_CAPACITY);
}

static void scheduler_refuses_image_larger_than_definition_region(void **state)
{
    dt_fixture *f = *state;
    refusal r;
    refusal_init(&r);
    dt_build(f, dt_orch_square, r.args);
    assert_int_equal(simdev_memset(f->definition, 0x11, 1024), SIMDEV_SUCCESS);
    f->desc.definition_bytes = f->image_bytes - 8;
    expect_refusal(f, &r, DEVICE_ERR_CAPACITY);
    /* Not even restored: the definition region is untouched. */
    dt_assert_device_bytes(f->definition, 1024, 0x11);
}

static void scheduler_refuses_temp_capacity_too_small(void **state)
{
    dt_fixture *f = *state;
    refusal r;
    refusal_init(&r);
    float host[N] = {0};
    r.args->tensors[0] = fixture_tensor((uintptr_t)host, N, SIMPLER_ADDRESS_SPACE_HOST);
    dt_build(f, dt_orch_square, r.args);
    assert_int_equal(f->g->temp_bytes, 1024);
    f->desc.temp_bytes = 512;
    expect_refusal(f, &r, DEVICE_ERR_CAPACITY);
}

static void scheduler_refuses_stale_generation(void **state)
{
    dt_fixture *f = *state;
    refusal r;
    refusal_init(&r);
    dt_build(f, dt_orch_square, r.args);
    f->desc.generation = dt_table.generation - 1;
    expect_refusal(f, &r, DEVICE_ERR_GENERATION);
}

static void scheduler_refuses_task_count_unlike_the_image(void **state)
{
    dt_fixture *f = *state;
    refusal r;
    refusal_init(&r);
    dt_build(f, dt_orch_square, r.args);
    f->desc.task_count = 3;
    expect_refusal(f, &r, DEVICE_ERR_PACKET_INVALID);
}

static void scheduler_refusal_without_fault_function_reports_status_only(void **state)
{
    dt_fixture *f = *state;
    refusal r;
    refusal_init(&r);
    dt_build(f, orch_absent, r.args);
    f->desc.report_fault = NULL;
    assert_int_equal(dt_enqueue(f), 0);
    assert_int_equal(dt_sync(f), 0);
    assert_int_equal(dt_status(f), DEVICE_ERR_MISSING_KERNEL);
    assert_int_equal(atomic_load(&dt_runs), 0);
    dt_assert_device_bytes(f->heap, DT_HEAP_BYTES, DT_CANARY);
    free(r.args);
}

static void scheduler_replay_restores_image_over_a_clobbered_definition(void **state)
{
    dt_fixture *f = *state;
    refusal r;
    float out[N];
    refusal_init(&r);
    dt_build(f, dt_orch_square, r.args);
    assert_int_equal(dt_enqueue(f), 0);
    assert_int_equal(dt_sync(f), 0);
    /* Mutable device state from an earlier execution must not matter. */
    assert_int_equal(simdev_memset(f->definition, 0xEE, f->image_bytes), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memset(f->scheduler, 0xEE, f->scheduler_bytes), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memset(r.out, 0, N * 4), SIMDEV_SUCCESS);
    assert_int_equal(dt_enqueue(f), 0);
    assert_int_equal(dt_sync(f), 0);
    assert_int_equal(dt_status(f), DEVICE_STATUS_OK);
    dt_download_floats(out, r.out, N);
    for (uint32_t i = 0; i < N; i++)
        assert_true(out[i] == 4.0f);
    free(r.args);
}

/* device_scheduler_run's record of the last accepted image: the
 * checksum a kernel replay's restore computed (here the test's, as the
 * body below passes it) and the record it keeps. */
static uint64_t memo_sum, memo_passed;

static void memo_scheduler_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_dim;
    if (block_idx == 0)
        device_scheduler_run(args, memo_sum, &memo_passed);
}

/* dt_enqueue with memo_scheduler_kernel as the scheduler body. */
static int memo_enqueue(dt_fixture *f)
{
    size_t bytes = dt_chain_scratch_bytes(f->desc.inline_bytes);
    assert_true(bytes <= f->args_scratch_bytes);
    memcpy(f->args_scratch, &f->desc, sizeof(f->desc));
    memcpy((uint8_t *)f->args_scratch + sizeof(f->desc), f->image, f->desc.inline_bytes);
    int rc = device_chain_enqueue_launch(&f->launch, &f->streams, &f->events, memo_scheduler_kernel,
                                         f->args_scratch, bytes, NULL);
    return rc != 0 ? rc : device_chain_enqueue_tail(&f->launch, &f->streams, &f->events);
}

/* An image is accepted under checksum 7, which is recorded; the same
 * image under 7 again runs without the image check (seeding computes
 * the chain links itself) and still computes the right output; an image
 * corrupted into a cycle arrives under another checksum, as a changed
 * image does, and is refused before anything runs, the record kept. */
static void scheduler_checks_every_image_whose_checksum_did_not_pass(void **state)
{
    dt_fixture *f = *state;
    refusal r;
    float out[N];
    refusal_init(&r);
    dt_build(f, dt_orch_square, r.args);
    memo_sum = 7, memo_passed = 0;
    for (int round = 0; round < 2; round++) {
        assert_int_equal(simdev_memset(r.out, 0, N * 4), SIMDEV_SUCCESS);
        assert_int_equal(memo_enqueue(f), 0);
        assert_int_equal(dt_sync(f), 0);
        assert_int_equal(dt_status(f), DEVICE_STATUS_OK);
        assert_int_equal(memo_passed, 7);
        dt_download_floats(out, r.out, N);
        for (uint32_t i = 0; i < N; i++)
            assert_true(out[i] == 4.0f);
    }
    assert_int_equal(simdev_memset(r.out, DT_CANARY, N * 4), SIMDEV_SUCCESS);
    graph_image_header *h = f->image;
    uint32_t *fanout = (uint32_t *)((uint8_t *)f->image + h->fanout_offset);
    fanout[0] = 0;
    memo_sum = 8;
    dt_observations_reset();
    assert_int_equal(memo_enqueue(f), 0);
    assert_int_equal(dt_sync(f), PLATFORM_KERNEL_FAULT_CODE);
    assert_int_equal(dt_status(f), DEVICE_ERR_IMAGE_INVALID);
    assert_int_equal(atomic_load(&dt_runs), 0);
    dt_assert_device_bytes(r.out, N * 4, DT_CANARY);
    assert_int_equal(memo_passed, 7);
    free(r.args);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        DT_TEST(scheduler_refuses_corrupt_image),
        DT_TEST(scheduler_refuses_bad_magic),
        DT_TEST(scheduler_refuses_image_whose_chain_heads_disagree),
        DT_TEST(scheduler_refuses_missing_kernel),
        DT_TEST(scheduler_refuses_task_core_type_unlike_its_kernel),
        DT_TEST(scheduler_refuses_a_wrong_core_type_after_a_right_one_of_the_same_kernel),
        DT_TEST(scheduler_refuses_task_without_a_core_of_its_type),
        DT_TEST(scheduler_refuses_task_without_a_started_core_of_its_type),
        DT_TEST(scheduler_refuses_heap_capacity_too_small),
        DT_TEST(scheduler_refuses_scheduler_state_too_small),
        DT_TEST(scheduler_refuses_image_larger_than_definition_region),
        DT_TEST(scheduler_refuses_temp_capacity_too_small),
        DT_TEST(scheduler_refuses_stale_generation),
        DT_TEST(scheduler_refuses_task_count_unlike_the_image),
        DT_TEST(scheduler_refusal_without_fault_function_reports_status_only),
        DT_TEST(scheduler_replay_restores_image_over_a_clobbered_definition),
        DT_TEST(scheduler_checks_every_image_whose_checksum_did_not_pass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
