// A small JSON Schema (draft-07 subset) validator for the tests: type, enum,
// required, properties, items, minimum, exclusiveMinimum, oneOf and local $ref -
// what docs/report.schema.json uses. It returns every violation with its path.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace perflab::test {

std::vector<std::string> validate_json(const nlohmann::json& instance, const nlohmann::json& schema);

}  // namespace perflab::test
