# Headers, libraries, the `ebb` program, a pkg-config file and a CMake
# package config so that find_package(ebb) works.
include(CMakePackageConfigHelpers)

# ebb/petsc.h only with libebb_petsc
set(EBB_PETSC_HEADER_EXCLUDE PATTERN "petsc.h" EXCLUDE)
if(EBB_HAVE_PETSC)
  set(EBB_PETSC_HEADER_EXCLUDE "")
  install(TARGETS ebb_petsc EXPORT ebbTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()
if(EBB_HAVE_MPI)
  install(DIRECTORY include/ebb DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp"
    ${EBB_PETSC_HEADER_EXCLUDE})
  install(TARGETS ebb_mpi ebb_mpi_static EXPORT ebbTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
else()
  # ebb/mpi.h only with the library that implements it
  install(DIRECTORY include/ebb DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp" PATTERN "mpi.h" EXCLUDE
    ${EBB_PETSC_HEADER_EXCLUDE})
endif()
install(FILES ${PROJECT_BINARY_DIR}/include/ebb/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ebb)
install(TARGETS ebb ebb_static EXPORT ebbTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS ebb_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(EXPORT ebbTargets NAMESPACE ebb:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ebb)
configure_package_config_file(cmake/ebbConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ebbConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ebb)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ebbConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ebbConfig.cmake ${PROJECT_BINARY_DIR}/ebbConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ebb)

set(EBB_PC_PRIVATE_LIBS "-luring -lhwloc -lxxhash -ltomlplusplus -lblosc -lzfp -lstdc++ -lpthread -lm")
if(EBB_HAVE_CUDA)
  string(APPEND EBB_PC_PRIVATE_LIBS " -L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -ldl -lrt")
endif()
# Relocatable: the prefix is found from where the .pc file lies.
file(RELATIVE_PATH EBB_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" EBB_PC_TO_PREFIX "${EBB_PC_TO_PREFIX}")
configure_file(cmake/ebb.pc.in ${PROJECT_BINARY_DIR}/ebb.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ebb.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The Python package (pure Python over ctypes) under
# <prefix>/${EBB_INSTALL_PYTHONDIR}, Debian's layout by default, with
# ebb/_install_info.py recording where the library lies relative to it (so the
# package finds it wherever the prefix is moved; docs/python.md).
set(EBB_INSTALL_PYTHONDIR "lib/python3/dist-packages" CACHE STRING
  "Where make install puts the Python package ebb, relative to the prefix (or absolute)")
install(DIRECTORY bindings/python/ebb DESTINATION ${EBB_INSTALL_PYTHONDIR}
  FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE PATTERN "_install_info.py" EXCLUDE)
install(CODE "set(EBB_INSTALL_PYTHONDIR \"${EBB_INSTALL_PYTHONDIR}\")
set(EBB_INSTALL_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
set(EBB_LIBRARY_NAME \"libebb.so.${PROJECT_VERSION_MAJOR}\")")
install(SCRIPT cmake/EbbInstallPython.cmake)
