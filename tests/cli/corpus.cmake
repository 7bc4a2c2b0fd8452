# The reliability corpus (issue 12): tests/reliability/make-corpus.py writes ~290 bad inputs and
# valid controls (unknown keys, wrong types and units, NaN/inf, overflow, impossible topologies
# and combinations, unknown names, bad --set/--seed/--out and CLI flags, broken machine files,
# special files and symlink loops, machine import), and run-corpus.py runs each through ipisim
# with a 10 s timeout: every bad input must exit 2 with a located message (FILE:LINE: key:, or
# the flag), every control must exit 0, and nothing may crash or hang. It prints the counts.
find_program(PYTHON3 python3 REQUIRED)
execute_process(COMMAND ${PYTHON3} ${SRC}/tests/reliability/make-corpus.py ${WORK} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make-corpus.py failed (${rc})")
endif()
execute_process(COMMAND ${PYTHON3} ${SRC}/tests/reliability/run-corpus.py ${IPISIM} ${WORK} --src ${SRC}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
message(STATUS "${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "run-corpus.py: some cases are not clear errors or valid runs (above)")
endif()
