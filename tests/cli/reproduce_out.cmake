# reproduce writes a folder per experiment under --out and, after each experiment, index.html over
# every results folder there. A folder it would not write but cannot read, or an --out that is
# itself one experiment's folder, is refused before any work (exit 2, the file and the problem
# named); before, the first experiment ran, its report failed on the foreign folder, and the run
# stopped there, leaving the later experiments incomplete. Folders that read fine stay in the page.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/experiments)
# Two "seed" experiments (reproduce runs experiments/seed*.toml): tiny ipi_ping sweeps.
file(READ ${SRC}/tests/data/good_configs/ipi_ping_tiny.toml tiny)
foreach(n a b)
  string(REPLACE "name = \"ipi_ping_tiny\"" "name = \"seed_tiny_${n}\"" text "${tiny}")
  file(WRITE ${WORK}/experiments/seed_tiny_${n}.toml "${text}")
endforeach()
set(repro ${IPISIM} --experiments ${WORK}/experiments --machines ${SRC}/machines reproduce --jobs 1)

function(expect_refusal out expected)
  execute_process(COMMAND ${repro} --out ${out} OUTPUT_VARIABLE stdout ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 2 OR NOT stdout STREQUAL "" OR NOT err STREQUAL "${expected}\n")
    message(FATAL_ERROR "reproduce --out ${out}: exit ${rc}\nexpected: ${expected}\ngot: ${err}${stdout}")
  endif()
  foreach(n a b)
    if(EXISTS ${out}/seed_tiny_${n})
      message(FATAL_ERROR "a refused reproduce wrote ${out}/seed_tiny_${n}")
    endif()
  endforeach()
endfunction()

# A foreign folder whose results.json does not read as results.
file(MAKE_DIRECTORY ${WORK}/r1/junk)
file(WRITE ${WORK}/r1/junk/results.json "{\"experiment\": \"junk\", \"rows\": [{\"metrics\": null}]}")
expect_refusal(${WORK}/r1 "${WORK}/r1/junk/results.json: rows[0].params: missing (reproduce writes ${WORK}/r1/index.html over every results folder in ${WORK}/r1: move that folder away, or choose another --out)")

# --out is one run's folder.
execute_process(COMMAND ${IPISIM} run ${SRC}/tests/data/good_configs/ipi_ping_tiny.toml -q --out ${WORK}/r2
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the run into r2 exited ${rc}")
endif()
expect_refusal(${WORK}/r2 "--out: ${WORK}/r2: holds the results of one experiment (results.json): reproduce writes a folder per experiment under --out and a report over them; choose another --out")

# Once the foreign folder is gone, the run completes; a readable foreign folder stays in the page.
file(REMOVE_RECURSE ${WORK}/r1/junk)
execute_process(COMMAND ${IPISIM} run ${SRC}/tests/data/good_configs/ipi_ping_tiny.toml -q --out ${WORK}/r1/mine
                RESULT_VARIABLE rc)
execute_process(COMMAND ${repro} --out ${WORK}/r1 OUTPUT_VARIABLE stdout ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "reproduce into r1: exit ${rc}\n${err}")
endif()
file(READ ${WORK}/r1/index.html page)
foreach(n seed_tiny_a seed_tiny_b mine)
  if(NOT page MATCHES "href=\"#${n}\"")
    message(FATAL_ERROR "index.html has no section for ${n}")
  endif()
endforeach()
foreach(n a b)
  file(READ ${WORK}/r1/seed_tiny_${n}/results.json json)
  string(JSON complete GET "${json}" complete)
  if(NOT complete)
    message(FATAL_ERROR "seed_tiny_${n} is not complete")
  endif()
endforeach()
