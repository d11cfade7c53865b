/* The diamond orchestration, shared by the in-process graph suites and
 * the fixture image (fixtures/orch_diamond.c), so it includes nothing but
 * simpler/orchestration.h: c = f0(a); d = f1(c); e = f1(c);
 * out = f2(d, e, 7). Ten args: a c | c d | c e | d e out 7. The two
 * callers place e and out on different core types. */
#ifndef SIMPLER_TEST_DIAMOND_ORCH_H
#define SIMPLER_TEST_DIAMOND_ORCH_H

#include "simpler/orchestration.h"

/* Submits the diamond over a = tensors[0] and out = tensors[1], with
 * task e on `e_core` and task out on `out_core`. */
static inline int diamond_orch_submit(SimplerOrch *orch, const ChipStorageTaskArgs *args, uint32_t e_core,
                                      uint32_t out_core)
{
    const ChipTensor *a = &args->tensors[0], *out = &args->tensors[1];
    uint32_t shape = a->shapes[0];
    ChipTensor c, d, e;
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &shape, &c);
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &shape, &d);
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &shape, &e);
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, a);
    simpler_orch_add_output(orch, &c);
    simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &c);
    simpler_orch_add_output(orch, &d);
    simpler_orch_submit(orch, 1, SIMPLER_CORE_TYPE_AIV);
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &c);
    simpler_orch_add_output(orch, &e);
    simpler_orch_submit(orch, 1, e_core);
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &d);
    simpler_orch_add_input(orch, &e);
    simpler_orch_add_output_existing(orch, out);
    simpler_orch_add_scalar(orch, 7);
    return simpler_orch_submit(orch, 2, out_core);
}

#endif
