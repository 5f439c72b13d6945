# runtime/replay: fuser_rt_replay on the sample bundle through the fake
# driver must match the golden call log; a wrong golden log must fail with
# a diff; --write-expect must reproduce the golden log.
# Variables: REPLAY, FAKE, OUT (a scratch dir holding sample.bundle), EXPECT.
set(bundle ${OUT}/sample.bundle)

function(replay expect_rc out_var)
  execute_process(COMMAND ${REPLAY} ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "fuser_rt_replay ${ARGN}: exit ${rc}, expected "
      "${expect_rc}\n${out}${err}")
  endif()
  set(${out_var} "${out}${err}" PARENT_SCOPE)
endfunction()

replay(0 out ${bundle} --list --driver ${FAKE})
if(NOT out MATCHES "softmax\\(x: f32\\[\\?,\\?\\]\\) -> \\(y: f32\\[\\?,\\?\\]\\)  dynamic dims: 4")
  message(FATAL_ERROR "--list printed:\n${out}")
endif()

replay(0 out ${bundle} softmax --dims 3,5,3,5 --runs 3 --driver ${FAKE}
       --expect ${EXPECT})
message(STATUS "${out}")

# A golden log with one launch parameter changed must fail with a diff.
file(READ ${EXPECT} golden)
string(REPLACE "params=buf0,buf2,5,3" "params=buf0,buf2,5,4" wrong "${golden}")
if(wrong STREQUAL golden)
  message(FATAL_ERROR "the golden log lacks the line the test changes")
endif()
file(WRITE ${OUT}/wrong.expect "${wrong}")
replay(1 out ${bundle} softmax --dims 3,5,3,5 --runs 3 --driver ${FAKE}
       --expect ${OUT}/wrong.expect)
if(NOT out MATCHES "the driver calls differ" OR
   NOT out MATCHES "- cuLaunchKernel name=softmax_max .*params=buf0,buf2,5,4")
  message(FATAL_ERROR "no useful diff:\n${out}")
endif()

# --write-expect reproduces the golden log.
replay(0 out ${bundle} softmax --dims 3,5,3,5 --runs 3 --driver ${FAKE}
       --write-expect ${OUT}/written.expect)
replay(0 out ${bundle} softmax --dims 3,5,3,5 --runs 3 --driver ${FAKE}
       --expect ${OUT}/written.expect)

# User scratch, a missing fusion, wrong dims.
replay(0 out ${bundle} softmax --dims 3,5,3,5 --scratch --driver ${FAKE})
replay(64 out ${bundle} nope --driver ${FAKE})
replay(2 out ${bundle} softmax --dims 3,5,4,5 --driver ${FAKE})
if(NOT out MATCHES "y has 4 rows but x has 3")
  message(FATAL_ERROR "wrong dims gave:\n${out}")
endif()
