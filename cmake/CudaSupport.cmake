# Optional CUDA backend. CPU-only builds (no nvcc, or SPARSITY_ENABLE_CUDA=OFF) pass every test.
set(SPARSITY_HAVE_CUDA OFF)
if(SPARSITY_ENABLE_CUDA)
  include(CheckLanguage)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)   # nvcc is often not on PATH
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 80 90)   # never "native": CI has no GPU
    endif()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)            # CMake 3.25 knows no CUDA20 dialect for nvcc
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(SPARSITY_HAVE_CUDA ON)
  else()
    message(STATUS "nvcc not found: building the CPU backend only")
  endif()
endif()
