// A configuration mistake, located at FILE:LINE and naming the key.
#pragma once

#include <stdexcept>
#include <string>

namespace ipisim::config {

class ConfigError : public std::runtime_error {
public:
    ConfigError(std::string file, int line, std::string key, std::string problem);

    [[nodiscard]] const std::string& file() const { return file_; }
    [[nodiscard]] int line() const { return line_; }
    [[nodiscard]] const std::string& key() const { return key_; }
    [[nodiscard]] const std::string& problem() const { return problem_; }

private:
    std::string file_;
    int line_;
    std::string key_;
    std::string problem_;
};

// Exit code of every command that rejects its input.
inline constexpr int kExitBadInput = 2;

}  // namespace ipisim::config
