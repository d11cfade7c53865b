# The image test_graph_requirements_api and test_graph_sizer size: orchestration
# fixtures/orch_diamond.c with kernels 0 (AIV), 1 (AIV), 2 (AIC).
set(GRAPH_FIXTURE_DIR ${CMAKE_CURRENT_LIST_DIR}/fixtures)
set(GRAPH_FIXTURE_OUT ${PROJECT_BINARY_DIR}/tests/fixtures/graph)
simpler_add_callable(graph_fixture_diamond
  ORCHESTRATION ${GRAPH_FIXTURE_DIR}/orch_diamond.c
  ENTRY graph_diamond
  SIGNATURE in,out,scalar
  KERNELS 0:AIV:${GRAPH_FIXTURE_DIR}/kernel_noop.c 1:AIV:${GRAPH_FIXTURE_DIR}/kernel_noop.c
          2:AIC:${GRAPH_FIXTURE_DIR}/kernel_noop.c
  OUTPUT ${GRAPH_FIXTURE_OUT}/diamond.callable)
foreach(t unit_graph_requirements_api unit_graph_sizer unit_graph_dot)
  if(TARGET ${t})
    add_dependencies(${t} graph_fixture_diamond)
    target_compile_definitions(${t} PRIVATE GRAPH_FIXTURE_OUT="${GRAPH_FIXTURE_OUT}")
  endif()
endforeach()

# The DOT suite drives every example on the CLI's arguments.
if(TARGET unit_graph_dot)
  target_include_directories(unit_graph_dot PRIVATE ${PROJECT_SOURCE_DIR}/examples/common)
endif()
