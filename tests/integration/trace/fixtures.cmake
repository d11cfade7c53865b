# The structure of the Chrome/Perfetto trace files `simpler run --trace`
# writes, on real runs of every example in both modes (check_trace.py,
# Python's json module; docs/trace.md).
find_program(SIMPLER_PYTHON3 NAMES python3)
if(SIMPLER_PYTHON3)
  add_test(NAME integration_trace_files_structure
    COMMAND ${SIMPLER_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/check_trace.py $<TARGET_FILE:simpler_cli>
            ${PROJECT_BINARY_DIR}/tests/trace_files)
  set_tests_properties(integration_trace_files_structure PROPERTIES LABELS "integration;trace" TIMEOUT 600)
endif()
