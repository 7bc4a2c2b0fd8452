#include "config/error.h"

#include <fmt/format.h>

namespace ipisim::config {

namespace {
std::string render(const std::string& file, int line, const std::string& key, const std::string& problem) {
    if (line > 0) return fmt::format("{}:{}: {}: {}", file, line, key, problem);
    return fmt::format("{}: {}: {}", file, key, problem);
}
}  // namespace

ConfigError::ConfigError(std::string file, int line, std::string key, std::string problem)
    : std::runtime_error(render(file, line, key, problem)),
      file_(std::move(file)),
      line_(line),
      key_(std::move(key)),
      problem_(std::move(problem)) {}

}  // namespace ipisim::config
