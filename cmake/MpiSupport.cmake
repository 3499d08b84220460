# Optional sparsity-mpi (docs/SCALING.md): a second build of the core engine against Debian's
# OpenMPI flavour of HDF5 (libhdf5-openmpi-dev) and OpenMPI. The desktop app and `sparsity`
# keep serial HDF5 and need no MPI. Sets SPARSITY_HAVE_MPI and the target PkgConfig::HDF5_MPI.
set(SPARSITY_HAVE_MPI OFF)
if(SPARSITY_BUILD_MPI)
  find_package(MPI QUIET COMPONENTS C CXX)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(HDF5_MPI QUIET IMPORTED_TARGET hdf5-openmpi)
  endif()
  if(MPI_FOUND AND HDF5_MPI_FOUND)
    find_program(SPARSITY_MPIEXEC NAMES mpirun mpiexec)
    set(SPARSITY_HAVE_MPI ON)
    message(STATUS "sparsity-mpi: MPI ${MPI_CXX_VERSION}, parallel HDF5 ${HDF5_MPI_VERSION}")
  else()
    message(STATUS "sparsity-mpi not built: needs libhdf5-openmpi-dev and openmpi-bin (scripts/install-deps.sh)")
  endif()
endif()
