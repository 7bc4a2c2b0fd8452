#include "report/shape_json.h"

namespace ipisim::report {

nlohmann::ordered_json shape_json(const SeedShape& shape) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    if (shape.kind == SeedShape::Kind::pivot) {
        j["kind"] = "pivot";
        j["title"] = shape.title;
        j["rows"] = shape.rows;
        j["columns"] = shape.columns;
        j["value"] = shape.value;
        j["scale"] = shape.scale;
        j["suffix"] = shape.suffix;
    } else if (shape.kind == SeedShape::Kind::lines) {
        j["kind"] = "lines";
        j["title"] = shape.title;
        j["line"] = shape.line;
    }
    return j;
}

SeedShape shape_from_json(const nlohmann::ordered_json& j) {
    SeedShape s;
    if (!j.is_object()) return s;
    const std::string kind = j.value("kind", "");
    s.title = j.value("title", "");
    if (kind == "pivot") {
        s.kind = SeedShape::Kind::pivot;
        s.rows = j.value("rows", "");
        s.columns = j.value("columns", "");
        s.value = j.value("value", "");
        s.scale = j.value("scale", 1.0);
        s.suffix = j.value("suffix", "");
    } else if (kind == "lines") {
        s.kind = SeedShape::Kind::lines;
        s.line = j.value("line", "");
    }
    return s;
}

}  // namespace ipisim::report
