# The installed library, included by symbolite/CMakeLists.txt (the layers' scope).
# Every layer's objects in one libsymbolite.a and one libsymbolite.so (programs in this tree
# link the layers themselves). `cmake --install` puts them, the CLI, the public headers with
# the headers they include, a CMake package (find_package(symbolite) -> symbolite::symbolite,
# the shared library, and symbolite::symbolite_static) and symbolite.pc under the prefix.
set(layer_objects)
foreach(layer IN LISTS SYMBOLITE_LAYERS)
  list(APPEND layer_objects $<TARGET_OBJECTS:symbolite_${layer}>)
endforeach()
set(installed_deps ZLIB::ZLIB Threads::Threads symbolite_dep::xxhash symbolite_dep::deflate symbolite_dep::openblas
    symbolite_dep::sleef symbolite_dep::dnnl symbolite_dep::gomp symbolite_dep::xnnpack
    symbolite_dep::pthreadpool)
foreach(kind IN ITEMS static shared)
  string(TOUPPER ${kind} library_type)
  add_library(symbolite_${kind} ${library_type} ${layer_objects})
  set_target_properties(symbolite_${kind} PROPERTIES OUTPUT_NAME symbolite
    EXPORT_NAME symbolite_${kind} ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
  target_include_directories(symbolite_${kind} INTERFACE
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/generated>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(symbolite_${kind} PUBLIC fmt::fmt nlohmann_json::nlohmann_json
    PRIVATE ${installed_deps})
endforeach()
set_target_properties(symbolite_shared PROPERTIES EXPORT_NAME symbolite
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})

# The public headers (README "Public headers"); each is installed with every symbolite
# header it includes, and nothing else.
set(public_headers
  mobile/model_info.h mobile/loaded_model.h runtime/interpreter.h runtime/run_budget.h
  mobile/model_check.h profiler/event_sink.h profiler/op_event.h ops/registry/operator_registry.h
  ops/schema/schema_table.h tensor/tensor.h tensor/npy.h debuginfo/symbolicator.h
  debuginfo/crash_log.h debuginfo/model_debug_info.h debuginfo/sidecar_reader.h
  debuginfo/sidecar_writer.h debuginfo/debug_info_recorder.h mobile/model_split.h
  mobile/model_writer.h compiler/graph.h compiler/lifter.h compiler/emitter.h
  compiler/rewrite.h compiler/model_export.h compiler/lowering/lowering.h compiler/partitioner.h
  compiler/delegate_debug.h runtime/delegate/delegate_backend.h runtime/delegate/program_backend.h
  mobile/delegate_program.h mobile/bytecode_writer.h backends/register_backends.h
  archive/model_archive.h archive/model_archive_writer.h pickle/unpickler.h
  ops/schema/schema_parser.h ops/schema/necessary_args.h support/error.h support/output_files.h
  profiler/flame_graph.h mobile/symbolication_target.h mobile/attach_sidecar.h
  support/parallel_for.h)
set(installed_headers)
set(pending ${public_headers})
while(pending)
  list(POP_FRONT pending header)
  if(header IN_LIST installed_headers)
    continue()
  endif()
  list(APPEND installed_headers ${header})
  file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/${header} includes
       REGEX "^[ \t]*#[ \t]*include[ \t]+\"symbolite/[a-z_/]+/[a-z_0-9]+\\.h\"")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^.*\"symbolite/([^\"]+)\".*$" "\\1" included "${line}")
    list(APPEND pending ${included})
  endforeach()
endwhile()
foreach(header IN LISTS installed_headers)
  get_filename_component(dir ${header} DIRECTORY)
  install(FILES ${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/symbolite/${dir})
endforeach()
# <symbolite/symbolite.h>: every public header in one include. What it does not reach is
# internal; tests/package/check_install.sh compiles it, and each public header on its own,
# against the installed prefix alone.
set(umbrella "// The public API of symbolite (generated from cmake/symbolite_install.cmake).\n")
string(APPEND umbrella "#pragma once\n\n#include \"symbolite/version.h\"\n")
foreach(header IN LISTS public_headers)
  string(APPEND umbrella "#include \"symbolite/${header}\"\n")
endforeach()
file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/generated/symbolite/symbolite.h CONTENT "${umbrella}")
install(FILES ${PROJECT_BINARY_DIR}/generated/symbolite/version.h
              ${PROJECT_BINARY_DIR}/generated/symbolite/symbolite.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/symbolite)

install(TARGETS symbolite RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS symbolite_static symbolite_shared EXPORT symboliteTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
set(package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/symbolite)
install(EXPORT symboliteTargets NAMESPACE symbolite:: DESTINATION ${package_dir})
include(CMakePackageConfigHelpers)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/symboliteConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_SOURCE_DIR}/cmake/symboliteConfig.cmake
  ${PROJECT_SOURCE_DIR}/cmake/symbolite_dependencies.cmake
  ${PROJECT_BINARY_DIR}/symboliteConfigVersion.cmake DESTINATION ${package_dir})
file(RELATIVE_PATH pc_to_prefix /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${PROJECT_SOURCE_DIR}/cmake/symbolite.pc.in ${PROJECT_BINARY_DIR}/symbolite.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/symbolite.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
