# Unknown subcommands, experiments and machines are errors (exit 2) that name the closest
# known names.
file(MAKE_DIRECTORY ${WORK})
function(expect_error expected)
  execute_process(COMMAND ${IPISIM} ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc
                  WORKING_DIRECTORY ${WORK})
  if(NOT rc EQUAL 2 OR NOT err STREQUAL "${expected}\n" OR NOT out STREQUAL "")
    message(FATAL_ERROR "ipisim ${ARGN}: exit ${rc}\nexpected stderr\n  ${expected}\ngot\n  ${err}\nstdout: ${out}")
  endif()
endfunction()
set(commands "list, run, reproduce, plot, compare, report, merge, machine, probe, validate, check, sensitivity, calibrate")
expect_error("ipisim: unknown command \"lst\" (did you mean list?); the commands are: ${commands}" lst)
expect_error("ipisim: unknown command \"reprodcue\" (did you mean reproduce?); the commands are: ${commands}"
             --machines ${SRC}/machines reprodcue --only x)
expect_error("ipisim: unknown command \"help\"; the commands are: ${commands}" help)
expect_error("seed000_ra: (file): no such file, nor experiment in ${SRC}/experiments (did you mean seed000_rar?)"
             run seed000_ra --experiments ${SRC}/experiments)
execute_process(COMMAND ${IPISIM} run seed002_gic_barrier --experiments ${SRC}/experiments --machines ${SRC}/machines
                        --set experiment.machine=kunpeng92 --out ${WORK}/m
                ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2 OR NOT err MATCHES "no machine \"kunpeng92\" \\([^)]*\\) \\(did you mean kunpeng920\\?\\); available: ")
  message(FATAL_ERROR "an unknown machine: exit ${rc}: ${err}")
endif()
# Flush protocols: `check --protocol` and a choice in a --set value.
execute_process(COMMAND ${IPISIM} --machines ${SRC}/machines check --protocol rar-naiv --seeds 1
                ERROR_VARIABLE err RESULT_VARIABLE rc WORKING_DIRECTORY ${WORK})
if(NOT rc EQUAL 2 OR NOT err MATCHES "unknown flush protocol \"rar-naiv\" \\(did you mean rar-naive\\?\\); registered: ")
  message(FATAL_ERROR "check --protocol rar-naiv: exit ${rc}: ${err}")
endif()
execute_process(COMMAND ${IPISIM} run seed004_cpuinfo --experiments ${SRC}/experiments --machines ${SRC}/machines
                        --set kernel.tlb_flush=rar-optimised --out ${WORK}/p
                ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2 OR NOT err MATCHES "got \"rar-optimised\" \\(did you mean rar-optimized\\?\\)")
  message(FATAL_ERROR "--set kernel.tlb_flush=rar-optimised: exit ${rc}: ${err}")
endif()
