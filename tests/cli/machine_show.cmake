# `ipisim machine show NAME` prints the topology tree, the distance classes and every cost with
# its mark; an unknown machine is a bad input (exit 2). `ipisim list --params machine` lists
# every machine section and each controller's [intc.params].
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
function(expect_in what out)
  foreach(expected ${ARGN})
    string(FIND "${out}" "${expected}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${what} lacks '${expected}':\n${out}")
    endif()
  endforeach()
endfunction()

execute_process(COMMAND ${IPISIM} --machines ${SRC}/machines machine show sapphire_rapids_30c
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "machine show exited ${rc}: ${err}")
endif()
expect_in("machine show" "${out}" "sapphire_rapids_30c: " "package 0: CPUs 0-59" "L3 0 (node 0): CPUs 0-59"
          "core 0: cpu0 [0x0]  cpu30 [0x1]" "distance classes:" "cpu0 -> cpu30" "idle states:" "wake_latency"
          "coherence.same_l3" "intc.params.icr_busy" "tlb.rar_per_payload")

execute_process(COMMAND ${IPISIM} --machines ${SRC}/machines machine show ${SRC}/machines/toy4_arm.toml
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "machine show of a path exited ${rc}: ${err}")
endif()
expect_in("machine show of a path" "${out}" "MPIDR Aff3.Aff2.Aff1.Aff0" "core 2: cpu2 [1.0.0.0]" "intc.params.dsb_st")

execute_process(COMMAND ${IPISIM} --machines ${SRC}/machines machine show pentium
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "machine show of an unknown machine exited ${rc}, expected 2: ${err}")
endif()
expect_in("the unknown-machine message" "${err}" "unknown machine \"pentium\"; available: " "kunpeng920")

execute_process(COMMAND ${IPISIM} list --params machine OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "list --params machine exited ${rc}: ${err}")
endif()
expect_in("list --params machine" "${out}" "machine.topology" "machine.coherence" "machine.cpu" "machine.idle"
          "machine.intc:" "machine.intc.params (gicv3)" "machine.intc.params (xapic_mmio)" "icr_busy_per_inflight"
          "machine.intc.fabric" "machine.tlb" "invlpgb_count_max > 0" "arch = \"arm64\"")

execute_process(COMMAND ${IPISIM} list --params nothing OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "list --params of an unknown set exited ${rc}, expected 2: ${err}")
endif()
