# `ipisim run` on a wrong experiment exits 2 and prints exactly "FILE:LINE: key: what is wrong"
# on stderr, nothing on stdout.
function(expect_rejection expected)
  execute_process(COMMAND ${IPISIM} run ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc
                  WORKING_DIRECTORY ${WORK})
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "run ${ARGN}: expected exit 2, got ${rc}\nstdout: ${out}\nstderr: ${err}")
  endif()
  if(NOT err STREQUAL "${expected}\n")
    message(FATAL_ERROR "run ${ARGN}: expected stderr\n  ${expected}\ngot\n  ${err}")
  endif()
  if(NOT out STREQUAL "")
    message(FATAL_ERROR "run ${ARGN}: expected no stdout, got ${out}")
  endif()
endfunction()

file(MAKE_DIRECTORY ${WORK})
set(bad ${SRC}/tests/data/bad_configs)
set(good ${SRC}/tests/data/good_configs/ipi_ping_tiny.toml)
# The corpus names the test-only workload test_echo, which the binary lacks: switch to ipi_ping.
expect_rejection("${bad}/unknown_key_in_experiment.toml:4: experiment.colour: unknown key"
                 ${bad}/unknown_key_in_experiment.toml --set experiment.workload=ipi_ping)
expect_rejection("${bad}/sweep_key_not_in_params.toml:9: sweep.cpu: \"cpu\" is not a parameter of workload ipi_ping (its parameters: cpus, duration, delay_min, delay_max, wake_latency)"
                 ${bad}/sweep_key_not_in_params.toml --set experiment.workload=ipi_ping)
expect_rejection("${bad}/toml_syntax_error.toml:6: (syntax): Error while parsing value: could not determine value type"
                 ${bad}/toml_syntax_error.toml)
expect_rejection("${WORK}/absent.toml: (file): no such file" ${WORK}/absent.toml)
# Mistakes the real workload finds in its parameters.
file(WRITE ${WORK}/wrong_type.toml "[experiment]\nname = \"w\"\nworkload = \"ipi_ping\"\n[params]\ncpus = \"four\"\n")
expect_rejection("${WORK}/wrong_type.toml:5: params.cpus: expected an integer, got a string" ${WORK}/wrong_type.toml)
expect_rejection("--set: params.colour: unknown key" ${good} --set params.colour=3)
expect_rejection("--set: params.duration: a duration needs a unit (ps, ns, us, ms or s), got \"20\""
                 ${good} --set "params.duration=\"20\"")
expect_rejection("--set: params.cpus: expected an integer like the value it replaces, got a string"
                 ${good} --set params.cpus=four)
# --seed beyond the int64 range the file's experiment.seed has.
expect_rejection("--seed: experiment.seed: must be 0 to 9223372036854775807" ${good} --seed 9223372036854775808)
expect_rejection("--seed: experiment.seed: must be 0 to 9223372036854775807" ${good} --seed -1)
