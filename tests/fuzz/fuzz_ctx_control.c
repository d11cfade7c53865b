/* libFuzzer target for kernel-mode context control: arbitrary sequences
 * of simpler_kernel_mode_ctx_control (CONFIGURE and FREEZE blocks, valid
 * or corrupted), simpler_kernel_mode_freeze, simpler_kernel_mode_init
 * (good and bad device ids and configs), finalize_device, a program-mode
 * simpler_init, simpler_kernel_plan_capacity and simpler_kernel_layout,
 * in any order, on one context per input.
 *
 * Oracles: every call returns one of its documented statuses; a refused
 * context call leaves the context as it was (the public introspection
 * getters, the kernel errors, the committed device memory, and the
 * recorded CONFIGURE, mode latch and phase behind them); an accepted
 * CONFIGURE is recorded as given and an accepted FREEZE makes the
 * context ReadyEnqueued; plan_capacity's CONFIGURE is the per-region
 * maximum with task_window = largest task count + 1; layout packs the
 * regions in order, aligned and without overlap; either one refused
 * writes nothing.
 *
 * Cost: an init that goes through creates the context's streams, and
 * each simdev stream mallocs its 16 MiB argument ring, which ASan
 * poisons on malloc and on free (about 0.1 s of CPU per init and
 * finalize here, against about 1 ms without ASan), and a program-mode
 * init likewise. So an init that could go through runs on one input in
 * 512 only (chosen by a hash of the whole input, so every mutation
 * redraws it and the share stays put whatever the corpus holds); on
 * the others an init runs only when it must be refused before anything
 * is created (a device other than the current one, a config with a
 * reserved field set, a context latched to the other mode or not New or
 * Closed) and is skipped otherwise, its bytes read all the same. Every
 * other call runs on every input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_reader.h"
#include "context/context.h"
#include "context/context_internal.h"
#include "kernel/kernel_state.h"
#include "simpler/runtime_c_api.h"
#include "simpler/simdev.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define OPS_MAX 24

/* A size: 0, small, or anything up to 2^63 (most init refusals). */
static uint64_t take_size(reader *r)
{
    uint8_t k = take(r);
    if (k < 32)
        return 0;
    if (k < 224)
        return (uint64_t)(k - 31) << (take(r) % 14u);
    return (uint64_t)take(r) << (take(r) % 64u) | take(r);
}

/* Everything a refused call must leave as it was. */
typedef struct snapshot {
    int supported;
    size_t committed;
    uint64_t heap_base, temp_addr;
    int errors_rc, last_runtime_error, teardown_error;
    const void *mode;
    int control_configured;
    SimplerKernelCtxControl control;
    int phase;
    SimplerKernelCtxControl capacity;
    SimplerKernelLayout layout;
} snapshot;

static void snap(DeviceContextHandle h, snapshot *s)
{
    const simpler_context *ctx = h;
    memset(s, 0, sizeof(*s));
    s->supported = simpler_kernel_mode_supported(h);
    s->committed = committed_device_memory_ctx(h);
    s->heap_base = get_arena_bank_gm_heap_base_ctx(h, 0);
    s->temp_addr = get_retained_temp_addr_ctx(h, 0);
    s->errors_rc = simpler_kernel_mode_errors(h, &s->last_runtime_error, &s->teardown_error);
    s->mode = ctx->mode;
    s->control_configured = ctx->control_configured;
    s->control = ctx->control;
    s->phase = kernel_phase(ctx);
    const kernel_state *ks = kernel_state_of(ctx);
    if (ks != NULL) {
        s->capacity = ks->capacity;
        s->layout = ks->layout;
    }
}

static void expect_unchanged(DeviceContextHandle h, const snapshot *before)
{
    snapshot after;
    snap(h, &after);
    if (memcmp(before, &after, sizeof(after)) != 0)
        abort();
}

static void control_init(SimplerKernelCtxControl *c, uint32_t action)
{
    memset(c, 0, sizeof(*c));
    c->abi_version = SIMPLER_KERNEL_CTX_CONTROL_ABI_VERSION;
    c->struct_size = sizeof(*c);
    c->action = action;
}

/* One corruption of a control block, or none. */
static void control_mangle(reader *r, SimplerKernelCtxControl *c)
{
    uint8_t m = take(r);
    switch (m % 12u) {
    case 1: c->abi_version = take(r); break;
    case 2: c->struct_size = take(r); break;
    case 3: c->action = take(r) % 4u; break;
    case 4: c->mode = take(r) % 3u; break;
    case 5: c->reserved[take(r) % 7u] = 1u + take(r); break;
    case 6: c->arg_slot_count = take(r); break;
    case 7: c->task_window = take(r); break;
    case 8: c->trace_records = take(r); break;
    default: break;
    }
}

/* An accepted control block did what its action says (a corrupted one
 * may carry the other action): a CONFIGURE is recorded as given, a
 * FREEZE makes the context ReadyEnqueued. */
static void control_accepted(DeviceContextHandle h, const SimplerKernelCtxControl *c)
{
    const simpler_context *ctx = h;
    if (c->action == SIMPLER_KERNEL_CTX_FREEZE ? kernel_phase(ctx) != KERNEL_PHASE_READY_ENQUEUED
                                               : c->action != SIMPLER_KERNEL_CTX_CONFIGURE || !ctx->control_configured ||
                                                     memcmp(&ctx->control, c, sizeof(*c)) != 0)
        abort();
}

static void check_plan(const SimplerGraphRequirements *g, size_t count, const SimplerKernelCtxControl *c)
{
    SimplerKernelCtxControl want;
    uint64_t tasks = 0;
    control_init(&want, SIMPLER_KERNEL_CTX_CONFIGURE);
    want.mode = SIMPLER_MODE_KERNEL;
    for (size_t i = 0; i < count; i++) {
#define MAXF(f) want.f = want.f > g[i].f ? want.f : g[i].f
        MAXF(gm_heap_bytes);
        MAXF(runtime_arena_bytes);
        MAXF(graph_definition_bytes);
        MAXF(scheduler_state_bytes);
        MAXF(retained_temp_bytes);
#undef MAXF
        tasks = tasks > g[i].task_count ? tasks : g[i].task_count;
    }
    want.task_window = (uint32_t)tasks + 1;
    if (memcmp(&want, c, sizeof(want)) != 0)
        abort();
}

static void check_layout(const SimplerKernelCtxControl *c, const SimplerKernelLayout *l)
{
    const uint64_t align = SIMPLER_KERNEL_REGION_ALIGN;
    if (l->runtime_offset != 0 || l->runtime_bytes != c->runtime_arena_bytes ||
        l->definition_bytes != c->graph_definition_bytes || l->scheduler_bytes != c->scheduler_state_bytes ||
        l->registry_bytes != SIMPLER_KERNEL_REGISTRY_BYTES)
        abort();
    /* In order, without overlap, each nonzero region after the first
     * aligned; the total is the registry's end. */
    uint64_t end = l->runtime_bytes;
    if (l->definition_bytes != 0 && (l->definition_offset % align != 0 || l->definition_offset < end))
        abort();
    end = l->definition_bytes != 0 ? l->definition_offset + l->definition_bytes : end;
    if (l->scheduler_bytes != 0 && (l->scheduler_offset % align != 0 || l->scheduler_offset < end))
        abort();
    end = l->scheduler_bytes != 0 ? l->scheduler_offset + l->scheduler_bytes : end;
    if (l->registry_offset < end || l->registry_offset > UINT64_MAX - l->registry_bytes ||
        l->runtime_pool_bytes != l->registry_offset + l->registry_bytes)
        abort();
}

static int one_of(int rc, const int *ok, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (rc == ok[i])
            return 1;
    return 0;
}
#define EXPECT(rc, ...)                                                                                               \
    do {                                                                                                             \
        static const int ok_[] = {__VA_ARGS__};                                                                      \
        if (!one_of((rc), ok_, sizeof(ok_) / sizeof(ok_[0])))                                                        \
            abort();                                                                                                 \
    } while (0)

enum { E_ARG = PTO_RUNTIME_ERR_INVALID_ARGUMENT, E_STATE = PTO_RUNTIME_ERR_INVALID_STATE };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    uint32_t hash = 2166136261u;
    for (size_t i = 0; i < size; i++)
        hash = (hash ^ data[i]) * 16777619u;
    const int creating = (hash >> 23) == 0; /* one input in 512 */
    /* One stream kept for the process: the device's engines start with
     * its first stream and stay up, so each input does not start them. */
    static simdev_stream_t keep;
    if (keep == NULL && simdev_stream_create(&keep) != SIMDEV_SUCCESS)
        abort();
    DeviceContextHandle ctx = create_device_context();
    if (ctx == NULL)
        abort();
    /* The candidate CONFIGURE the sequence works on: a small kernel one. */
    SimplerKernelCtxControl cand;
    control_init(&cand, SIMPLER_KERNEL_CTX_CONFIGURE);
    cand.mode = SIMPLER_MODE_KERNEL;
    cand.task_window = 16;
    for (int op = 0; op < OPS_MAX && r.n > 0; op++) {
        snapshot before;
        snap(ctx, &before);
        int rc;
        switch (take(&r) % 10u) {
        case 0: { /* CONFIGURE */
            SimplerKernelCtxControl c = cand;
            control_mangle(&r, &c);
            rc = simpler_kernel_mode_ctx_control(ctx, take(&r) == 0xff ? NULL : &c);
            EXPECT(rc, 0, E_ARG, E_STATE);
            if (rc == 0)
                control_accepted(ctx, &c);
            break;
        }
        case 1: { /* FREEZE as a control block */
            SimplerKernelCtxControl c;
            control_init(&c, SIMPLER_KERNEL_CTX_FREEZE);
            control_mangle(&r, &c);
            rc = simpler_kernel_mode_ctx_control(ctx, &c);
            EXPECT(rc, 0, E_ARG, E_STATE);
            if (rc == 0)
                control_accepted(ctx, &c);
            break;
        }
        case 2:
            rc = simpler_kernel_mode_freeze(take(&r) == 0xff ? NULL : ctx);
            EXPECT(rc, 0, E_ARG, E_STATE);
            if (rc == 0 && kernel_phase(ctx) != KERNEL_PHASE_READY_ENQUEUED)
                abort();
            break;
        case 3: { /* kernel init */
            CallConfig config;
            (void)simpler_call_config_default(&config);
            uint8_t how = take(&r);
            config.task_window = how & 0x10 ? take(&r) : 0;
            config.heap_bytes = how & 0x20 ? take_size(&r) : 0;
            if (how & 0x40)
                config.reserved0 = 1;
            int device = how & 0x80 ? (int)(take(&r) % 3u) - 1 : 0;
            uint64_t generation = take(&r);
            int phase = kernel_phase(ctx);
            if (!creating && device == 0 && !((how & 0x08) && (how & 0x40)) && !context_is_program(ctx) &&
                (phase == KERNEL_PHASE_NEW || phase == KERNEL_PHASE_CLOSED))
                continue; /* could go through: not on this input */
            rc = simpler_kernel_mode_init(ctx, device, how & 0x08 ? &config : NULL, generation);
            EXPECT(rc, 0, E_ARG, E_STATE, PTO_RUNTIME_ERR_CAPACITY_EXCEEDED, PTO_RUNTIME_ERR_UNSUPPORTED,
                   PTO_RUNTIME_ERR_OUT_OF_MEMORY);
            if (rc == 0 && kernel_phase(ctx) != KERNEL_PHASE_COLLECTING)
                abort();
            break;
        }
        case 4:
            rc = finalize_device(ctx);
            EXPECT(rc, 0, E_ARG, E_STATE);
            continue; /* finalize of a New context is a no-op; no refusal to check */
        case 5: /* program mode's init: latches the other mode */
            if (!creating && !context_is_kernel(ctx))
                continue; /* could go through: not on this input */
            rc = simpler_init(ctx, 0, NULL);
            EXPECT(rc, 0, E_ARG, E_STATE, PTO_RUNTIME_ERR_OUT_OF_MEMORY);
            break;
        case 6: { /* plan_capacity into the candidate */
            SimplerGraphRequirements g[3];
            size_t count = take(&r) % 4u;
            for (size_t i = 0; i < 3; i++) {
                g[i].gm_heap_bytes = take_size(&r);
                g[i].runtime_arena_bytes = take_size(&r);
                g[i].graph_definition_bytes = take_size(&r);
                g[i].scheduler_state_bytes = take_size(&r);
                g[i].retained_temp_bytes = take_size(&r);
                g[i].task_count = take(&r) == 0xff ? UINT32_MAX : take(&r);
            }
            SimplerKernelCtxControl out;
            memset(&out, 0xa5, sizeof(out));
            SimplerKernelCtxControl untouched = out;
            rc = simpler_kernel_plan_capacity(take(&r) == 0xff ? NULL : g, count, &out);
            EXPECT(rc, 0, E_ARG, PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
            if (rc != 0 && memcmp(&out, &untouched, sizeof(out)) != 0)
                abort();
            if (rc == 0) {
                check_plan(g, count, &out);
                SimplerKernelLayout l;
                if (simpler_kernel_layout(&out, &l) != 0) /* a plan always packs */
                    abort();
                cand = out;
                cand.arg_slot_count = take(&r) % (SIMPLER_KERNEL_MAX_ARG_SLOTS + 2u);
            }
            break;
        }
        case 7: { /* layout of the candidate, maybe corrupted */
            SimplerKernelCtxControl c = cand;
            control_mangle(&r, &c);
            SimplerKernelLayout l;
            memset(&l, 0x5a, sizeof(l));
            SimplerKernelLayout untouched = l;
            rc = simpler_kernel_layout(&c, &l);
            EXPECT(rc, 0, E_ARG, PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
            if (rc != 0 && memcmp(&l, &untouched, sizeof(l)) != 0)
                abort();
            if (rc == 0)
                check_layout(&c, &l);
            break;
        }
        case 8: /* set one size of the candidate to anything */
            switch (take(&r) % 5u) {
            case 0: cand.gm_heap_bytes = take_size(&r); break;
            case 1: cand.runtime_arena_bytes = take_size(&r); break;
            case 2: cand.graph_definition_bytes = take_size(&r); break;
            case 3: cand.scheduler_state_bytes = take_size(&r); break;
            default: cand.retained_temp_bytes = take_size(&r); break;
            }
            continue;
        default: /* the candidate's mode and slots */
            cand.mode = take(&r) & 1u;
            cand.arg_slot_count = take(&r) % 8u;
            continue;
        }
        if (rc != 0)
            expect_unchanged(ctx, &before);
    }
    (void)finalize_device(ctx);
    destroy_device_context(ctx);
    return 0;
}
