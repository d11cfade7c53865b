# The image test_graph_requirements_api sizes: orchestration
# fixtures/orch_diamond.c with kernels 0 (AIV), 1 (AIV), 2 (AIC).
set(GRAPH_FIXTURE_DIR ${CMAKE_CURRENT_LIST_DIR}/fixtures)
set(GRAPH_FIXTURE_OUT ${CMAKE_BINARY_DIR}/tests/fixtures/graph)
simpler_add_callable(graph_fixture_diamond
  ORCHESTRATION ${GRAPH_FIXTURE_DIR}/orch_diamond.c
  ENTRY graph_diamond
  SIGNATURE in,out,scalar
  KERNELS 0:AIV:${GRAPH_FIXTURE_DIR}/kernel_noop.c 1:AIV:${GRAPH_FIXTURE_DIR}/kernel_noop.c
          2:AIC:${GRAPH_FIXTURE_DIR}/kernel_noop.c
  OUTPUT ${GRAPH_FIXTURE_OUT}/diamond.callable)
if(TARGET unit_graph_requirements_api)
  add_dependencies(unit_graph_requirements_api graph_fixture_diamond)
  target_compile_definitions(unit_graph_requirements_api PRIVATE GRAPH_FIXTURE_OUT="${GRAPH_FIXTURE_OUT}")
endif()
