#include "access_pattern.hpp"

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include "common/cachesim.hpp"
#include "common/lackey_trace.hpp"
#include "common/line_reader.hpp"
#include "common/subprocess.hpp"
#include "driver/evidence/source_lines.hpp"

namespace perflab {
namespace {

constexpr double kTraceSeconds = 120;

enum class Op { other, call, ret, divide };

// Enough of x86-64 to tell calls, returns and divides apart, given where each
// executed instruction starts (the trace says): prefixes, REX, VEX, opcode.
Op classify(const std::vector<unsigned char>& b) {
    std::size_t i = 0;
    while (i < b.size() && (b[i] == 0x66 || b[i] == 0x67 || b[i] == 0xF2 || b[i] == 0xF3 || b[i] == 0xF0 ||
                            b[i] == 0x2E || b[i] == 0x3E || b[i] == 0x26 || b[i] == 0x64 || b[i] == 0x65 ||
                            b[i] == 0x36))
        ++i;
    if (i < b.size() && (b[i] & 0xF0) == 0x40) ++i;  // REX
    if (i >= b.size()) return Op::other;
    const unsigned char op = b[i];
    auto reg = [&] { return i + 1 < b.size() ? (b[i + 1] >> 3) & 7 : -1; };
    if (op == 0xE8) return Op::call;
    if (op == 0xFF && reg() == 2) return Op::call;
    if (op == 0xC3 || op == 0xC2) return Op::ret;
    if ((op == 0xF6 || op == 0xF7) && (reg() == 6 || reg() == 7)) return Op::divide;
    if (op == 0x0F && i + 1 < b.size() && b[i + 1] == 0x5E) return Op::divide;  // divss/divsd/divps/divpd
    if (op == 0xC5 && i + 2 < b.size() && b[i + 2] == 0x5E) return Op::divide;  // VEX2 vdiv*
    if (op == 0xC4 && i + 3 < b.size() && (b[i + 1] & 0x1F) == 1 && b[i + 3] == 0x5E) return Op::divide;
    return Op::other;
}

struct DataAccess {
    AccessKind kind;
    std::uint64_t addr;
    std::uint32_t size;  // at most max_trace_access_size
};

long median(std::vector<long> v) {
    if (v.empty()) return 0;
    std::nth_element(v.begin(), v.begin() + long(v.size() / 2), v.end());
    return v[v.size() / 2];
}

// The destination pixels stored, repeats collapsed, each with the loops jumped back
// to since the one before; `back_edges` holds (index into accesses, target).
std::vector<StoreStep> store_steps(const std::vector<DataAccess>& accesses,
                                   const std::vector<std::pair<std::size_t, std::uint64_t>>& back_edges,
                                   std::uint64_t base, std::uint64_t bytes) {
    std::vector<StoreStep> out;
    std::vector<std::uint64_t> pending;
    auto edge = back_edges.begin();
    for (std::size_t i = 0; i < accesses.size(); ++i) {
        for (; edge != back_edges.end() && edge->first <= i; ++edge) pending.push_back(edge->second);
        const DataAccess& a = accesses[i];
        if (a.kind == AccessKind::load || a.addr < base || a.addr >= base + bytes) continue;
        const long px = long((a.addr - base) / sizeof(pixel));
        if (!out.empty() && out.back().pixel == px) continue;
        out.push_back({px, std::move(pending)});
        pending.clear();
    }
    return out;
}

// Pixel indices of the accesses of one kind to one image, repeats collapsed (a
// pixel copied as a 4- and a 2-byte move is one pixel).
std::vector<long> pixels_of(const std::vector<DataAccess>& accesses, bool stores, std::uint64_t base, std::uint64_t bytes) {
    std::vector<long> out;
    for (const auto& a : accesses) {
        const bool is_store = a.kind != AccessKind::load;
        const bool is_load = a.kind != AccessKind::store;
        if ((stores ? !is_store : !is_load) || a.addr < base || a.addr >= base + bytes) continue;
        long px = long((a.addr - base) / sizeof(pixel));
        if (out.empty() || out.back() != px) out.push_back(px);
    }
    return out;
}

}  // namespace

StepStats dominant_step(const std::vector<long>& seq) {
    StepStats out;
    if (seq.size() < 2) return out;
    std::map<long, std::size_t> count;
    for (std::size_t i = 1; i < seq.size(); ++i) ++count[seq[i] - seq[i - 1]];
    auto best = std::max_element(count.begin(), count.end(), [](auto& a, auto& b) { return a.second < b.second; });
    out.step = best->first;
    out.share = double(best->second) / double(seq.size() - 1);
    std::vector<long> runs;
    long run = 1;
    for (std::size_t i = 1; i < seq.size(); ++i) {
        if (seq[i] - seq[i - 1] == out.step) {
            ++run;
            continue;
        }
        if (run > 1) runs.push_back(run);
        run = 1;
    }
    if (run > 1) runs.push_back(run);
    out.run = median(runs);
    return out;
}

TileShape tile_shape(const std::vector<long>& dst, int dim) {
    const StepStats inner = dominant_step(dst);
    if (inner.share < 0.5 || inner.run < 2) return {};
    // Where each run of the inner step starts, and how those starts advance.
    std::vector<long> starts;
    for (std::size_t i = 0; i < dst.size(); ++i)
        if (i == 0 || dst[i] - dst[i - 1] != inner.step) starts.push_back(dst[i]);
    const StepStats outer = dominant_step(starts);
    const long across = std::max<long>(1, std::min<long>(dim, outer.run));
    const long along = std::min<long>(dim, inner.run);
    if (inner.step == 1 || inner.step == -1) return {across, along};
    if (inner.step == dim || inner.step == -dim) return {along, across};
    return {};
}

std::string describe_step(long step, int dim) {
    if (step == 1 || step == -1) return fmt::format("along a row ({:+})", step);
    if (step == dim) return "down a column (+dim)";
    if (step == -dim) return "up a column (-dim)";
    return fmt::format("by {} pixels", step);
}

std::variant<AccessPattern, SimulationError> trace_access_pattern(const TraceTarget& t, const SimulatedCache& d1) {
    auto valgrind = find_executable("valgrind");
    if (!valgrind) return SimulationError{"valgrind is not installed: apt-get install valgrind"};
    const HostFunction& f = t.fn;
    std::optional<ElfFile> code;
    try {
        code.emplace(t.host_exe);
    } catch (const std::runtime_error& e) {
        return SimulationError{e.what()};
    }
    const auto symbols = function_symbols(*code);
    const CodeSymbol* entry_sym = symbol_containing(symbols, t.entry);
    const std::uint64_t entry_end = entry_sym ? entry_sym->start + std::max<std::uint64_t>(entry_sym->size, 1) : t.entry + 1;

    std::unordered_map<std::uint64_t, Op> ops;
    std::map<std::uint64_t, std::uint64_t> callee_entries;
    std::vector<DataAccess> data;
    // Where the code jumped back (not by a call or a return): a loop's next pass.
    std::vector<std::pair<std::size_t, std::uint64_t>> back_edges;
    std::uint64_t previous_instruction = 0;
    std::uint64_t divisions = 0, calls = 0;
    std::map<std::uint64_t, std::uint64_t> divide_sites;  // address: times executed
    bool in_call = false, done_call = false, after_call = false, after_return = false;
    long depth = 0;
    // Inside pthread_create (from this depth on): the allocations it makes are
    // glibc's for the new thread, not the kernel's, so its callees are not counted.
    long thread_start_depth = -1;
    std::unordered_map<std::uint64_t, bool> starts_thread;
    auto take = [&](std::string_view text, bool) {
        // A chunk holds many lines: those after the call's return are not its.
        if (done_call) return;
        const TraceLine line = parse_lackey_line(text);
        if (line.type == TraceLine::Type::instruction) {
            if (!in_call) {
                if (line.addr < t.entry || line.addr >= entry_end) return;
                in_call = true;
            }
            if (after_call) {
                if (thread_start_depth < 0) ++callee_entries[line.addr];
                auto [known, fresh] = starts_thread.try_emplace(line.addr, false);
                if (fresh) {
                    const CodeSymbol* s = symbol_containing(symbols, line.addr);
                    known->second = s && (s->name == "pthread_create" || s->name == "__pthread_create_2_1");
                }
                if (known->second && thread_start_depth < 0) thread_start_depth = depth;
            }
            if (line.addr < previous_instruction && !after_call && !after_return)
                back_edges.emplace_back(data.size(), line.addr);
            previous_instruction = line.addr;
            auto it = ops.find(line.addr);
            if (it == ops.end()) it = ops.emplace(line.addr, classify(code->code_at(line.addr, 16))).first;
            after_call = it->second == Op::call;
            after_return = it->second == Op::ret;
            if (it->second == Op::call) ++calls, ++depth;
            if (it->second == Op::divide) ++divisions, ++divide_sites[line.addr];
            if (it->second == Op::ret && --depth < 0) done_call = true;
            if (depth < thread_start_depth) thread_start_depth = -1;
        } else if (in_call && line.type == TraceLine::Type::data) {
            data.push_back({line.kind, line.addr, std::uint32_t(line.size)});
        }
    };
    // The trace streams through the report pipe as valgrind writes it, never to
    // disk; what follows the traced call is drained but not parsed.
    LineReader trace(std::size_t{1} << 16, take);
    SpawnSpec spec = command({*valgrind, "--tool=lackey", "--trace-mem=yes", "-q", fmt::format("--log-fd={}", kReportFd),
                              t.host_exe, "--simulate",
                              fmt::format("{}:{}:{}:1:{}", f.kernel == Kernel::rotate ? 0 : 1, f.variant, t.dim, f.arg)},
                             kTraceSeconds);
    spec.fixed_addresses = true;
    spec.report_pipe = true;
    spec.read_interval_us = kLackeyReadIntervalUs;
    spec.on_report = [&](std::string_view chunk) {
        if (!done_call) trace.feed(chunk);
    };
    Finished done = spawn(spec);
    if (!done.exited_ok())
        return SimulationError{fmt::format("'{}' under lackey {}", t.host_exe, done.describe())};
    if (!done_call) trace.finish();
    if (!in_call) return SimulationError{fmt::format("the access trace of '{}' never reached the traced function", t.host_exe)};

    AccessPattern p;
    p.dim = t.dim;
    const double px = double(t.dim) * double(t.dim);
    p.divisions_per_px = double(divisions) / px;
    for (const auto& [addr, n] : divide_sites) p.divides.push_back({addr, double(n) / px, {}, {}});
    p.divides = with_source(t.host_exe, std::move(p.divides));
    p.calls_per_px = double(calls) / px;
    std::map<std::string, double> by_name;
    for (const auto& [addr, n] : callee_entries) {
        const CodeSymbol* s = symbol_containing(symbols, addr);
        by_name[s ? s->name : fmt::format("0x{:x}", addr)] += double(n);
    }
    for (const auto& [name, n] : by_name) {
        if (name == "malloc" || name == "calloc" || name == "realloc" || name == "aligned_alloc" ||
            name == "posix_memalign" || name == "memalign" || name == "valloc")
            p.allocations_per_call += n;
        // pthread_create calls clone itself: count the request, not its means.
        if (name == "pthread_create" || name == "__pthread_create_2_1" || name == "fork")
            p.threads_per_call += n;
        p.callees.emplace_back(name, n / px);
    }
    std::sort(p.callees.begin(), p.callees.end(), [](auto& a, auto& b) { return a.second > b.second; });
    std::set<std::string> ran;
    for (const auto& [addr, op] : ops)
        if (const CodeSymbol* s = symbol_containing(symbols, addr)) ran.insert(s->name);
    p.executed.assign(ran.begin(), ran.end());

    // The images, where the host said they are (its first line on stdout).
    std::uint64_t src_base = 0, dst_base = 0;
    {
        std::istringstream out(done.output);
        std::string line;
        while (std::getline(out, line) &&
               std::sscanf(line.c_str(), "perflab-simulate src=%" SCNx64 " dst=%" SCNx64, &src_base, &dst_base) != 2) {
        }
    }
    if (!src_base || !dst_base)
        return SimulationError{fmt::format("'{}' --simulate did not say where its images are: rebuild it (make)", t.host_exe)};
    const std::uint64_t bytes = std::uint64_t(px) * sizeof(pixel);
    auto touches = [&](std::uint64_t base, AccessKind not_kind) {
        return std::any_of(data.begin(), data.end(),
                           [&](const DataAccess& a) { return a.kind != not_kind && a.addr >= base && a.addr < base + bytes; });
    };
    if (!touches(src_base, AccessKind::store) || !touches(dst_base, AccessKind::load)) return p;

    const auto stores = pixels_of(data, true, dst_base, bytes);
    const auto loads = pixels_of(data, false, src_base, bytes);
    p.store = dominant_step(stores);
    p.load = dominant_step(loads);
    p.walk = tile_shape(stores, t.dim);
    p.loops = loop_nest(store_steps(data, back_edges, dst_base, bytes), t.dim);
    p.tile = p.loops && p.loops->tile.rows ? p.loops->tile : p.walk;

    // An LRU D1 that allocates on writes, as cachegrind's: a miss is a line brought in.
    const auto bits = [](std::uint64_t n) { return std::uint64_t(std::countr_zero(n)); };
    const std::uint64_t line_bytes = std::uint64_t(d1.line);
    CacheSim l1({bits(d1.size / (std::uint64_t(d1.assoc) * line_bytes)), std::uint64_t(d1.assoc), bits(line_bytes)});
    std::uint64_t src_misses = 0, dst_misses = 0;
    for (const auto& a : data)
        for (std::uint64_t ln = a.addr / line_bytes; ln <= (a.addr + a.size - 1) / line_bytes; ++ln)
            if (l1.access(ln * line_bytes, 1, AccessKind::load).misses) {
                const std::uint64_t byte = ln * line_bytes;
                if (byte + line_bytes > src_base && byte < src_base + bytes) ++src_misses;
                else if (byte + line_bytes > dst_base && byte < dst_base + bytes) ++dst_misses;
            }
    const double lines = double(bytes) / double(line_bytes);
    p.src_fetches_per_line = double(src_misses) / lines;
    p.dst_fetches_per_line = double(dst_misses) / lines;
    return p;
}

}  // namespace perflab
