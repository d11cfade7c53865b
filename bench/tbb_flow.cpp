// The oneTBB flow graph runner of tbb_flow.h, timed with the library's
// clock (bench_now_ns of timing.h).
#include "tbb_flow.h"

#include <deque>
#include <memory>
#include <new>
#include <vector>

#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/task_arena.h>

#include "simpler/runtime_c_api.h"

namespace flow = oneapi::tbb::flow;

struct tbb_flow {
    explicit tbb_flow(unsigned threads) : arena(static_cast<int>(threads)) {}
    oneapi::tbb::task_arena arena;
};

extern "C" struct tbb_flow *tbb_flow_create(unsigned threads)
{
    try {
        auto *f = new tbb_flow(threads);
        f->arena.initialize();
        return f;
    } catch (...) {
        return nullptr;
    }
}

extern "C" void tbb_flow_destroy(struct tbb_flow *f)
{
    delete f;
}

namespace {

struct body {
    tbb_flow_task_fn fn;
    void *user;
    uint32_t task;
    flow::continue_msg operator()(const flow::continue_msg &) const
    {
        fn(task, user);
        return flow::continue_msg();
    }
};

} // namespace

extern "C" int tbb_flow_run(struct tbb_flow *f, const struct dag *d, tbb_flow_task_fn fn, void *user,
                            uint64_t *build_ns, uint64_t *total_ns)
{
    int rc = 0;
    f->arena.execute([&] {
        try {
            flow::graph g;
            std::deque<flow::continue_node<flow::continue_msg>> nodes;
            uint64_t t0 = simpler_clock_ns();
            for (uint32_t i = 0; i < d->task_count; i++)
                nodes.emplace_back(g, body{fn, user, i});
            for (uint32_t p = 0; p < d->task_count; p++)
                for (uint32_t e = d->succ_start[p]; e < d->succ_start[p + 1]; e++)
                    flow::make_edge(nodes[p], nodes[d->succ[e]]);
            uint64_t t1 = simpler_clock_ns();
            for (uint32_t i = 0; i < d->task_count; i++)
                if (d->fanin[i] == 0)
                    nodes[i].try_put(flow::continue_msg());
            g.wait_for_all();
            uint64_t t2 = simpler_clock_ns();
            *build_ns = t1 - t0;
            *total_ns = t2 - t0;
        } catch (...) {
            rc = -1;
        }
    });
    return rc;
}

struct tbb_flow_graph {
    explicit tbb_flow_graph(struct tbb_flow *runner) : f(runner) {}
    struct tbb_flow *f;
    // Constructed inside f->arena.execute, so the graph runs in that arena.
    std::unique_ptr<flow::graph> g;
    std::deque<flow::continue_node<flow::continue_msg>> nodes;
    std::vector<uint32_t> sources;
};

extern "C" struct tbb_flow_graph *tbb_flow_graph_build(struct tbb_flow *f, const struct dag *d, tbb_flow_task_fn fn,
                                                       void *user)
{
    tbb_flow_graph *fg = nullptr;
    try {
        fg = new tbb_flow_graph(f);
        f->arena.execute([&] {
            fg->g = std::make_unique<flow::graph>();
            for (uint32_t i = 0; i < d->task_count; i++)
                fg->nodes.emplace_back(*fg->g, body{fn, user, i});
            for (uint32_t p = 0; p < d->task_count; p++)
                for (uint32_t e = d->succ_start[p]; e < d->succ_start[p + 1]; e++)
                    flow::make_edge(fg->nodes[p], fg->nodes[d->succ[e]]);
            for (uint32_t i = 0; i < d->task_count; i++)
                if (d->fanin[i] == 0)
                    fg->sources.push_back(i);
        });
        return fg;
    } catch (...) {
        tbb_flow_graph_destroy(fg);
        return nullptr;
    }
}

extern "C" int tbb_flow_graph_run(struct tbb_flow_graph *fg, uint64_t *ns)
{
    int rc = 0;
    fg->f->arena.execute([&] {
        try {
            uint64_t t0 = simpler_clock_ns();
            for (uint32_t i : fg->sources)
                fg->nodes[i].try_put(flow::continue_msg());
            fg->g->wait_for_all();
            *ns = simpler_clock_ns() - t0;
        } catch (...) {
            rc = -1;
        }
    });
    return rc;
}

extern "C" void tbb_flow_graph_destroy(struct tbb_flow_graph *fg)
{
    if (fg == nullptr)
        return;
    // The nodes go before the graph they belong to, inside the arena.
    fg->f->arena.execute([&] {
        fg->nodes.clear();
        fg->g.reset();
    });
    delete fg;
}
