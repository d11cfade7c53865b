# The kernel-mode suites reuse the program-mode fixture image "vadd"
# (tests/integration/program/fixtures), built by its fixtures.cmake.
file(GLOB KERNEL_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/test_*.c)
foreach(src ${KERNEL_TESTS})
  get_filename_component(base ${src} NAME_WE)
  string(REGEX REPLACE "^test_" "integration_" t ${base})
  if(TARGET ${t})
    add_dependencies(${t} program_fixture_vadd)
    target_compile_definitions(${t} PRIVATE PROGRAM_FIXTURE_OUT="${CMAKE_BINARY_DIR}/tests/fixtures/program")
  endif()
endforeach()
