# Regressions of the reliability review (issue 12): flag values that used to be taken silently.
# `--out ''` wrote into results/<name> of the working directory, `--seed ''` ran seed 0,
# `list --machines /nonexistent` listed "(none)" and exited 0, and a --set value with a newline
# added other TOML keys that were then dropped. Each is now a usage or configuration error, exit 2,
# naming the flag (and the folder), before anything runs.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(good ${SRC}/tests/data/good_configs/ipi_ping_tiny.toml)

# ipisim with the arguments of `args`, a shell word list (CMake lists drop empty arguments).
function(expect_error first_line args)
  execute_process(COMMAND sh -c "exec \"$0\" ${args}" ${IPISIM} OUTPUT_VARIABLE out ERROR_VARIABLE err
                  RESULT_VARIABLE rc WORKING_DIRECTORY ${WORK})
  string(REGEX REPLACE "\n.*" "" first "${err}")
  if(NOT rc EQUAL 2 OR NOT first STREQUAL "${first_line}" OR NOT out STREQUAL "")
    message(FATAL_ERROR "ipisim ${args}: exit ${rc}\nexpected first stderr line: ${first_line}\n"
                        "stderr: ${err}\nstdout: ${out}")
  endif()
endfunction()

expect_error("--out: must not be empty" "run '${good}' --out ''")
expect_error("--seed: must not be empty" "run '${good}' --seed '' --out '${WORK}/o'")
expect_error("--out: must not be empty" "reproduce --out '' --only seed002_gic_barrier")
expect_error("--out: must not be empty" "merge '${WORK}' --out ''")
expect_error("--output: must not be empty" "machine import '${SRC}/tests/data/hwloc/two_packages.xml' -o ''")
expect_error("--machines: must not be empty" "--machines '' run '${good}' --out '${WORK}/o'")
if(EXISTS ${WORK}/results OR EXISTS ${WORK}/o)
  message(FATAL_ERROR "a rejected run created an output folder")
endif()

expect_error("${WORK}/nowhere: --machines: no such directory" "--machines '${WORK}/nowhere' list")
expect_error("${WORK}/nowhere: --experiments: no such directory" "--experiments '${WORK}/nowhere' list")
file(WRITE ${WORK}/a_file "x\n")
expect_error("${WORK}/a_file: --machines: not a directory" "--machines '${WORK}/a_file' list")
file(CREATE_LINK loop ${WORK}/loop SYMBOLIC)
expect_error("${WORK}/loop: --machines: cannot be read: Too many levels of symbolic links"
             "--machines '${WORK}/loop' list")

expect_error("--set: params.cpus: the value must be on one line"
             "run '${good}' --out '${WORK}/o' --set 'params.cpus=2\n[experiment]\nx = 1'")

# Output a flag names where nothing can be written: refused before any work, exit 2, naming the
# flag, the path and why, with nothing created. Before, --trace failed after the points before
# the traced one had run (exit 1, an incomplete results folder left), sensitivity after its whole
# screen, probe after measuring, and check, calibrate and machine import with a raw exception.
file(MAKE_DIRECTORY ${WORK}/a_dir)
expect_error("--trace: ${WORK}/a_file/t.json: ${WORK}/a_file is not a directory"
             "run '${good}' --out '${WORK}/tr' --trace '${WORK}/a_file/t.json'")
expect_error("--trace: ${WORK}/a_dir: is a directory" "run '${good}' --out '${WORK}/tr' --trace '${WORK}/a_dir'")
expect_error("--trace: ${WORK}/a_file/x: ${WORK}/a_file is not a directory"
             "reproduce --only seed002_gic_barrier --out '${WORK}/tr' --trace '${WORK}/a_file/x'")
expect_error("--out: ${WORK}/a_file/s: ${WORK}/a_file is not a directory"
             "sensitivity seed002_gic_barrier --out '${WORK}/a_file/s'")
expect_error("ipisim check: --out: ${WORK}/a_file/c: ${WORK}/a_file is not a directory"
             "check --protocol ipi --seeds 1 --out '${WORK}/a_file/c'")
expect_error("--out: ${WORK}/a_file/m.toml: ${WORK}/a_file is not a directory"
             "--machines '${SRC}/tests/data/calibrate' calibrate toy4_ranged --targets '${SRC}/tests/data/calibrate/targets.toml' --out '${WORK}/a_file/m.toml'")
expect_error("--output: ${WORK}/a_file/m.toml: ${WORK}/a_file is not a directory"
             "machine import '${SRC}/tests/data/hwloc/two_packages.xml' -o '${WORK}/a_file/m.toml'")
expect_error("--out: ${WORK}/a_file/p: ${WORK}/a_file is not a directory" "probe --quick --out '${WORK}/a_file/p'")
if(EXISTS ${WORK}/tr)
  message(FATAL_ERROR "a command refused for its output path created its output folder")
endif()

# calibrate --step: CLI11's range check let "nan" through (no comparison with NaN fails); it then
# failed after the whole fit.
expect_error("--step: expected a fraction of each range from 0.001 to 0.25, got \"nan\""
             "calibrate toy4 --targets '${SRC}/tests/data/calibrate/targets.toml' --step nan")
expect_error("--step: expected a fraction of each range from 0.001 to 0.25, got \"0.5\""
             "calibrate toy4 --targets '${SRC}/tests/data/calibrate/targets.toml' --step 0.5")

# Whole-number flags: CLI11 reads "-1" into an unsigned option as 2^64-1, so `check --seeds -1`
# ran seeds without end and `--first-seed -1` checked seed 18446744073709551615.
expect_error("--seeds: expected a whole number of at least 1, got \"-1\"" "check --protocol ipi --seeds -1")
expect_error("--seeds: expected a whole number of at least 1, got \"0x10\"" "check --protocol ipi --seeds 0x10")
expect_error("--first-seed: expected a whole number (0, 1, 2, ...), got \"-1\""
             "check --protocol ipi --seeds 1 --first-seed -1")
expect_error("--ops: must be at least 1, got 0" "check --protocol ipi --seeds 1 --ops 0")
expect_error("--trace-point: expected a whole number (0, 1, 2, ...), got \"-1\""
             "run '${good}' --out '${WORK}/o' --trace-point -1")
expect_error("--seed: expected a whole number (0, 1, 2, ...), got \"-1\"" "validate host --seed -1")
expect_error("--tasks: expected a whole number of at least 1, got \"-1\"" "validate host --tasks 2,-1")

# An [[idle]] state's cost by index, the name machine show and sensitivity print (before: "unknown
# key", as --set made a new table "idle[3]"). micro_ipi_rtt runs on toy4, with 3 idle states.
set(rtt ${SRC}/experiments/micro_ipi_rtt.toml)
expect_error("--set: machine.idle[3].exit_latency: idle[3]: idle has 3 elements (0..2)"
             "run '${rtt}' --out '${WORK}/o' --set 'machine.idle[3].exit_latency=1 us'")
expect_error("--set: machine.idle[1].wake_latency: 2 us is longer than the state's exit_latency 1 us, its worst-case bound"
             "run '${rtt}' --out '${WORK}/o' --set 'machine.idle[1].wake_latency=2 us'")
execute_process(COMMAND ${IPISIM} run ${rtt} --out ${WORK}/idle --set "machine.idle[1].exit_latency=2 us"
                --set "sweep.target_state=[\"busy\"]" OUTPUT_QUIET ERROR_VARIABLE err RESULT_VARIABLE rc)
file(READ ${WORK}/idle/config.toml config)
string(FIND "${config}" "exit_latency = { value = \"2 us\", mark = \"set\"" at)
if(NOT rc EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR "--set machine.idle[1].exit_latency: exit ${rc}, ${err}\nconfig.toml:\n${config}")
endif()
