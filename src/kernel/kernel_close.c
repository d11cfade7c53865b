/* Closing a kernel context: Closing first,
 * then device resources, events and streams, each nulled as it goes; a
 * failure keeps Closing and the teardown error, and a retry redoes only
 * what remains. Never resets the device or touches the caller's stream. */
#include "common/error.h"
#include "common/host_alloc.h"
#include "context/context.h"
#include "context/context_streams.h"
#include "kernel/kernel_state.h"
#include "device/device_handshake.h"
#include "device/device_slot.h"

int kernel_release_device(simpler_context *ctx)
{
    kernel_state *ks = kernel_state_of(ctx);
    /* The status words live in gm_sm: nobody may read them after this. */
    if (ks != NULL)
        ks->status = NULL;
    int first = arena_bank_release(&ctx->bank);
    int rc = retained_temp_release(&ctx->temp, ctx->ops);
    first = first ? first : rc;
    rc = device_arena_release(&ctx->trace, ctx->ops);
    first = first ? first : rc;
    rc = device_arena_release(&ctx->arg_slots, ctx->ops);
    first = first ? first : rc;
    if (ks != NULL && ks->registered != NULL) {
        rc = context_device_status(ctx, "event_destroy", ctx->ops->event_destroy(ctx->ops->user, ks->registered));
        if (rc == 0)
            ks->registered = NULL;
        first = first ? first : rc;
    }
    rc = context_streams_release(ctx);
    return first ? first : rc;
}

/* Everything host-side but the state struct itself (Closed keeps it for
 * the phase and the error slots). */
static void host_parts_release(simpler_context *ctx, kernel_state *ks)
{
    residency_deinit(&ctx->residency);
    for (int i = 0; i < SIMPLER_KERNEL_MAX_CALLABLES; i++) {
        host_free(ks->slots[i]);
        ks->slots[i] = NULL;
    }
    graph_scratch_destroy(ctx->scratch);
    ctx->scratch = NULL;
    host_free(ks->packet);
    ks->packet = NULL;
    ks->packet_capacity = 0;
}

void kernel_release_host(simpler_context *ctx)
{
    kernel_state *ks = kernel_state_of(ctx);
    if (ks == NULL)
        return;
    host_parts_release(ctx, ks);
    host_free(ks);
    ctx->mode_state = NULL;
}

/* After a launch whose enqueue failed midway the executor may be waiting
 * for a scheduler that never comes. Close may synchronize the context's
 * own streams: let the AICPU stream finish (its arena clear included),
 * then tell every core of that launch to quit and let the AICore stream
 * finish, so neither the stream's destruction waits forever nor the
 * cores touch a released bank. The slots are signalled through the
 * platform (mem_signal). */
static void half_chain_dismiss(simpler_context *ctx, kernel_state *ks)
{
    const device_run_desc *d = &ks->chain_desc;
    if (!ks->half_chain || ks->status == NULL || ctx->streams[CONTEXT_STREAM_AICPU] == NULL)
        return;
    (void)ctx->ops->stream_synchronize(ctx->ops->user, ctx->streams[CONTEXT_STREAM_AICPU]);
    (void)context_device_status(ctx, "mem_signal (dismiss cores)", device_slots_dismiss(ctx->ops, d));
    /* The cores leave; their launch ends before the bank is released. */
    if (ctx->streams[CONTEXT_STREAM_AICORE] != NULL)
        (void)ctx->ops->stream_synchronize(ctx->ops->user, ctx->streams[CONTEXT_STREAM_AICORE]);
    ks->half_chain = 0;
}

static int kernel_finalize(simpler_context *ctx)
{
    kernel_state *ks = kernel_state_of(ctx);
    if (ks == NULL || ks->phase == KERNEL_PHASE_NEW || ks->phase == KERNEL_PHASE_CLOSED)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "ctx: phase %s: nothing to close",
                            kernel_phase_name(ks != NULL ? ks->phase : KERNEL_PHASE_NEW));
    /* Closing anyway: a status word that cannot be read leaves no
     * reason behind a finalize that succeeds. */
    if (ks->phase != KERNEL_PHASE_CLOSING && kernel_status_observe(ctx, ks) != 0)
        simpler_error_clear();
    ks->phase = KERNEL_PHASE_CLOSING;
    int rc = context_select_device(ctx);
    if (rc == 0)
        half_chain_dismiss(ctx, ks);
    rc = rc ? rc : kernel_release_device(ctx);
    if (rc != 0) {
        if (ks->teardown_error == 0)
            ks->teardown_error = rc;
        return rc;
    }
    host_parts_release(ctx, ks);
    ks->phase = KERNEL_PHASE_CLOSED;
    return 0;
}

/* A context holds resources from a successful init (or an init whose
 * unwind failed) until destroy or the next init, Closed included. */
static int kernel_holds_resources(const simpler_context *ctx)
{
    return kernel_phase(ctx) != KERNEL_PHASE_NEW;
}

static int kernel_blocks_destroy(const simpler_context *ctx)
{
    int phase = kernel_phase(ctx);
    return phase != KERNEL_PHASE_NEW && phase != KERNEL_PHASE_CLOSED;
}

static void kernel_destroy(simpler_context *ctx)
{
    kernel_release_host(ctx);
}

const context_mode_ops kernel_mode_ops = {
    .mode = CONTEXT_MODE_KERNEL,
    .finalize = kernel_finalize,
    .holds_resources = kernel_holds_resources,
    .blocks_destroy = kernel_blocks_destroy,
    .destroy = kernel_destroy,
};
