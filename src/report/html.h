// Small pieces for writing self-contained HTML: escaping and data: URIs.
#pragma once

#include <string>
#include <string_view>

namespace ipisim::report {

// &, <, >, " and ' as entities.
std::string html_escape(std::string_view text);
// RFC 4648 base64 with padding.
std::string base64(std::string_view bytes);
// "data:MIME;base64,..." for embedding a file's bytes.
std::string data_uri(std::string_view mime, std::string_view bytes);

}  // namespace ipisim::report
