/*
 * decode_loop — the use case kernel mode's argument slots exist for: a
 * paged-attention decode loop whose KV length grows by one block per
 * step, so the graph (3 tasks per KV block plus a normalize, over the
 * paged_attention example's image) grows every step.
 *
 * Three ways to run the same steps, each checked against the golden
 * (the paged_attention example's plain-C reference) at every step:
 *   DECODE_CAPTURED  kernel mode: one capture of launch_slot, then per
 *                    step write_args with the step's arguments + replay;
 *   DECODE_EAGER     kernel mode: one simpler_kernel_mode_launch per step;
 *   DECODE_PROGRAM   program mode: one simpler_run per step.
 * Per step the query and the caches are new (seed = step) and the
 * context length is DECODE_BLOCK_SIZE * (step + 1). The time of a step
 * is the call(s) that run it plus the synchronize, not the input upload
 * or the check. Host side, public API only; header-only (the CLI and the
 * tests include it).
 */
#ifndef SIMPLER_EXAMPLE_DECODE_LOOP_H
#define SIMPLER_EXAMPLE_DECODE_LOOP_H

#include <stdint.h>
#include <string.h>

#include "../common/example_driver.h"
#include "../paged_attention/paged_attention_golden.h"
#include "simpler/runtime_c_api.h"
#include "simpler/simdev.h"

#define DECODE_HEADS 4u
#define DECODE_HEAD_DIM 16u
#define DECODE_BLOCK_SIZE 16u
#define DECODE_MAX_STEPS 32u /* the KV cache holds this many blocks */
#define DECODE_DEFAULT_STEPS 16u
#define DECODE_ID 0
#define DECODE_SLOT 0u

enum { DECODE_CAPTURED = 0, DECODE_EAGER = 1, DECODE_PROGRAM = 2, DECODE_MODES = 3 };

typedef struct decode_result {
    uint32_t steps;
    uint64_t tasks_first, tasks_last; /* tasks of the first and the last step */
    double step_us;                   /* mean time per step */
    uint64_t host_allocs;             /* during the kernel-mode calls of every step but the first */
    uint64_t device_allocs;           /* simdev malloc calls during them */
    int mismatches;                   /* steps whose output missed the golden */
    char reason[256];                 /* simpler_last_error_message() of the failing call */
} decode_result;

/* The case of step `step` (0-based): one sequence of (step + 1) blocks. */
static inline void decode_case(example_case *c, uint32_t step)
{
    uint32_t len = DECODE_BLOCK_SIZE * (step + 1);
    pa_case_make(c, 1, DECODE_HEADS, DECODE_HEAD_DIM, DECODE_BLOCK_SIZE, DECODE_MAX_STEPS, DECODE_MAX_STEPS, &len);
}

typedef struct decode_state {
    DeviceContextHandle ctx;
    simdev_stream_t stream;
    simdev_graph_t graph;
    example_case c;
    example_buffers b;
} decode_state;

/* CONFIGURE sized for the largest step, one argument slot. */
static inline int decode_configure(const void *image, size_t size, uint32_t steps, SimplerKernelCtxControl *out)
{
    example_case c;
    example_buffers b;
    ChipStorageTaskArgs args;
    SimplerGraphRequirements req;
    decode_case(&c, steps - 1);
    int rc = example_buffers_create(&c, NULL, &b);
    rc = rc ? rc : example_args_make(&c, &b, &args);
    /* Sized with DEVICE tensors: the steps use device buffers. */
    for (uint32_t i = 0; rc == 0 && i < c.tensor_count; i++)
        args.tensors[i].address_space = SIMPLER_ADDRESS_SPACE_DEVICE;
    rc = rc ? rc : simpler_graph_requirements(image, size, &args, &req);
    rc = rc ? rc : simpler_kernel_plan_capacity(&req, 1, out);
    out->arg_slot_count = 1;
    example_buffers_destroy(NULL, &b);
    return rc;
}

static inline int decode_open(decode_state *s, const void *image, size_t size, int mode, uint32_t steps)
{
    SimplerKernelCtxControl c, freeze;
    memset(s, 0, sizeof(*s));
    decode_case(&s->c, steps - 1);
    s->ctx = create_device_context();
    if (s->ctx == NULL)
        return PTO_RUNTIME_ERR_OUT_OF_MEMORY;
    if (mode == DECODE_PROGRAM) {
        int rc = simpler_init(s->ctx, 0, NULL);
        rc = rc ? rc : simpler_register_callable(s->ctx, DECODE_ID, image, size);
        return rc ? rc : example_buffers_create(&s->c, s->ctx, &s->b);
    }
    memset(&freeze, 0, sizeof(freeze));
    freeze.abi_version = SIMPLER_KERNEL_CTX_CONTROL_ABI_VERSION;
    freeze.struct_size = sizeof(freeze);
    freeze.action = SIMPLER_KERNEL_CTX_FREEZE;
    int rc = simdev_set_device(0) == SIMDEV_SUCCESS && simdev_stream_create(&s->stream) == SIMDEV_SUCCESS
                 ? 0
                 : PTO_RUNTIME_ERR_DEVICE;
    rc = rc ? rc : decode_configure(image, size, steps, &c);
    rc = rc ? rc : simpler_kernel_mode_ctx_control(s->ctx, &c);
    rc = rc ? rc : simpler_kernel_mode_init(s->ctx, 0, NULL, 1);
    rc = rc ? rc : simpler_kernel_mode_prepare_callable(s->ctx, DECODE_ID, image, size, s->stream);
    rc = rc ? rc : simpler_kernel_mode_ctx_control(s->ctx, &freeze);
    rc = rc ? rc : example_buffers_create(&s->c, s->ctx, &s->b);
    if (rc == 0 && mode == DECODE_CAPTURED) {
        /* The one capture: launch_slot names no arguments. */
        rc = simdev_capture_begin(s->stream, SIMDEV_CAPTURE_MODE_GLOBAL) == SIMDEV_SUCCESS ? 0 : PTO_RUNTIME_ERR_DEVICE;
        rc = rc ? rc : simpler_kernel_mode_launch_slot(s->ctx, DECODE_SLOT, s->stream);
        if (simdev_capture_end(s->stream, &s->graph) != SIMDEV_SUCCESS && rc == 0)
            rc = PTO_RUNTIME_ERR_DEVICE;
    }
    return rc;
}

static inline int decode_close(decode_state *s, int mode)
{
    int rc = 0;
    if (s->stream != NULL && simdev_stream_synchronize(s->stream) != SIMDEV_SUCCESS)
        rc = PTO_RUNTIME_ERR_DEVICE;
    if (s->graph != NULL && simdev_graph_destroy(s->graph) != SIMDEV_SUCCESS)
        rc = PTO_RUNTIME_ERR_DEVICE;
    example_buffers_destroy(s->ctx, &s->b);
    if (s->ctx != NULL) {
        int f = finalize_device(s->ctx);
        rc = rc ? rc : (f == PTO_RUNTIME_ERR_INVALID_STATE && mode != DECODE_PROGRAM ? 0 : f);
        destroy_device_context(s->ctx);
    }
    if (s->stream != NULL && simdev_stream_destroy(s->stream) != SIMDEV_SUCCESS)
        rc = rc ? rc : PTO_RUNTIME_ERR_DEVICE;
    return rc;
}

/* Runs one step's calls (timed into *ns; allocations counted). */
static inline int decode_step_run(decode_state *s, int mode, const ChipStorageTaskArgs *args, uint64_t *ns,
                                  decode_result *r)
{
    simdev_counters before, after;
    uint64_t allocs = simpler_host_alloc_count();
    (void)simdev_get_thread_counters(&before);
    uint64_t t0 = simpler_clock_ns();
    int rc;
    if (mode == DECODE_PROGRAM) {
        rc = simpler_run(s->ctx, DECODE_ID, args, NULL);
    } else {
        if (mode == DECODE_CAPTURED) {
            rc = simpler_kernel_mode_write_args(s->ctx, DECODE_SLOT, DECODE_ID, args, s->stream);
            if (rc == 0 && simdev_graph_launch(s->graph, s->stream) != SIMDEV_SUCCESS)
                rc = PTO_RUNTIME_ERR_DEVICE;
        } else {
            rc = simpler_kernel_mode_launch(s->ctx, DECODE_ID, args, s->stream);
        }
        (void)simdev_get_thread_counters(&after);
        /* From the second step on: the first replay of a graph starts
         * simdev's lane threads, the first eager launch its engines. */
        if (r->steps != 0) {
            r->host_allocs += simpler_host_alloc_count() - allocs;
            r->device_allocs += after.malloc_calls - before.malloc_calls;
        }
        if (rc == 0 && simdev_stream_synchronize(s->stream) != SIMDEV_SUCCESS)
            rc = PTO_RUNTIME_ERR_DEVICE;
    }
    *ns = simpler_clock_ns() - t0;
    return rc;
}

/* Runs `steps` (1..DECODE_MAX_STEPS) decode steps of the paged_attention
 * image in `mode`, checking every step. Returns 0 (see r->mismatches)
 * or the first failing call's status. */
static inline int decode_run(const void *image, size_t size, int mode, uint32_t steps, decode_result *r)
{
    static decode_state s;
    uint64_t total = 0;
    memset(r, 0, sizeof(*r));
    if (steps == 0 || steps > DECODE_MAX_STEPS || mode < 0 || mode >= DECODE_MODES)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    int rc = decode_open(&s, image, size, mode, steps);
    for (uint32_t step = 0; rc == 0 && step < steps; step++) {
        ChipStorageTaskArgs args;
        SimplerGraphRequirements req;
        example_check_result check;
        uint64_t ns = 0;
        decode_case(&s.c, step);
        rc = example_inputs_prepare(s.ctx, &s.c, &s.b, step + 1);
        rc = rc ? rc : example_args_make(&s.c, &s.b, &args);
        rc = rc ? rc : simpler_graph_requirements(image, size, &args, &req);
        rc = rc ? rc : decode_step_run(&s, mode, &args, &ns, r);
        rc = rc ? rc : example_output_check(s.ctx, &s.c, &s.b, &check);
        if (rc != 0)
            break;
        if (check.mismatches != 0)
            r->mismatches++;
        if (step == 0)
            r->tasks_first = req.task_count;
        r->tasks_last = req.task_count;
        total += ns;
        r->steps++;
    }
    if (r->steps != 0)
        r->step_us = (double)total / 1e3 / r->steps;
    if (rc != 0)
        snprintf(r->reason, sizeof(r->reason), "%s", simpler_last_error_message());
    int closed = decode_close(&s, mode);
    if (rc == 0 && closed != 0)
        snprintf(r->reason, sizeof(r->reason), "%s", simpler_last_error_message());
    return rc ? rc : closed;
}

#endif
