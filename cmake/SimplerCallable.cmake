# simpler_add_callable(NAME
#     ORCHESTRATION src.c
#     ENTRY name
#     [SIGNATURE in,in,out,scalar]
#     [KERNELS id:AIC|AIV:src.c[:in,out] ...]
#     [OUTPUT path])
#
# Compiles the orchestration and each kernel as its own MODULE library
# (position-independent, the public headers of target simpler::headers on
# the include path, nothing linked from libsimpler: an orchestration
# reaches the runtime only through the function table of
# simpler/orchestration.h), then runs `simpler pack` to produce the image
# (each kernel named by its source file's stem: kernel_add.c -> kernel_add),
# by default ${CMAKE_CURRENT_BINARY_DIR}/<NAME>.callable (the binary
# directory of the CMakeLists.txt that calls it). The packer is the
# simpler_cli target when simpler is built in the same build (its own
# tree, add_subdirectory, FetchContent), else the imported simpler::cli of
# an installed package (find_package(simpler)). NAME becomes a custom
# target (part of ALL) that builds the image; <NAME>_orchestration and
# <NAME>_kernel_<id> are the library targets, so callers may add compile
# definitions or sources to them; their binaries land in
# ${CMAKE_CURRENT_BINARY_DIR}/callables/<NAME>. Relative sources are taken
# from the calling directory. The image path is also published in the
# cache-less variable <NAME>_CALLABLE in the caller's scope.
function(simpler_add_callable NAME)
  cmake_parse_arguments(SAC "" "ORCHESTRATION;ENTRY;SIGNATURE;OUTPUT" "KERNELS" ${ARGN})
  if(SAC_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "simpler_add_callable(${NAME}): unknown arguments ${SAC_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT SAC_ORCHESTRATION OR NOT SAC_ENTRY)
    message(FATAL_ERROR "simpler_add_callable(${NAME}): ORCHESTRATION and ENTRY are required")
  endif()
  if(NOT SAC_OUTPUT)
    set(SAC_OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/${NAME}.callable)
  elseif(NOT IS_ABSOLUTE "${SAC_OUTPUT}")
    set(SAC_OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/${SAC_OUTPUT})
  endif()
  set(lib_dir ${CMAKE_CURRENT_BINARY_DIR}/callables/${NAME})
  # The headers and the packer come from targets, never from variables of
  # the directory that defined this function.
  if(TARGET simpler_cli AND TARGET simpler_headers)
    set(packer simpler_cli)
    set(headers simpler_headers)
  elseif(TARGET simpler::cli AND TARGET simpler::headers)
    set(packer simpler::cli)
    set(headers simpler::headers)
  else()
    message(FATAL_ERROR "simpler_add_callable(${NAME}): no simpler packer: call it after "
      "find_package(simpler), add_subdirectory(<simpler>) or FetchContent_MakeAvailable(simpler)")
  endif()

  set(orch ${NAME}_orchestration)
  add_library(${orch} MODULE ${SAC_ORCHESTRATION})
  target_link_libraries(${orch} PRIVATE ${headers})
  set_target_properties(${orch} PROPERTIES PREFIX "" POSITION_INDEPENDENT_CODE ON
    LIBRARY_OUTPUT_DIRECTORY ${lib_dir})

  set(pack_args -o ${SAC_OUTPUT} --orchestration $<TARGET_FILE:${orch}> --entry ${SAC_ENTRY})
  if(SAC_SIGNATURE)
    list(APPEND pack_args --sig ${SAC_SIGNATURE})
  endif()
  set(deps ${packer} ${orch})
  foreach(spec ${SAC_KERNELS})
    if(NOT spec MATCHES "^([0-9]+):(AIC|AIV):([^:]+)(:(.+))?$")
      message(FATAL_ERROR "simpler_add_callable(${NAME}): bad kernel '${spec}' (want id:AIC|AIV:src[:sig])")
    endif()
    set(id ${CMAKE_MATCH_1})
    set(core ${CMAKE_MATCH_2})
    set(src ${CMAKE_MATCH_3})
    set(ksig ${CMAKE_MATCH_5})
    get_filename_component(kname ${src} NAME_WE)
    set(kernel ${NAME}_kernel_${id})
    add_library(${kernel} MODULE ${src})
    target_link_libraries(${kernel} PRIVATE ${headers})
    set_target_properties(${kernel} PROPERTIES PREFIX "" POSITION_INDEPENDENT_CODE ON
      LIBRARY_OUTPUT_DIRECTORY ${lib_dir})
    # An empty LIST field is no signature; the last field is the name.
    list(APPEND pack_args --kernel ${id}:${core}:$<TARGET_FILE:${kernel}>:${ksig}:${kname})
    list(APPEND deps ${kernel})
  endforeach()

  get_filename_component(out_dir ${SAC_OUTPUT} DIRECTORY)
  add_custom_command(OUTPUT ${SAC_OUTPUT}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${out_dir}
    COMMAND ${packer} pack ${pack_args}
    DEPENDS ${deps}
    COMMENT "Packing callable ${NAME}"
    VERBATIM)
  add_custom_target(${NAME} ALL DEPENDS ${SAC_OUTPUT})
  set(${NAME}_CALLABLE ${SAC_OUTPUT} PARENT_SCOPE)
endfunction()
