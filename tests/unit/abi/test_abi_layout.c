/* Pins the size and every field offset of each public struct, and every
 * status value. An ABI change must edit this file. */
#include <stddef.h>
#include <stdint.h>

#include "simdev_abi_pins.h"
#include "support.h"

#include "simpler/callable.h"
#include "simpler/kernel_invocation_header.h"
#include "simpler/orchestration.h"
#include "simpler/runtime_c_api.h"
#include "simpler/simdev.h"
#include "simpler/task_args.h"

#define PIN(type, field, off) assert_int_equal(offsetof(type, field), (off))

static void abi_chip_tensor_layout_is_pinned(void **state)
{
    (void)state;
    assert_int_equal(sizeof(ChipTensor), 128);
    assert_int_equal(_Alignof(ChipTensor), 64);
    PIN(ChipTensor, buffer_addr, 0);
    PIN(ChipTensor, buffer_bytes, 8);
    PIN(ChipTensor, start_offset, 16);
    PIN(ChipTensor, ndims, 24);
    PIN(ChipTensor, dtype, 28);
    PIN(ChipTensor, address_space, 29);
    PIN(ChipTensor, reserved0, 30);
    PIN(ChipTensor, shapes, 32);
    PIN(ChipTensor, strides, 52);
    PIN(ChipTensor, reserved, 72);
}

static void abi_task_args_layout_is_pinned(void **state)
{
    (void)state;
    assert_int_equal(sizeof(ChipStorageTaskArgs), 256 * 128 + 128 * 8 + 64);
    PIN(ChipStorageTaskArgs, tensors, 0);
    PIN(ChipStorageTaskArgs, scalars, 32768);
    PIN(ChipStorageTaskArgs, tensor_count, 33792);
    PIN(ChipStorageTaskArgs, scalar_count, 33796);
}

static void abi_call_config_layout_is_pinned(void **state)
{
    (void)state;
    assert_int_equal(sizeof(CallConfig), 320);
    PIN(CallConfig, struct_size, 0);
    PIN(CallConfig, aicpu_thread_count, 4);
    PIN(CallConfig, aicore_count, 8);
    PIN(CallConfig, task_window, 12);
    PIN(CallConfig, heap_bytes, 16);
    PIN(CallConfig, trace, 24);
    PIN(CallConfig, reserved0, 28);
    PIN(CallConfig, output_prefix, 32);
    PIN(CallConfig, reserved, 288);
}

static void abi_kernel_ctx_control_layout_is_pinned(void **state)
{
    (void)state;
    assert_int_equal(sizeof(SimplerKernelCtxControl), 96);
    PIN(SimplerKernelCtxControl, abi_version, 0);
    PIN(SimplerKernelCtxControl, struct_size, 4);
    PIN(SimplerKernelCtxControl, action, 8);
    PIN(SimplerKernelCtxControl, mode, 12);
    PIN(SimplerKernelCtxControl, gm_heap_bytes, 16);
    PIN(SimplerKernelCtxControl, runtime_arena_bytes, 24);
    PIN(SimplerKernelCtxControl, graph_definition_bytes, 32);
    PIN(SimplerKernelCtxControl, scheduler_state_bytes, 40);
    PIN(SimplerKernelCtxControl, retained_temp_bytes, 48);
    PIN(SimplerKernelCtxControl, task_window, 56);
    PIN(SimplerKernelCtxControl, trace_records, 60);
    PIN(SimplerKernelCtxControl, arg_slot_count, 64);
    PIN(SimplerKernelCtxControl, reserved, 68);
    assert_int_equal(sizeof(((SimplerKernelCtxControl *)0)->reserved), 28);
    assert_int_equal(SIMPLER_KERNEL_CTX_CONTROL_ABI_VERSION, 1);
    assert_int_equal(SIMPLER_KERNEL_CTX_CONFIGURE, 1);
    assert_int_equal(SIMPLER_KERNEL_CTX_FREEZE, 2);
    assert_int_equal(SIMPLER_MODE_PROGRAM, 0);
    assert_int_equal(SIMPLER_MODE_KERNEL, 1);
}

static void abi_run_times_layout_is_pinned(void **state)
{
    (void)state;
    assert_int_equal(sizeof(SimplerRunTimes), 64);
    PIN(SimplerRunTimes, struct_size, 0);
    PIN(SimplerRunTimes, reserved, 4);
    PIN(SimplerRunTimes, host_build_ns, 8);
    PIN(SimplerRunTimes, upload_ns, 16);
    PIN(SimplerRunTimes, launch_ns, 24);
    PIN(SimplerRunTimes, wait_ns, 32);
    PIN(SimplerRunTimes, finish_ns, 40);
    PIN(SimplerRunTimes, device_prepare_ns, 48);
    PIN(SimplerRunTimes, device_graph_ns, 56);
}

static void abi_requirements_and_layout_are_pinned(void **state)
{
    (void)state;
    assert_int_equal(sizeof(SimplerGraphRequirements), 48);
    PIN(SimplerGraphRequirements, gm_heap_bytes, 0);
    PIN(SimplerGraphRequirements, runtime_arena_bytes, 8);
    PIN(SimplerGraphRequirements, graph_definition_bytes, 16);
    PIN(SimplerGraphRequirements, scheduler_state_bytes, 24);
    PIN(SimplerGraphRequirements, retained_temp_bytes, 32);
    PIN(SimplerGraphRequirements, task_count, 40);
    assert_int_equal(sizeof(SimplerKernelLayout), 72);
    PIN(SimplerKernelLayout, runtime_offset, 0);
    PIN(SimplerKernelLayout, runtime_bytes, 8);
    PIN(SimplerKernelLayout, definition_offset, 16);
    PIN(SimplerKernelLayout, definition_bytes, 24);
    PIN(SimplerKernelLayout, scheduler_offset, 32);
    PIN(SimplerKernelLayout, scheduler_bytes, 40);
    PIN(SimplerKernelLayout, registry_offset, 48);
    PIN(SimplerKernelLayout, registry_bytes, 56);
    PIN(SimplerKernelLayout, runtime_pool_bytes, 64);
}

static void abi_invocation_header_layout_is_pinned(void **state)
{
    (void)state;
    assert_int_equal(sizeof(SimplerKernelInvocationHeader), 64);
    PIN(SimplerKernelInvocationHeader, abi_version, 0);
    PIN(SimplerKernelInvocationHeader, header_size, 4);
    PIN(SimplerKernelInvocationHeader, mode, 8);
    PIN(SimplerKernelInvocationHeader, callable_id, 12);
    PIN(SimplerKernelInvocationHeader, generation, 16);
    PIN(SimplerKernelInvocationHeader, tensor_count, 24);
    PIN(SimplerKernelInvocationHeader, scalar_count, 28);
    PIN(SimplerKernelInvocationHeader, host_copy_tensor_count, 32);
    PIN(SimplerKernelInvocationHeader, reserved0, 36);
    PIN(SimplerKernelInvocationHeader, payload_bytes, 40);
    PIN(SimplerKernelInvocationHeader, reserved, 48);
}

static void abi_callable_image_layout_is_pinned(void **state)
{
    (void)state;
    assert_int_equal(sizeof(SimplerCallableHeader), 128);
    PIN(SimplerCallableHeader, magic, 0);
    PIN(SimplerCallableHeader, format_version, 4);
    PIN(SimplerCallableHeader, header_size, 8);
    PIN(SimplerCallableHeader, signature_count, 12);
    PIN(SimplerCallableHeader, image_size, 16);
    PIN(SimplerCallableHeader, scalar_count, 24);
    PIN(SimplerCallableHeader, child_count, 28);
    PIN(SimplerCallableHeader, orchestration_offset, 32);
    PIN(SimplerCallableHeader, orchestration_size, 40);
    PIN(SimplerCallableHeader, entry_name, 48);
    PIN(SimplerCallableHeader, reserved, 112);
    assert_int_equal(sizeof(SimplerCallableChild), 64);
    PIN(SimplerCallableChild, func_id, 0);
    PIN(SimplerCallableChild, core_type, 4);
    PIN(SimplerCallableChild, signature_count, 8);
    PIN(SimplerCallableChild, reserved0, 12);
    PIN(SimplerCallableChild, binary_offset, 16);
    PIN(SimplerCallableChild, binary_size, 24);
    PIN(SimplerCallableChild, signature, 32);
    assert_int_equal(SIMPLER_CALLABLE_MAGIC, 0x49435053u);
    assert_int_equal(SIMPLER_CALLABLE_FORMAT_VERSION, 1);
    assert_int_equal(SIMPLER_ARG_SCALAR, 0);
    assert_int_equal(SIMPLER_ARG_IN, 1);
    assert_int_equal(SIMPLER_ARG_OUT, 2);
    assert_int_equal(SIMPLER_ARG_INOUT, 3);
    assert_int_equal(SIMPLER_CORE_TYPE_AIC, 0);
    assert_int_equal(SIMPLER_CORE_TYPE_AIV, 1);
}

static void abi_callable_descriptors_are_pinned(void **state)
{
    (void)state;
    assert_int_equal(sizeof(SimplerCallableChildDesc), 40);
    PIN(SimplerCallableChildDesc, func_id, 0);
    PIN(SimplerCallableChildDesc, core_type, 4);
    PIN(SimplerCallableChildDesc, signature_count, 8);
    PIN(SimplerCallableChildDesc, reserved0, 12);
    PIN(SimplerCallableChildDesc, signature, 16);
    PIN(SimplerCallableChildDesc, binary, 24);
    PIN(SimplerCallableChildDesc, binary_size, 32);
    assert_int_equal(sizeof(SimplerCallableDesc), 72);
    assert_int_equal(SIMPLER_CALLABLE_DESC_V1_SIZE, 64);
    PIN(SimplerCallableDesc, struct_size, 0);
    PIN(SimplerCallableDesc, signature_count, 4);
    PIN(SimplerCallableDesc, signature, 8);
    PIN(SimplerCallableDesc, orchestration, 16);
    PIN(SimplerCallableDesc, orchestration_size, 24);
    PIN(SimplerCallableDesc, entry_name, 32);
    PIN(SimplerCallableDesc, scalar_count, 40);
    PIN(SimplerCallableDesc, child_count, 44);
    PIN(SimplerCallableDesc, children, 48);
    PIN(SimplerCallableDesc, reserved, 56);
    PIN(SimplerCallableDesc, kernel_names, 64);
    assert_int_equal(SIMPLER_CALLABLE_FORMAT_VERSION, 1);
    assert_int_equal(SIMPLER_CALLABLE_FORMAT_VERSION_NAMES, 2);
    assert_int_equal(SIMPLER_CALLABLE_KERNEL_NAME_BYTES, 32);
}

static void abi_orchestration_view_arg_is_pinned(void **state)
{
    (void)state;
    const size_t fn = sizeof(void (*)(void));
    assert_int_equal(sizeof(SimplerOrchViewArg), 16);
    PIN(SimplerOrchViewArg, start_offset, 0);
    PIN(SimplerOrchViewArg, view, 8);
    PIN(SimplerOrchViewArg, tag, 12);
    PIN(SimplerOrchOps, struct_size, 0);
    PIN(SimplerOrchOps, abi_version, 4);
    PIN(SimplerOrchOps, tensor_create, 8 + 0 * fn);
    PIN(SimplerOrchOps, args_begin, 8 + 1 * fn);
    PIN(SimplerOrchOps, add_tensor, 8 + 2 * fn);
    PIN(SimplerOrchOps, add_scalar, 8 + 3 * fn);
    PIN(SimplerOrchOps, submit, 8 + 4 * fn);
    PIN(SimplerOrchOps, arg_tensor_count, 8 + 5 * fn);
    PIN(SimplerOrchOps, arg_scalar_count, 8 + 6 * fn);
    PIN(SimplerOrchOps, arg_scalar, 8 + 7 * fn);
    PIN(SimplerOrchOps, arg_tensor, 8 + 8 * fn);
    PIN(SimplerOrchOps, view_make, 8 + 9 * fn);
    PIN(SimplerOrchOps, add_view, 8 + 10 * fn);
    PIN(SimplerOrchOps, submit_views, 8 + 11 * fn);
    assert_int_equal(sizeof(SimplerOrchOps), 8 + 12 * fn);
    assert_int_equal(SIMPLER_ORCH_VIEW_MAX, 256);
    assert_int_equal(SIMPLER_MAX_TASK_ARGS, 32);
}

/* The orchestration handle and what a kernel receives: a kernel binary
 * built against one release reads them in the next. */
static void abi_orch_handle_and_kernel_args_are_pinned(void **state)
{
    (void)state;
    assert_int_equal(sizeof(SimplerOrch), sizeof(void *));
    PIN(SimplerOrch, ops, 0);
    assert_int_equal(sizeof(SimplerKernelArgs), 56);
    PIN(SimplerKernelArgs, struct_size, 0);
    PIN(SimplerKernelArgs, abi_version, 4);
    PIN(SimplerKernelArgs, func_id, 8);
    PIN(SimplerKernelArgs, task_id, 12);
    PIN(SimplerKernelArgs, tensor_count, 16);
    PIN(SimplerKernelArgs, scalar_count, 20);
    PIN(SimplerKernelArgs, block_idx, 24);
    PIN(SimplerKernelArgs, block_dim, 28);
    PIN(SimplerKernelArgs, core_id, 32);
    PIN(SimplerKernelArgs, core_type, 36);
    PIN(SimplerKernelArgs, tensors, 40);
    PIN(SimplerKernelArgs, scalars, 48);
}

static void abi_simdev_structs_are_pinned(void **state)
{
    (void)state;
    simdev_abi_config_assert_pinned();
    simdev_abi_mem_info_assert_pinned();
    simdev_abi_counters_assert_pinned();
}

static void abi_status_values_are_pinned(void **state)
{
    (void)state;
    assert_int_equal(PTO_RUNTIME_SUCCESS, 0);
    assert_int_equal(PTO_RUNTIME_ERR_INTERNAL, -1000);
    assert_int_equal(PTO_RUNTIME_ERR_UNSUPPORTED, -1001);
    assert_int_equal(PTO_RUNTIME_ERR_PREPARED_INCOMPATIBLE, -1002);
    assert_int_equal(PTO_RUNTIME_ERR_INVALID_STATE, -1003);
    assert_int_equal(PTO_RUNTIME_ERR_CAPACITY_EXCEEDED, -1004);
    assert_int_equal(PTO_RUNTIME_ERR_INVALID_ARGUMENT, -1005);
    assert_int_equal(PTO_RUNTIME_ERR_CALLABLE_NOT_RESIDENT, -1006);
    assert_int_equal(PTO_RUNTIME_ERR_OUT_OF_MEMORY, -1007);
    assert_int_equal(PTO_RUNTIME_ERR_DEVICE, -1008);
    simdev_abi_status_assert_pinned();
}

static void abi_limits_are_pinned(void **state)
{
    (void)state;
    assert_int_equal(SIMPLER_MAX_CALLABLES_PROGRAM, 64);
    assert_int_equal(SIMPLER_KERNEL_MAX_CALLABLES, 1024);
    assert_int_equal(SIMPLER_MAX_TENSOR_DIMS, 5);
    assert_int_equal(SIMPLER_MAX_TENSOR_ARGS, 256);
    assert_int_equal(SIMPLER_MAX_SCALAR_ARGS, 128);
    assert_int_equal(SIMPLER_CALLABLE_MAX_CHILDREN, 1024);
    assert_int_equal(SIMPLER_CALLABLE_FUNC_ID_LIMIT, 1024);
    assert_int_equal(SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE, 32);
    assert_int_equal(SIMPLER_CALLABLE_ENTRY_NAME_BYTES, 64);
    assert_int_equal(SIMPLER_CALLABLE_ALIGN, 64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(abi_chip_tensor_layout_is_pinned),
        cmocka_unit_test(abi_task_args_layout_is_pinned),
        cmocka_unit_test(abi_call_config_layout_is_pinned),
        cmocka_unit_test(abi_kernel_ctx_control_layout_is_pinned),
        cmocka_unit_test(abi_run_times_layout_is_pinned),
        cmocka_unit_test(abi_requirements_and_layout_are_pinned),
        cmocka_unit_test(abi_invocation_header_layout_is_pinned),
        cmocka_unit_test(abi_callable_image_layout_is_pinned),
        cmocka_unit_test(abi_callable_descriptors_are_pinned),
        cmocka_unit_test(abi_orchestration_view_arg_is_pinned),
        cmocka_unit_test(abi_orch_handle_and_kernel_args_are_pinned),
        cmocka_unit_test(abi_simdev_structs_are_pinned),
        cmocka_unit_test(abi_status_values_are_pinned),
        cmocka_unit_test(abi_limits_are_pinned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
