#include "discovery.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>

#include <archive.h>
#include <archive_entry.h>
#include <memory>

#include "common/untrusted_text.hpp"

namespace perflab::grader {
namespace fs = std::filesystem;
namespace {

constexpr const char* kKernels = "kernels.c";
constexpr std::size_t kMaxSourceBytes = 4 * 1024 * 1024;
constexpr std::size_t kMaxArchiveBytes = 64 * 1024 * 1024;
constexpr std::size_t kMaxArchiveEntries = 10000;

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The ID names files in the output directory, so it must be a plain name.
bool usable_id(const std::string& id) {
    return !id.empty() && id[0] != '.' && std::all_of(id.begin(), id.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '_' || c == '-' || c == '.' || c == '@' || c == '+';
    });
}

// The ID a directory entry stands for, or "" when it is no hand-in.
std::string id_of(const fs::directory_entry& e) {
    std::string name = e.path().filename().string();
    if (e.is_directory()) return name;
    if (!e.is_regular_file()) return "";
    for (const char* suffix : {"-kernels.c", ".tar.gz", ".tgz", ".tar", ".c"})
        if (ends_with(name, suffix)) return name.substr(0, name.size() - std::string(suffix).size());
    return "";
}

// By content first: Autolab stores whatever was uploaded as kernels.c, so a
// handin.tar may arrive under that name. An archive's name still counts (a pre-POSIX
// tar has no magic), and libarchive then says whether it is one.
bool is_archive(const std::string& path) {
    if (ends_with(path, ".tar") || ends_with(path, ".tar.gz") || ends_with(path, ".tgz")) return true;
    unsigned char head[262] = {};
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    const std::size_t n = std::fread(head, 1, sizeof head, f);
    std::fclose(f);
    const bool gzip = n >= 2 && head[0] == 0x1f && head[1] == 0x8b;
    const bool ustar = n >= 262 && std::memcmp(head + 257, "ustar", 5) == 0;
    return gzip || ustar;
}

// macOS's tar and Finder add "._NAME" AppleDouble files (resource forks) beside
// every file: never a student's source.
bool is_apple_double(const std::string& member) { return fs::path(member).filename().string().rfind("._", 0) == 0; }

bool escapes(const std::string& member) {
    if (member.empty() || member[0] == '/') return true;
    for (const auto& part : fs::path(member))
        if (part == "..") return true;
    return false;
}

// In an archive the kernels file may also carry the team's name, as the handout's
// `make handin` packs it (team42-kernels.c); the archive's own name is the ID.
bool is_kernels_member(const std::string& member) {
    std::string file = fs::path(member).filename().string();
    return !is_apple_double(member) && (file == kKernels || ends_with(file, std::string("-") + kKernels));
}

using ArchiveReader = std::unique_ptr<archive, decltype(&archive_read_free)>;

// The archive's bytes as tar reads them (gunzipped), all of them, headers included,
// or a refusal once they pass the cap. Read as one raw stream before any tar header
// is parsed: the tar reader of libarchive takes a chain of GNU long-name headers in
// one call, holding and inflating every one of them (a 4 MB upload made 3.9 GiB),
// so no limit checked between its entries bounds it.
std::string inflated(const std::string& path, const std::string& name, const HandinError& unreadable) {
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec) throw unreadable;
    if (size > kMaxArchiveBytes)
        throw HandinError(fmt::format("{} is over {} MiB: pack only kernels.c", name, kMaxArchiveBytes >> 20));
    ArchiveReader a(archive_read_new(), archive_read_free);
    archive_read_support_filter_gzip(a.get());
    archive_read_support_format_raw(a.get());
    archive_entry* e = nullptr;
    if (archive_read_open_filename(a.get(), path.c_str(), 64 * 1024) != ARCHIVE_OK ||
        archive_read_next_header(a.get(), &e) != ARCHIVE_OK)
        throw unreadable;
    std::string bytes;
    std::vector<char> block(64 * 1024);
    for (la_ssize_t n; (n = archive_read_data(a.get(), block.data(), block.size())) != 0;) {
        if (n < 0) throw unreadable;
        if (bytes.size() + std::size_t(n) > kMaxArchiveBytes)
            throw HandinError(fmt::format("{} expands to over {} MiB: pack only kernels.c", name, kMaxArchiveBytes >> 20));
        bytes.append(block.data(), std::size_t(n));
    }
    return bytes;
}

// Read in this process with libarchive: no tar program ever sees a member name (a
// name like `--to-command=sh` is data here, never an option), nothing is unpacked
// onto the disk, and only the one kernels member's bytes are kept.
std::string from_archive(const Handin& h) {
    const std::string name = visible_line(fs::path(h.path).filename().string());
    const HandinError unreadable(fmt::format("{} is not a readable tar archive: upload a .tar or .tar.gz made with tar", name));
    const std::string tar = inflated(h.path, name, unreadable);
    ArchiveReader a(archive_read_new(), archive_read_free);
    archive_read_support_format_tar(a.get());
    if (archive_read_open_memory(a.get(), tar.data(), tar.size()) != ARCHIVE_OK) throw unreadable;
    std::vector<std::string> found;
    std::string text;
    std::size_t entries = 0;
    std::vector<char> block(64 * 1024);
    archive_entry* e = nullptr;
    for (int rc; (rc = archive_read_next_header(a.get(), &e)) != ARCHIVE_EOF;) {
        if (rc < ARCHIVE_WARN) throw unreadable;
        if (++entries > kMaxArchiveEntries)
            throw HandinError(fmt::format("{} holds over {} files: pack only kernels.c", name, kMaxArchiveEntries));
        const char* path = archive_entry_pathname(e);
        std::string member = path ? path : "";
        if (escapes(member))
            throw HandinError(fmt::format("{} holds '{}', a path outside the archive: pack only your files", name,
                                          visible_line(member)));
        bool kernels = is_kernels_member(member);
        if (kernels) {
            found.push_back(visible_line(member));
            // A symlink, a hard link or a device never becomes the source.
            if (archive_entry_filetype(e) != AE_IFREG || archive_entry_hardlink(e) != nullptr)
                throw HandinError(fmt::format("{}: {} is not a regular file: pack the file itself", name, found.back()));
        }
        for (la_ssize_t n; (n = archive_read_data(a.get(), block.data(), block.size())) != 0;) {
            if (n < 0) throw unreadable;
            if (kernels && found.size() == 1 && text.size() <= kMaxSourceBytes) text.append(block.data(), std::size_t(n));
        }
    }
    if (found.empty()) throw HandinError(fmt::format("{} has no kernels.c: put kernels.c in the archive", name));
    if (found.size() > 1)
        throw HandinError(fmt::format("{} has {} kernels files ({}): keep one", name, found.size(),
                                      fmt::join(found, ", ")));
    return text;
}

// A directory holds the hand-in as its kernels.c, a TEAM-kernels.c, or the handout's
// handin.tar (Gradescope keeps the upload under its own name).
// An archive counts only where no kernels file lies beside it (a backup.tar.gz next
// to kernels.c is not a second hand-in).
std::string from_directory(const Handin& h) {
    std::vector<fs::path> found, archives;
    for (const auto& e : fs::recursive_directory_iterator(h.path)) {
        if (!e.is_regular_file() || e.is_symlink() || is_apple_double(e.path().string())) continue;
        if (is_kernels_member(e.path().string())) found.push_back(e.path());
        else if (is_archive(e.path().string())) archives.push_back(e.path());
    }
    if (found.empty()) found = archives;
    if (found.empty())
        throw HandinError(fmt::format("no kernels.c in {}/: hand in kernels.c, TEAM-kernels.c or handin.tar", h.id));
    if (found.size() > 1) {
        std::vector<std::string> names;
        for (const auto& f : found) names.push_back(fs::relative(f, h.path).string());
        throw HandinError(fmt::format("{} kernels files under {}/ ({}): keep one", found.size(), h.id, fmt::join(names, ", ")));
    }
    return found[0].string();
}

// Another batch's output left inside HANDINS: its feedback/ or results.jsonl, and no
// kernels file of a student.
bool is_grader_output(const fs::path& dir) {
    if (!fs::exists(dir / "results.jsonl") && !fs::is_directory(dir / "feedback")) return false;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file() && is_kernels_member(e.path().string())) return false;
    return true;
}

// The output may not exist yet, so paths are compared, not files: resolved as far as
// they exist, without a trailing separator.
fs::path comparable(const fs::path& p) {
    fs::path c = fs::weakly_canonical(fs::absolute(p)).lexically_normal();
    return c.has_filename() ? c : c.parent_path();
}

constexpr const char* kLayouts = "ID.c, ID-kernels.c, ID/, ID.tar, ID.tar.gz or ID.tgz";

}  // namespace

std::vector<Handin> discover_handins(const std::string& dir, const std::string& out_dir, std::FILE* notes) {
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) throw std::runtime_error(fmt::format("cannot read hand-in directory '{}' ({}): check the path", dir, ec.message()));
    const fs::path out = out_dir.empty() ? fs::path() : comparable(out_dir);
    if (!out.empty() && out == comparable(dir))
        throw std::runtime_error(fmt::format("--out '{}' is the hand-in directory itself: give the batch a directory of "
                                             "its own (e.g. --out grades)",
                                             out_dir));
    std::map<std::string, Handin> by_id;
    // Said, not dropped: a student whose file is skipped would otherwise get no grade
    // and no record saying why.
    auto skip = [&](const fs::path& p, const std::string& why) {
        if (notes) std::fprintf(notes, "grader: skipped %s: %s\n", visible_line(p.string()).c_str(), why.c_str());
    };
    for (const auto& e : it) {
        if (e.path().filename().string()[0] == '.') continue;
        if (!out.empty() && comparable(e.path()) == out) {
            skip(e.path(), "the grader's own output directory (--out), not a hand-in");
            continue;
        }
        std::string id = id_of(e);
        if (id.empty()) {
            skip(e.path(), fmt::format("not a hand-in's name ({}): rename it to be graded", kLayouts));
            continue;
        }
        if (e.is_directory() && is_grader_output(e.path())) {
            skip(e.path(), "another batch's output directory (results.jsonl, feedback/), not a hand-in");
            continue;
        }
        auto [pos, inserted] = by_id.try_emplace(id, Handin{id, e.path().string(), ""});
        if (!inserted)
            pos->second.problem = fmt::format("two hand-ins for {} ({} and {}): remove one",
                                              id, fs::path(pos->second.path).filename().string(),
                                              e.path().filename().string());
        else if (!usable_id(id))
            pos->second.problem = fmt::format("'{}' is no usable student ID: rename it to letters, digits and ._-@+", id);
    }
    if (by_id.empty())
        throw std::runtime_error(fmt::format("no hand-ins in '{}': put one per student there as {}", dir, kLayouts));
    std::vector<Handin> handins;
    for (auto& [id, h] : by_id) handins.push_back(std::move(h));
    return handins;
}

Handin single_handin(const std::string& path) {
    // A deployment that still names .../submission/kernels.c while the upload was
    // handin.tar or TEAM-kernels.c: the directory it was looked for in holds it.
    const fs::path p(path);
    if (!fs::exists(p) && fs::is_directory(p.parent_path())) return {"submission", p.parent_path().string(), ""};
    return {"submission", path, ""};
}

void extract_kernels(const Handin& h, const std::string& dest) {
    if (!h.problem.empty()) throw HandinError(h.problem);
    if (!fs::exists(h.path))
        throw HandinError(fmt::format("no hand-in at '{}': upload kernels.c, TEAM-kernels.c or handin.tar", h.path));
    const std::string source = fs::is_directory(h.path) ? from_directory(h) : h.path;
    std::string text;
    if (is_archive(source)) {
        text = from_archive({h.id, source, ""});
    } else {
        if (fs::file_size(source) > kMaxSourceBytes)
            throw HandinError(fmt::format("{} is over {} MiB: hand in the source only", source, kMaxSourceBytes >> 20));
        fs::copy_file(source, dest, fs::copy_options::overwrite_existing);
        return;
    }
    if (text.size() > kMaxSourceBytes)
        throw HandinError(fmt::format("kernels.c in {} is over {} MiB: hand in the source only",
                                      fs::path(h.path).filename().string(), kMaxSourceBytes >> 20));
    FILE* f = std::fopen(dest.c_str(), "wb");
    if (!f || std::fwrite(text.data(), 1, text.size(), f) != text.size() || std::fclose(f) != 0)
        throw std::runtime_error(fmt::format("cannot write '{}': check the work directory has space", dest));
}

}  // namespace perflab::grader
