# find_package(symbolite): symbolite::symbolite (libsymbolite.so) and
# symbolite::symbolite_static (libsymbolite.a), with the libraries they link found the way
# symbolite's own build finds them.
include(${CMAKE_CURRENT_LIST_DIR}/symbolite_dependencies.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/symboliteTargets.cmake)
