# Every dependency is a Debian package found through pkg-config or CMake.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
pkg_check_modules(URING REQUIRED IMPORTED_TARGET liburing)
pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
pkg_check_modules(TOMLPP REQUIRED IMPORTED_TARGET tomlplusplus)
# compression of states: lossless (c-blosc) and lossy (zfp, its CMake package)
pkg_check_modules(BLOSC REQUIRED IMPORTED_TARGET blosc)
find_package(zfp CONFIG REQUIRED)
# the ebb program only: reading `ebb bench --json` files
pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)

# The library needs only the CUDA runtime API (no kernels), so the C compiler
# and the toolkit's headers are enough; nvcc is not required.
set(EBB_HAVE_CUDA 0)
if(NOT EBB_WITH_CUDA STREQUAL "OFF")
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND)
    set(EBB_HAVE_CUDA 1)
    message(STATUS "ebb: CUDA ${CUDAToolkit_VERSION} found, device tier enabled")
  elseif(EBB_WITH_CUDA STREQUAL "ON")
    message(FATAL_ERROR "EBB_WITH_CUDA=ON but no CUDA toolkit was found (set CUDAToolkit_ROOT)")
  else()
    message(STATUS "ebb: no CUDA toolkit, device tier disabled")
  endif()
endif()

# The libraries (not the CUDA runtime, which tests/cuda_mock replaces).
set(EBB_LIBRARY_DEPS PkgConfig::URING PkgConfig::HWLOC PkgConfig::XXHASH PkgConfig::TOMLPP
  PkgConfig::BLOSC zfp::zfp Threads::Threads m)
add_library(ebb_deps INTERFACE)
target_link_libraries(ebb_deps INTERFACE ${EBB_LIBRARY_DEPS})
if(EBB_HAVE_CUDA)
  # Static runtime: libebb works wherever the driver is, without libcudart.so on the path.
  target_link_libraries(ebb_deps INTERFACE CUDA::cudart_static)
  target_compile_definitions(ebb_deps INTERFACE EBB_HAVE_CUDA=1)
endif()
