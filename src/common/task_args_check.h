/*
 * task_args_check — the validators every entry point runs on its argument
 * structs before touching anything. Each returns 0 or
 * PTO_RUNTIME_ERR_INVALID_ARGUMENT (-1005), reads only, and is thread-safe.
 */
#ifndef SIMPLER_COMMON_TASK_ARGS_CHECK_H
#define SIMPLER_COMMON_TASK_ARGS_CHECK_H

#include "simpler/task_args.h"

/* Limits of CallConfig fields (0 always means "default"). */
#define CALL_CONFIG_AICPU_THREADS_MAX 64        /* simdev's engine pool bound */
#define CALL_CONFIG_AICORE_COUNT_MAX 64         /* simdev's engine pool bound */
#define CALL_CONFIG_TASK_WINDOW_MAX (1u << 20)  /* tasks in one graph */
#define CALL_CONFIG_HEAP_BYTES_MAX (1ull << 40) /* graph heap, 1 TiB */

/* Non-NULL; ndims 1..5; known dtype and address space; shapes and strides
 * > 0 for used dims; unused dims and reserved bytes zero; the view (start
 * offset plus the farthest strided element) inside buffer_bytes; a
 * nonzero buffer_addr and a buffer whose end address does not wrap, all
 * without overflow. */
int chip_tensor_check(const ChipTensor *t);

/* Records why tensor_view_extent refused the dtype, ndims, shapes and
 * strides of `t`, naming the field as "<what>.<field>", and returns
 * PTO_RUNTIME_ERR_INVALID_ARGUMENT. */
int tensor_view_fail(const ChipTensor *t, const char *what);

/* Non-NULL; 0 <= tensor_count <= 256, 0 <= scalar_count <= 128; every used
 * tensor passes chip_tensor_check. A refusal records its reason
 * (simpler_fail), naming the count or "args.tensors[i]" and the field. */
int task_args_check(const ChipStorageTaskArgs *args);

/* Non-NULL; struct_size == sizeof(CallConfig); reserved words zero;
 * output_prefix NUL-terminated inside its array; trace 0 or 1; counts and
 * sizes within the CALL_CONFIG_*_MAX limits. */
int call_config_check(const CallConfig *config);

#endif
