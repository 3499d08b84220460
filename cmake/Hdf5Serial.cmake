# sparsity_hdf5_serial: the serial HDF5 that sparsity_core links (core/CMakeLists.txt), after
# find_package(HDF5); SPARSITY_HDF5_STATIC says which library it is.
#
# HDF5's static library where it exists (Debian's libhdf5-dev ships libhdf5.a beside the
# shared one). The shared libhdf5_serial needs libcurl and libcrypto, for a read-only S3
# driver the engine never uses, and through them about 30 more libraries: loading those took
# 16 ms of the start of every command on the 2-core development machine, where
# `sparsity --version` took 24 ms in all (docs/PERFORMANCE.md, "stop 60"). Linked statically,
# HDF5 brings only the objects the engine calls: no S3 driver, no curl.
#
# HDF5 loads filter plugins (blosc, lz4, bzip2, zfp: docs/HDF5_ENCODINGS.md, "Compression")
# with dlopen, and some of them (blosc, lz4, zfp) link the shared libhdf5_serial, which comes
# in with them. Every executable exports its own HDF5 functions (hdf5_exports.list), so the
# dynamic linker binds a plugin's H5* references, the error classes it pushes its failures
# with among them, to those: the first definitions in its search order. The plugin then works
# on the library state that loaded it, not on a second, uninitialised one. (Reading, the
# plugins tested call HDF5 only to report a failure, and read the same either way:
# cli.filter_plugins.)
#
# The fuzzers keep the shared library: tests/fuzz/lsan.supp suppresses the leaks libhdf5 1.10.8
# has on corrupt files by its module, libhdf5_serial.so.
if(SPARSITY_FUZZ)
  set(_sparsity_static_default OFF)
else()
  set(_sparsity_static_default ON)
endif()
option(SPARSITY_STATIC_HDF5 "Link the serial HDF5 statically where its static library exists" ${_sparsity_static_default})
unset(_sparsity_static_default)

add_library(sparsity_hdf5_serial INTERFACE)
set(_sparsity_hdf5_static "")
if(SPARSITY_STATIC_HDF5 AND HDF5_C_LIBRARY_hdf5 MATCHES "\\.so$")
  string(REGEX REPLACE "\\.so$" ".a" _sparsity_hdf5_static "${HDF5_C_LIBRARY_hdf5}")
  if(NOT EXISTS "${_sparsity_hdf5_static}")
    set(_sparsity_hdf5_static "")
  endif()
endif()
if(_sparsity_hdf5_static)
  find_package(ZLIB REQUIRED)
  find_package(Threads REQUIRED)
  # The objects the engine pulls in need zlib and szip (libaec: HDF5's deflate and szip
  # filters are built in), libdl (the plugin loader) and libm.
  target_link_libraries(sparsity_hdf5_serial INTERFACE "${_sparsity_hdf5_static}" "${HDF5_C_LIBRARY_sz}" ZLIB::ZLIB
                                                       Threads::Threads ${CMAKE_DL_LIBS} m)
  target_include_directories(sparsity_hdf5_serial SYSTEM INTERFACE ${HDF5_C_INCLUDE_DIRS})
  target_compile_definitions(sparsity_hdf5_serial INTERFACE ${HDF5_C_DEFINITIONS})
  target_link_options(sparsity_hdf5_serial INTERFACE
                      "LINKER:--dynamic-list=${CMAKE_CURRENT_LIST_DIR}/hdf5_exports.list")
  message(STATUS "HDF5 (serial): ${_sparsity_hdf5_static}, linked statically")
  set(SPARSITY_HDF5_STATIC ON) # tests/package checks the package's Depends by it
else()
  set(SPARSITY_HDF5_STATIC OFF)
  target_link_libraries(sparsity_hdf5_serial INTERFACE hdf5::hdf5)
  message(STATUS "HDF5 (serial): ${HDF5_C_LIBRARY_hdf5}, shared")
endif()
unset(_sparsity_hdf5_static)
