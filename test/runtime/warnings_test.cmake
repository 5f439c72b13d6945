# runtime/warnings: every runtime source, the fake driver and the test
# helpers compile without a single warning under
#   -std=c11 -Wall -Wextra -pedantic -Werror
# Variables: CC, SRC (runtime/), TESTS (test/runtime/).
file(GLOB sources ${SRC}/src/*.c ${TESTS}/*.c)
foreach(s ${sources})
  execute_process(
    COMMAND ${CC} -O2 -c -o /dev/null -std=c11 -Wall -Wextra -pedantic -Werror
      -I${SRC}/include ${s}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "warnings in ${s}:\n${out}${err}")
  endif()
endforeach()
list(LENGTH sources n)
message(STATUS "${n} files compile warning-free")
