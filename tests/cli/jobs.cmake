# --jobs runs sweep points (and, on reproduce, experiments) in parallel; everything written and
# printed is byte for byte what --jobs 1 gives: results.json, results.csv, config.toml and
# stdout (reproduce: up to its summary of host times).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(dirs --experiments ${SRC}/experiments --machines ${SRC}/machines)

# Small seed experiments for reproduce: the resolved configurations of shortened runs.
file(MAKE_DIRECTORY ${WORK}/exps)
foreach(spec "seed002_gic_barrier;--set;params.rounds=3" "seed004_cpuinfo;--set;params.opens=2;--set;sweep.gap=[\"50ms\",\"2s\"]")
  list(GET spec 0 name)
  execute_process(COMMAND ${IPISIM} ${dirs} run ${spec} --out ${WORK}/small_${name} --jobs 1 OUTPUT_QUIET
                  ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "run ${spec} exited ${rc}\n${err}")
  endif()
  file(COPY_FILE ${WORK}/small_${name}/config.toml ${WORK}/exps/${name}.toml)
endforeach()

function(run_with jobs)
  execute_process(COMMAND ${IPISIM} ${dirs} run seed000_rar --set sweep.threads=[1,5,20] --set params.warmup=200us
                          --set params.measure=400us --out ${WORK}/run${jobs} --jobs ${jobs}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "run --jobs ${jobs} exited ${rc}\n${err}")
  endif()
  set(run${jobs}_out "${out}" PARENT_SCOPE)
  execute_process(COMMAND ${IPISIM} --experiments ${WORK}/exps --machines ${SRC}/machines reproduce
                          --out ${WORK}/repro${jobs} --jobs ${jobs}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "reproduce --jobs ${jobs} exited ${rc}\n${err}")
  endif()
  string(FIND "${out}" "==== summary" at)
  string(SUBSTRING "${out}" 0 ${at} out)
  set(repro${jobs}_out "${out}" PARENT_SCOPE)
endfunction()

function(expect_same_file a b)
  file(READ ${a} ta)
  file(READ ${b} tb)
  if(NOT ta STREQUAL tb)
    message(FATAL_ERROR "${a} and ${b} differ")
  endif()
endfunction()

run_with(1)
run_with(3)
if(NOT run1_out STREQUAL run3_out)
  message(FATAL_ERROR "run: stdout differs\n--jobs 1:\n${run1_out}\n--jobs 3:\n${run3_out}")
endif()
if(NOT repro1_out STREQUAL repro3_out)
  message(FATAL_ERROR "reproduce: stdout differs\n--jobs 1:\n${repro1_out}\n--jobs 3:\n${repro3_out}")
endif()
foreach(f results.json results.csv config.toml)
  expect_same_file(${WORK}/run1/${f} ${WORK}/run3/${f})
  foreach(name seed002_gic_barrier seed004_cpuinfo)
    expect_same_file(${WORK}/repro1/${name}/${f} ${WORK}/repro3/${name}/${f})
  endforeach()
endforeach()
string(FIND "${repro1_out}" "==== seed004_cpuinfo" at)
if(at EQUAL -1)
  message(FATAL_ERROR "reproduce printed no seed004_cpuinfo:\n${repro1_out}")
endif()
file(READ ${WORK}/run1/results.json json)
string(JSON rows LENGTH "${json}" rows)
if(rows LESS 6)
  message(FATAL_ERROR "expected a sweep of at least 6 points, got ${rows}")
endif()

# --jobs 0 is a usage error.
execute_process(COMMAND ${IPISIM} ${dirs} run seed000_rar --jobs 0 OUTPUT_QUIET ERROR_VARIABLE err
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 2 OR NOT err MATCHES "--jobs")
  message(FATAL_ERROR "--jobs 0: exit ${rc}\n${err}")
endif()
