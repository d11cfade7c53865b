#define _GNU_SOURCE
/* Executions of one kernel context never overlap on the device, over
 * real simdev and the "vadd" fixture image (f = 2 * (a + b + R)): two
 * graphs of one context replayed at once on two streams, and an eager
 * launch while a replay runs (refused on the host at a stream switch,
 * refused on the device otherwise). Every result is either correct or
 * reported refused, never wrong without an error. */
#include "support.h"

#include <sched.h>

#include "context/context.h"
#include "device/kernel_packet.h"
#include "kernel/kernel_state.h"
#include "kernel_fixture.h"
#include "../program/image_fixture.h"

#define OVERLAP_ROUNDS 500u
#define LONG_ROUNDS 200u  /* a replay long enough to catch it running */
#define ATTEMPTS 200u
#define POLLS 2000000u    /* sched_yield polls while waiting for a replay to start */

/* The gate's owner word, read as the device writes it. */
static uint64_t gate_owner(const kfix *k)
{
    const kernel_state *ks = kernel_state_of((const simpler_context *)k->ctx);
    return atomic_load(&ks->status->owner);
}

/* Waits (yielding) until an execution holds the gate; 0 once seen, -1
 * when the stream finished first. */
static int wait_gate_taken(const kfix *k, simdev_stream_t running)
{
    for (uint32_t i = 0; i < POLLS; i++) {
        if (gate_owner(k) != 0)
            return 0;
        if (simdev_stream_query(running) == SIMDEV_SUCCESS)
            return -1;
        sched_yield();
    }
    return -1;
}

static int runtime_error(kfix *k)
{
    int err = 0;
    assert_int_equal(simpler_kernel_mode_errors(k->ctx, &err, NULL), 0);
    return err;
}

typedef struct side {
    simdev_stream_t stream;
    simdev_graph_t graph;
    kbufs d;
    uint64_t rounds;
    vadd_buffers v;
    uint32_t refused, correct;
} side;

/* 0 correct, 1 refused (its stream reports the failure; the stream is
 * made anew), -1 wrong without an error. */
static int side_finish(side *s)
{
    if (simdev_stream_synchronize(s->stream) != SIMDEV_SUCCESS) {
        assert_int_equal(simdev_stream_destroy(s->stream), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_create(&s->stream), SIMDEV_SUCCESS);
        s->refused++;
        return 1;
    }
    if (kbufs_check(&s->d, &s->v, s->rounds) != 0)
        return -1;
    s->correct++;
    return 0;
}

static void overlap_two_graphs_replayed_at_once_500_rounds_correct_or_refused(void **state)
{
    static side sides[2];
    kfix k;
    (void)state;
    kfix_open_plan(&k, &image, 8);
    /* The replays run on streams of their own, which never waited for
     * the prepare's registration: order it before them, as a caller
     * replaying on other streams must. */
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    for (int i = 0; i < 2; i++) {
        side *s = &sides[i];
        memset(s, 0, sizeof(*s));
        s->rounds = i == 0 ? 8 : 3;
        kbufs_alloc(&s->d);
        s->graph = kfix_capture(&k, &s->d, s->rounds);
        assert_int_equal(simdev_stream_create(&s->stream), SIMDEV_SUCCESS);
    }
    for (uint32_t r = 0; r < OVERLAP_ROUNDS; r++) {
        for (int i = 0; i < 2; i++)
            kbufs_upload(&sides[i].d, &sides[i].v, (float)(r * 2 + (uint32_t)i));
        for (int i = 0; i < 2; i++)
            assert_int_equal(simdev_graph_launch(sides[i].graph, sides[i].stream), SIMDEV_SUCCESS);
        for (int i = 0; i < 2; i++) {
            if (side_finish(&sides[i]) < 0)
                fail_msg("round %u, graph %d: wrong result and no error", r, i);
        }
    }
    /* Whatever was refused was refused by the gate, and said so. */
    int err = runtime_error(&k);
    assert_true(err == 0 || err == KERNEL_GATE_ERR_OVERLAP);
    assert_true((sides[0].refused + sides[1].refused == 0) == (err == 0));
    print_message("two graphs, %u rounds: %u + %u correct, %u + %u refused\n", OVERLAP_ROUNDS, sides[0].correct,
                  sides[1].correct, sides[0].refused, sides[1].refused);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(simdev_graph_destroy(sides[i].graph), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_destroy(sides[i].stream), SIMDEV_SUCCESS);
        kbufs_free(&sides[i].d);
    }
    kfix_close(&k);
}

/* An eager launch on another stream than the last launch's while a
 * replay of the same context runs: the replay never re-records
 * SerialTail, so only the gate shows it; the launch is refused with
 * -1002 and nothing enqueued, and the replay's result is correct.
 *
 * The host rule applies only to a stream other than the last launch's,
 * and a launch that got through (the replay ended between the look and
 * the launch) makes its own stream the last launch's: the next attempt
 * on that stream would meet the replay at the device gate instead (the
 * other test's case). So the eager launches alternate between two
 * streams, each attempt on the one that was not the last launch's. */
static void overlap_eager_launch_on_another_stream_while_replay_runs_refused_on_host(void **state)
{
    static vadd_buffers v, w;
    simdev_counters before, after;
    simdev_stream_t others[2];
    kfix k;
    kbufs d, e;
    uint32_t refused = 0, next = 0;
    (void)state;
    kfix_open_plan(&k, &image, LONG_ROUNDS);
    kbufs_alloc(&d);
    kbufs_alloc(&e);
    for (int i = 0; i < 2; i++)
        assert_int_equal(simdev_stream_create(&others[i]), SIMDEV_SUCCESS);
    simdev_graph_t g = kfix_capture(&k, &d, LONG_ROUNDS); /* the last launch's stream: k.stream */
    for (uint32_t a = 0; a < ATTEMPTS && refused == 0; a++) {
        simdev_stream_t other = others[next];
        kbufs_upload(&d, &v, (float)a);
        kbufs_upload(&e, &w, (float)a + 0.5f);
        assert_int_equal(simdev_graph_launch(g, k.stream), SIMDEV_SUCCESS);
        if (wait_gate_taken(&k, k.stream) == 0) {
            assert_int_equal(simdev_get_thread_counters(&before), SIMDEV_SUCCESS);
            ChipStorageTaskArgs args;
            vadd_args_make(&args, e.a, e.b, e.f, SIMPLER_ADDRESS_SPACE_DEVICE, 2, 0);
            int rc = simpler_kernel_mode_launch(k.ctx, KFIX_ID, &args, other);
            assert_int_equal(simdev_get_thread_counters(&after), SIMDEV_SUCCESS);
            if (rc == PTO_RUNTIME_ERR_PREPARED_INCOMPATIBLE) {
                refused++;
                assert_int_equal(after.kernel_launches, before.kernel_launches);
                assert_int_equal(after.event_record_calls, before.event_record_calls);
            } else {
                /* The replay ended between the look and the launch (it
                 * released the gate, and takes it only once): nothing
                 * else can hold the gate, so the launch runs and is
                 * correct. Its stream is now the last launch's. */
                assert_int_equal(rc, 0);
                assert_int_equal(simdev_stream_synchronize(other), SIMDEV_SUCCESS);
                assert_int_equal(kbufs_check(&e, &w, 2), 0);
                next ^= 1u;
            }
        }
        assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
        assert_int_equal(kbufs_check(&d, &v, LONG_ROUNDS), 0);
    }
    assert_int_equal(refused, 1);
    assert_int_equal(runtime_error(&k), 0); /* a host refusal poisons nothing */
    assert_int_equal(simdev_graph_destroy(g), SIMDEV_SUCCESS);
    for (int i = 0; i < 2; i++)
        assert_int_equal(simdev_stream_destroy(others[i]), SIMDEV_SUCCESS);
    kbufs_free(&d);
    kbufs_free(&e);
    kfix_close(&k);
}

/* An eager launch on the last launch's stream while a replay of the same
 * context runs on another stream: no host rule applies (same stream), so
 * the gate refuses it on the device: its stream fails, its output is
 * untouched, the context reports KERNEL_GATE_ERR_OVERLAP, and the replay
 * still computes its golden. */
static void overlap_eager_launch_while_replay_runs_refused_on_device_replay_correct(void **state)
{
    static vadd_buffers v, w;
    static float f[VADD_N];
    simdev_stream_t other;
    kfix k;
    kbufs d, e;
    int refused = 0;
    (void)state;
    kfix_open_plan(&k, &image, LONG_ROUNDS);
    /* The replays run on `other`, which never waited for the prepare's
     * registration (only k.stream did): order it before them. */
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    kbufs_alloc(&d);
    kbufs_alloc(&e);
    assert_int_equal(simdev_stream_create(&other), SIMDEV_SUCCESS);
    simdev_graph_t g = kfix_capture(&k, &d, LONG_ROUNDS); /* the last launch's stream: k.stream */
    for (uint32_t a = 0; a < ATTEMPTS && !refused; a++) {
        kbufs_upload(&d, &v, (float)a);
        kbufs_upload(&e, &w, (float)a + 0.25f);
        assert_int_equal(simdev_graph_launch(g, other), SIMDEV_SUCCESS);
        if (wait_gate_taken(&k, other) == 0) {
            ChipStorageTaskArgs args;
            vadd_args_make(&args, e.a, e.b, e.f, SIMPLER_ADDRESS_SPACE_DEVICE, 2, 0);
            int rc = simpler_kernel_mode_launch(k.ctx, KFIX_ID, &args, k.stream);
            if (rc != 0) {
                /* Nothing was refused yet, so nothing may have poisoned
                 * the context: say what the runtime saw. */
                char why[256];
                snprintf(why, sizeof(why), "%s", simpler_last_error_message());
                fail_msg("attempt %u: eager launch returned %d (%s); runtime error %d, gate owner %llu", a, rc, why,
                         runtime_error(&k), (unsigned long long)gate_owner(&k));
            }
            if (simdev_stream_synchronize(k.stream) != SIMDEV_SUCCESS) {
                refused = 1;
                assert_int_equal(simdev_memcpy(f, e.f, sizeof(f)), SIMDEV_SUCCESS);
                for (uint32_t i = 0; i < VADD_N; i++)
                    assert_true(f[i] == -1.0f);
                assert_int_equal(runtime_error(&k), KERNEL_GATE_ERR_OVERLAP);
            } else {
                assert_int_equal(kbufs_check(&e, &w, 2), 0);
            }
        }
        assert_int_equal(simdev_stream_synchronize(other), SIMDEV_SUCCESS);
        assert_int_equal(kbufs_check(&d, &v, LONG_ROUNDS), 0);
    }
    assert_true(refused);
    assert_int_equal(simdev_graph_destroy(g), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(other), SIMDEV_SUCCESS);
    kbufs_free(&d);
    kbufs_free(&e);
    assert_int_equal(finalize_device(k.ctx), 0);
    destroy_device_context(k.ctx);
    assert_int_equal(simdev_stream_destroy(k.stream), SIMDEV_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(overlap_two_graphs_replayed_at_once_500_rounds_correct_or_refused),
        cmocka_unit_test(overlap_eager_launch_on_another_stream_while_replay_runs_refused_on_host),
        cmocka_unit_test(overlap_eager_launch_while_replay_runs_refused_on_device_replay_correct),
    };
    return cmocka_run_group_tests(tests, image_group_setup, image_group_teardown);
}
