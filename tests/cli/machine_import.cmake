# `ipisim machine import FILE.xml [-o OUT.toml]` writes a machine-file skeleton that loads (for x86
# and arm64 XML alike: `machine show` reads it back); a missing file is a bad input (exit 2,
# message naming it).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/machines)

execute_process(COMMAND ${IPISIM} machine import ${WORK}/absent.xml
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "import of a missing file exited ${rc}, expected 2\n${err}")
endif()
string(FIND "${err}" "${WORK}/absent.xml" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the message does not name the file: ${err}")
endif()

foreach(xml two_packages epyc_vm_2cpu arm64_2_packages)
  execute_process(COMMAND ${IPISIM} machine import ${SRC}/tests/data/hwloc/${xml}.xml -o ${WORK}/machines/${xml}.toml
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "import of ${xml}.xml exited ${rc}: ${err}")
  endif()
  file(READ ${WORK}/machines/${xml}.toml text)
  foreach(expected "[topology]" "TODO: measure with ipisim probe")
    string(FIND "${text}" "${expected}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "the machine imported from ${xml}.xml lacks '${expected}':\n${text}")
    endif()
  endforeach()
  string(FIND "${text}" "../shared" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "the machine imported from ${xml}.xml cites ../shared:\n${text}")
  endif()
  execute_process(COMMAND ${IPISIM} --machines ${WORK}/machines machine show ${xml}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the machine imported from ${xml}.xml does not load (exit ${rc}): ${err}")
  endif()
endforeach()

file(READ ${WORK}/machines/arm64_2_packages.toml text)
foreach(expected "arch = \"arm64\"" "kind = \"gicv3\"" "Kunpeng \\\"920\\\" \\\\ test")
  string(FIND "${text}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the arm64 import lacks '${expected}':\n${text}")
  endif()
endforeach()
