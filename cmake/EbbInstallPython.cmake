# Run by `cmake --install` (EbbInstall.cmake): writes the installed Python
# package's ebb/_install_info.py, the library's path relative to the
# package, from the prefix of this installation.
foreach(v EBB_INSTALL_PYTHONDIR EBB_INSTALL_LIBDIR)
  if(NOT IS_ABSOLUTE "${${v}}")
    set(${v} "${CMAKE_INSTALL_PREFIX}/${${v}}")
  endif()
endforeach()
file(RELATIVE_PATH rel "${EBB_INSTALL_PYTHONDIR}/ebb" "${EBB_INSTALL_LIBDIR}/${EBB_LIBRARY_NAME}")
set(out "$ENV{DESTDIR}${EBB_INSTALL_PYTHONDIR}/ebb/_install_info.py")
message(STATUS "Installing: ${out}")
file(WRITE "${out}"
  "\"\"\"Written by make install: where the library of this installed package is.\"\"\"\n"
  "HOW = \"installed with this package\"\n"
  "LIBRARY = \"${rel}\"  # relative to this folder\n")
list(APPEND CMAKE_INSTALL_MANIFEST_FILES "${out}")
