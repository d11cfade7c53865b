# The example tests need the example images (examples/CMakeLists.txt) and
# find them at ${PROJECT_BINARY_DIR}/examples/<name>.callable.
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

# `simpler run --mode program` (the real binary, in the build root where
# the default image lookup expects it) on every example with the
# summary, with --json and with a trace.
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
    OUTPUT ${PROJECT_BINARY_DIR}/tests/fixtures/examples/vector_wrong_kernel.callable)
  add_test(NAME integration_examples_cli
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cli_run_example.sh $<TARGET_FILE:simpler_cli>
            ${PROJECT_BINARY_DIR}/tests/examples_cli
            ${PROJECT_BINARY_DIR}/tests/fixtures/examples/vector_wrong_kernel.callable)
  set_tests_properties(integration_examples_cli PROPERTIES LABELS "integration;examples" TIMEOUT 600)
endif()

# The tutorial's own host program (docs/tutorial.md) on its image: program
# mode, then kernel mode with a captured launch replayed.
if(TARGET tutorial_host AND TARGET tutorial)
  add_test(NAME integration_examples_tutorial_host
    COMMAND $<TARGET_FILE:tutorial_host> ${PROJECT_BINARY_DIR}/examples/tutorial.callable)
  set_tests_properties(integration_examples_tutorial_host PROPERTIES LABELS "integration;examples" TIMEOUT 600
    PASS_REGULAR_EXPRESSION "kernel mode: 0 of [0-9]+ elements differ")
endif()

# The tutorial's pack-by-hand commands (docs/tutorial.md, step 5).
if(TARGET tutorial_host)
  add_test(NAME integration_examples_tutorial_by_hand
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/tutorial_by_hand.sh ${CMAKE_C_COMPILER} ${PROJECT_SOURCE_DIR}
            $<TARGET_FILE:simpler_cli> $<TARGET_FILE:tutorial_host> ${PROJECT_BINARY_DIR}/tests/tutorial_by_hand)
  set_tests_properties(integration_examples_tutorial_by_hand PROPERTIES LABELS "integration;examples" TIMEOUT 600
    PASS_REGULAR_EXPRESSION "kernel mode: 0 of [0-9]+ elements differ")
endif()
