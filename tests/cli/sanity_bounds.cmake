# Regressions of the reliability review's hangs (E90, E104, E105 and the fuzz timeouts): counts
# such as 2^40 rounds or groups and simulated times such as 10^6 s were accepted and ran for days.
# Counts above 10^6 and simulated times above 1 h are errors at their key, exit 2, before any
# point runs (workload/workload.h kMaxCount, kMaxSimulatedPicos); the bounds themselves pass.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

function(expect_run expected_rc expected_err name text)
  file(WRITE ${WORK}/${name}.toml "${text}")
  execute_process(COMMAND ${IPISIM} --machines ${SRC}/machines run ${WORK}/${name}.toml -q --out ${WORK}/out_${name}
                  OUTPUT_QUIET ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 60)
  if(NOT rc EQUAL expected_rc OR NOT err STREQUAL "${expected_err}")
    message(FATAL_ERROR "${name}: exit ${rc} (expected ${expected_rc})\nexpected stderr: ${expected_err}\ngot: ${err}")
  endif()
endfunction()

set(latency "[experiment]\nname = \"b\"\nworkload = \"ipi_latency\"\nmachine = \"toy2\"\n[kernel]\nversion = \"6.13\"\n[params]\nsender = 0\n")
expect_run(2 "${WORK}/rounds.toml:9: params.rounds: must be at most 1000000\n" rounds "${latency}rounds = 1099511627776\n")
string(CONCAT ping "[experiment]\nname = \"p\"\nworkload = \"ipi_ping\"\n[params]\ncpus = 2\ndelay_min = \"10 ns\"\n"
       "delay_max = \"1 us\"\nwake_latency = \"500 ns\"\n")
expect_run(2 "${WORK}/ping_long.toml:9: params.duration: must be at most 3600 s\n" ping_long "${ping}duration = \"3600.001 s\"\n")
expect_run(2 "${WORK}/ping_days.toml:9: params.duration: must be at most 3600 s\n" ping_days "${ping}duration = \"1e6 s\"\n")
# A count within the bound runs.
expect_run(0 "" rounds_ok "${latency}rounds = 1\n")
