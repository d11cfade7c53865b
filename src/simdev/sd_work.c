/*
 * Work entry points: kernels, async copies and sets, host functions and
 * graph launches. Each is queued on its stream, or recorded as a graph
 * node when the stream is a member of a capture.
 */
#include <string.h>

#include "common/host_alloc.h"
#include "simdev/sd_internal.h"

#define BLOCK_DIM_MAX (SIMDEV_MAX_ENGINE_THREADS * 16u)

/* The node a captured op becomes; kernel arguments are copied. */
static int node_from_op(const struct sd_op *op, const void *args, size_t args_size, struct sd_node *node)
{
    static const int kinds[] = {
        [SD_OP_KERNEL] = SD_NODE_KERNEL,
        [SD_OP_MEMCPY] = SD_NODE_MEMCPY,
        [SD_OP_MEMSET] = SD_NODE_MEMSET,
        [SD_OP_HOST_FUNC] = SD_NODE_HOST_FUNC,
    };
    memset(node, 0, sizeof(*node));
    node->kind = kinds[op->kind];
    node->engine = op->engine;
    node->block_dim = op->block_dim;
    node->fn = op->fn;
    node->host_fn = op->host_fn;
    node->dst = op->dst;
    node->src = op->src;
    node->size = op->size;
    node->value = op->value;
    node->args_size = args_size;
    if (args_size == 0)
        return 0;
    node->args = host_alloc(args_size);
    if (node->args == NULL)
        return SIMDEV_ERROR_MEMORY_ALLOCATION;
    memcpy(node->args, args, args_size);
    return 0;
}

/* Under sd_g.lock, `s` already checked: queues `op` or records it into the
 * stream's capture. `check` re-validates op fields that depend on state
 * that may change while a full ring is waited for. */
static int submit(struct simdev_stream *s, struct sd_op *op, const void *args, size_t args_size,
                  int (*check)(const struct sd_op *op))
{
    for (;;) {
        int rc = sd_stream_check(s);
        if (rc == 0 && check != NULL)
            rc = check(op);
        if (rc != 0)
            return rc;
        if (s->cap != NULL) {
            struct sd_node node;
            if (node_from_op(op, args, args_size, &node) != 0) {
                sd_capture_invalidate(s->cap);
                return SIMDEV_ERROR_MEMORY_ALLOCATION;
            }
            return sd_capture_add_node(s, &node);
        }
        if (op->kind == SD_OP_KERNEL && sd_pool_start(&sd_g.dev[s->device].pools[op->engine]) != 0)
            return SIMDEV_ERROR_MEMORY_ALLOCATION;
        if (sd_stream_reserve(s, args_size) == SD_RETRY)
            continue;
        sd_stream_push(s, op, args, args_size);
        return 0;
    }
}

/* The shape of an entry point: count (an injected fault returns here, with
 * no effect, even on a capturing stream), validate, submit. */
static int enqueue(simdev_call_class cls, struct simdev_stream *s, struct sd_op *op, const void *args,
                   size_t args_size, int param_ok, int (*check)(const struct sd_op *op))
{
    int rc = sd_call(cls);
    if (rc != 0)
        return rc;
    if (!param_ok)
        return SIMDEV_ERROR_INVALID_PARAM;
    if ((rc = sd_lock_started()) != 0)
        return rc;
    rc = submit(s, op, args, args_size, check);
    sd_unlock();
    return rc;
}

int simdev_launch_kernel(simdev_stream_t stream, simdev_engine engine, simdev_kernel_fn fn, uint32_t block_dim,
                         const void *args, size_t args_size)
{
    int ok = (engine == SIMDEV_ENGINE_AICPU || engine == SIMDEV_ENGINE_AICORE) && fn != NULL &&
             block_dim >= 1 && block_dim <= BLOCK_DIM_MAX && args_size <= SIMDEV_KERNEL_ARGS_MAX &&
             (args != NULL || args_size == 0);
    struct sd_op op = {.kind = SD_OP_KERNEL, .engine = (int)engine, .fn = fn, .block_dim = block_dim};
    return enqueue(SIMDEV_CALL_KERNEL_LAUNCH, stream, &op, args, args_size, ok, NULL);
}

/* Under sd_g.lock: the current device's heap holds the range. */
static int in_device(const void *p, size_t size)
{
    int d = sd_current_device();
    return (uint32_t)d < sd_g.cfg.device_count && sd_heap_contains(&sd_g.dev[d].heap, p, size);
}

static int copy_check(const struct sd_op *op)
{
    return in_device(op->dst, op->size) || in_device(op->src, op->size) ? 0 : SIMDEV_ERROR_INVALID_PARAM;
}

static int set_check(const struct sd_op *op)
{
    return in_device(op->dst, op->size) ? 0 : SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_memcpy_async(void *dst, const void *src, size_t size, simdev_stream_t stream)
{
    struct sd_op op = {.kind = SD_OP_MEMCPY, .dst = dst, .src = src, .size = size};
    return enqueue(SIMDEV_CALL_MEMCPY_ASYNC, stream, &op, NULL, 0, dst != NULL && src != NULL, copy_check);
}

int simdev_memset_async(void *dev_ptr, int value, size_t size, simdev_stream_t stream)
{
    struct sd_op op = {.kind = SD_OP_MEMSET, .dst = dev_ptr, .value = value, .size = size};
    return enqueue(SIMDEV_CALL_MEMSET, stream, &op, NULL, 0, dev_ptr != NULL, set_check);
}

int simdev_launch_host_func(simdev_stream_t stream, void (*fn)(void *), void *user_data)
{
    struct sd_op op = {.kind = SD_OP_HOST_FUNC, .host_fn = fn, .dst = user_data};
    return enqueue(SIMDEV_CALL_HOST_FUNC, stream, &op, NULL, 0, fn != NULL, NULL);
}

/* Under sd_g.lock: graph and stream valid, on one device, stream not
 * capturing (graphs are not nested into captures). */
static int graph_launch_check(struct simdev_graph *g, struct simdev_stream *s)
{
    int rc = sd_graph_check(g);
    if (rc == 0)
        rc = sd_stream_check(s);
    if (rc == 0 && g->device != s->device)
        rc = SIMDEV_ERROR_INVALID_DEVICE;
    if (rc == 0 && s->cap != NULL)
        rc = SIMDEV_ERROR_INVALID_PARAM;
    return rc;
}

int simdev_graph_launch(simdev_graph_t graph, simdev_stream_t stream)
{
    int rc = sd_call(SIMDEV_CALL_GRAPH_LAUNCH);
    if (rc != 0)
        return rc;
    if ((rc = sd_lock_started()) != 0)
        return rc;
    for (;;) {
        if ((rc = graph_launch_check(graph, stream)) != 0 || (rc = sd_graph_prepare(graph)) != 0)
            break;
        if (sd_stream_reserve(stream, 0) == SD_RETRY)
            continue;
        pthread_mutex_lock(&graph->mu);
        graph->pending++;
        pthread_mutex_unlock(&graph->mu);
        struct sd_op op = {.kind = SD_OP_GRAPH, .graph = graph};
        sd_stream_push(stream, &op, NULL, 0);
        break;
    }
    sd_unlock();
    return rc;
}
