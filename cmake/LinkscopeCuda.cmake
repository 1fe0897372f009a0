# CUDA: architectures default to 70;80;90, never "native" (build machines have no GPU).
# CUDA 13 dropped Volta (sm_70), so with such a toolkit the oldest target becomes sm_75.
if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
  foreach(candidate $ENV{CUDA_HOME}/bin/nvcc $ENV{CUDA_PATH}/bin/nvcc /usr/local/cuda/bin/nvcc)
    if(EXISTS ${candidate})
      set(CMAKE_CUDA_COMPILER ${candidate})
      break()
    endif()
  endforeach()
endif()
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(_ls_nvcc ${CMAKE_CUDA_COMPILER})
  if(NOT _ls_nvcc)
    find_program(_ls_nvcc nvcc)
  endif()
  set(_ls_archs "70;80;90")
  if(_ls_nvcc)
    execute_process(COMMAND ${_ls_nvcc} --version OUTPUT_VARIABLE _ls_nvcc_version ERROR_QUIET)
    if(_ls_nvcc_version MATCHES "release ([0-9]+)\\.")
      if(CMAKE_MATCH_1 GREATER_EQUAL 13)
        set(_ls_archs "75;80;90")
        message(STATUS "linkscope: CUDA ${CMAKE_MATCH_1} has no sm_70; building for ${_ls_archs}")
      endif()
    endif()
  endif()
  set(CMAKE_CUDA_ARCHITECTURES ${_ls_archs} CACHE STRING "CUDA architectures")
endif()
enable_language(CUDA)
set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
find_package(CUDAToolkit REQUIRED)

# NCCL: NCCL_HOME / NCCL_ROOT, the CUDA toolkit, the system, or pip's nvidia-nccl wheel.
set(_ls_nccl_hints $ENV{NCCL_HOME} $ENV{NCCL_ROOT} ${NCCL_HOME} ${NCCL_ROOT} ${CUDAToolkit_LIBRARY_ROOT} /usr/local/cuda /usr)
file(GLOB _ls_pip_nccl /usr/local/lib/python3*/dist-packages/nvidia/nccl /usr/lib/python3/dist-packages/nvidia/nccl
     $ENV{HOME}/.local/lib/python3*/site-packages/nvidia/nccl)
list(APPEND _ls_nccl_hints ${_ls_pip_nccl})
find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_ls_nccl_hints} PATH_SUFFIXES include REQUIRED)
file(STRINGS ${NCCL_INCLUDE_DIR}/nccl.h _ls_nccl_code REGEX "#define NCCL_VERSION_CODE")
message(STATUS "linkscope: NCCL headers ${NCCL_INCLUDE_DIR} (${_ls_nccl_code})")
# -D's kernels (src/measure/devapi_*) are written against NCCL 2.28's device API, a header library (nccl_device.h);
# the library opened at run time may be any NCCL (older ones get a one-line refusal of -D).
if(NOT EXISTS ${NCCL_INCLUDE_DIR}/nccl_device.h)
  message(FATAL_ERROR "linkscope: ${NCCL_INCLUDE_DIR} has nccl.h but no nccl_device.h: the build needs NCCL 2.28 or "
                      "newer headers (set NCCL_HOME, or pip install nvidia-nccl-cu12 / nvidia-nccl-cu13); the NCCL "
                      "used at run time may be older")
endif()
# libnccl.so.2 is opened with dlopen at run time (platform/nccl_library.cpp), so a machine without NCCL
# gets a clear error instead of a loader failure, and the system's NCCL is the one measured.
add_library(linkscope_nccl INTERFACE)
target_include_directories(linkscope_nccl INTERFACE ${NCCL_INCLUDE_DIR})
