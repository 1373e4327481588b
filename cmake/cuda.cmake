# The CUDA backend: the static library kj_cuda and the worker kjudge-worker-cuda, built
# wherever nvcc exists (a GPU is needed only to run them). The controller `kjudge` links none of
# this: only the worker talks to the GPU, and it reaches the driver through cudart_static, which
# loads libcuda at run time, so everything builds and links on a machine without a driver.
#
# KJUDGE_CUDA: OFF skips the backend; ON requires nvcc; anything else (AUTO) builds it when nvcc
# is found. KJUDGE_GPU_TESTS: register tests/gpu with ctest (label "gpu"); off by default so that
# `make test` on a machine without a GPU only builds them.

option(KJUDGE_GPU_TESTS "Register the GPU tests (tests/gpu) with ctest; needs a GPU to pass" OFF)

# A build directory configured when KJUDGE_CUDA was a boolean option (default OFF, meant as
# "auto") keeps that stale BOOL in its cache: read it as AUTO.
get_property(_kj_cuda_type CACHE KJUDGE_CUDA PROPERTY TYPE)
if(_kj_cuda_type STREQUAL "BOOL")
  set(KJUDGE_CUDA AUTO CACHE STRING "Build the CUDA backend: AUTO (when nvcc is found), ON (required) or OFF" FORCE)
endif()
if(DEFINED KJUDGE_CUDA AND NOT KJUDGE_CUDA STREQUAL "AUTO" AND NOT KJUDGE_CUDA)
  message(STATUS "kjudge: CUDA backend disabled (KJUDGE_CUDA=${KJUDGE_CUDA})")
  return()
endif()

include(CheckLanguage)
if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
endif()
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  if(KJUDGE_CUDA STREQUAL "ON")
    message(FATAL_ERROR "kjudge: KJUDGE_CUDA=ON but no CUDA compiler (nvcc) was found")
  endif()
  message(STATUS "kjudge: no nvcc found; the CUDA backend is not built")
  return()
endif()

# Hopper's own instructions need the arch-specific target (sm_90a); 90 is the fallback for a
# CMake that does not know the suffix.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.24)
    set(CMAKE_CUDA_ARCHITECTURES 90a)
  else()
    set(CMAKE_CUDA_ARCHITECTURES 90)
  endif()
endif()
enable_language(CUDA)
# The .cu files hold only kernels and C-style launch wrappers: C++17 is enough, and CMake 3.25 does
# not know the CUDA20 dialect of nvcc 13.
set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
find_package(CUDAToolkit REQUIRED)
message(STATUS "kjudge: CUDA backend with nvcc ${CMAKE_CUDA_COMPILER_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES}")

# CUPTI lives in extras/CUPTI/lib64 in a classic toolkit and in lib/ in a pip-style one.
if(NOT TARGET CUDA::cupti)
  find_library(KJ_CUPTI_LIB cupti HINTS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/extras/CUPTI/lib64
               ${CUDAToolkit_TARGET_DIR}/lib ${CUDAToolkit_LIBRARY_ROOT}/lib REQUIRED)
  add_library(CUDA::cupti SHARED IMPORTED)
  set_target_properties(CUDA::cupti PROPERTIES IMPORTED_LOCATION ${KJ_CUPTI_LIB})
endif()

file(GLOB KJ_CUDA_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/cuda/*.cu ${CMAKE_SOURCE_DIR}/src/cuda/*.cpp
     ${CMAKE_SOURCE_DIR}/src/cuda/detail/*.cu ${CMAKE_SOURCE_DIR}/src/cuda/detail/*.cpp)
list(REMOVE_ITEM KJ_CUDA_SOURCES ${CMAKE_SOURCE_DIR}/src/cuda/worker_cuda_main.cpp)
add_library(kj_cuda STATIC ${KJ_CUDA_SOURCES})
# The device input generator must round like the host's (no a*b+c contraction): see generate.cu.
set_source_files_properties(${CMAKE_SOURCE_DIR}/src/cuda/generate.cu PROPERTIES COMPILE_OPTIONS "-fmad=false")
kj_layer_links(kj_cuda cuda)  # src/layers.txt
# Other workers (kjudge-worker-py) that link kj_cuda register the backend under this macro:
#   kjudge::register_backend("cuda", &kjudge::cuda::make_cuda_backend);
target_compile_definitions(kj_cuda PUBLIC KJUDGE_HAVE_CUDA=1)
target_include_directories(kj_cuda SYSTEM PUBLIC ${CUDAToolkit_INCLUDE_DIRS})
target_compile_options(kj_cuda PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-missing-field-initializers>)
set_target_properties(kj_cuda PROPERTIES CUDA_RUNTIME_LIBRARY Static POSITION_INDEPENDENT_CODE ON)
# NVML is opened with dlopen (nvml.cpp), never linked: the worker starts where it is missing.
target_link_libraries(kj_cuda PUBLIC CUDA::cudart_static CUDA::cupti CUDA::cublas CUDA::cublasLt
                      ${CMAKE_DL_LIBS})

add_executable(kjudge-worker-cuda ${CMAKE_SOURCE_DIR}/src/cuda/worker_cuda_main.cpp)
target_link_libraries(kjudge-worker-cuda PRIVATE kj_cuda)
target_link_options(kjudge-worker-cuda PRIVATE ${KJ_WORKER_LINK_OPTIONS})
set_target_properties(kjudge-worker-cuda PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin
                      CUDA_RUNTIME_LIBRARY Static)
# The controller finds its cuda worker next to itself: build it with `kjudge`.
add_dependencies(kjudge kjudge-worker-cuda)

if(KJUDGE_TESTS AND EXISTS ${CMAKE_SOURCE_DIR}/tests/gpu/CMakeLists.txt)
  enable_testing()  # idempotent; tests/gpu is added before the top level enables testing
  add_subdirectory(${CMAKE_SOURCE_DIR}/tests/gpu ${CMAKE_BINARY_DIR}/tests/gpu)
endif()
