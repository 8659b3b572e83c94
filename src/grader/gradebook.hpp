// gradebook.csv: what an instructor imports into the course's grade sheet.
#pragma once

#include <string>
#include <vector>

#include "record.hpp"

namespace perflab::grader {

std::string gradebook_csv(const std::vector<Record>& records);

}  // namespace perflab::grader
