# `ipisim check`: exit 1 with the seed, the diagnosis and a replay file for a broken protocol; the
# replay reproduces it; exit 0 for a correct one; exit 2 for an unknown protocol or a bad replay.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(dirs --machines ${SRC}/machines --experiments ${SRC}/experiments)

execute_process(COMMAND ${IPISIM} ${dirs} check --protocol ipi-no-wait --seeds 50 --jobs 2 --out ${WORK}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "ipi-no-wait: exited ${rc}\n${out}${err}")
endif()
if(NOT out MATCHES "VIOLATION: ipi-no-wait on toy4 \\(check_stress\\), seed ([0-9]+): " OR NOT out MATCHES "stale_translation")
  message(FATAL_ERROR "ipi-no-wait: unexpected report\n${out}")
endif()
string(REGEX MATCH "seed ([0-9]+): " m "${out}")
set(seed ${CMAKE_MATCH_1})
if(NOT EXISTS ${WORK}/ipi-no-wait-toy4-seed${seed}.replay.toml OR NOT EXISTS ${WORK}/ipi-no-wait-toy4-seed${seed}.log)
  message(FATAL_ERROR "ipi-no-wait: no replay file or log in ${WORK}")
endif()
# The Perfetto trace of the window before the violation, beside the log, with the violation marked.
set(trace_file ${WORK}/ipi-no-wait-toy4-seed${seed}.trace.json)
if(NOT EXISTS ${trace_file} OR NOT out MATCHES "trace \\(Chrome/Perfetto JSON")
  message(FATAL_ERROR "ipi-no-wait: no trace in ${WORK}\n${out}")
endif()
file(READ ${trace_file} trace)
string(JSON nr_events LENGTH "${trace}" traceEvents)
math(EXPR last "${nr_events} - 1")
string(JSON mark GET "${trace}" traceEvents ${last} name)
string(JSON cat GET "${trace}" traceEvents ${last} cat)
if(NOT mark STREQUAL "violation: stale_translation" OR NOT cat STREQUAL "check" OR nr_events LESS 100
   OR NOT trace MATCHES "\"flush_tlb_mm_range\"")
  message(FATAL_ERROR "ipi-no-wait: trace: ${nr_events} events, last ${mark} (${cat})")
endif()

execute_process(COMMAND ${IPISIM} ${dirs} check --replay ${WORK}/ipi-no-wait-toy4-seed${seed}.replay.toml --out ${WORK}/r
                OUTPUT_VARIABLE replay ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 1 OR NOT replay MATCHES "seed ${seed}: 1 violation")
  message(FATAL_ERROR "replay: exited ${rc}\n${replay}${err}")
endif()
file(READ ${WORK}/r/ipi-no-wait-toy4-seed${seed}.trace.json replayed)
if(NOT replayed STREQUAL trace)
  message(FATAL_ERROR "replay: its trace differs from the first run's")
endif()

execute_process(COMMAND ${IPISIM} ${dirs} check --protocol ipi --seeds 4 --jobs 2 --out ${WORK}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^ok: ipi on toy4: 4 seeds")
  message(FATAL_ERROR "ipi: exited ${rc}\n${out}${err}")
endif()

execute_process(COMMAND ${IPISIM} ${dirs} check --protocol no-such-flush
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2 OR NOT err MATCHES "--protocol: unknown flush protocol \"no-such-flush\"")
  message(FATAL_ERROR "unknown protocol: exited ${rc}\n${err}")
endif()

file(WRITE ${WORK}/bad.toml "[check]\nprotocol = \"ipi\"\nmachine = \"toy4\"\nseed = -3\n")
execute_process(COMMAND ${IPISIM} ${dirs} check --replay ${WORK}/bad.toml
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2 OR NOT err MATCHES "bad.toml:4: check.seed: expected a non-negative integer")
  message(FATAL_ERROR "bad replay: exited ${rc}\n${err}")
endif()

# Mutants are the checker's only: `ipisim list` does not show them, `ipisim run` refuses them.
execute_process(COMMAND ${IPISIM} ${dirs} list OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(out MATCHES "ipi-no-wait")
  message(FATAL_ERROR "ipisim list shows a checker mutant\n${out}")
endif()
execute_process(COMMAND ${IPISIM} ${dirs} run seed000_rar --set kernel.tlb_flush=\"ipi-no-wait\" --out ${WORK}/run
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "ipisim run accepted a checker mutant: exited ${rc}\n${out}${err}")
endif()
