# `ipisim calibrate`: fits the example targets (tests/data/calibrate) and writes a machine that
# loads with the fitted values marked F, the same file for --jobs 1 and 2; bad targets and
# parameters are FILE:LINE: key errors with exit 2 before anything runs.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(dirs --experiments ${SRC}/experiments --machines ${SRC}/machines)
set(data ${SRC}/tests/data/calibrate)

function(run_ok var)
  execute_process(COMMAND ${IPISIM} ${dirs} ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc
                  WORKING_DIRECTORY ${WORK})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ipisim ${ARGN}: exit ${rc}\n${err}")
  endif()
  set(${var} "${out}" PARENT_SCOPE)
endfunction()

function(expect_bad_input pattern)
  execute_process(COMMAND ${IPISIM} ${dirs} ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc
                  WORKING_DIRECTORY ${WORK})
  if(NOT rc EQUAL 2 OR NOT err MATCHES "${pattern}" OR NOT out STREQUAL "")
    message(FATAL_ERROR "ipisim ${ARGN}: exit ${rc}, expected 2 and /${pattern}/\nstderr: ${err}\nstdout: ${out}")
  endif()
endfunction()

# How many times `pattern` occurs in `text`, into `var` (a MATCHALL list would nest on "[").
function(count_matches var pattern text)
  string(REGEX MATCHALL "${pattern}" found "${text}")
  list(LENGTH found n)
  set(${var} ${n} PARENT_SCOPE)
endfunction()

run_ok(one calibrate ${data}/toy4_ranged.toml --targets ${data}/targets.toml --out ${WORK}/one.toml --jobs 1)
run_ok(two calibrate ${data}/toy4_ranged.toml --targets ${data}/targets.toml --out ${WORK}/two.toml --jobs 2 -q)
file(READ ${WORK}/one.toml a)
file(READ ${WORK}/two.toml b)
if(NOT a STREQUAL b)
  message(FATAL_ERROR "--jobs 1 and --jobs 2 wrote different machines")
endif()
if(NOT one MATCHES "busy rtt +micro_ipi_rtt +1 +rtt_ns" OR NOT one MATCHES "intc.fabric.same_l3 +A +\\[1 us, 4 us\\]"
   OR NOT one MATCHES "objective \\(sum of squared residuals\\): [0-9.e+]+ -> ")
  message(FATAL_ERROR "calibrate printed no targets or parameters:\n${one}")
endif()
count_matches(n "mark = \"F\"" "${a}")
if(NOT n EQUAL 4 OR NOT a MATCHES "target = \"calibrate: targets.toml: same-L3 one-way; busy rtt")
  message(FATAL_ERROR "the written machine has ${n} F values, expected 4 naming their targets:\n${a}")
endif()
# Each fitted value carries its 95% interval (the fit's own uncertainty), printed and written.
if(NOT one MATCHES "coherence.same_l3 +A +\\[30 ns, 80 ns\\] +linear +50 ns +60.4 ns +\\+20.80% +0.6 ns +\\[59.22 ns, 61.58 ns\\]"
   OR NOT one MATCHES "no more targets than costs, so the spreads are taken as given")
  message(FATAL_ERROR "calibrate printed no interval for coherence.same_l3:\n${one}")
endif()
count_matches(n "fit = " "${a}")
if(NOT n EQUAL 4 OR NOT a MATCHES "same_l3 = { value = \"60.4 ns\", fit = \\[\"59.224 ns\", \"61.576 ns\"\\]")
  message(FATAL_ERROR "the written machine has ${n} fit intervals, expected 4:\n${a}")
endif()
# --interval-only on the fitted machine: no value moves, the intervals are written again; on a
# machine whose costs are A it is refused (an interval describes a fit).
run_ok(again calibrate ${WORK}/one.toml --targets ${data}/targets.toml --interval-only --out ${WORK}/again.toml)
file(READ ${WORK}/again.toml c)
if(NOT again MATCHES "not fitted, --interval-only" OR NOT c MATCHES "value = \"60.4 ns\", fit = ")
  message(FATAL_ERROR "--interval-only moved a value or wrote no interval:\n${again}\n${c}")
endif()
expect_bad_input("--interval-only: coherence.same_l3: is marked A, not F"
                 calibrate ${data}/toy4_ranged.toml --targets ${data}/targets.toml --interval-only --out ${WORK}/no.toml)
run_ok(show machine show ${WORK}/one.toml)
if(NOT show MATCHES "coherence.same_l3 +60.4 ns +F +30 ns .. 80 ns \\(fit 59.224 ns .. 61.576 ns\\)")
  message(FATAL_ERROR "machine show does not show the fit interval:\n${show}")
endif()
# The fitted machine runs a microbenchmark as a machine of its own.
execute_process(COMMAND ${IPISIM} --experiments ${SRC}/experiments --machines ${WORK} run micro_cacheline
                        --set experiment.machine=\"one\" --out ${WORK}/rerun -q
                OUTPUT_VARIABLE rerun ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT rerun MATCHES "same_l3 +60.4 ")
  message(FATAL_ERROR "the fitted machine does not run (exit ${rc}):\n${err}\n${rerun}")
endif()

# Mistakes: located, exit 2, nothing written.
file(WRITE ${WORK}/bad_param.toml "params = [\"cpu.syscall\"]\n[[target]]\nexperiment = \"micro_cacheline\"\nmetric = \"one_way_ns\"\nmeasured = 50.0\nsigma = 1.0\n")
expect_bad_input("bad_param.toml:1: params\\[0\\]: cpu.syscall is marked P at .*toy4_ranged.toml:[0-9]+"
                 calibrate ${data}/toy4_ranged.toml --targets ${WORK}/bad_param.toml)
file(WRITE ${WORK}/bad_metric.toml "params = [\"cpu.irq_entry\"]\n[[target]]\nexperiment = \"micro_cacheline\"\nmetric = \"rtt_ns\"\nmeasured = 50.0\nsigma = 1.0\n")
expect_bad_input("bad_metric.toml:4: target\\[0\\].metric: the cacheline_pingpong workload has no metric \"rtt_ns\""
                 calibrate ${data}/toy4_ranged.toml --targets ${WORK}/bad_metric.toml)
file(WRITE ${WORK}/nan.toml "params = [\"cpu.irq_entry\"]\n[[target]]\nexperiment = \"micro_cacheline\"\nmetric = \"one_way_ns\"\nmeasured = nan\nsigma = 1.0\n")
expect_bad_input("nan.toml:5: target\\[0\\].measured: " calibrate ${data}/toy4_ranged.toml --targets ${WORK}/nan.toml)
expect_bad_input("--params: cpu.nothing: is not a cost of machine toy4_ranged"
                 calibrate ${data}/toy4_ranged.toml --targets ${data}/targets.toml --params cpu.nothing)
expect_bad_input("no such|not found|toy4_nope" calibrate toy4_nope --targets ${data}/targets.toml)
if(EXISTS ${WORK}/toy4_ranged_calibrated.toml)
  message(FATAL_ERROR "a refused calibration wrote a machine")
endif()
