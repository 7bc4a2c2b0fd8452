# `ipisim list` shows the machines and experiments directories and the registered components;
# --machines / --experiments and IPISIM_HOME choose the directories.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/home/machines ${WORK}/home/experiments)
file(WRITE ${WORK}/home/machines/toy.toml "description = \"a toy machine\"\n")
file(WRITE ${WORK}/home/machines/broken.toml "this is = = not toml\n")
file(WRITE ${WORK}/home/experiments/demo.toml "[experiment]\nname = \"demo\"\ndescription = \"a demo\"\n")

execute_process(COMMAND ${CMAKE_COMMAND} -E env IPISIM_HOME=${WORK}/home ${IPISIM} list
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "list exited ${rc}: ${err}")
endif()
function(expect_in out)
  foreach(expected ${ARGN})
    string(FIND "${out}" "${expected}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "list output lacks '${expected}':\n${out}")
    endif()
  endforeach()
endfunction()

expect_in("${out}" "machines (${WORK}/home/machines):" "toy     a toy machine" "broken"
          "experiments (${WORK}/home/experiments):" "demo  demo  a demo" "components:" "workload" "intc" "x2apic_phys"
          "ipi_ping")

file(MAKE_DIRECTORY ${WORK}/empty)
execute_process(COMMAND ${IPISIM} list --machines ${WORK}/home/machines --experiments ${WORK}/empty
                OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "list with --machines/--experiments exited ${rc}")
endif()
expect_in("${out}" "toy" "experiments (${WORK}/empty):\n  (none)")
# A folder that does not exist is an error, not an empty listing (tests/cli/flag_values.cmake).
