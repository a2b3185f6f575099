# The libraries symbolite links, found the same way by this build and by an installed
# package (symboliteConfig.cmake includes this file): their own CMake packages where those
# work (zlib, fmt, nlohmann_json), pkg-config's directories as hints where the library ships
# a .pc file (xxhash, SLEEF, OpenBLAS), the default search paths otherwise (oneDNN, whose
# Debian CMake package demands OpenCL; XNNPACK, pthreadpool and libgomp, which ship neither).
# Each becomes an imported target symbolite_dep::<name>; nothing names a directory.
include_guard(GLOBAL)
include(CMakeFindDependencyMacro)

# find_dependency inside an installed package's config (it reports a missing dependency as
# the package not found), find_package(REQUIRED) in this build.
macro(symbolite_find_package name)
  if(CMAKE_FIND_PACKAGE_NAME)
    find_dependency(${name})
  else()
    find_package(${name} REQUIRED)
  endif()
endmacro()

symbolite_find_package(ZLIB)
symbolite_find_package(fmt)
symbolite_find_package(nlohmann_json)
symbolite_find_package(Threads)
find_package(PkgConfig QUIET)

# symbolite_import_library(NAME NAMES lib... [PKG module] [HEADER file] [FLAVOUR dir])
# FLAVOUR: a subdirectory of lib/<arch> and include/<arch> searched first (Debian's layout
# for libraries built in several flavours).
function(symbolite_import_library name)
  cmake_parse_arguments(arg "" "PKG;HEADER;FLAVOUR" "NAMES" ${ARGN})
  if(TARGET symbolite_dep::${name})
    return()
  endif()
  set(library_hints)
  set(include_hints)
  if(arg_FLAVOUR)
    foreach(prefix IN LISTS CMAKE_SYSTEM_PREFIX_PATH)
      list(APPEND library_hints ${prefix}/lib/${CMAKE_LIBRARY_ARCHITECTURE}/${arg_FLAVOUR})
      list(APPEND include_hints ${prefix}/include/${CMAKE_LIBRARY_ARCHITECTURE}/${arg_FLAVOUR})
    endforeach()
  endif()
  if(arg_PKG AND PKG_CONFIG_FOUND)
    pkg_check_modules(symbolite_pc_${name} QUIET ${arg_PKG})
    list(APPEND library_hints ${symbolite_pc_${name}_LIBRARY_DIRS})
    list(APPEND include_hints ${symbolite_pc_${name}_INCLUDE_DIRS})
  endif()
  find_library(SYMBOLITE_${name}_LIBRARY NAMES ${arg_NAMES} HINTS ${library_hints} REQUIRED)
  add_library(symbolite_dep::${name} UNKNOWN IMPORTED)
  set_target_properties(symbolite_dep::${name} PROPERTIES
    IMPORTED_LOCATION ${SYMBOLITE_${name}_LIBRARY})
  if(arg_HEADER)
    find_path(SYMBOLITE_${name}_INCLUDE_DIR ${arg_HEADER} HINTS ${include_hints} REQUIRED)
    set_target_properties(symbolite_dep::${name} PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES ${SYMBOLITE_${name}_INCLUDE_DIR})
  endif()
endfunction()

symbolite_import_library(xxhash NAMES xxhash PKG libxxhash)
symbolite_import_library(deflate NAMES deflate PKG libdeflate HEADER libdeflate.h)
symbolite_import_library(sleef NAMES sleef PKG sleef)
# OpenBLAS in its serial (single-threaded) flavour where the system has one: the runtime runs
# each model on the caller's thread, and the pthread flavour's idle workers spin in
# sched_yield next to it. Debian installs each flavour in its own directory (searched first)
# and points the generic libopenblas.so and openblas.pc at whichever alternative is selected.
# The header is the flavour's own cblas.h (declares openblas_set_num_threads), found beside
# its openblas_config.h.
symbolite_import_library(openblas NAMES openblas PKG openblas HEADER openblas_config.h
  FLAVOUR openblas-serial)
# oneDNN for float32 GEMMs (ops/cpu/gemm.h says why), and the OpenMP runtime it runs on,
# whose per-thread thread count symbolite sets around each call.
symbolite_import_library(dnnl NAMES dnnl)
symbolite_import_library(gomp NAMES gomp libgomp.so.1)
# XNNPACK (Debian's 2022-02 snapshot) for the xnnpack delegate backend, and the pthreadpool
# its header names.
symbolite_import_library(xnnpack NAMES XNNPACK HEADER xnnpack.h)
symbolite_import_library(pthreadpool NAMES pthreadpool)
