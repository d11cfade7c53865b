/* The memory helpers of runtime_c_api.h on an initialized program-mode
 * context: each bad input returns its documented result and changes
 * neither device memory, nor the accounting, nor the caller's buffers. */
#include "support.h"

#include <pthread.h>
#include <string.h>

#include "program_fixture.h"

#define WORDS 64u

static DeviceContextHandle ctx;

static int setup(void **state)
{
    (void)state;
    if (program_simdev_setup() != 0)
        return -1;
    ctx = create_device_context();
    return ctx != NULL && simpler_init(ctx, 0, NULL) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    int rc = finalize_device(ctx);
    destroy_device_context(ctx);
    return rc == 0 ? program_simdev_teardown() : -1;
}

static simdev_mem_info mem_info(void)
{
    simdev_mem_info info;
    assert_int_equal(simdev_get_mem_info(0, &info), SIMDEV_SUCCESS);
    return info;
}

static void assert_mem_unchanged(const simdev_mem_info *before)
{
    simdev_mem_info now = mem_info();
    assert_int_equal(now.committed_bytes, before->committed_bytes);
    assert_int_equal(now.live_allocations, before->live_allocations);
}

/* A device buffer of WORDS words, each holding `word`. */
static uint32_t *filled_buffer(uint32_t word)
{
    uint32_t host[WORDS];
    for (uint32_t i = 0; i < WORDS; i++)
        host[i] = word;
    uint32_t *dev = device_malloc_ctx(ctx, sizeof host);
    assert_non_null(dev);
    assert_int_equal(copy_to_device_ctx(ctx, dev, host, sizeof host), 0);
    return dev;
}

static void assert_device_words(const uint32_t *dev, uint32_t word)
{
    uint32_t host[WORDS];
    assert_int_equal(copy_from_device_ctx(ctx, host, dev, sizeof host), 0);
    for (uint32_t i = 0; i < WORDS; i++)
        assert_int_equal(host[i], word);
}

static void memory_helpers_malloc_zero_or_exhausting_returns_null_and_allocates_nothing(void **state)
{
    (void)state;
    simdev_mem_info before = mem_info();
    size_t committed = committed_device_memory_ctx(ctx);
    assert_null(device_malloc_ctx(ctx, 0));
    assert_null(device_malloc_ctx(ctx, (size_t)1 << 40));
    assert_mem_unchanged(&before);
    assert_int_equal(committed_device_memory_ctx(ctx), committed);
}

static void memory_helpers_copy_null_pointers_invalid_argument_without_effect(void **state)
{
    (void)state;
    uint32_t *dev = filled_buffer(0x11111111u);
    uint32_t host[WORDS];
    memset(host, 0x22, sizeof host);
    simdev_mem_info before = mem_info();
    assert_int_equal(copy_to_device_ctx(ctx, NULL, host, sizeof host), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(copy_to_device_ctx(ctx, dev, NULL, sizeof host), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(copy_from_device_ctx(ctx, NULL, dev, sizeof host), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(copy_from_device_ctx(ctx, host, NULL, sizeof host), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_mem_unchanged(&before);
    for (uint32_t i = 0; i < WORDS; i++)
        assert_int_equal(host[i], 0x22222222u);
    assert_device_words(dev, 0x11111111u);
    device_free_ctx(ctx, dev);
}

static void memory_helpers_copy_past_the_allocation_is_device_error_without_effect(void **state)
{
    (void)state;
    uint32_t *dev = filled_buffer(0x33333333u);
    uint32_t host[2 * WORDS];
    memset(host, 0x44, sizeof host);
    simdev_mem_info before = mem_info();
    /* One allocation of WORDS words; twice that runs past its end. */
    assert_int_equal(copy_to_device_ctx(ctx, dev, host, sizeof host), PTO_RUNTIME_ERR_DEVICE);
    assert_int_equal(copy_from_device_ctx(ctx, host, dev, sizeof host), PTO_RUNTIME_ERR_DEVICE);
    assert_mem_unchanged(&before);
    for (uint32_t i = 0; i < 2 * WORDS; i++)
        assert_int_equal(host[i], 0x44444444u);
    assert_device_words(dev, 0x33333333u);
    device_free_ctx(ctx, dev);
}

static void memory_helpers_copy_with_a_host_pointer_as_device_is_device_error(void **state)
{
    (void)state;
    uint32_t not_device[WORDS];
    uint32_t host[WORDS];
    memset(not_device, 0x55, sizeof not_device);
    memset(host, 0x66, sizeof host);
    simdev_mem_info before = mem_info();
    assert_int_equal(copy_to_device_ctx(ctx, not_device, host, sizeof host), PTO_RUNTIME_ERR_DEVICE);
    assert_int_equal(copy_from_device_ctx(ctx, host, not_device, sizeof host), PTO_RUNTIME_ERR_DEVICE);
    assert_mem_unchanged(&before);
    for (uint32_t i = 0; i < WORDS; i++) {
        assert_int_equal(not_device[i], 0x55555555u);
        assert_int_equal(host[i], 0x66666666u);
    }
}

static void memory_helpers_free_of_foreign_or_freed_pointer_changes_nothing(void **state)
{
    (void)state;
    uint32_t *keep = filled_buffer(0x77777777u);
    uint32_t *gone = filled_buffer(0x88888888u);
    device_free_ctx(ctx, gone);
    uint32_t not_device[WORDS];
    simdev_mem_info before = mem_info();
    device_free_ctx(ctx, gone);
    device_free_ctx(ctx, not_device);
    device_free_ctx(ctx, (uint8_t *)keep + 4);
    device_free_ctx(ctx, NULL);
    assert_mem_unchanged(&before);
    assert_device_words(keep, 0x77777777u);
    device_free_ctx(ctx, keep);
    assert_int_equal(mem_info().live_allocations, before.live_allocations - 1);
}

/* Another thread's capture in GLOBAL mode, held open while the test
 * thread copies: the device refuses synchronous copies to threads in
 * the default interaction mode (runtime_c_api.h's conventions). */
typedef struct capture_holder {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int begun, release, rc;
} capture_holder;

static void *hold_capture(void *arg)
{
    capture_holder *h = arg;
    simdev_stream_t stream = NULL;
    simdev_graph_t graph = NULL;
    int rc = simdev_set_device(0);
    rc = rc ? rc : simdev_stream_create(&stream);
    rc = rc ? rc : simdev_capture_begin(stream, SIMDEV_CAPTURE_MODE_GLOBAL);
    pthread_mutex_lock(&h->lock);
    h->rc = rc;
    h->begun = 1;
    pthread_cond_broadcast(&h->cond);
    while (!h->release)
        pthread_cond_wait(&h->cond, &h->lock);
    pthread_mutex_unlock(&h->lock);
    if (rc == 0 && simdev_capture_end(stream, &graph) == 0 && graph != NULL)
        (void)simdev_graph_destroy(graph);
    if (stream != NULL)
        (void)simdev_stream_destroy(stream);
    return NULL;
}

static void memory_helpers_copy_refused_while_another_thread_captures_globally(void **state)
{
    (void)state;
    capture_holder h = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};
    uint32_t *dev = filled_buffer(7);
    uint32_t host[WORDS];
    memset(host, 0, sizeof host);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, hold_capture, &h), 0);
    pthread_mutex_lock(&h.lock);
    while (!h.begun)
        pthread_cond_wait(&h.cond, &h.lock);
    pthread_mutex_unlock(&h.lock);
    int during = copy_from_device_ctx(ctx, host, dev, sizeof host);
    pthread_mutex_lock(&h.lock);
    h.release = 1;
    pthread_cond_broadcast(&h.cond);
    pthread_mutex_unlock(&h.lock);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(h.rc, 0);
    assert_int_equal(during, PTO_RUNTIME_ERR_DEVICE);
    assert_int_equal(host[0], 0); /* nothing copied */
    assert_device_words(dev, 7);  /* and once the capture ended, it works */
    device_free_ctx(ctx, dev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(memory_helpers_malloc_zero_or_exhausting_returns_null_and_allocates_nothing),
        cmocka_unit_test(memory_helpers_copy_null_pointers_invalid_argument_without_effect),
        cmocka_unit_test(memory_helpers_copy_past_the_allocation_is_device_error_without_effect),
        cmocka_unit_test(memory_helpers_copy_with_a_host_pointer_as_device_is_device_error),
        cmocka_unit_test(memory_helpers_free_of_foreign_or_freed_pointer_changes_nothing),
        cmocka_unit_test(memory_helpers_copy_refused_while_another_thread_captures_globally),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
