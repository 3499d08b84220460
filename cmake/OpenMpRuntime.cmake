# The OpenMP runtime the engine links, after find_package(OpenMP): GCC's libgomp, statically
# where its archive exists, so that the programs can choose how long its idle threads spin
# (app/openmp_spin_default.cpp).
#
# libgomp reads GOMP_SPINCOUNT and OMP_WAIT_POLICY once, in a constructor. Loaded as a shared
# library, that constructor runs before any of the program's own, and the C library's start-up
# resets the environment after the program's pre-initialisers, so no code of the program can
# set the default in time without executing itself again. Linked statically, libgomp's
# constructor sits in the program's own list, after one with a priority. libgomp.a ships with
# GCC (Debian: libgcc-12-dev, which g++ needs) and is position-independent.
#
# The desktop app loads the shared libgomp as well, for Qt's libb2. That copy starts and runs
# nothing: the program exports its own runtime's functions, and libb2's calls bind to them.
#
# The fuzz build (clang, its own runtime) keeps the shared runtime and libgomp's default spin.
if(SPARSITY_FUZZ OR NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(_sparsity_static_openmp_default OFF)
else()
  set(_sparsity_static_openmp_default ON)
endif()
option(SPARSITY_STATIC_OPENMP "Link GCC's OpenMP runtime (libgomp) statically" ${_sparsity_static_openmp_default})
unset(_sparsity_static_openmp_default)

set(SPARSITY_OPENMP_STATIC OFF)
if(SPARSITY_STATIC_OPENMP)
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libgomp.a OUTPUT_VARIABLE _sparsity_libgomp_a
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  get_target_property(_sparsity_openmp_libraries OpenMP::OpenMP_CXX INTERFACE_LINK_LIBRARIES)
  if(IS_ABSOLUTE "${_sparsity_libgomp_a}" AND EXISTS "${_sparsity_libgomp_a}" AND _sparsity_openmp_libraries MATCHES "libgomp\\.so")
    list(TRANSFORM _sparsity_openmp_libraries REPLACE ".*/libgomp\\.so$" "${_sparsity_libgomp_a}")
    set_target_properties(OpenMP::OpenMP_CXX PROPERTIES INTERFACE_LINK_LIBRARIES "${_sparsity_openmp_libraries}")
    set(SPARSITY_OPENMP_STATIC ON)
    message(STATUS "OpenMP: ${_sparsity_libgomp_a}, linked statically")
  endif()
  unset(_sparsity_libgomp_a)
  unset(_sparsity_openmp_libraries)
endif()
if(NOT SPARSITY_OPENMP_STATIC)
  message(STATUS "OpenMP: shared (the programs keep the runtime's default spin)")
endif()

# The programs a user runs: their OpenMP threads spin briefly (app/openmp_spin_default.cpp).
function(sparsity_openmp_program target)
  target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/app/openmp_spin_default.cpp)
endfunction()
