# Fixture binaries for tests/unit/callable: a tiny orchestration .so, two
# kernel .so files, one .so without kernel_entry and one with an unresolved
# symbol. They land in ${PROJECT_BINARY_DIR}/tests/fixtures/callable.
set(CALLABLE_FIXTURE_DIR ${CMAKE_CURRENT_LIST_DIR}/fixtures)
set(CALLABLE_FIXTURE_OUT ${PROJECT_BINARY_DIR}/tests/fixtures/callable)

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

foreach(t unit_loader unit_residency unit_elf_check)
  if(TARGET ${t})
    add_dependencies(${t} callable_fixture_orch callable_fixture_kernel1 callable_fixture_kernel2
      callable_fixture_no_entry callable_fixture_unresolved)
    target_compile_definitions(${t} PRIVATE CALLABLE_FIXTURE_OUT="${CALLABLE_FIXTURE_OUT}")
  endif()
endforeach()

# An image packed by simpler_add_callable (cmake/SimplerCallable.cmake),
# loaded by test_loader and inspected by the CLI test below.
simpler_add_callable(callable_fixture_image
  ORCHESTRATION ${CALLABLE_FIXTURE_DIR}/orch_fixture.c
  ENTRY fixture_orch
  SIGNATURE in,in,out,scalar
  KERNELS 5:AIV:${CALLABLE_FIXTURE_DIR}/kernel_fixture.c:in,out 9:AIC:${CALLABLE_FIXTURE_DIR}/kernel_fixture.c
  OUTPUT ${CALLABLE_FIXTURE_OUT}/fixture.callable)
if(TARGET unit_loader)
  add_dependencies(unit_loader callable_fixture_image)
  # The truncation sweep cuts every binary of the vector example.
  if(TARGET vector)
    add_dependencies(unit_loader vector)
  endif()
endif()

# `simpler pack` and `simpler inspect` end to end.
add_test(NAME unit_callable_cli
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cli_pack_inspect.sh $<TARGET_FILE:simpler_cli> ${CALLABLE_FIXTURE_OUT})
set_tests_properties(unit_callable_cli PROPERTIES LABELS "unit;callable")

# simpler_callable_load_file reads a built example image back.
if(TARGET unit_load_file AND TARGET vector)
  add_dependencies(unit_load_file vector)
endif()
