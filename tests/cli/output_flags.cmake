# The output flags of `run` and `reproduce`: --trace (a trace file; reproduce: one per
# experiment), --format json (results.json on stdout), --quiet, --progress, --latency,
# --metrics; their mistakes exit 2 before anything runs; and `scripts/main-job.sh > out 2>&1`
# gives whole lines (progress never cuts a table line), and shows a failed build's errors.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/exps)
# ipi_latency on the toy GICv3 machine, two points: quick, with a machine to trace.
set(toy "[experiment]\nname = \"NAME\"\ndescription = \"toy\"\nworkload = \"ipi_latency\"\nmachine = \"toy4_arm\"\n")
string(APPEND toy "seed = 1\n\n[kernel]\nversion = \"6.6\"\n\n[params]\nrounds = 3\nsender = 0\n\n")
string(APPEND toy "[sweep]\nkernel.gic_barrier = [\"wmb\", \"dsb_ishst\"]\n")
string(REPLACE NAME seed901_toy exp "${toy}")
file(WRITE ${WORK}/exps/seed901_toy.toml "${exp}")
string(REPLACE NAME seed902_toy exp "${toy}")
file(WRITE ${WORK}/exps/seed902_toy.toml "${exp}")
set(common --machines ${SRC}/machines --experiments ${WORK}/exps)

function(ipisim expect_rc)
  execute_process(COMMAND ${IPISIM} ${common} ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc
                  WORKING_DIRECTORY ${WORK})
  if(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "ipisim ${ARGN}: expected exit ${expect_rc}, got ${rc}\nstdout: ${out}\nstderr: ${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

function(expect_trace file point)
  if(NOT EXISTS ${file})
    message(FATAL_ERROR "no trace ${file}")
  endif()
  file(READ ${file} json)
  string(JSON p GET "${json}" otherData point)
  string(JSON n LENGTH "${json}" traceEvents)
  if(NOT p EQUAL point OR n LESS 10)
    message(FATAL_ERROR "${file}: point ${p} (expected ${point}), ${n} events")
  endif()
endfunction()

# run --trace: the last point by default, --trace-point chooses; the note names the file.
ipisim(0 run seed901_toy --out ${WORK}/run --trace ${WORK}/run.trace.json --latency)
expect_trace(${WORK}/run.trace.json 1)
if(NOT err MATCHES "trace of point 1 \\(kernel.gic_barrier=dsb_ishst\\) in ${WORK}/run.trace.json")
  message(FATAL_ERROR "no trace note on stderr: ${err}")
endif()
if(NOT out MATCHES "latency of csd_lock_wait \\(ns\\)")
  message(FATAL_ERROR "--latency printed no latency table: ${out}")
endif()
ipisim(0 run seed901_toy --out ${WORK}/run0 --trace ${WORK}/run0.trace.json --trace-point 0 --trace-window 0us..
       --jobs 1)
expect_trace(${WORK}/run0.trace.json 0)
# With --jobs the points run on threads of their own: the trace is still that of its point.
ipisim(0 run seed901_toy --out ${WORK}/run0j --trace ${WORK}/run0j.trace.json --trace-point 0 --trace-window 0us..
       --jobs 2)
file(READ ${WORK}/run0.trace.json one)
file(READ ${WORK}/run0j.trace.json two)
if(NOT one STREQUAL two)
  message(FATAL_ERROR "--jobs 2 wrote another trace of point 0 than --jobs 1")
endif()

# --format json: stdout is results.json exactly; --quiet: nothing on stderr.
ipisim(0 run seed901_toy --out ${WORK}/json --format json --quiet)
file(READ ${WORK}/json/results.json written)
if(NOT out STREQUAL "${written}")
  message(FATAL_ERROR "--format json: stdout is not results.json:\n${out}")
endif()
if(NOT err STREQUAL "")
  message(FATAL_ERROR "--quiet: stderr is not empty: ${err}")
endif()

# --metrics chooses the columns.
ipisim(0 run seed901_toy --out ${WORK}/metrics --metrics ipis,total_ns)
if(NOT out MATCHES "kernel.gic_barrier  ipis  total_ns\n")
  message(FATAL_ERROR "--metrics ipis,total_ns: ${out}")
endif()

# reproduce --trace DIR: one trace per experiment; index.html and the plots.
ipisim(0 reproduce --out ${WORK}/rep --trace ${WORK}/traces --trace-window 0us.. --format json)
expect_trace(${WORK}/traces/seed901_toy.trace.json 1)
expect_trace(${WORK}/traces/seed902_toy.trace.json 1)
string(JSON n LENGTH "${out}")
if(NOT n EQUAL 2)
  message(FATAL_ERROR "reproduce --format json: expected an array of 2 results, got ${out}")
endif()
foreach(f index.html seed901_toy/results.json seed901_toy/plot_total_ns.svg seed902_toy/plot_total_ns.png)
  if(NOT EXISTS ${WORK}/rep/${f})
    message(FATAL_ERROR "reproduce wrote no ${f}")
  endif()
endforeach()

# Mistakes in the flags exit 2 with the flag named, before any point runs.
function(expect_bad expected)
  file(REMOVE_RECURSE ${WORK}/bad)
  ipisim(2 ${ARGN} --out ${WORK}/bad)
  if(NOT err STREQUAL "${expected}\n")
    message(FATAL_ERROR "ipisim ${ARGN}: expected stderr\n  ${expected}\ngot\n  ${err}")
  endif()
  if(EXISTS ${WORK}/bad)
    message(FATAL_ERROR "ipisim ${ARGN} wrote results")
  endif()
endfunction()
expect_bad("--format: yaml: must be text or json" run seed901_toy --format yaml)
expect_bad("--trace-window: 2ms..1ms: needs --trace" run seed901_toy --trace-window 2ms..1ms)
expect_bad("--trace-point: 2: seed901_toy has 2 points (0..1)" run seed901_toy --trace ${WORK}/x.json --trace-point 2)
expect_bad("--metrics: ipi: no such metric (there are: total_ns, ns_per_call, call_ns_self, call_ns_smt, call_ns_same_l3, call_ns_same_die, call_ns_same_package, call_ns_cross_package, ipis)"
           run seed901_toy --metrics ipi)
expect_bad("--only: seed999: no seed experiment of that name in ${WORK}/exps (there are: seed901_toy, seed902_toy)"
           reproduce --only seed999)

# The main job into one file: whole lines only (a progress line or a table line, never both),
# with --progress so that stderr has lines to cut in. The build is a no-op here
# (IPISIM_BUILD=true) and the built binary is linked into its build directory.
file(MAKE_DIRECTORY ${WORK}/job)
file(CREATE_LINK ${IPISIM} ${WORK}/job/ipisim SYMBOLIC)
string(REPLACE ";" " " common_sh "${common}")
execute_process(COMMAND sh -c "IPISIM_BUILD=true '${SRC}/scripts/main-job.sh' '${WORK}/job' ${common_sh} --out '${WORK}/main' --progress > '${WORK}/out.txt' 2>&1"
                RESULT_VARIABLE rc)
file(STRINGS ${WORK}/out.txt lines)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "main-job.sh exited ${rc}:\n${lines}")
endif()
set(progress 0)
foreach(line IN LISTS lines)
  if(line MATCHES "^\\[[0-9]+/4\\] seed90[12]_toy kernel.gic_barrier=[a-z_]+  [0-9]+ s[^[]*$")
    math(EXPR progress "${progress} + 1")
  elseif(line MATCHES "\\[[0-9]+/4\\]")
    message(FATAL_ERROR "main-job.sh > out.txt 2>&1: a progress line cut into another:\n  ${line}")
  endif()
endforeach()
if(NOT progress EQUAL 4)
  message(FATAL_ERROR "expected 4 progress lines, got ${progress}:\n${lines}")
endif()
list(FIND lines "==== summary" at)
if(at LESS 0)
  message(FATAL_ERROR "no summary in the main job's output")
endif()

# A failed build shows its errors and exits 1.
file(WRITE ${WORK}/bad_build.sh "#!/bin/sh\necho 'src/x.cpp:3:1: error: expected declaration'\nexit 1\n")
file(CHMOD ${WORK}/bad_build.sh PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
execute_process(COMMAND sh -c "IPISIM_BUILD='${WORK}/bad_build.sh' '${SRC}/scripts/main-job.sh' '${WORK}/job' > '${WORK}/bad.txt' 2>&1"
                RESULT_VARIABLE rc)
file(READ ${WORK}/bad.txt text)
if(NOT rc EQUAL 1 OR NOT text MATCHES "src/x.cpp:3:1: error: expected declaration\nmain-job: the build failed")
  message(FATAL_ERROR "a failed build: exit ${rc}, output:\n${text}")
endif()
