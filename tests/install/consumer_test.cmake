# Installs the build tree into a scratch prefix and builds a consumer against it.
file(REMOVE_RECURSE ${EBB_WORK_DIR})
set(prefix ${EBB_WORK_DIR}/prefix)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()

run(${CMAKE_COMMAND} --install ${EBB_BUILD_DIR} --prefix ${prefix})
# Every consumer runs without LD_LIBRARY_PATH: what finds the prefix's
# libraries is the run path their build gave them.
unset(ENV{LD_LIBRARY_PATH})
foreach(f include/ebb/ebb.h include/ebb/version.h include/ebb/ebb.hpp include/ebb/error.hpp
          include/ebb/schedule.hpp include/ebb/storage.hpp)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "install did not put ${f} in the prefix")
  endif()
endforeach()

# A sanitized libebb needs a sanitized program (the ASan runtime comes first).
set(san_flags "")
if(EBB_SANITIZE)
  set(san_flags -fsanitize=address,undefined)
  set(san_flags_str "-fsanitize=address,undefined")
endif()

# find_package(ebb)
run(${CMAKE_COMMAND} -S ${EBB_CONSUMER_DIR} -B ${EBB_WORK_DIR}/build
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release "-DCMAKE_C_FLAGS=${san_flags_str}"
    "-DCMAKE_EXE_LINKER_FLAGS=$ENV{LDFLAGS} ${san_flags_str}")
run(${CMAKE_COMMAND} --build ${EBB_WORK_DIR}/build)
run(${EBB_WORK_DIR}/build/consumer)

# pkg-config
find_program(PKG_CONFIG pkg-config REQUIRED)
file(GLOB pcdir ${prefix}/lib*/pkgconfig ${prefix}/lib/*/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "${pcdir}")
execute_process(COMMAND ${PKG_CONFIG} --cflags --libs ebb OUTPUT_VARIABLE flags
                RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config does not know ebb (PKG_CONFIG_PATH=${pcdir})")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
# the environment's LDFLAGS too (scripts/offline-deps.sh puts the rpath of an
# unpacked prefix there, where libebb's own dependencies are found)
separate_arguments(ldflags UNIX_COMMAND "$ENV{LDFLAGS}")
# No -Wl,-rpath of our own: the .pc file's Libs carry the run path of the
# prefix's libdir, so the program finds libebb there.
run(cc -std=c17 -Wall -Werror ${san_flags} ${EBB_CONSUMER_DIR}/main.c ${flags} ${ldflags}
    -o ${EBB_WORK_DIR}/consumer_pc)
run(${EBB_WORK_DIR}/consumer_pc)

# With PETSc: <ebb/petsc.h>, then a PETSc program built with find_package(ebb
# COMPONENTS petsc) and with `pkg-config --cflags --libs ebb-petsc`, each
# checking its gradient under -ts_trajectory_type ebb against memory's.
if(EBB_HAVE_PETSC)
  if(EBB_SANITIZE)
    # Open MPI's and PETSc's own allocations at exit are not ebb's leaks
    # (as in tests/petsc)
    set(ENV{ASAN_OPTIONS} "detect_leaks=0")
  endif()
  if(NOT EXISTS ${prefix}/include/ebb/petsc.h)
    message(FATAL_ERROR "install did not put include/ebb/petsc.h in the prefix")
  endif()
  run(${CMAKE_COMMAND} -S ${EBB_CONSUMER_DIR}_petsc -B ${EBB_WORK_DIR}/build_petsc
      -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release "-DCMAKE_C_FLAGS=${san_flags_str}"
      "-DCMAKE_EXE_LINKER_FLAGS=$ENV{LDFLAGS} ${san_flags_str}")
  run(${CMAKE_COMMAND} --build ${EBB_WORK_DIR}/build_petsc)
  run(${EBB_WORK_DIR}/build_petsc/consumer_petsc)

  execute_process(COMMAND ${PKG_CONFIG} --cflags --libs ebb-petsc OUTPUT_VARIABLE flags
                  RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config does not know ebb-petsc (PKG_CONFIG_PATH=${pcdir})")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  # -O2: PETSc's cflags define _FORTIFY_SOURCE, which warns without optimisation
  # the line docs/petsc.md gives, and nothing more: libebb_petsc is found
  # through ebb-petsc.pc's run path
  run(cc -std=c17 -O2 -Wall -Werror ${san_flags} ${EBB_CONSUMER_DIR}_petsc/main.c ${flags}
      ${ldflags} -o ${EBB_WORK_DIR}/consumer_petsc_pc)
  run(${EBB_WORK_DIR}/consumer_petsc_pc)
endif()
