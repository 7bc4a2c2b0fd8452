// The one translation unit that compiles toml++ (TOML_HEADER_ONLY=0 everywhere else), so the
// large header-only library is not recompiled in every file that reads configuration.
//
// toml++'s internal assertions are compiled out in every build type, as a Release build does:
// toml++ 3.3 (Debian 12) asserts in parser::parse_key() on some fuzzed inputs (found by the fuzz
// step under the -O0 sanitizer build) that it then rejects with a parse error in Release. The
// inputs still go through the parser and its errors; UBSan still watches it. The non-ASCII
// pre-check in config/table.cpp keeps it off its other known bug (UB in its whitespace table).
#define TOML_ASSERT(expr) static_cast<void>(0)
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
