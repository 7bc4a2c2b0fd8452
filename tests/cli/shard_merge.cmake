# --shard i/N and ipisim merge: three shards run by GNU parallel, merged, give exactly the
# results.json, results.csv, config.toml and tables of one run; merging shards that do not make
# up one run is refused (exit 2) and writes nothing.
find_program(PARALLEL parallel)
if(NOT PARALLEL)
  message(FATAL_ERROR "GNU parallel is missing: scripts/install-deps.sh installs it")
endif()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(dirs --experiments ${SRC}/experiments --machines ${SRC}/machines)
set(args seed000_rar --set sweep.threads=[1,2,5,10] --set params.warmup=100us --set params.measure=200us --jobs 1)

execute_process(COMMAND ${IPISIM} ${dirs} run ${args} --out ${WORK}/whole OUTPUT_VARIABLE whole_out
                ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the unsharded run exited ${rc}\n${err}")
endif()
execute_process(COMMAND ${PARALLEL} --will-cite --halt now,fail=1 ${IPISIM} ${dirs} run ${args}
                        --shard {}/3 --out ${WORK}/shard{} ::: 0 1 2
                OUTPUT_QUIET ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "parallel (3 shards) exited ${rc}\n${err}")
endif()
file(READ ${WORK}/shard1/results.json json)
string(JSON shard GET "${json}" shard)
string(JSON rows LENGTH "${json}" rows)
string(JSON first GET "${json}" rows 0 point)
if(NOT shard STREQUAL "1/3" OR NOT rows EQUAL 4 OR NOT first EQUAL 1)
  message(FATAL_ERROR "shard 1/3 of 12 points: shard ${shard}, ${rows} rows, first point ${first}")
endif()

function(merge out)
  execute_process(COMMAND ${IPISIM} merge ${ARGN} --out ${WORK}/${out} OUTPUT_VARIABLE o ERROR_VARIABLE e
                  RESULT_VARIABLE rc)
  set(merge_rc ${rc} PARENT_SCOPE)
  set(merge_out "${o}" PARENT_SCOPE)
  set(merge_err "${e}" PARENT_SCOPE)
endfunction()

merge(merged ${WORK}/shard2 ${WORK}/shard0 ${WORK}/shard1)
if(NOT merge_rc EQUAL 0)
  message(FATAL_ERROR "merge exited ${merge_rc}\n${merge_err}")
endif()
foreach(f results.json results.csv config.toml)
  file(READ ${WORK}/whole/${f} a)
  file(READ ${WORK}/merged/${f} b)
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "merged ${f} differs from the unsharded run's")
  endif()
endforeach()
if(NOT merge_out STREQUAL whole_out)
  message(FATAL_ERROR "merge prints other tables than the run:\n${whole_out}\nvs\n${merge_out}")
endif()

function(expect_refused expected)
  merge(refused ${ARGN})
  if(NOT merge_rc EQUAL 2 OR NOT merge_out STREQUAL "" OR NOT merge_err MATCHES "${expected}")
    message(FATAL_ERROR "merge ${ARGN}: exit ${merge_rc}\nexpected: ${expected}\ngot: ${merge_err}")
  endif()
  if(EXISTS ${WORK}/refused)
    message(FATAL_ERROR "a refused merge wrote ${WORK}/refused")
  endif()
endfunction()

expect_refused("^${WORK}/shard0: merge: shard 2/3 of this run is missing\n$" ${WORK}/shard0 ${WORK}/shard1)
expect_refused("^${WORK}/shard1: merge: is shard 1/3 again \\(so is ${WORK}/shard1\\)\n$"
               ${WORK}/shard0 ${WORK}/shard1 ${WORK}/shard1 ${WORK}/shard2)
# A shard of another configuration (another seed).
execute_process(COMMAND ${IPISIM} ${dirs} run ${args} --seed 2 --shard 2/3 --out ${WORK}/other2 OUTPUT_QUIET
                ERROR_QUIET RESULT_VARIABLE rc)
expect_refused("^${WORK}/other2: merge: is not a shard of the run in ${WORK}/shard0: seed 2 here, 1 there\n$"
               ${WORK}/shard0 ${WORK}/shard1 ${WORK}/other2)
# An unfinished shard.
file(READ ${WORK}/shard2/results.json json)
string(REPLACE "\"complete\": true" "\"complete\": false" json "${json}")
file(MAKE_DIRECTORY ${WORK}/partial2)
file(WRITE ${WORK}/partial2/results.json "${json}")
file(COPY ${WORK}/shard2/config.toml DESTINATION ${WORK}/partial2)
expect_refused("^${WORK}/partial2: merge: the run is not complete" ${WORK}/shard0 ${WORK}/shard1 ${WORK}/partial2)
# A config.toml that is not the one the shard ran.
file(MAKE_DIRECTORY ${WORK}/edited2)
file(COPY ${WORK}/shard2/results.json DESTINATION ${WORK}/edited2)
file(READ ${WORK}/shard2/config.toml config)
file(WRITE ${WORK}/edited2/config.toml "${config}# edited\n")
expect_refused("^${WORK}/edited2: merge: config.toml is not the configuration results.json was run with"
               ${WORK}/shard0 ${WORK}/shard1 ${WORK}/edited2)
# --shard that is not i/N with i < N.
execute_process(COMMAND ${IPISIM} ${dirs} run ${args} --shard 3/3 OUTPUT_QUIET ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2 OR NOT err MATCHES "shard 3 of 3 does not exist")
  message(FATAL_ERROR "--shard 3/3: exit ${rc}\n${err}")
endif()
