# Mistakes are reported before any point runs, exit 2, nothing on stdout, no results written:
# a flush protocol the machine lacks, and `reproduce --only` with a name no seed experiment has.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/e.toml "[experiment]\nname = \"e\"\nworkload = \"tlb_flush2\"\nmachine = \"milan_36c\"\n"
     "[kernel]\nversion = \"6.18\"\n[params]\nthreads = 2\nwarmup = \"10 us\"\nmeasure = \"10 us\"\n"
     "[sweep]\nkernel.tlb_flush = [\"ipi\", \"rar-naive\"]\n")
execute_process(COMMAND ${IPISIM} --machines ${SRC}/machines run ${WORK}/e.toml --out ${WORK}/out
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
set(expected "${WORK}/e.toml:12: sweep.kernel.tlb_flush[1]: \"rar-naive\" on machine milan_36c: needs a machine with RAR (tlb.rar_payloads > 0)\n")
if(NOT rc EQUAL 2 OR NOT out STREQUAL "" OR NOT err STREQUAL "${expected}")
  message(FATAL_ERROR "a flush protocol the machine lacks: exit ${rc}\nstdout: ${out}\nstderr: ${err}")
endif()
if(EXISTS ${WORK}/out)
  message(FATAL_ERROR "a rejected run wrote ${WORK}/out")
endif()

execute_process(COMMAND ${IPISIM} --experiments ${SRC}/experiments --machines ${SRC}/machines reproduce
                        --only seed000_rar --only nope --out ${WORK}/repro
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2 OR NOT out STREQUAL "" OR NOT err MATCHES "^--only: nope: no seed experiment of that name")
  message(FATAL_ERROR "reproduce --only nope: exit ${rc}\nstdout: ${out}\nstderr: ${err}")
endif()
if(EXISTS ${WORK}/repro)
  message(FATAL_ERROR "a rejected reproduce wrote ${WORK}/repro")
endif()
