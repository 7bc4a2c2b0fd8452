# `ipisim --version` prints "ipisim <version> (git <describe>)" and exits 0; outside a git
# checkout the commit is "unknown".
execute_process(COMMAND ${IPISIM} --version OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "--version exited ${rc}: ${err}")
endif()
if(NOT out MATCHES "^ipisim [0-9]+\\.[0-9]+\\.[0-9]+ \\(git ([0-9a-z.-]+|unknown)\\)\n$")
  message(FATAL_ERROR "unexpected --version output: '${out}'")
endif()
