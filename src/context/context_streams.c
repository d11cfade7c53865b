#include "context/context_streams.h"

#include "context/context.h"

static int stream_create(simpler_context *ctx, int which)
{
    platform_stream *stream = NULL;
    int rc = context_device_status(ctx, "stream_create", ctx->ops->stream_create(ctx->ops->user, &stream));
    if (rc == 0)
        ctx->streams[which] = stream;
    return rc;
}

static int event_create(simpler_context *ctx, int which)
{
    platform_event *event = NULL;
    int rc = context_device_status(ctx, "event_create", ctx->ops->event_create(ctx->ops->user, &event));
    if (rc == 0)
        ctx->events[which] = event;
    return rc;
}

int context_streams_create(simpler_context *ctx, int with_events)
{
    int rc = stream_create(ctx, CONTEXT_STREAM_AICPU);
    rc = rc ? rc : stream_create(ctx, CONTEXT_STREAM_AICORE);
    for (int e = 0; e < CONTEXT_EVENT_COUNT && rc == 0 && with_events; e++)
        rc = event_create(ctx, e);
    if (rc != 0)
        (void)context_streams_release(ctx);
    return rc;
}

int context_streams_release(simpler_context *ctx)
{
    int first = 0;
    for (int e = 0; e < CONTEXT_EVENT_COUNT; e++) {
        if (ctx->events[e] == NULL)
            continue;
        int rc = context_device_status(ctx, "event_destroy", ctx->ops->event_destroy(ctx->ops->user, ctx->events[e]));
        if (rc == 0)
            ctx->events[e] = NULL;
        else if (first == 0)
            first = rc;
    }
    for (int s = 0; s < CONTEXT_STREAM_COUNT; s++) {
        if (ctx->streams[s] == NULL)
            continue;
        int rc = context_device_status(ctx, "stream_destroy",
                                       ctx->ops->stream_destroy(ctx->ops->user, ctx->streams[s]));
        if (rc == 0)
            ctx->streams[s] = NULL;
        else if (first == 0)
            first = rc;
    }
    return first;
}
