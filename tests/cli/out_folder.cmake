# One --out, one writer: a second run into a folder another run is writing is refused (exit 2,
# DIR: --out: ...) and the first run's results are whole; a folder holding another
# experiment's results, or files that are not results, is refused unless --force.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/e.toml "[experiment]\nname = \"slow_sweep\"\nworkload = \"ipi_ping\"\n[params]\ncpus = 4\n"
     "duration = \"2 ms\"\ndelay_min = \"10 ns\"\ndelay_max = \"1 us\"\nwake_latency = \"500 ns\"\n"
     "[sweep]\ncpus = [2, 3, 4, 5, 6, 7, 8]\n")
set(other ${SRC}/tests/data/good_configs/ipi_ping_tiny.toml)

# The first run in the background; the second starts once the first holds the folder.
execute_process(COMMAND sh -c "\"$0\" run \"$1\" --out \"$2/out\" --jobs 1 >\"$2/first.out\" 2>\"$2/first.err\" & pid=$!
for i in $(seq 1 2000); do
  test -s \"$2/out/results.json\" && break
  sleep 0.01
done
\"$0\" run \"$1\" --out \"$2/out\" --jobs 1 >\"$2/second.out\" 2>\"$2/second.err\"
echo $? >\"$2/second.rc\"
wait $pid
echo $?" ${IPISIM} ${WORK}/e.toml ${WORK}
                OUTPUT_VARIABLE first_rc OUTPUT_STRIP_TRAILING_WHITESPACE)
file(READ ${WORK}/second.rc second_rc)
file(READ ${WORK}/second.err second_err)
file(READ ${WORK}/second.out second_out)
if(NOT first_rc EQUAL 0)
  file(READ ${WORK}/first.err err)
  message(FATAL_ERROR "the first run exited ${first_rc}\n${err}")
endif()
if(NOT second_rc EQUAL 2 OR NOT second_out STREQUAL "")
  message(FATAL_ERROR "the second run exited ${second_rc} (expected 2)\n${second_out}${second_err}")
endif()
string(REGEX MATCH "^${WORK}/out: --out: another ipisim run is writing its results here \\(${WORK}/out/.lock is held by pid [0-9]+\\); wait for it or choose another --out\n$"
       line "${second_err}")
if(line STREQUAL "")
  message(FATAL_ERROR "the second run's message:\n${second_err}")
endif()
# The first run's folder is exactly what a run alone writes.
execute_process(COMMAND ${IPISIM} run ${WORK}/e.toml --out ${WORK}/alone --jobs 1 OUTPUT_QUIET ERROR_QUIET
                RESULT_VARIABLE rc)
foreach(f results.json results.csv config.toml)
  file(READ ${WORK}/alone/${f} a)
  file(READ ${WORK}/out/${f} b)
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "${f} of the run that had a competitor differs from a lone run's")
  endif()
endforeach()

function(expect_refusal expected)
  execute_process(COMMAND ${IPISIM} run ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 2 OR NOT out STREQUAL "" OR NOT err STREQUAL "${expected}\n")
    message(FATAL_ERROR "run ${ARGN}: exit ${rc}\nexpected: ${expected}\ngot: ${err}")
  endif()
endfunction()

# Another experiment's folder: refused, untouched, and replaced with --force.
file(READ ${WORK}/out/results.json before)
expect_refusal("${WORK}/out: --out: holds results of experiment slow_sweep, not ipi_ping_tiny; choose another --out or use --force to replace them"
               ${other} --out ${WORK}/out)
file(READ ${WORK}/out/results.json after)
if(NOT before STREQUAL after)
  message(FATAL_ERROR "a refused run changed results.json")
endif()
execute_process(COMMAND ${IPISIM} run ${other} --out ${WORK}/out --force OUTPUT_QUIET ERROR_VARIABLE err
                RESULT_VARIABLE rc)
file(READ ${WORK}/out/results.json json)
string(JSON name GET "${json}" experiment)
if(NOT rc EQUAL 0 OR NOT name STREQUAL "ipi_ping_tiny")
  message(FATAL_ERROR "--force: exit ${rc}, experiment ${name}\n${err}")
endif()
# The same experiment again: its own folder, replaced without --force.
execute_process(COMMAND ${IPISIM} run ${other} --out ${WORK}/out --seed 2 OUTPUT_QUIET ERROR_VARIABLE err
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "a rerun of the same experiment into its folder exited ${rc}\n${err}")
endif()

# Files that are not results.
file(MAKE_DIRECTORY ${WORK}/foreign)
file(WRITE ${WORK}/foreign/config.toml "mine = 1\n")
expect_refusal("${WORK}/foreign: --out: holds a config.toml but no results.json: not an ipisim results folder; choose another --out or use --force to replace it"
               ${other} --out ${WORK}/foreign)
file(WRITE ${WORK}/foreign/results.json "{ not json")
execute_process(COMMAND ${IPISIM} run ${other} --out ${WORK}/foreign OUTPUT_QUIET ERROR_VARIABLE err
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 2 OR NOT err MATCHES "^${WORK}/foreign: --out: ${WORK}/foreign/results.json is not an ipisim results file")
  message(FATAL_ERROR "a corrupt results.json: exit ${rc}\n${err}")
endif()
# --out naming a file: exit 2 before anything runs.
file(WRITE ${WORK}/a_file "x")
execute_process(COMMAND ${IPISIM} run ${other} --out ${WORK}/a_file OUTPUT_VARIABLE out ERROR_VARIABLE err
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 2 OR NOT out STREQUAL "" OR err MATCHES "\\[1/")
  message(FATAL_ERROR "--out naming a file: exit ${rc}\n${out}${err}")
endif()
