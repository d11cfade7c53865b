/* tbb_flow.h when the bench is built without oneTBB: no runner. */
#include "tbb_flow.h"

#include <stddef.h>

struct tbb_flow *tbb_flow_create(unsigned threads)
{
    (void)threads;
    return NULL;
}

void tbb_flow_destroy(struct tbb_flow *f)
{
    (void)f;
}

int tbb_flow_run(struct tbb_flow *f, const struct dag *d, tbb_flow_task_fn fn, void *user, uint64_t *build_ns,
                 uint64_t *total_ns)
{
    (void)f;
    (void)d;
    (void)fn;
    (void)user;
    (void)build_ns;
    (void)total_ns;
    return -1;
}

struct tbb_flow_graph *tbb_flow_graph_build(struct tbb_flow *f, const struct dag *d, tbb_flow_task_fn fn, void *user)
{
    (void)f;
    (void)d;
    (void)fn;
    (void)user;
    return NULL;
}

int tbb_flow_graph_run(struct tbb_flow_graph *g, uint64_t *ns)
{
    (void)g;
    (void)ns;
    return -1;
}

void tbb_flow_graph_destroy(struct tbb_flow_graph *g)
{
    (void)g;
}
