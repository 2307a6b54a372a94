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

# ebb-petsc.pc: libebb_petsc over libebb_mpi (ebb with its MPI part, which
# the type runs on), not over ebb.pc's libebb: a second copy of ebb's code
# in the program would split its state (the last error is per library).
# <ebb/petsc.h> needs mpi.h, which PETSc's .pc leaves to mpicc: mpi-c
# (Debian's name for the MPI chosen by update-alternatives) when pkg-config
# knows it, else the include folders CMake found.
if(EBB_HAVE_PETSC)
  set(EBB_PC_PETSC "PETSc")
  set(EBB_PC_PETSC_CFLAGS "")
  pkg_check_modules(EBB_PC_MPI QUIET mpi-c)
  if(EBB_PC_MPI_FOUND)
    string(APPEND EBB_PC_PETSC " mpi-c")
  else()
    foreach(d ${MPI_C_INCLUDE_DIRS})
      string(APPEND EBB_PC_PETSC_CFLAGS " -I${d}")
    endforeach()
  endif()
  configure_file(cmake/ebb-petsc.pc.in ${PROJECT_BINARY_DIR}/ebb-petsc.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/ebb-petsc.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()

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
