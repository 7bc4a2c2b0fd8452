# `ipisim list --params NAME` prints the declared parameters (type, default or required, allowed
# values, doc); a workload's metrics too; an unknown name exits 2. `ipisim run EXPERIMENT --help`
# lists the workload's parameters and metrics.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
function(expect_in out)
  foreach(expected ${ARGN})
    string(FIND "${out}" "${expected}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "output lacks '${expected}':\n${out}")
    endif()
  endforeach()
endfunction()

execute_process(COMMAND ${IPISIM} list --params kernel OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "list --params kernel exited ${rc}: ${err}")
endif()
expect_in("${out}" "[kernel]" "version  " "string, required" "tlb_flush" "default \"ipi\", when x86"
          "madvise_lru_add_drain  boolean, default: true before 6.14, false from 6.14" "rar-naive"
          "no_ipi_broadcast" "skew_tick" "boolean, default false")

execute_process(COMMAND ${IPISIM} list --params tlb_flush2 OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "list --params tlb_flush2 exited ${rc}: ${err}")
endif()
expect_in("${out}" "[workload.tlb_flush2]" "threads  integer, required; at least 1"
          "mode     choice, default \"threads\"; one of: threads, processes" "metrics:" "loops_per_sec"
          "runs on: a machine and [kernel], x86 only")

execute_process(COMMAND ${IPISIM} list --params OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "list --params exited ${rc}: ${err}")
endif()
expect_in("${out}" "[experiment]" "[kernel]" "[report]" "[workload.cpuinfo]" "[workload.ipi_ping]")

execute_process(COMMAND ${IPISIM} list --params nope OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2 OR NOT out STREQUAL "")
  message(FATAL_ERROR "list --params nope: expected exit 2 and no output, got ${rc}: ${out}")
endif()
expect_in("${err}" "--params: nope: no parameters declared under this name (known: " "kernel" "tlb_flush2")

execute_process(COMMAND ${IPISIM} --experiments ${SRC}/experiments run seed000_rar --help
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "run seed000_rar --help exited ${rc}: ${err}")
endif()
expect_in("${out}" "--set" "workload tlb_flush2 of " "threads  integer, required" "metrics:" "stale_tlb_hits")
