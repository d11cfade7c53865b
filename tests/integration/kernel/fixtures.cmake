# The kernel-mode suites reuse the program-mode fixture image "vadd"
# (tests/integration/program/fixtures), built by its fixtures.cmake.
file(GLOB KERNEL_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/test_*.c)
foreach(src ${KERNEL_TESTS})
  get_filename_component(base ${src} NAME_WE)
  string(REGEX REPLACE "^test_" "integration_" t ${base})
  if(TARGET ${t})
    add_dependencies(${t} program_fixture_vadd)
    target_compile_definitions(${t} PRIVATE PROGRAM_FIXTURE_OUT="${PROJECT_BINARY_DIR}/tests/fixtures/program")
  endif()
endforeach()

# `simpler run` (kernel mode by default) on the vector example: eager
# launch, capture, three replays with fresh inputs, all against the
# golden; then with --trace, which must write Chrome trace JSON.
add_test(NAME integration_kernel_cli_run COMMAND $<TARGET_FILE:simpler_cli> run --replays 3)
set_tests_properties(integration_kernel_cli_run PROPERTIES LABELS "integration;kernel"
  PASS_REGULAR_EXPRESSION "golden +every run matched")
add_test(NAME integration_kernel_cli_trace
  COMMAND sh -c "rm -f \"$1\" && \"$0\" run --replays 1 --trace \"$1\" >/dev/null && grep -q traceEvents \"$1\""
          $<TARGET_FILE:simpler_cli> ${PROJECT_BINARY_DIR}/tests/kernel_cli_trace.json)
set_tests_properties(integration_kernel_cli_trace PROPERTIES LABELS "integration;kernel")

# `simpler run decode`: the decode loop three ways in one run, every
# step against the golden, nothing allocated by write_args + replay.
add_test(NAME integration_kernel_cli_decode COMMAND $<TARGET_FILE:simpler_cli> run decode)
set_tests_properties(integration_kernel_cli_decode PROPERTIES LABELS "integration;kernel"
  PASS_REGULAR_EXPRESSION "golden +every step matched")
