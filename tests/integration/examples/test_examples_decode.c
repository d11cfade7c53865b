/* The decode example (examples/decode): a paged-attention decode loop
 * whose KV length grows by one block per step, run through one captured
 * launch_slot with write_args per step, through eager launches and
 * through program mode; every step matches the golden, the graph grows
 * every step, and write_args + replay allocates nothing. */
#include "example_test.h"

#include "../../../examples/decode/decode_loop.h"
#include "simdev_setup.h"

static void *image;
static size_t image_size;

static int group_setup(void **state)
{
    (void)state;
    example_image_load("paged_attention", &image, &image_size);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    simpler_callable_free(image);
    return simdev_finalize() == SIMDEV_SUCCESS ? 0 : -1;
}

static void run_mode(int mode, decode_result *r)
{
    assert_int_equal(decode_run(image, image_size, mode, DECODE_DEFAULT_STEPS, r), 0);
    assert_int_equal(r->steps, DECODE_DEFAULT_STEPS);
    assert_int_equal(r->mismatches, 0);
    /* 3 tasks per KV block and a normalize: one block more every step. */
    assert_int_equal(r->tasks_first, 4);
    assert_int_equal(r->tasks_last, 3 * DECODE_DEFAULT_STEPS + 1);
}

static void decode_captured_write_args_replay_matches_every_step_allocating_nothing(void **state)
{
    decode_result r;
    (void)state;
    run_mode(DECODE_CAPTURED, &r);
    assert_int_equal(r.host_allocs, 0);
    assert_int_equal(r.device_allocs, 0);
}

static void decode_eager_launches_match_every_step(void **state)
{
    decode_result r;
    (void)state;
    run_mode(DECODE_EAGER, &r);
    assert_int_equal(r.host_allocs, 0);
}

static void decode_program_runs_match_every_step(void **state)
{
    decode_result r;
    (void)state;
    run_mode(DECODE_PROGRAM, &r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decode_captured_write_args_replay_matches_every_step_allocating_nothing),
        cmocka_unit_test(decode_eager_launches_match_every_step),
        cmocka_unit_test(decode_program_runs_match_every_step),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
