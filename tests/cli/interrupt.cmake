# Results are never lost: SIGINT (or SIGTERM) during a sweep leaves a valid results.json marked
# "complete": false with the points done, says so in one line on stderr and exits 130 (143);
# --resume then runs only the missing points, and the result is byte for byte an uninterrupted
# run's.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
# 24 points of a few hundredths of a second each.
file(WRITE ${WORK}/e.toml "[experiment]\nname = \"slow_sweep\"\nworkload = \"ipi_ping\"\n[params]\ncpus = 4\n"
     "duration = \"2 ms\"\ndelay_min = \"10 ns\"\ndelay_max = \"1 us\"\nwake_latency = \"500 ns\"\n"
     "[sweep]\ncpus = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]\ndelay_max = [\"1 us\", \"2 us\"]\n")

# Runs the sweep in the background, waits for its first finished point, sends `signal`.
function(interrupt dir signal)
  execute_process(COMMAND sh -c "\"$0\" run \"$1\" --out \"$2\" --jobs 2 2>\"$2.err\" & pid=$!
for i in $(seq 1 2000); do
  grep -q '\"point\"' \"$2/results.json\" 2>/dev/null && break
  sleep 0.01
done
kill -$3 $pid
wait $pid
echo $?" ${IPISIM} ${WORK}/e.toml ${WORK}/${dir} ${signal}
                  OUTPUT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  file(READ ${WORK}/${dir}.err err)
  set(rc_${dir} ${rc} PARENT_SCOPE)
  set(err_${dir} "${err}" PARENT_SCOPE)
endfunction()

function(expect_partial dir rc expected_rc signal)
  if(NOT rc EQUAL ${expected_rc})
    message(FATAL_ERROR "${signal}: exit ${rc}, expected ${expected_rc}\n${err_${dir}}")
  endif()
  string(REGEX MATCH "ipisim: interrupted by ${signal}: slow_sweep: [0-9]+ of 24 points in [^\n]*results.json \\(\"complete\": false\\); run it again with --resume to finish\n$"
         line "${err_${dir}}")
  if(line STREQUAL "")
    message(FATAL_ERROR "${signal}: no one-line message at the end of stderr:\n${err_${dir}}")
  endif()
  file(READ ${WORK}/${dir}/results.json json)
  string(JSON complete GET "${json}" complete)
  string(JSON rows LENGTH "${json}" rows)
  if(NOT complete STREQUAL "OFF" OR rows LESS 1 OR NOT rows LESS 24)
    message(FATAL_ERROR "${signal}: results.json complete=${complete} with ${rows} rows")
  endif()
  math(EXPR last "${rows} - 1")
  foreach(i RANGE ${last})
    string(JSON fp GET "${json}" rows ${i} fingerprint)
    string(JSON point GET "${json}" rows ${i} point)
    if(NOT fp MATCHES "^[0-9a-f]+$" OR point GREATER 23)
      message(FATAL_ERROR "${signal}: row ${i} is not a finished point: ${fp} ${point}")
    endif()
  endforeach()
  if(EXISTS ${WORK}/${dir}/results.csv)
    message(FATAL_ERROR "${signal}: an incomplete run wrote results.csv")
  endif()
  string(REGEX MATCH "([0-9]+) of 24" count "${line}")
  if(NOT CMAKE_MATCH_1 EQUAL rows)
    message(FATAL_ERROR "${signal}: the message says ${CMAKE_MATCH_1} points, results.json has ${rows}")
  endif()
endfunction()

interrupt(int INT)
expect_partial(int ${rc_int} 130 SIGINT)
interrupt(term TERM)
expect_partial(term ${rc_term} 143 SIGTERM)

# The uninterrupted run, then --resume of the interrupted one: the same files, byte for byte.
execute_process(COMMAND ${IPISIM} run ${WORK}/e.toml --out ${WORK}/whole --jobs 1 OUTPUT_VARIABLE whole_out
                ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "uninterrupted run exited ${rc}\n${err}")
endif()
execute_process(COMMAND ${IPISIM} run ${WORK}/e.toml --out ${WORK}/int --resume --progress
                OUTPUT_VARIABLE resumed_out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "--resume exited ${rc}\n${err}")
endif()
if(NOT err MATCHES "resuming: [1-9][0-9]* points? kept from ")
  message(FATAL_ERROR "--resume kept nothing:\n${err}")
endif()
# --progress: a line per point run, "[k/n] slow_sweep ..." with n the points left to run.
string(REGEX MATCHALL "\\[[0-9]+/[0-9]+\\] slow_sweep" ran "${err}")
list(LENGTH ran ran)
if(ran EQUAL 0 OR NOT ran LESS 24)
  message(FATAL_ERROR "--resume ran ${ran} points (all 24 again, or none):\n${err}")
endif()
foreach(f results.json results.csv config.toml)
  file(READ ${WORK}/whole/${f} a)
  file(READ ${WORK}/int/${f} b)
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "resumed ${f} differs from the uninterrupted run's")
  endif()
endforeach()
if(NOT whole_out STREQUAL resumed_out)
  message(FATAL_ERROR "resumed stdout differs:\n${whole_out}\nvs\n${resumed_out}")
endif()

# --resume after a change of a value reruns the points it changes (here: all).
execute_process(COMMAND ${IPISIM} run ${WORK}/e.toml --out ${WORK}/int --resume --set "params.wake_latency=\"600 ns\""
                OUTPUT_QUIET ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT err MATCHES "resuming: 0 points kept")
  message(FATAL_ERROR "--resume with another configuration kept points (exit ${rc}):\n${err}")
endif()
