#include "json_schema.hpp"

namespace perflab::test {
namespace {

using nlohmann::json;

bool has_type(const json& v, const std::string& type) {
    if (type == "object") return v.is_object();
    if (type == "array") return v.is_array();
    if (type == "string") return v.is_string();
    if (type == "boolean") return v.is_boolean();
    if (type == "null") return v.is_null();
    if (type == "integer") return v.is_number_integer();
    if (type == "number") return v.is_number();
    return false;
}

class Validator {
public:
    explicit Validator(const json& root) : root_(root) {}

    void check(const json& v, const json& schema, const std::string& path) {
        if (schema.contains("$ref")) {
            std::string ref = schema["$ref"];  // "#/definitions/name"
            check(v, root_.at(json::json_pointer(ref.substr(1))), path);
            return;
        }
        if (schema.contains("oneOf")) {
            int matches = 0;
            for (const auto& alt : schema["oneOf"]) {
                Validator sub(root_);
                sub.check(v, alt, path);
                matches += sub.errors.empty();
            }
            if (matches != 1) errors.push_back(path + ": matches " + std::to_string(matches) + " of oneOf");
            return;
        }
        if (schema.contains("type")) {
            bool ok = false;
            if (schema["type"].is_array()) {
                for (const auto& t : schema["type"]) ok = ok || has_type(v, t);
            } else {
                ok = has_type(v, schema["type"]);
            }
            if (!ok) {
                errors.push_back(path + ": expected type " + schema["type"].dump() + ", got " + v.dump());
                return;
            }
        }
        if (schema.contains("enum") &&
            std::find(schema["enum"].begin(), schema["enum"].end(), v) == schema["enum"].end())
            errors.push_back(path + ": " + v.dump() + " is not one of " + schema["enum"].dump());
        if (v.is_number()) {
            if (schema.contains("minimum") && v.get<double>() < schema["minimum"].get<double>())
                errors.push_back(path + ": below minimum");
            if (schema.contains("exclusiveMinimum") && v.get<double>() <= schema["exclusiveMinimum"].get<double>())
                errors.push_back(path + ": not above exclusiveMinimum");
        }
        if (v.is_object()) {
            if (schema.contains("required"))
                for (const auto& key : schema["required"])
                    if (!v.contains(key.get<std::string>())) errors.push_back(path + ": missing " + key.dump());
            if (schema.contains("properties"))
                for (const auto& [key, sub] : schema["properties"].items())
                    if (v.contains(key)) check(v[key], sub, path + "/" + key);
        }
        if (v.is_array() && schema.contains("items"))
            for (std::size_t i = 0; i < v.size(); ++i) check(v[i], schema["items"], path + "/" + std::to_string(i));
    }

    std::vector<std::string> errors;

private:
    const json& root_;
};

}  // namespace

std::vector<std::string> validate_json(const nlohmann::json& instance, const nlohmann::json& schema) {
    Validator v(schema);
    v.check(instance, schema, "");
    return v.errors;
}

}  // namespace perflab::test
