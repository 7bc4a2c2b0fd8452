# `ipisim probe --quick` and `ipisim validate host --quick` on the machine running the tests:
# exit 0, host.toml written with the measured keys marked P, the output says what was skipped,
# and validate prints measured vs model for both modes. Bad input is exit 2 before any work.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

execute_process(COMMAND ${IPISIM} probe --quick --out ${WORK}/probe
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "probe --quick exited ${rc}\n${out}\n${err}")
endif()
if(NOT EXISTS ${WORK}/probe/host.toml OR NOT EXISTS ${WORK}/probe/probe.json)
  message(FATAL_ERROR "probe wrote no host.toml / probe.json\n${out}")
endif()
string(FIND "${out}" "skipped:" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the probe output does not say what it skipped:\n${out}")
endif()
file(READ ${WORK}/probe/host.toml host)
foreach(key "clock = { mark = 'P'" "syscall = { mark = 'P'" "context_switch = { mark = 'P'" "[coherence]"
        "[intc.params]" "[[idle]]" "ipisim probe --quick --out")
  string(FIND "${host}" "${key}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "host.toml lacks \"${key}\":\n${host}")
  endif()
endforeach()
# With two CPUs or more, the cache-line transfer of some class is measured.
if(host MATCHES "(smt|same_l3|same_die|same_package|cross_package) = { mark = 'P'")
elseif(NOT out MATCHES "cache-line transfer")
  message(FATAL_ERROR "no measured transfer latency and no reason why:\n${out}")
endif()

# With a measured pair, the steps on both CPUs are checked for the host's placement of them.
file(READ ${WORK}/probe/probe.json probe_json)
if(NOT probe_json MATCHES "\"placement\": \\[")
  message(FATAL_ERROR "probe.json has no placement checks:\n${probe_json}")
endif()
if(host MATCHES "same_l3 = { mark = 'P'|smt = { mark = 'P'")
  if(NOT out MATCHES "placement: a line between CPUs" OR NOT host MATCHES "# placement: ")
    message(FATAL_ERROR "a measured pair but no placement checks in the summary or host.toml:\n${out}")
  endif()
endif()

execute_process(COMMAND ${IPISIM} validate host --quick --host ${WORK}/probe/host.toml
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "validate host --quick exited ${rc}\n${out}\n${err}")
endif()
if(host MATCHES "same_l3 = { mark = 'P'|smt = { mark = 'P'")
  if(NOT out MATCHES "cache-line latency of the tasks' first two CPUs")
    message(FATAL_ERROR "validate printed no placement checks:\n${out}")
  endif()
endif()
foreach(word "threads" "processes" "loops/s" "model" "error" "scaling")
  string(FIND "${out}" "${word}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "validate output lacks \"${word}\":\n${out}")
  endif()
endforeach()

execute_process(COMMAND ${IPISIM} validate host --quick --host ${WORK}/absent.toml
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2 OR NOT err MATCHES "absent.toml.*ipisim probe")
  message(FATAL_ERROR "a missing host file: exit ${rc}, expected 2 naming it\n${err}")
endif()
execute_process(COMMAND ${IPISIM} validate host --quick --host ${WORK}/probe/host.toml --tasks 0
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2 OR NOT err MATCHES "--tasks")
  message(FATAL_ERROR "--tasks 0: exit ${rc}, expected 2 naming --tasks\n${err}")
endif()
# validate writes validate.json and validate_model/ beside host.toml: where it cannot, it says so
# before measuring anything (it used to fail after the measurements, exit 1).
file(MAKE_DIRECTORY ${WORK}/blocked)
file(COPY ${WORK}/probe/host.toml DESTINATION ${WORK}/blocked)
file(WRITE ${WORK}/blocked/validate_model "not a folder\n")
execute_process(COMMAND ${IPISIM} validate host --quick --host ${WORK}/blocked/host.toml
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2 OR NOT err STREQUAL "--host: ${WORK}/blocked/host.toml: validate writes validate.json and validate_model/ beside it: ${WORK}/blocked/validate_model is not a directory\n"
   OR NOT out STREQUAL "")
  message(FATAL_ERROR "validate with validate_model a file: exit ${rc}\n${out}${err}")
endif()
