# Fixture binaries for tests/unit/callable: a tiny orchestration .so, two
# kernel .so files, one .so without kernel_entry and one with an unresolved
# symbol. They land in ${CMAKE_BINARY_DIR}/tests/fixtures/callable.
set(CALLABLE_FIXTURE_DIR ${CMAKE_CURRENT_LIST_DIR}/fixtures)
set(CALLABLE_FIXTURE_OUT ${CMAKE_BINARY_DIR}/tests/fixtures/callable)

function(callable_fixture name src)
  add_library(${name} MODULE ${CALLABLE_FIXTURE_DIR}/${src})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/include)
  set_target_properties(${name} PROPERTIES PREFIX "" POSITION_INDEPENDENT_CODE ON
    LIBRARY_OUTPUT_DIRECTORY ${CALLABLE_FIXTURE_OUT})
  target_compile_definitions(${name} PRIVATE ${ARGN})
endfunction()

callable_fixture(callable_fixture_orch orch_fixture.c)
callable_fixture(callable_fixture_kernel1 kernel_fixture.c FIXTURE_KERNEL_VALUE=1)
callable_fixture(callable_fixture_kernel2 kernel_fixture.c FIXTURE_KERNEL_VALUE=2)
callable_fixture(callable_fixture_no_entry orch_fixture.c)
callable_fixture(callable_fixture_unresolved unresolved_fixture.c)

foreach(t unit_loader unit_residency)
  if(TARGET ${t})
    add_dependencies(${t} callable_fixture_orch callable_fixture_kernel1 callable_fixture_kernel2
      callable_fixture_no_entry callable_fixture_unresolved)
    target_compile_definitions(${t} PRIVATE CALLABLE_FIXTURE_OUT="${CALLABLE_FIXTURE_OUT}")
  endif()
endforeach()
