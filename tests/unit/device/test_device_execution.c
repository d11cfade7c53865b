/* The device executes built graphs over real simdev: results, ordering,
 * core typing, address resolution and trace records. */
#include "device_test_util.h"

#include "device/device_core_plan.h"
#include "device/device_handshake.h"

#define N 64u

/* ---- orchestrations ---- */

/* x += 1, twenty times: a chain through WAW/RAW on one tensor. */
static int orch_chain(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    for (int i = 0; i < 20; i++) {
        simpler_orch_args_begin(orch);
        simpler_orch_add_inout(orch, &args->tensors[0]);
        simpler_orch_submit(orch, K_INC, SIMPLER_CORE_TYPE_AIV);
    }
    return 0;
}

/* a = x + 1; b[i] = a[i] + i for 100 slices; out = b * b. */
static int orch_fan(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    uint32_t n = 100;
    ChipTensor a, b;
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &n, &a);
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &n, &b);
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &args->tensors[0]);
    simpler_orch_add_output(orch, &a);
    simpler_orch_add_scalar(orch, 1);
    simpler_orch_submit(orch, K_ADD_SCALAR, SIMPLER_CORE_TYPE_AIV);
    for (uint32_t i = 0; i < n; i++) {
        ChipTensor ai = fixture_tensor_slice(&a, i, 1), bi = fixture_tensor_slice(&b, i, 1);
        simpler_orch_args_begin(orch);
        simpler_orch_add_input(orch, &ai);
        simpler_orch_add_output(orch, &bi);
        simpler_orch_add_scalar(orch, i);
        simpler_orch_submit(orch, K_ADD_SCALAR, SIMPLER_CORE_TYPE_AIV);
    }
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &b);
    simpler_orch_add_input(orch, &b);
    simpler_orch_add_output_existing(orch, &args->tensors[1]);
    return simpler_orch_submit(orch, K_MUL, SIMPLER_CORE_TYPE_AIC);
}

/* f = (a + b + 1) * (a + b + 2): s = a + b; p = s + 1; q = s + 2; f = p * q. */
static int orch_diamond(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    uint32_t n = args->tensors[0].shapes[0];
    ChipTensor s, p, q;
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &n, &s);
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &n, &p);
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &n, &q);
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &args->tensors[0]);
    simpler_orch_add_input(orch, &args->tensors[1]);
    simpler_orch_add_output(orch, &s);
    simpler_orch_submit(orch, K_ADD, SIMPLER_CORE_TYPE_AIV);
    const ChipTensor *outs[2] = {&p, &q};
    for (uint64_t k = 1; k <= 2; k++) {
        simpler_orch_args_begin(orch);
        simpler_orch_add_input(orch, &s);
        simpler_orch_add_output(orch, outs[k - 1]);
        simpler_orch_add_scalar(orch, k);
        simpler_orch_submit(orch, K_ADD_SCALAR, SIMPLER_CORE_TYPE_AIV);
    }
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &p);
    simpler_orch_add_input(orch, &q);
    simpler_orch_add_output_existing(orch, &args->tensors[2]);
    return simpler_orch_submit(orch, K_MUL, SIMPLER_CORE_TYPE_AIC);
}

/* A 30 ms gate, then 12 independent 5 ms tasks after it, each on its
 * own slice: while the gate runs, the idle cores fall asleep. */
static int orch_gate_then_long_tasks(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    ChipTensor all = fixture_tensor_slice(&args->tensors[0], 0, 12);
    simpler_orch_args_begin(orch);
    simpler_orch_add_inout(orch, &all);
    simpler_orch_add_scalar(orch, 30000);
    simpler_orch_submit(orch, K_SLOW, SIMPLER_CORE_TYPE_AIV);
    for (uint32_t i = 0; i < 12; i++) {
        ChipTensor xi = fixture_tensor_slice(&args->tensors[0], i, 1);
        simpler_orch_args_begin(orch);
        simpler_orch_add_inout(orch, &xi);
        simpler_orch_add_scalar(orch, 5000);
        simpler_orch_submit(orch, K_SLOW, SIMPLER_CORE_TYPE_AIV);
    }
    return 0;
}

/* W3-shaped, 10 layers x 10 tasks: task (l, j) adds slices j and j+1
 * (mod 10) of layer l-1; the last layer writes the caller's output. */
#define W 10u
static int orch_layers(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    uint32_t n = W;
    ChipTensor layer[W];
    for (uint32_t l = 0; l + 1 < W; l++)
        simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &n, &layer[l]);
    for (uint32_t l = 0; l < W; l++) {
        const ChipTensor *prev = l == 0 ? &args->tensors[0] : &layer[l - 1];
        const ChipTensor *next = l + 1 == W ? &args->tensors[1] : &layer[l];
        for (uint32_t j = 0; j < W; j++) {
            ChipTensor x = fixture_tensor_slice(prev, j, 1), y = fixture_tensor_slice(prev, (j + 1) % W, 1), o = fixture_tensor_slice(next, j, 1);
            simpler_orch_args_begin(orch);
            simpler_orch_add_input(orch, &x);
            simpler_orch_add_input(orch, &y);
            if (l + 1 == W)
                simpler_orch_add_output_existing(orch, &o);
            else
                simpler_orch_add_output(orch, &o);
            simpler_orch_submit(orch, K_ADD, SIMPLER_CORE_TYPE_AIV);
        }
    }
    return 0;
}

/* 60 independent no-op tasks, alternating AIC and AIV. */
static int orch_typed(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    (void)args;
    for (int i = 0; i < 60; i++) {
        simpler_orch_args_begin(orch);
        if (i % 2 == 0)
            simpler_orch_submit(orch, K_NOOP_AIC, SIMPLER_CORE_TYPE_AIC);
        else
            simpler_orch_submit(orch, K_NOOP_AIV, SIMPLER_CORE_TYPE_AIV);
    }
    return 0;
}

/* One probe: a caller DEVICE tensor, a heap intermediate, a staged HOST tensor. */
static int orch_probe(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    uint32_t n = 16;
    ChipTensor h1, h2;
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &n, &h1);
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &n, &h2);
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &args->tensors[0]);
    simpler_orch_add_output(orch, &h2);
    simpler_orch_add_input(orch, &args->tensors[1]);
    return simpler_orch_submit(orch, K_PROBE, SIMPLER_CORE_TYPE_AIV);
}

/* out = host_in + 5, with host_in staged. */
static int orch_staged(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &args->tensors[0]);
    simpler_orch_add_output_existing(orch, &args->tensors[1]);
    simpler_orch_add_scalar(orch, 5);
    return simpler_orch_submit(orch, K_ADD_SCALAR, SIMPLER_CORE_TYPE_AIV);
}

/* Random DAGs: task i writes slot i of a heap tensor and reads up to
 * three random earlier slots; types alternate at random. The seed comes
 * in scalar 0 (a small LCG keeps it reproducible). */
#define RANDOM_TASKS 300u
static uint32_t lcg(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*state >> 33);
}

static int orch_random(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    uint64_t rng = args->scalars[0];
    uint32_t n = RANDOM_TASKS;
    ChipTensor t;
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &n, &t);
    for (uint32_t i = 0; i < n; i++) {
        simpler_orch_args_begin(orch);
        for (uint32_t k = 0; i > 0 && k < lcg(&rng) % 4; k++) {
            ChipTensor in = fixture_tensor_slice(&t, lcg(&rng) % i, 1);
            simpler_orch_add_input(orch, &in);
        }
        ChipTensor out = fixture_tensor_slice(&t, i, 1);
        simpler_orch_add_output(orch, &out);
        if (lcg(&rng) % 3 == 0)
            simpler_orch_submit(orch, K_NOOP_AIC, SIMPLER_CORE_TYPE_AIC);
        else
            simpler_orch_submit(orch, K_NOOP_AIV, SIMPLER_CORE_TYPE_AIV);
    }
    return 0;
}

/* ---- tests ---- */

static void device_chain_of_inout_tasks_runs_in_order(void **state)
{
    dt_fixture *f = *state;
    float host[N];
    for (uint32_t i = 0; i < N; i++)
        host[i] = (float)i;
    void *x = dt_dev_alloc(N * 4);
    dt_upload_floats(x, host, N);
    ChipStorageTaskArgs *args = fixture_args_new();
    dt_args_add(args, x, N, SIMPLER_ADDRESS_SPACE_DEVICE);

    assert_int_equal(dt_run(f, orch_chain, args), DEVICE_STATUS_OK);
    assert_int_equal(f->g->task_count, 20);
    dt_assert_order(f->g);
    dt_download_floats(host, x, N);
    for (uint32_t i = 0; i < N; i++)
        assert_true(host[i] == (float)i + 20.0f);
    free(args);
}

static void device_fan_out_and_in_computes_every_slice(void **state)
{
    dt_fixture *f = *state;
    float host[100], out[100];
    for (uint32_t i = 0; i < 100; i++)
        host[i] = (float)(i % 7);
    void *x = dt_dev_alloc(400), *o = dt_dev_alloc(400);
    dt_upload_floats(x, host, 100);
    ChipStorageTaskArgs *args = fixture_args_new();
    dt_args_add(args, x, 100, SIMPLER_ADDRESS_SPACE_DEVICE);
    dt_args_add(args, o, 100, SIMPLER_ADDRESS_SPACE_DEVICE);

    assert_int_equal(dt_run(f, orch_fan, args), DEVICE_STATUS_OK);
    assert_int_equal(f->g->task_count, 102);
    dt_assert_order(f->g);
    dt_download_floats(out, o, 100);
    for (uint32_t i = 0; i < 100; i++) {
        float v = host[i] + 1.0f + (float)i;
        assert_true(out[i] == v * v);
    }
    free(args);
}

/* The diamond's tensors: a filled with 2, b with 3, and its output. */
static ChipStorageTaskArgs *diamond_args(void **dout)
{
    float a[N], b[N];
    for (uint32_t i = 0; i < N; i++) {
        a[i] = 2.0f;
        b[i] = 3.0f;
    }
    void *da = dt_dev_alloc(N * 4), *db = dt_dev_alloc(N * 4);
    *dout = dt_dev_alloc(N * 4);
    dt_upload_floats(da, a, N);
    dt_upload_floats(db, b, N);
    ChipStorageTaskArgs *args = fixture_args_new();
    dt_args_add(args, da, N, SIMPLER_ADDRESS_SPACE_DEVICE);
    dt_args_add(args, db, N, SIMPLER_ADDRESS_SPACE_DEVICE);
    dt_args_add(args, *dout, N, SIMPLER_ADDRESS_SPACE_DEVICE);
    return args;
}

/* (2 + 3 + 1) * (2 + 3 + 2): every element of the diamond's output. */
static void assert_all_42(const void *dout)
{
    float out[N];
    dt_download_floats(out, dout, N);
    for (uint32_t i = 0; i < N; i++)
        assert_true(out[i] == 42.0f);
}

static void device_diamond_computes_42_everywhere(void **state)
{
    dt_fixture *f = *state;
    void *dout;
    ChipStorageTaskArgs *args = diamond_args(&dout);

    assert_int_equal(dt_run(f, orch_diamond, args), DEVICE_STATUS_OK);
    assert_int_equal(f->g->task_count, 4);
    dt_assert_order(f->g);
    assert_all_42(dout);
    free(args);
}

/* The diamond (one AIV task, two AIV successors, one AIC join) can keep
 * at most one AIC and three AIV cores busy. */
static void device_core_plan_counts_chain_heads_per_type(void **state)
{
    dt_fixture *f = *state;
    ChipStorageTaskArgs *args = fixture_args_new();
    void *d = dt_dev_alloc(N * 4);
    for (int i = 0; i < 3; i++)
        dt_args_add(args, d, N, SIMPLER_ADDRESS_SPACE_DEVICE);
    dt_build(f, orch_diamond, args);
    assert_int_equal(device_core_plan(&f->desc, f->image, f->image_bytes), 0);
    assert_int_equal(f->desc.aic_started, 1);
    assert_int_equal(f->desc.aiv_started, 3);
    /* A launch whose graph is not known (deferred) starts every core. */
    f->desc.deferred = 1;
    assert_int_equal(device_core_plan(&f->desc, f->image, f->image_bytes), -1);
    assert_int_equal(f->desc.aic_started + f->desc.aiv_started, 0);
    f->desc.deferred = 0;
    /* An image the plan cannot read within its bytes starts every core. */
    assert_int_equal(device_core_plan(&f->desc, f->image, sizeof(graph_image_header)), -1);
    assert_int_equal(f->desc.aic_started + f->desc.aiv_started, 0);
    /* The plan reads the header's counts, at most the cores of each type
     * (the device recounts them before it runs anything), and nothing but
     * a header of this version. */
    graph_image_header *h = f->image;
    h->chain_heads[SIMPLER_CORE_TYPE_AIV] = 1000;
    assert_int_equal(device_core_plan(&f->desc, f->image, f->image_bytes), 0);
    assert_int_equal(f->desc.aic_started, 1);
    assert_int_equal(f->desc.aiv_started, DT_AIV);
    h->chain_heads[SIMPLER_CORE_TYPE_AIV] = 3;
    h->version++;
    assert_int_equal(device_core_plan(&f->desc, f->image, f->image_bytes), -1);
    assert_int_equal(f->desc.aic_started + f->desc.aiv_started, 0);
    h->version--;
    free(args);
}

/* An argument-slot launch starts every core's block, shifted by one:
 * block 0 (simdev runs it on the launching thread, after the pool
 * threads) serves the last core, which dispatch serves last; every core
 * is served by exactly one block. A launch with its graph keeps block b
 * on core b. */
static void a_deferred_launch_shifts_its_blocks_by_one_core(void **state)
{
    dt_fixture *f = *state;
    device_run_desc d = f->desc;
    uint32_t served[DEVICE_CORE_MAX] = {0};
    d.aic_count = DT_AIC;
    d.aiv_count = DT_AIV;
    d.aic_started = d.aiv_started = 0;
    uint32_t cores = d.aic_count + d.aiv_count;
    assert_true(cores > 1);
    d.deferred = 1;
    assert_int_equal(device_run_desc_blocks(&d), cores);
    for (uint32_t b = 0; b < cores; b++) {
        uint32_t core = device_run_desc_block_core(&d, b);
        assert_true(core < cores);
        served[core]++;
        assert_int_equal(core, b == 0 ? cores - 1 : b - 1);
    }
    for (uint32_t c = 0; c < cores; c++)
        assert_int_equal(served[c], 1);
    d.deferred = 0;
    for (uint32_t b = 0; b < cores; b++)
        assert_int_equal(device_run_desc_block_core(&d, b), b);
}

/* A planned launch starts only the executor blocks of the cores the
 * graph can use (a core that starts marks its slot arrived), every task
 * still runs on a core of its type, numbered among all the configured
 * cores: the AIV tasks on cores DT_AIC.., never on the AIC core 1 or the
 * last AIV core, which never started and were never waited for. */
static void device_starts_only_the_planned_cores(void **state)
{
    dt_fixture *f = *state;
    void *dout;
    ChipStorageTaskArgs *args = diamond_args(&dout);
    for (int round = 0; round < 3; round++) {
        dt_observations_reset();
        dt_build(f, orch_diamond, args);
        assert_int_equal(device_core_plan(&f->desc, f->image, f->image_bytes), 0);
        assert_int_equal(dt_enqueue(f), 0);
        assert_int_equal(dt_sync(f), 0);
        assert_int_equal(dt_status(f), DEVICE_STATUS_OK);
        dt_assert_order(f->g);
        assert_all_42(dout);
        for (uint32_t c = 0; c < DT_AIC + DT_AIV; c++) {
            device_core_slot slot;
            assert_int_equal(simdev_memcpy(&slot, (uint8_t *)f->runtime + graph_runtime_core_slot_offset(c),
                                           sizeof(slot)), 0);
            int started = c == 0 || (c >= DT_AIC && c < DT_AIC + 3);
            assert_int_equal(atomic_load(&slot.arrived), started);
        }
        uint64_t mask = atomic_load(&dt_core_mask);
        assert_int_equal(mask & ~(uint64_t)0x1d, 0); /* cores 0, 2, 3, 4 */
        assert_true((mask & 1u) != 0);               /* the AIC join ran on core 0 */
    }
    free(args);
}

/* Without a plan every core's block starts, as before. */
static void device_starts_every_core_without_a_plan(void **state)
{
    dt_fixture *f = *state;
    device_diamond_computes_42_everywhere(state);
    for (uint32_t c = 0; c < DT_AIC + DT_AIV; c++) {
        device_core_slot slot;
        assert_int_equal(
            simdev_memcpy(&slot, (uint8_t *)f->runtime + graph_runtime_core_slot_offset(c), sizeof(slot)), 0);
        assert_int_equal(atomic_load(&slot.arrived), 1);
    }
}

/* The image check leaves every task's chain link in its scratch (the
 * first ready queue's ring) and seeding takes the links from there: after
 * a run through the real path (validate, seed, retire, dispatch) every
 * task's state holds the link graph_image_chain_next gives for the image,
 * and the one chain of twenty AIV tasks has one head, so every core but
 * one AIV core was retired before dispatch: all twenty ran on that core,
 * each successor posted behind its predecessor, and no other core was
 * ever posted a task. */
static void device_seeding_takes_the_chain_links_the_image_check_left(void **state)
{
    dt_fixture *f = *state;
    float host[N] = {0};
    void *x = dt_dev_alloc(N * 4);
    dt_upload_floats(x, host, N);
    ChipStorageTaskArgs *args = fixture_args_new();
    dt_args_add(args, x, N, SIMPLER_ADDRESS_SPACE_DEVICE);
    assert_int_equal(dt_run(f, orch_chain, args), DEVICE_STATUS_OK);
    dt_assert_order(f->g);

    const graph_image_header *h = f->image;
    const graph_image_task *tasks = (const graph_image_task *)((const uint8_t *)f->image + h->task_offset);
    const uint32_t *fanout = (const uint32_t *)((const uint8_t *)f->image + h->fanout_offset);
    assert_int_equal(h->task_count, 20);
    assert_int_equal(h->chain_heads[SIMPLER_CORE_TYPE_AIV], 1);
    device_task_state ts[20];
    assert_int_equal(simdev_memcpy(ts, (uint8_t *)f->runtime + graph_runtime_task_state_offset(0), sizeof(ts)), 0);
    uint32_t links = 0;
    for (uint32_t i = 0; i < 20; i++) {
        assert_int_equal(ts[i].status, DEVICE_TASK_DONE);
        assert_int_equal(ts[i].chain, graph_image_chain_next(tasks, fanout, i));
        links += ts[i].chain != 0;
        assert_true(ts[i].core >= DT_AIC && ts[i].core < DT_AIC + DT_AIV);
        assert_int_equal(ts[i].core, ts[0].core);
    }
    assert_int_equal(links, 19);
    for (uint32_t c = 0; c < DT_AIC + DT_AIV; c++) {
        device_core_slot slot;
        assert_int_equal(
            simdev_memcpy(&slot, (uint8_t *)f->runtime + graph_runtime_core_slot_offset(c), sizeof(slot)), 0);
        assert_int_equal(atomic_load(&slot.posted), c == ts[0].core ? 20 : 0);
    }
    free(args);
}

/* The chain zeroes only the header and the slots of the cores it runs
 * (graph_runtime_clear_bytes): task state, and the slots of cores it
 * does not run, may hold anything from before, because seeding writes
 * every task's state before the scheduler reads it. */
static void device_task_state_left_from_before_is_never_read(void **state)
{
    dt_fixture *f = *state;
    assert_int_equal(simdev_memset(f->runtime, 0xA5, f->runtime_bytes), 0);
    device_diamond_computes_42_everywhere(state);
    uint8_t tail[64];
    assert_int_equal(simdev_memcpy(tail, (uint8_t *)f->runtime + f->runtime_bytes - sizeof(tail), sizeof(tail)), 0);
    assert_true(tail[sizeof(tail) - 1] == 0xA5); /* the last task slot of the window: never used, never cleared */
}

static void device_layered_graph_matches_host_reference(void **state)
{
    dt_fixture *f = *state;
    float in[W], out[W], ref[W], next[W];
    for (uint32_t j = 0; j < W; j++)
        in[j] = ref[j] = (float)(j + 1);
    for (uint32_t l = 0; l < W; l++) {
        for (uint32_t j = 0; j < W; j++)
            next[j] = ref[j] + ref[(j + 1) % W];
        memcpy(ref, next, sizeof(ref));
    }
    void *x = dt_dev_alloc(W * 4), *o = dt_dev_alloc(W * 4);
    dt_upload_floats(x, in, W);
    ChipStorageTaskArgs *args = fixture_args_new();
    dt_args_add(args, x, W, SIMPLER_ADDRESS_SPACE_DEVICE);
    dt_args_add(args, o, W, SIMPLER_ADDRESS_SPACE_DEVICE);

    assert_int_equal(dt_run(f, orch_layers, args), DEVICE_STATUS_OK);
    assert_int_equal(f->g->task_count, W * W);
    dt_assert_order(f->g);
    dt_download_floats(out, o, W);
    for (uint32_t j = 0; j < W; j++)
        assert_true(out[j] == ref[j]);
    free(args);
}

static void device_tasks_run_only_on_cores_of_their_type(void **state)
{
    dt_fixture *f = *state;
    ChipStorageTaskArgs *args = fixture_args_new();

    assert_int_equal(dt_run(f, orch_typed, args), DEVICE_STATUS_OK);
    /* dt_enter counts a call whose core type or core index (AIC cores
     * are blocks 0..DT_AIC-1) disagrees with the kernel's own type. */
    dt_assert_order(f->g);
    free(args);
}

/* Short tasks gather on few cores, but tasks long enough to stall the
 * scheduler's spin are spread: sleeping cores are woken for them. */
static void device_long_tasks_wake_sleeping_cores(void **state)
{
    dt_fixture *f = *state;
    float host[12] = {0}, out[12];
    void *x = dt_dev_alloc(sizeof(host));
    dt_upload_floats(x, host, 12);
    ChipStorageTaskArgs *args = fixture_args_new();
    dt_args_add(args, x, 12, SIMPLER_ADDRESS_SPACE_DEVICE);

    assert_int_equal(dt_run(f, orch_gate_then_long_tasks, args), DEVICE_STATUS_OK);
    dt_assert_order(f->g);
    dt_download_floats(out, x, 12);
    assert_true(out[0] == 2.0f);
    for (uint32_t i = 1; i < 12; i++)
        assert_true(out[i] == 1.0f);
    uint64_t aiv = atomic_load(&dt_core_mask) >> DT_AIC;
    assert_true(__builtin_popcountll(aiv) >= 2);
    free(args);
}

static void device_resolves_device_heap_and_staged_addresses(void **state)
{
    dt_fixture *f = *state;
    float host_in[16] = {0};
    void *x = dt_dev_alloc(64);
    ChipStorageTaskArgs *args = fixture_args_new();
    dt_args_add(args, x, 16, SIMPLER_ADDRESS_SPACE_DEVICE);
    dt_args_add(args, host_in, 16, SIMPLER_ADDRESS_SPACE_HOST);

    assert_int_equal(dt_run(f, orch_probe, args), DEVICE_STATUS_OK);
    assert_int_equal(f->g->staged_count, 1);
    assert_int_equal(atomic_load(&dt_probe[0]), (uintptr_t)x);
    /* The second intermediate sits one 1024-byte slot into the heap. */
    assert_int_equal(atomic_load(&dt_probe[1]), (uintptr_t)f->heap + 1024);
    assert_int_equal(atomic_load(&dt_probe[2]), (uintptr_t)f->temp + f->g->staged[0].temp_offset);
    free(args);
}

static void device_staged_input_is_read_from_retained_temp(void **state)
{
    dt_fixture *f = *state;
    float host_in[N], out[N];
    for (uint32_t i = 0; i < N; i++)
        host_in[i] = (float)i;
    void *o = dt_dev_alloc(N * 4);
    ChipStorageTaskArgs *args = fixture_args_new();
    dt_args_add(args, host_in, N, SIMPLER_ADDRESS_SPACE_HOST);
    dt_args_add(args, o, N, SIMPLER_ADDRESS_SPACE_DEVICE);

    dt_build(f, orch_staged, args);
    /* The caller stages HOST tensors before the chain. */
    dt_upload_floats((uint8_t *)f->temp + f->g->staged[0].temp_offset, host_in, N);
    assert_int_equal(dt_enqueue(f), 0);
    assert_int_equal(dt_sync(f), 0);
    assert_int_equal(dt_status(f), DEVICE_STATUS_OK);
    dt_download_floats(out, o, N);
    for (uint32_t i = 0; i < N; i++)
        assert_true(out[i] == (float)i + 5.0f);
    free(args);
}

static void device_trace_records_one_entry_per_task(void **state)
{
    dt_fixture *f = *state;
    ChipStorageTaskArgs *args = fixture_args_new();
    dt_build(f, orch_typed, args);
    f->desc.trace_base = (uintptr_t)f->trace;
    f->desc.trace_bytes = device_trace_bytes(DT_TRACE_RECORDS);
    assert_int_equal(dt_enqueue(f), 0);
    assert_int_equal(dt_sync(f), 0);
    assert_int_equal(dt_status(f), DEVICE_STATUS_OK);

    size_t bytes = device_trace_bytes(60);
    uint8_t *copy = malloc(bytes);
    assert_non_null(copy);
    assert_int_equal(simdev_memcpy(copy, f->trace, bytes), SIMDEV_SUCCESS);
    const device_trace_header *h = (const device_trace_header *)copy;
    const device_trace_record *sched = (const device_trace_record *)(h + 1);
    const device_trace_record *r = sched + DEVICE_TRACE_SCHED_RECORDS;
    assert_int_equal(h->magic, DEVICE_TRACE_MAGIC);
    assert_int_equal(h->version, DEVICE_TRACE_VERSION);
    assert_int_equal(h->capacity, DT_TRACE_RECORDS + DEVICE_TRACE_SCHED_RECORDS);
    assert_int_equal(h->record_count, 60 + DEVICE_TRACE_SCHED_RECORDS);
    assert_int_equal(h->dropped, 0);
    /* The stamps name what ran: the image, its kernel table, the cores. */
    assert_int_equal(h->task_count, 60);
    assert_int_equal(h->image_bytes, f->desc.image_bytes);
    assert_int_equal(h->kernels_addr, (uint64_t)(uintptr_t)f->desc.kernels);
    assert_int_equal(h->generation, f->desc.generation);
    assert_int_equal(h->aic_count, f->desc.aic_count);
    assert_int_equal(h->aiv_count, f->desc.aiv_count);
    assert_int_equal(h->runs, 1);
    /* The scheduler's two phases, back to back, around every task. */
    for (uint32_t i = 0; i < DEVICE_TRACE_SCHED_RECORDS; i++) {
        assert_int_equal(sched[i].kind, DEVICE_TRACE_KIND_SCHED);
        assert_int_equal(sched[i].task_id, i);
        assert_true(sched[i].end_ns >= sched[i].start_ns);
    }
    assert_int_equal(sched[DEVICE_TRACE_SCHED_PREPARE].end_ns, sched[DEVICE_TRACE_SCHED_DISPATCH].start_ns);
    uint64_t seen = 0;
    for (uint32_t i = 0; i < 60; i++) {
        assert_int_equal(r[i].kind, DEVICE_TRACE_KIND_TASK);
        assert_true(r[i].start_ns >= sched[DEVICE_TRACE_SCHED_DISPATCH].start_ns &&
                    r[i].end_ns <= sched[DEVICE_TRACE_SCHED_DISPATCH].end_ns);
        uint32_t t = r[i].task_id;
        assert_true(t < 60 && r[i].end_ns >= r[i].start_ns);
        assert_int_equal(r[i].func_id, t % 2 == 0 ? K_NOOP_AIC : K_NOOP_AIV);
        assert_int_equal(r[i].core_type, t % 2 == 0 ? SIMPLER_CORE_TYPE_AIC : SIMPLER_CORE_TYPE_AIV);
        assert_int_equal(r[i].core_id < DT_AIC, t % 2 == 0);
        seen |= 1ull << t;
    }
    assert_int_equal(seen, (1ull << 60) - 1);
    free(copy);
    free(args);
}

static void device_trace_past_capacity_counts_dropped_records(void **state)
{
    dt_fixture *f = *state;
    ChipStorageTaskArgs *args = fixture_args_new();
    dt_build(f, orch_typed, args);
    f->desc.trace_base = (uintptr_t)f->trace;
    f->desc.trace_bytes = device_trace_bytes(10);
    assert_int_equal(simdev_memset((uint8_t *)f->trace + device_trace_bytes(10), 0x33, 64), SIMDEV_SUCCESS);
    assert_int_equal(dt_enqueue(f), 0);
    assert_int_equal(dt_sync(f), 0);

    device_trace_header h;
    assert_int_equal(simdev_memcpy(&h, f->trace, sizeof(h)), SIMDEV_SUCCESS);
    assert_int_equal(h.capacity, 10 + DEVICE_TRACE_SCHED_RECORDS);
    assert_int_equal(h.record_count, 60 + DEVICE_TRACE_SCHED_RECORDS);
    assert_int_equal(h.dropped, 50);
    dt_assert_device_bytes((uint8_t *)f->trace + device_trace_bytes(10), 64, 0x33);
    free(args);
}

static void device_program_mode_image_in_definition_region_runs(void **state)
{
    dt_fixture *f = *state;
    float a[N], out[N];
    for (uint32_t i = 0; i < N; i++)
        a[i] = 2.0f;
    void *da = dt_dev_alloc(N * 4), *dout = dt_dev_alloc(N * 4);
    dt_upload_floats(da, a, N);
    ChipStorageTaskArgs *args = fixture_args_new();
    dt_args_add(args, da, N, SIMPLER_ADDRESS_SPACE_DEVICE);
    dt_args_add(args, da, N, SIMPLER_ADDRESS_SPACE_DEVICE);
    dt_args_add(args, dout, N, SIMPLER_ADDRESS_SPACE_DEVICE);

    dt_build(f, orch_diamond, args);
    /* Program mode uploads the image and passes no inline bytes. */
    assert_int_equal(simdev_memcpy(f->definition, f->image, f->image_bytes), SIMDEV_SUCCESS);
    f->desc.inline_bytes = 0;
    assert_int_equal(dt_enqueue(f), 0);
    assert_int_equal(dt_sync(f), 0);
    assert_int_equal(dt_status(f), DEVICE_STATUS_OK);
    dt_download_floats(out, dout, N);
    for (uint32_t i = 0; i < N; i++)
        assert_true(out[i] == 30.0f);
    free(args);
}

static void device_runs_the_same_graph_again_on_the_same_streams(void **state)
{
    dt_fixture *f = *state;
    float host[N];
    void *x = dt_dev_alloc(N * 4);
    memset(host, 0, sizeof(host));
    dt_upload_floats(x, host, N);
    ChipStorageTaskArgs *args = fixture_args_new();
    dt_args_add(args, x, N, SIMPLER_ADDRESS_SPACE_DEVICE);
    dt_build(f, orch_chain, args);
    for (int run = 0; run < 5; run++)
        assert_int_equal(dt_enqueue(f), 0);
    assert_int_equal(dt_sync(f), 0);
    assert_int_equal(dt_status(f), DEVICE_STATUS_OK);
    dt_download_floats(host, x, N);
    for (uint32_t i = 0; i < N; i++)
        assert_true(host[i] == 100.0f);
    free(args);
}

static void device_random_dags_respect_every_dependency(void **state)
{
    dt_fixture *f = *state;
    ChipStorageTaskArgs *args = fixture_args_new();
    args->scalar_count = 1;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        args->scalars[0] = seed;
        dt_observations_reset();
        assert_int_equal(dt_run(f, orch_random, args), DEVICE_STATUS_OK);
        assert_int_equal(f->g->task_count, RANDOM_TASKS);
        assert_true(f->g->edge_count > RANDOM_TASKS / 2);
        dt_assert_order(f->g);
    }
    free(args);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        DT_TEST(device_chain_of_inout_tasks_runs_in_order),
        DT_TEST(device_fan_out_and_in_computes_every_slice),
        DT_TEST(device_diamond_computes_42_everywhere),
        DT_TEST(device_core_plan_counts_chain_heads_per_type),
        DT_TEST(device_starts_only_the_planned_cores),
        DT_TEST(a_deferred_launch_shifts_its_blocks_by_one_core),
        DT_TEST(device_starts_every_core_without_a_plan),
        DT_TEST(device_seeding_takes_the_chain_links_the_image_check_left),
        DT_TEST(device_task_state_left_from_before_is_never_read),
        DT_TEST(device_layered_graph_matches_host_reference),
        DT_TEST(device_tasks_run_only_on_cores_of_their_type),
        DT_TEST(device_long_tasks_wake_sleeping_cores),
        DT_TEST(device_resolves_device_heap_and_staged_addresses),
        DT_TEST(device_staged_input_is_read_from_retained_temp),
        DT_TEST(device_trace_records_one_entry_per_task),
        DT_TEST(device_trace_past_capacity_counts_dropped_records),
        DT_TEST(device_program_mode_image_in_definition_region_runs),
        DT_TEST(device_runs_the_same_graph_again_on_the_same_streams),
        DT_TEST(device_random_dags_respect_every_dependency),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
