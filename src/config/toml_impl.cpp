// The one translation unit that compiles toml++ (TOML_HEADER_ONLY=0 everywhere else), so the
// large header-only library is not recompiled in every file that reads configuration.
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
