# `ipisim machine import FILE.xml [-o OUT.toml]` writes a machine-file skeleton; a missing file
# is a bad input (exit 2, message naming it).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

execute_process(COMMAND ${IPISIM} machine import ${WORK}/absent.xml
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "import of a missing file exited ${rc}, expected 2\n${err}")
endif()
string(FIND "${err}" "${WORK}/absent.xml" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the message does not name the file: ${err}")
endif()

set(xml ${SRC}/tests/data/hwloc/two_packages.xml)
if(EXISTS ${xml})
  execute_process(COMMAND ${IPISIM} machine import ${xml} -o ${WORK}/imported.toml
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "import exited ${rc}: ${err}")
  endif()
  file(READ ${WORK}/imported.toml text)
  string(FIND "${text}" "[topology]" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the imported machine has no [topology]:\n${text}")
  endif()
endif()
