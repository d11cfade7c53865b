/*
 * graph_status — the status values src/graph returns.
 *
 * They are the PTO_RUNTIME_ERR_* codes of SPEC §2.1, named here so the
 * graph module does not depend on the order in which the public status
 * table lands. The values are fixed by the ABI.
 */
#ifndef SIMPLER_GRAPH_STATUS_H
#define SIMPLER_GRAPH_STATUS_H

#define GRAPH_OK 0
#define GRAPH_ERR_INTERNAL (-1000)
#define GRAPH_ERR_INVALID_STATE (-1003)
#define GRAPH_ERR_CAPACITY_EXCEEDED (-1004)
#define GRAPH_ERR_INVALID_ARGUMENT (-1005)
#define GRAPH_ERR_OUT_OF_MEMORY (-1007)

#endif
