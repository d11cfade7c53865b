# The example tests need the example images (examples/CMakeLists.txt) and
# find them at ${CMAKE_BINARY_DIR}/examples/<name>.callable.
set(EXAMPLE_IMAGES vector add_scalar paged_attention matmul_add)
foreach(t integration_examples_vector integration_examples_add_scalar
          integration_examples_paged_attention integration_examples_matmul_add integration_examples_decode)
  if(TARGET ${t})
    foreach(image ${EXAMPLE_IMAGES})
      if(TARGET ${image})
        add_dependencies(${t} ${image})
      endif()
    endforeach()
  endif()
endforeach()

# The example runner of `simpler run --mode program`, built on its own in
# the build root (where the default image lookup expects it), run on
# every example with the summary, with --json and with a trace.
if(TARGET vector)
  # A vector image whose multiply kernel adds instead: valid, runs, and
  # misses the golden, so the runner's mismatch report is exercised.
  simpler_add_callable(vector_wrong_kernel
    ORCHESTRATION ${PROJECT_SOURCE_DIR}/examples/vector/vector_orch.c
    ENTRY vector_orchestration
    SIGNATURE in,in,out
    KERNELS 0:AIV:${PROJECT_SOURCE_DIR}/examples/common/kernel_add.c
            1:AIV:${PROJECT_SOURCE_DIR}/examples/common/kernel_add_scalar.c
            2:AIV:${PROJECT_SOURCE_DIR}/examples/common/kernel_add.c
    OUTPUT ${CMAKE_BINARY_DIR}/tests/fixtures/examples/vector_wrong_kernel.callable)
  add_executable(simpler_run_example ${CMAKE_CURRENT_LIST_DIR}/run_example_main.c
    ${PROJECT_SOURCE_DIR}/tools/cmd_run_program.c
    ${PROJECT_SOURCE_DIR}/tools/options.c)
  target_include_directories(simpler_run_example PRIVATE ${PROJECT_SOURCE_DIR}/tools
    ${PROJECT_SOURCE_DIR}/examples/common)
  target_link_libraries(simpler_run_example PRIVATE simpler_static)
  set_target_properties(simpler_run_example PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
  add_dependencies(simpler_run_example ${EXAMPLE_IMAGES} vector_wrong_kernel)
  add_test(NAME integration_examples_cli
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cli_run_example.sh $<TARGET_FILE:simpler_run_example>
            ${CMAKE_BINARY_DIR}/tests/examples_cli
            ${CMAKE_BINARY_DIR}/tests/fixtures/examples/vector_wrong_kernel.callable)
  set_tests_properties(integration_examples_cli PROPERTIES LABELS "integration;examples" TIMEOUT 600)
endif()
