// The benchmark executable's entry point; the cases live in the other files of bench/.
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
