# cmake -DCTEST=ctest -DBUILD_DIR=build -DCODE=77 -P skip_codes.cmake
# Fails naming every test registered in BUILD_DIR whose SKIP_RETURN_CODE is
# not CODE: such a test would report Passed where it could not run.
# ctest reads a copy of the build's test lists: run in the build itself it
# would overwrite Testing/Temporary/LastTest.log of the ctest running it.
set(copy ${BUILD_DIR}/tests/support/skip_codes_lists)
file(REMOVE_RECURSE ${copy})
file(GLOB_RECURSE lists RELATIVE ${BUILD_DIR} ${BUILD_DIR}/CTestTestfile.cmake
  ${BUILD_DIR}/*/CTestTestfile.cmake)
foreach(f ${lists})
  get_filename_component(dir ${copy}/${f} DIRECTORY)
  file(COPY ${BUILD_DIR}/${f} DESTINATION ${dir})
endforeach()
execute_process(COMMAND ${CTEST} --show-only=json-v1 WORKING_DIRECTORY ${copy}
  OUTPUT_VARIABLE json RESULT_VARIABLE rc)
file(REMOVE_RECURSE ${copy})
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ctest --show-only=json-v1 failed (${rc})")
endif()
string(JSON count LENGTH "${json}" tests)
set(missing "")
math(EXPR last "${count} - 1")
# each query parses the text it is given: one parse of the whole list a
# test, the rest of the test's own entry
foreach(i RANGE ${last})
  string(JSON test GET "${json}" tests ${i})
  string(JSON name GET "${test}" name)
  set(code "")
  string(JSON props ERROR_VARIABLE err GET "${test}" properties)
  if(NOT err)
    string(JSON nprops LENGTH "${props}")
    math(EXPR plast "${nprops} - 1")
    foreach(j RANGE ${plast})
      string(JSON pname GET "${props}" ${j} name)
      if(pname STREQUAL "SKIP_RETURN_CODE")
        string(JSON code GET "${props}" ${j} value)
      endif()
    endforeach()
  endif()
  if(NOT code STREQUAL "${CODE}")
    list(APPEND missing ${name})
  endif()
endforeach()
if(missing)
  list(JOIN missing "\n  " missing)
  message(FATAL_ERROR "tests without SKIP_RETURN_CODE ${CODE} (use ebb_add_test):\n  ${missing}")
endif()
message(STATUS "${count} tests, each with SKIP_RETURN_CODE ${CODE}")
