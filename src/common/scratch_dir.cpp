#include "scratch_dir.hpp"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace perflab {

ScratchDir::ScratchDir(const std::string& prefix) {
    const auto tmp = std::filesystem::temp_directory_path();
    std::string tmpl = (tmp / (prefix + "-XXXXXX")).string();
    if (!mkdtemp(tmpl.data()))
        throw std::runtime_error("cannot create a scratch directory in " + tmp.string() + " (" + std::strerror(errno) +
                                 "): free space there or set TMPDIR");
    path_ = tmpl;
}

ScratchDir::~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

}  // namespace perflab
