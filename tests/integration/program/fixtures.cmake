# The program-mode fixture image "vadd" (fixtures/vadd_orch.c), packed by
# simpler_add_callable into ${PROJECT_BINARY_DIR}/tests/fixtures/program.
set(PROGRAM_FIXTURE_DIR ${CMAKE_CURRENT_LIST_DIR}/fixtures)
set(PROGRAM_FIXTURE_OUT ${PROJECT_BINARY_DIR}/tests/fixtures/program)

simpler_add_callable(program_fixture_vadd
  ORCHESTRATION ${PROGRAM_FIXTURE_DIR}/vadd_orch.c
  ENTRY vadd_orch
  SIGNATURE in,in,out,scalar,scalar
  KERNELS 1:AIV:${PROGRAM_FIXTURE_DIR}/vadd_kernel.c:in,in,out
          2:AIC:${PROGRAM_FIXTURE_DIR}/vadd_kernel.c:in,out
          3:AIV:${PROGRAM_FIXTURE_DIR}/vadd_kernel.c:in,out
  OUTPUT ${PROGRAM_FIXTURE_OUT}/vadd.callable)
target_compile_definitions(program_fixture_vadd_kernel_1 PRIVATE VADD_OP=1)
target_compile_definitions(program_fixture_vadd_kernel_2 PRIVATE VADD_OP=2)
target_compile_definitions(program_fixture_vadd_kernel_3 PRIVATE VADD_OP=3)

file(GLOB PROGRAM_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/test_*.c)
foreach(src ${PROGRAM_TESTS})
  get_filename_component(base ${src} NAME_WE)
  string(REGEX REPLACE "^test_" "integration_" t ${base})
  if(TARGET ${t})
    add_dependencies(${t} program_fixture_vadd)
    target_compile_definitions(${t} PRIVATE PROGRAM_FIXTURE_OUT="${PROGRAM_FIXTURE_OUT}")
  endif()
endforeach()
