/*
 * The diamond image of fixtures.cmake (fixtures/orch_diamond.c with
 * kernels 0, 1 on AIV and 2 on AIC), loaded once per suite, and the
 * arguments its orchestration takes. For the sizing suites.
 */
#ifndef SIMPLER_TEST_GRAPH_DIAMOND_IMAGE_H
#define SIMPLER_TEST_GRAPH_DIAMOND_IMAGE_H

#include <stdlib.h>

#include "file_image.h"
#include "graph_test_util.h"

static void *image;
static size_t image_size;

static int load_image(void **state)
{
    (void)state;
    image = file_image_read(GRAPH_FIXTURE_OUT "/diamond.callable", &image_size);
    return image != NULL ? 0 : -1;
}

static int free_image(void **state)
{
    (void)state;
    free(image);
    return 0;
}

/* Scalar 0 picks the orchestration's mode (fixtures/orch_diamond.c): 0
 * the four-task diamond, 1 a failure with -7, 2 a task on a func_id the
 * image lacks, 3 a 1500-task chain (past the default window). */
static ChipStorageTaskArgs *fixture_args(uint64_t mode, uint8_t space_a)
{
    ChipStorageTaskArgs *args = fixture_args_new();
    gt_args_add_tensor(args, DEV_A, 16, space_a);
    gt_args_add_tensor(args, DEV_OUT, 16, SIMPLER_ADDRESS_SPACE_DEVICE);
    gt_args_add_scalar(args, mode);
    return args;
}

/* The diamond's requirements with a HOST input a: 4 tasks, 3 KiB of
 * intermediates, the 1 KiB staged input, and the regions of 4 tasks
 * (computed by hand from the image and arena layouts). */
static void assert_diamond_requirements(const SimplerGraphRequirements *r)
{
    assert_int_equal(r->task_count, 4);
    assert_int_equal(r->gm_heap_bytes, 3 * 1024);
    assert_int_equal(r->graph_definition_bytes, 96 + 32 + 56 + 4 * 32 + 10 * 32 + 4 * 4);
    assert_int_equal(r->runtime_arena_bytes, 256 + 4 * 16 + 64 * 448);
    assert_int_equal(r->scheduler_state_bytes, 2 * (64 + 4 * 64));
    assert_int_equal(r->retained_temp_bytes, 1024);
}

#endif
