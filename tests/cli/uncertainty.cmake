# --uncertainty N prints `pred [lo, hi]` and a median beside the nominal prediction, keeps the
# intervals in results.json, leaves the nominal fingerprint alone, keeps its sample runs for
# --resume, refuses --shard and fewer than 2 samples (exit 2); `ipisim sensitivity` names the costs behind a gain and
# writes sensitivity.json.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(dirs --experiments ${SRC}/experiments --machines ${SRC}/machines)
set(small seed002_gic_barrier --set params.rounds=3 --jobs 2)

function(run_ok var)
  execute_process(COMMAND ${IPISIM} ${dirs} ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ipisim ${ARGN}: exit ${rc}\n${err}")
  endif()
  set(${var} "${out}" PARENT_SCOPE)
endfunction()

function(expect_bad_input pattern)
  execute_process(COMMAND ${IPISIM} ${dirs} ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "${pattern}" OR NOT out STREQUAL "")
    message(FATAL_ERROR "ipisim ${ARGN}: exit ${rc}, expected 2 and /${pattern}/\nstderr: ${err}\nstdout: ${out}")
  endif()
endfunction()

run_ok(plain run ${small} --out ${WORK}/plain)
run_ok(sampled run ${small} --out ${WORK}/sampled --uncertainty 4)
string(REGEX MATCH "fingerprint: [0-9a-f]+" fp_plain "${plain}")
string(REGEX MATCH "fingerprint: [0-9a-f]+" fp_sampled "${sampled}")
if(fp_plain STREQUAL "" OR NOT fp_plain STREQUAL fp_sampled)
  message(FATAL_ERROR "the nominal fingerprint moved: '${fp_plain}' vs '${fp_sampled}'")
endif()
if(NOT sampled MATCHES "median" OR NOT sampled MATCHES "[0-9] \\[[0-9.]+[kMG]?, [0-9.]+[kMG]?\\]"
   OR NOT sampled MATCHES "uncertainty: \\[lo, hi\\] is the 5-95% interval")
  message(FATAL_ERROR "no intervals in the table:\n${sampled}")
endif()
file(READ ${WORK}/sampled/results.json json)
string(JSON n LENGTH "${json}" uncertainty costs)
string(JSON iv GET "${json}" rows 0 metrics_interval total_ns)
string(JSON med GET "${json}" rows 0 metrics_median total_ns)
if(n LESS 10 OR iv STREQUAL "" OR med STREQUAL "")
  message(FATAL_ERROR "results.json lacks the intervals: ${n} costs, interval ${iv}, median ${med}")
endif()
file(READ ${WORK}/plain/results.json plain_json)
if(plain_json MATCHES "metrics_interval")
  message(FATAL_ERROR "a run without --uncertainty has intervals")
endif()


# The sample runs are kept as they finish in OUT/uncertainty_runs.jsonl; --resume runs only those
# it does not hold, and the results are byte for byte those of one uninterrupted run. Here the
# interruption is made by hand: the folder as an interrupt during the samples leaves it, the
# journal with its first 3 runs and nothing else.
file(READ ${WORK}/sampled/results.json whole)
file(STRINGS ${WORK}/sampled/uncertainty_runs.jsonl lines)
list(LENGTH lines n)
if(NOT n EQUAL 9)
  message(FATAL_ERROR "uncertainty_runs.jsonl: ${n} lines, expected the identity and 8 runs (4 machines x 2 points)")
endif()
list(SUBLIST lines 0 4 head)
list(JOIN head "\n" cut)
file(WRITE ${WORK}/sampled/uncertainty_runs.jsonl "${cut}\n")
file(GLOB written ${WORK}/sampled/results.* ${WORK}/sampled/config.toml ${WORK}/sampled/plot_*)
file(REMOVE ${written})
execute_process(COMMAND ${IPISIM} ${dirs} run ${small} --out ${WORK}/sampled --uncertainty 4 --resume
                OUTPUT_VARIABLE resumed ERROR_VARIABLE err RESULT_VARIABLE rc)
file(READ ${WORK}/sampled/results.json again)
if(NOT rc EQUAL 0 OR NOT again STREQUAL whole OR NOT resumed STREQUAL sampled
   OR NOT err MATCHES "seed002_gic_barrier: 3 sample runs kept from ${WORK}/sampled/uncertainty_runs.jsonl")
  message(FATAL_ERROR "--uncertainty --resume: exit ${rc}\n${err}")
endif()
file(STRINGS ${WORK}/sampled/uncertainty_runs.jsonl lines)
list(LENGTH lines n)
if(NOT n EQUAL 9)
  message(FATAL_ERROR "the resumed journal holds ${n} lines, expected 9")
endif()
# Another number of samples is other work: refused at --resume before any run.
expect_bad_input("\n--resume: ${WORK}/sampled/uncertainty_runs.jsonl: holds the runs of other work \\(samples 4 there, 8 here, runs 8 there, 16 here"
                 run ${small} --out ${WORK}/sampled --uncertainty 8 --resume)
expect_bad_input("--uncertainty.*cannot be combined with --shard" run ${small} --out ${WORK}/x --uncertainty 4 --shard 1/2)
expect_bad_input("--uncertainty" run ${small} --out ${WORK}/x --uncertainty 1)

run_ok(sens sensitivity ${small} --top 3 --out ${WORK}/sens)
if(NOT sens MATCHES "gain kernel.gic_barrier=wmb/dsb_ishst total_ns: nominal [0-9.]+[kMG]?\n")
  message(FATAL_ERROR "sensitivity names no gain:\n${sens}")
endif()
file(READ ${WORK}/sens/sensitivity.json sj)
string(JSON q LENGTH "${sj}" quantities)
if(NOT q EQUAL 3)
  message(FATAL_ERROR "sensitivity.json: ${q} quantities, expected 2 points and 1 gain")
endif()
expect_bad_input("--metric: nope: no such metric" sensitivity ${small} --metric nope)

# Every finished run of the screen is in sensitivity_runs.jsonl at once; --resume keeps those of
# the same screen (after a complete one: all, so nothing runs and the output is the same) and
# refuses a journal of another screen before running anything.
file(READ ${WORK}/sens/sensitivity_runs.jsonl journal)
string(REGEX MATCHALL "\n{\"run\":" lines "${journal}")
list(LENGTH lines n)
if(NOT n EQUAL 150)
  message(FATAL_ERROR "sensitivity_runs.jsonl holds ${n} runs, expected 150 (75 machines x 2 points)")
endif()
execute_process(COMMAND ${IPISIM} ${dirs} sensitivity ${small} --top 3 --out ${WORK}/sens --resume
                OUTPUT_VARIABLE again ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT again STREQUAL sens OR NOT err MATCHES "150 runs of 2 point\\(s\\), 2 job\\(s\\); 150 kept from ")
  message(FATAL_ERROR "sensitivity --resume of a complete screen: exit ${rc}\n${err}\n${again}")
endif()
file(READ ${WORK}/sens/sensitivity_runs.jsonl journal)  # rewritten by the resume: the kept runs in run order
expect_bad_input("^--resume: ${WORK}/sens/sensitivity_runs.jsonl: holds the runs of other work"
                 sensitivity ${small} --set params.rounds=4 --out ${WORK}/sens --resume)
file(READ ${WORK}/sens/sensitivity_runs.jsonl after)
if(NOT after STREQUAL journal)
  message(FATAL_ERROR "a refused --resume changed the journal")
endif()
# A machine without ranged costs leaves nothing to screen: refused before any run (it used to print
# a table per quantity with no costs in it).
expect_bad_input("machines/toy4.toml: machine: toy4 has no ranged costs \\(a cost with a range = \\[low, high\\]\\): there is nothing to screen"
                 sensitivity micro_ipi_rtt --set "experiment.machine=\"toy4\"" --out ${WORK}/sens_toy4)
if(EXISTS ${WORK}/sens_toy4)
  message(FATAL_ERROR "a refused screen created its --out")
endif()
# --uncertainty runs its sampled machines before the results folder is opened: an --out that
# would be refused is refused before them (it used to be refused after every sample had run, the
# note "4 sampled machines ..." on stderr before the refusal).
run_ok(other run micro_ipi_rtt --out ${WORK}/other)
execute_process(COMMAND ${IPISIM} ${dirs} run ${small} --out ${WORK}/other --uncertainty 4
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2 OR NOT err STREQUAL "${WORK}/other: --out: holds results of experiment micro_ipi_rtt, not seed002_gic_barrier; choose another --out or use --force to replace them\n")
  message(FATAL_ERROR "--uncertainty into another experiment's folder: exit ${rc}\n${err}")
endif()
