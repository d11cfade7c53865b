# `simpler run` and `simpler bench` on every example in both modes: one
# CTest per example x mode x command, failing when a run misses the
# golden (the CLI exits 1) or a call fails. The examples are the folders
# of examples/ (all but common/ and decode/, a driver over the
# paged_attention image that `simpler run decode` runs: see
# tests/integration/kernel/fixtures.cmake); each must build an image
# target of its name, or its test fails and says so.
file(GLOB SIMPLER_EXAMPLE_DIRS LIST_DIRECTORIES true ${PROJECT_SOURCE_DIR}/examples/*)
foreach(dir ${SIMPLER_EXAMPLE_DIRS})
  get_filename_component(example ${dir} NAME)
  if(NOT IS_DIRECTORY ${dir} OR example STREQUAL "common" OR example STREQUAL "decode")
    continue()
  endif()
  if(NOT TARGET ${example})
    add_test(NAME integration_cli_example_${example}_registered
      COMMAND sh -c "echo 'examples/${example}/ builds no image target named ${example}' >&2; exit 1")
    set_tests_properties(integration_cli_example_${example}_registered PROPERTIES LABELS "integration;cli")
    continue()
  endif()
  foreach(mode kernel program)
    foreach(command run bench)
      set(name integration_cli_${command}_${example}_${mode})
      add_test(NAME ${name}
        COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cli_example.sh $<TARGET_FILE:simpler_cli> ${command} ${example} ${mode})
      set_tests_properties(${name} PROPERTIES LABELS "integration;cli" TIMEOUT 600)
    endforeach()
  endforeach()
endforeach()

# The one --json schema of run (both modes) and bench, success and
# failure, parsed by Python's json module.
find_program(SIMPLER_PYTHON3 NAMES python3)
if(SIMPLER_PYTHON3)
  add_test(NAME integration_cli_json_schema
    COMMAND ${SIMPLER_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/cli_json.py $<TARGET_FILE:simpler_cli>
            ${PROJECT_BINARY_DIR}/tests/fixtures/examples/vector_wrong_kernel.callable)
  set_tests_properties(integration_cli_json_schema PROPERTIES LABELS "integration;cli" TIMEOUT 600)
endif()
