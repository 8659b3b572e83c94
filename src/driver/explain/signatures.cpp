#include "signatures.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "common/subprocess.hpp"

namespace perflab {
namespace {

// One debugging information entry, as much of it as a signature needs.
struct Die {
    int depth = 0;
    std::string tag;
    std::string name;
    std::optional<std::uint64_t> type, origin;
    std::vector<std::uint64_t> children;  // their offsets, in order
};

// "(strp) (offset: 0x1787): rotate_fast" or "(string) dim" -> the name.
std::string attribute_text(std::string value) {
    if (!value.empty() && value.front() == '(') {
        const auto close = value.find(") ");
        value = close == std::string::npos ? "" : value.substr(close + 2);
    }
    if (const auto indirect = value.rfind("): "); indirect != std::string::npos) value = value.substr(indirect + 3);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.pop_back();
    return value;
}

// "(ref4) <0x57>" -> 0x57.
std::optional<std::uint64_t> attribute_ref(const std::string& value) {
    const auto at = value.find("<0x");
    if (at == std::string::npos) return std::nullopt;
    return std::stoull(value.substr(at + 3), nullptr, 16);
}

std::map<std::uint64_t, Die> parse(const std::string& text) {
    std::map<std::uint64_t, Die> dies;
    std::vector<std::uint64_t> open;  // the innermost entry at each depth
    Die* current = nullptr;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        // " <1><2923>: Abbrev Number: 10 (DW_TAG_subprogram)"
        if (line.size() > 3 && line[0] == ' ' && line[1] == '<' && line.find("Abbrev Number") != std::string::npos) {
            const int depth = std::stoi(line.substr(2));
            const auto off_at = line.find("><") + 2;
            const std::uint64_t offset = std::stoull(line.substr(off_at), nullptr, 16);
            const auto tag_at = line.find("(DW_TAG_");
            current = nullptr;
            if (tag_at == std::string::npos) continue;  // a null entry closes a list of children
            Die& d = dies[offset];
            d.depth = depth;
            d.tag = line.substr(tag_at + 1, line.find(')', tag_at) - tag_at - 1);
            open.resize(std::size_t(depth) + 1);
            open[std::size_t(depth)] = offset;
            if (depth > 0) dies[open[std::size_t(depth) - 1]].children.push_back(offset);
            current = &d;
            continue;
        }
        if (!current) continue;
        const auto at = line.find("DW_AT_");
        const auto colon = line.find(": ", at);
        if (at == std::string::npos || colon == std::string::npos) continue;
        std::string attribute = line.substr(at, line.find_first_of(" :", at) - at);
        const std::string value = line.substr(colon + 2);
        if (attribute == "DW_AT_name") current->name = attribute_text(value);
        else if (attribute == "DW_AT_type") current->type = attribute_ref(value);
        else if (attribute == "DW_AT_abstract_origin" || attribute == "DW_AT_specification")
            current->origin = attribute_ref(value);
    }
    return dies;
}

class Signatures {
public:
    explicit Signatures(std::map<std::uint64_t, Die> dies) : dies_(std::move(dies)) {}

    // The entry that declares a function: an out-of-line copy of an inline
    // function or a definition of a declaration refers to it.
    const Die* declaring(const Die& d, int hops = 0) const {
        if (!d.origin || hops > 4) return &d;
        auto it = dies_.find(*d.origin);
        return it == dies_.end() ? &d : declaring(it->second, hops + 1);
    }

    // The type with typedefs and qualifiers peeled off.
    const Die* resolved(std::optional<std::uint64_t> type) const {
        for (int hops = 0; type && hops < 16; ++hops) {
            auto it = dies_.find(*type);
            if (it == dies_.end()) return nullptr;
            const Die& t = it->second;
            if (t.tag != "DW_TAG_typedef" && t.tag != "DW_TAG_const_type" && t.tag != "DW_TAG_volatile_type" &&
                t.tag != "DW_TAG_restrict_type")
                return &t;
            type = t.type;
        }
        return nullptr;
    }

    bool kernel_shaped(const Die& fn) const {
        const Die& d = *declaring(fn);
        if (d.type) return false;  // not void
        std::vector<const Die*> params;
        for (auto child : d.children)
            if (auto it = dies_.find(child); it != dies_.end()) {
                if (it->second.tag == "DW_TAG_formal_parameter") params.push_back(&it->second);
                if (it->second.tag == "DW_TAG_unspecified_parameters") return false;
            }
        if (params.size() != 3) return false;
        const Die* dim = resolved(params[0]->type);
        const Die* src = resolved(params[1]->type);
        const Die* dst = resolved(params[2]->type);
        return dim && dim->tag == "DW_TAG_base_type" && dim->name == "int" && src &&
               src->tag == "DW_TAG_pointer_type" && dst && dst->tag == "DW_TAG_pointer_type";
    }

    const std::map<std::uint64_t, Die>& dies() const { return dies_; }

private:
    std::map<std::uint64_t, Die> dies_;
};

}  // namespace

std::set<std::string> kernel_shaped_functions(const std::string& readelf_info) {
    const Signatures s(parse(readelf_info));
    std::set<std::string> out;
    for (const auto& [offset, d] : s.dies()) {
        if (d.tag != "DW_TAG_subprogram") continue;
        const std::string& name = s.declaring(d)->name;
        if (!name.empty() && s.kernel_shaped(d)) out.insert(name);
    }
    return out;
}

std::variant<std::set<std::string>, NoDebugInfo> kernel_shaped_functions_of(const std::string& executable) {
    Finished r;
    try {
        r = spawn(command({"readelf", "--debug-dump=info", "--wide", executable}, 30, std::size_t(64) << 20));
    } catch (const std::exception& e) {
        return NoDebugInfo{e.what()};
    }
    if (!r.exited_ok()) return NoDebugInfo{"readelf " + r.describe()};
    if (r.output_truncated) return NoDebugInfo{"readelf's output is larger than 64 MiB"};
    if (r.output.find("DW_TAG_compile_unit") == std::string::npos)
        return NoDebugInfo{executable + " has no debug information (kernels.c built without -g)"};
    return kernel_shaped_functions(r.output);
}

}  // namespace perflab
