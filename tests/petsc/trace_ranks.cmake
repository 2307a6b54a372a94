cmake_minimum_required(VERSION 3.21)
# -ts_trajectory_ebb_trace (MODE option) or the environment variable
# EBB_TRACE (MODE env) on 2 ranks: one timeline per rank, the rank before
# the extension (trace.json -> trace.0.json, trace.1.json), each a complete
# trace with every reverse step of its rank and its recomputations (TSSolve
# pushes the forward steps: ebb does not time them), and no trace.json.
# Arguments: RUNNER (run_mpirun.sh), MPIEXEC, EXAMPLE, DIR, MODE.
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
set(steps 20)
if(MODE STREQUAL "env")
  set(launch ${CMAKE_COMMAND} -E env EBB_TRACE=${DIR}/trace.json)
  set(asked)
else()
  set(launch)
  set(asked -ts_trajectory_ebb_trace ${DIR}/trace.json)
endif()
execute_process(
  COMMAND ${launch} ${RUNNER} ${MPIEXEC} -np 2 ${EXAMPLE} -problem rd -cells 96 -steps ${steps}
          -ts_type rk -ts_rk_type 4 -ts_adapt_type none -ts_trajectory_type ebb
          -ts_trajectory_ebb_strategy revolve -ts_trajectory_ebb_steps ${steps}
          -ts_trajectory_ebb_slots 4 ${asked}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the 2-rank run failed (${rc}):\n${out}\n${err}")
endif()
if(EXISTS ${DIR}/trace.json)
  message(FATAL_ERROR "trace.json was written on 2 ranks: each rank's timeline goes to its own "
                      "file (trace.0.json, trace.1.json)")
endif()
foreach(rank 0 1)
  set(f ${DIR}/trace.${rank}.json)
  if(NOT EXISTS ${f})
    file(GLOB got ${DIR}/*)
    message(FATAL_ERROR "rank ${rank}'s timeline ${f} is missing; the folder holds: ${got}")
  endif()
  file(READ ${f} doc)
  string(JSON n ERROR_VARIABLE jerr LENGTH "${doc}" traceEvents)
  if(jerr)
    message(FATAL_ERROR "${f} is not a complete trace: ${jerr}")
  endif()
  set(recompute 0)
  set(reverse 0)
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON name GET "${doc}" traceEvents ${i} name)
    if(name STREQUAL "recompute")
      math(EXPR recompute "${recompute} + 1")
    elseif(name STREQUAL "reverse")
      math(EXPR reverse "${reverse} + 1")
    endif()
  endforeach()
  if(recompute EQUAL 0 OR NOT reverse EQUAL steps)
    message(FATAL_ERROR "${f}: ${recompute} recomputations and ${reverse} reverse steps, "
                        "expected some and ${steps}")
  endif()
  message(STATUS "rank ${rank}: ${f}, ${recompute} recomputations, ${reverse} reverse steps")
endforeach()
