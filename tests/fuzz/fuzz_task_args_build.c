/* libFuzzer target for the call's arguments, its CallConfig and the host
 * build, with a dependency oracle (tests/support/region_oracle.h).
 *
 * The input decodes into a CallConfig (the default, then fields the bytes
 * choose set to what they say), the caller's tensors (HOST or DEVICE, any
 * dtype, DEVICE buffers at offsets in one 512-byte window so they often
 * overlap, every field open to corruption) and a program of up to 40
 * tasks passing views of those tensors and of four heap tensors (any tag,
 * 1-D or 2-D strided, views that may leave their tensor). It runs what a
 * program-mode run runs on the host before anything reaches a device:
 * task_args_check and call_config_check, then graph_build_run with a
 * window and heap limit from the config (the window capped at 64 to keep
 * executions fast).
 *
 * Oracles: the arguments' validator and the build's own check agree; an
 * accepted build's edges are exactly the brute-force oracle's, and every
 * pair of tasks whose regions conflict (a common byte of the same
 * buffer, one of them writing it) is ordered through the edges; a
 * refusal is one of the documented statuses. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_reader.h"
#include "common/task_args_check.h"
#include "graph/graph_build.h"
#include "graph/graph_limits.h"
#include "region_oracle.h"
#include "simpler/runtime_c_api.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define WINDOW_MAX 64u
#define DEVICE_BASE 0x40000u
#define DEVICE_WINDOW 512u /* universe bytes 0..511 */
#define HOST_BASE 512u     /* each staged HOST tensor: 128 universe bytes */
#define HOST_CELLS 128u
#define HEAP_BASE 1792u    /* 4 heap tensors of 64 bytes: 1792..2047 */

static graph_scratch *scratches[WINDOW_MAX + 1];
static _Alignas(64) ChipStorageTaskArgs args;
static _Alignas(64) uint8_t host_memory[RO_CALLERS_MAX][HOST_CELLS];
static ro_prog prog;
static ro_cells cells[RO_TASKS_MAX];

static void config_decode(reader *r, CallConfig *c)
{
    (void)simpler_call_config_default(c);
    uint8_t fields = take(r);
    if (fields & 0x01)
        c->task_window = take(r) % 80u;
    if (fields & 0x02)
        c->heap_bytes = (uint64_t)take(r) << (take(r) % 48u);
    if (fields & 0x04)
        c->aicore_count = take(r);
    if (fields & 0x08)
        c->aicpu_thread_count = take(r);
    if (fields & 0x10)
        c->trace = take(r) % 3u;
    if (fields & 0x20)
        c->struct_size = take32(r);
    if (fields & 0x40) {
        c->reserved0 = take(r) & 1u;
        c->reserved[take(r) % 4u] = take(r) & 1u;
    }
    if (fields & 0x80)
        memset(c->output_prefix, 'p', sizeof(c->output_prefix) - (take(r) & 1u)); /* maybe no NUL */
}

/* A caller tensor: 1-D, its place in the universe, and corruptions.
 * A corruption the validator may accept never moves the buffer or
 * makes it larger, so the place stays true. */
static void caller_decode(reader *r, uint32_t k)
{
    ChipTensor *t = &args.tensors[k];
    ro_place *pl = &prog.places[k];
    memset(t, 0, sizeof(*t));
    uint8_t space = take(r) & 1u ? SIMPLER_ADDRESS_SPACE_DEVICE : SIMPLER_ADDRESS_SPACE_HOST;
    uint8_t dtype = (uint8_t)(1 + take(r) % (SIMPLER_DTYPE_COUNT - 1));
    uint32_t eb = (uint32_t)simpler_dtype_size(dtype);
    uint32_t room = space == SIMPLER_ADDRESS_SPACE_HOST ? HOST_CELLS : DEVICE_WINDOW;
    uint32_t offset = space == SIMPLER_ADDRESS_SPACE_HOST ? 0 : take(r) % DEVICE_WINDOW / eb * eb;
    uint32_t max_elems = (room - offset) / eb;
    uint32_t elems = max_elems == 0 ? 1 : 1 + take(r) % (max_elems < 64 ? max_elems : 64);
    t->buffer_addr = space == SIMPLER_ADDRESS_SPACE_HOST ? (uint64_t)(uintptr_t)host_memory[k]
                                                          : DEVICE_BASE + offset;
    t->buffer_bytes = (uint64_t)elems * eb;
    t->ndims = 1;
    t->dtype = dtype;
    t->address_space = space;
    t->shapes[0] = elems;
    t->strides[0] = 1;
    pl->cell_base = space == SIMPLER_ADDRESS_SPACE_HOST ? HOST_BASE + k * HOST_CELLS : offset;
    pl->elem_bytes = eb;
    pl->elems = elems;
    uint8_t mangle = take(r);
    switch (mangle % 16u) {
    case 1: t->buffer_addr = 0; break;
    case 2: t->buffer_addr = UINT64_MAX - take(r) % t->buffer_bytes; break; /* wraps */
    case 3: t->ndims = take(r) % 8u; break;
    case 4: t->dtype = take(r) & 1u ? 0 : (uint8_t)(SIMPLER_DTYPE_COUNT + take(r) % 100u); break; /* unknown */
    case 5: t->address_space = (uint8_t)(2 + take(r) % 254u); break; /* not HOST or DEVICE */
    case 6: t->reserved[take(r) % sizeof(t->reserved)] = 1; break;
    case 7: t->start_offset = take(r); break;
    case 8: t->strides[0] = take(r); break;
    case 9: t->shapes[take(r) % SIMPLER_MAX_TENSOR_DIMS] = take(r); break;
    case 10: t->buffer_bytes = take(r) % (t->buffer_bytes + 1); break; /* never larger */
    default: break; /* valid */
    }
}

static void view_decode(reader *r, ro_arg *a)
{
    uint32_t n = prog.places[a->tensor].elems;
    uint8_t form = take(r);
    a->dims = 1;
    a->rows = a->stride = 1;
    if (form & 0x80) { /* anything, in or out of the tensor */
        a->dims = (uint8_t)(1 + (form & 1u));
        a->start = take(r);
        a->rows = take(r);
        a->cols = take(r);
        a->stride = take(r);
        if (a->dims == 1)
            a->rows = a->stride = 1;
        return;
    }
    if (form & 0x40) { /* a 2-D block inside the tensor */
        a->dims = 2;
        a->cols = 1 + take(r) % (n < 4 ? n : 4);
        a->stride = a->cols + take(r) % 4u;
        a->start = take(r) % (n - a->cols + 1);
        a->rows = 1 + take(r) % ((n - a->start - a->cols) / a->stride + 1);
        return;
    }
    switch (form % 4u) {
    case 0:
        a->start = 0;
        a->cols = n;
        break;
    case 1: /* a quarter: neighbours touch, never overlap */
        a->cols = n / 4 ? n / 4 : 1;
        a->start = take(r) % 4u * a->cols;
        if (a->start + a->cols > n)
            a->start = 0;
        break;
    default:
        a->start = take(r) % n;
        a->cols = 1 + take(r) % (n - a->start);
        break;
    }
}

static void prog_decode(reader *r)
{
    uint32_t tensors = prog.caller_count + RO_HEAP_TENSORS;
    uint32_t made = 0;
    ro_arg *seen[RO_TASKS_MAX * RO_ARGS_MAX];
    prog.task_count = 1 + take(r) % RO_TASKS_MAX;
    for (uint32_t i = 0; i < prog.task_count; i++) {
        ro_task *t = &prog.tasks[i];
        uint8_t head = take(r);
        t->arg_count = 1 + head % RO_ARGS_MAX;
        t->scalar = (head & 0x80) != 0;
        for (uint32_t k = 0; k < t->arg_count; k++) {
            ro_arg *a = &t->args[k];
            uint8_t pick = take(r);
            if (made > 0 && (pick & 0xc0) == 0xc0) {
                *a = *seen[pick % made]; /* the same region again */
            } else {
                a->tensor = (uint8_t)(pick % tensors);
                view_decode(r, a);
            }
            uint8_t tag = take(r);
            int heap = a->tensor >= prog.caller_count;
            /* Mostly the tag the tensor's kind allows; sometimes any. */
            if (tag & 0x80)
                a->tag = tag % 6u;
            else
                a->tag = (uint8_t[]){SIMPLER_TAG_INPUT, SIMPLER_TAG_INPUT, heap ? SIMPLER_TAG_OUTPUT
                                                                                : SIMPLER_TAG_OUTPUT_EXISTING,
                                     SIMPLER_TAG_INOUT, SIMPLER_TAG_NO_DEP}[tag % 5u];
            seen[made++] = a;
        }
    }
}

/* The program, for the report of an oracle failure. */
static void describe(void)
{
    for (uint32_t k = 0; k < prog.caller_count; k++)
        fprintf(stderr, "  caller %u: space %u addr 0x%llx bytes %llu dtype %u cells from %u\n", k,
                args.tensors[k].address_space, (unsigned long long)args.tensors[k].buffer_addr,
                (unsigned long long)args.tensors[k].buffer_bytes, args.tensors[k].dtype, prog.places[k].cell_base);
    for (uint32_t i = 0; i < prog.task_count; i++)
        for (uint32_t k = 0; k < prog.tasks[i].arg_count; k++) {
            const ro_arg *a = &prog.tasks[i].args[k];
            uint32_t lo = 0, hi = 0;
            (void)ro_arg_cells(&prog, a, &lo, &hi);
            fprintf(stderr, "  task %u arg %u: tensor %u tag %u dims %u start %u rows %u cols %u stride %u cells [%u, %u)\n",
                    i, k, a->tensor, a->tag, a->dims, a->start, a->rows, a->cols, a->stride, lo, hi);
        }
}

static int documented(int rc)
{
    return rc == 0 || rc == PTO_RUNTIME_ERR_INVALID_ARGUMENT || rc == PTO_RUNTIME_ERR_INVALID_STATE ||
           rc == PTO_RUNTIME_ERR_CAPACITY_EXCEEDED || (rc <= -1 && rc >= -999);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    CallConfig config;
    config_decode(&r, &config);
    memset(&args, 0, sizeof(args));
    prog.caller_count = 1 + take(&r) % RO_CALLERS_MAX;
    args.tensor_count = (int32_t)prog.caller_count;
    for (uint32_t k = 0; k < prog.caller_count; k++)
        caller_decode(&r, k);
    ro_place_heap(&prog, HEAP_BASE);
    uint8_t counts = take(&r);
    if ((counts & 0xf0) == 0xf0)
        args.tensor_count = (int32_t)(counts & 0x0f) - 4; /* maybe negative, maybe disagreeing */
    args.scalar_count = counts & 0x08 ? 129 : counts & 0x03;
    prog_decode(&r);

    int args_rc = task_args_check(&args);
    int config_rc = call_config_check(&config);
    if ((args_rc != 0 && args_rc != PTO_RUNTIME_ERR_INVALID_ARGUMENT) ||
        (config_rc != 0 && config_rc != PTO_RUNTIME_ERR_INVALID_ARGUMENT))
        abort();
    if (config_rc != 0)
        return 0; /* program mode refuses the call before its build */

    /* The window and heap limit the config asks for (the window capped). */
    uint32_t window = config.task_window == 0 || config.task_window > WINDOW_MAX ? WINDOW_MAX : config.task_window;
    graph_scratch *scratch = scratches[window], *own = NULL;
    graph_limits limits;
    if (config.heap_bytes != 0 || scratch == NULL) {
        if (graph_limits_for_window(window, config.heap_bytes ? config.heap_bytes : UINT64_MAX, UINT64_MAX,
                                    &limits) != 0 ||
            graph_scratch_create(&limits, &own) != 0)
            abort();
        scratch = own;
        if (config.heap_bytes == 0)
            scratches[window] = own, own = NULL;
    }
    ro_current = &prog;
    const graph *g = NULL;
    int rc = graph_build_run(scratch, ro_orch, &args, &g);
    if (!documented(rc))
        abort();
    /* The build refuses what the arguments' validator refuses, first. */
    if (args_rc != 0 && rc != PTO_RUNTIME_ERR_INVALID_ARGUMENT)
        abort();
    ro_report rep;
    if (rc == 0 && ro_check_graph(&prog, g, cells, &rep) != 0) {
        fprintf(stderr, "oracle: %s\n", rep.why);
        describe();
        abort();
    }
    graph_scratch_destroy(own);
    return 0;
}
