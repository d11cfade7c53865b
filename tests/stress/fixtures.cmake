# The stress suites run the program-mode fixture image "vadd" (built by
# tests/integration/program/fixtures.cmake) and the example images
# (examples/CMakeLists.txt), and find them where those put them.
file(GLOB_RECURSE STRESS_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/test_*.c)
foreach(src ${STRESS_TESTS})
  get_filename_component(base ${src} NAME_WE)
  string(REGEX REPLACE "^test_" "stress_" t ${base})
  if(TARGET ${t})
    target_include_directories(${t} PRIVATE ${CMAKE_CURRENT_LIST_DIR})
    target_compile_definitions(${t} PRIVATE PROGRAM_FIXTURE_OUT="${PROJECT_BINARY_DIR}/tests/fixtures/program")
    add_dependencies(${t} program_fixture_vadd)
    foreach(image vector add_scalar)
      if(TARGET ${image})
        add_dependencies(${t} ${image})
      endif()
    endforeach()
  endif()
endforeach()
