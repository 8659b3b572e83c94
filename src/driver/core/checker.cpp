#include "checker.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "common/counted.hpp"

namespace perflab {
namespace {

std::string rgb(const pixel& p) { return fmt::format("{{{},{},{}}}", p.red, p.green, p.blue); }

std::optional<CheckFailure> fault_failure(int dim, const CallOutcome& outcome, const HostImage& src,
                                          const HostImage& dst) {
    CheckFailure f;
    f.dim = dim;
    if (outcome.kind == CallOutcome::Kind::timed_out || outcome.kind == CallOutcome::Kind::tampered) {
        f.kind = outcome.kind == CallOutcome::Kind::timed_out ? CheckFailure::Kind::timed_out
                                                              : CheckFailure::Kind::tampered;
        f.detail = outcome.describe();
        return f;
    }
    auto where = [&](const HostImage& img, const char* name) -> std::optional<std::string> {
        if (outcome.kind != CallOutcome::Kind::signalled) return std::nullopt;
        switch (img.classify(outcome.fault_address)) {
            case HostImage::Region::guard_before: return fmt::format("before the start of {}", name);
            case HostImage::Region::guard_after: return fmt::format("past the end of {}", name);
            case HostImage::Region::outside: return std::nullopt;
        }
        return std::nullopt;
    };
    auto region = where(dst, "dst");
    if (!region) region = where(src, "src");
    if (region) {
        f.kind = CheckFailure::Kind::out_of_bounds;
        f.detail = fmt::format("accessed memory {} ({} at {})", *region, signal_name(outcome.signal),
                               outcome.fault_address);
    } else {
        f.kind = CheckFailure::Kind::crashed;
        f.detail = outcome.describe();
    }
    return f;
}

}  // namespace

std::string CheckFailure::kind_id() const {
    switch (kind) {
        case Kind::wrong_result: return "wrong-result";
        case Kind::unwritten: return "unwritten";
        case Kind::src_modified: return "src-modified";
        case Kind::out_of_bounds: return "out-of-bounds";
        case Kind::crashed: return "crashed";
        case Kind::timed_out: return "timeout";
        case Kind::tampered: return "tampered";
    }
    return "unknown";
}

std::string CheckFailure::summary() const {
    return during_timing ? describe() + " in a timed call (its input was fresh: a kernel that replays an "
                                        "earlier answer fails here)"
                         : describe();
}

std::string CheckFailure::describe() const {
    std::string where;
    if (first)
        where = fmt::format("; first at dst[{}][{}]: expected {}, got {}", first->row, first->col,
                            rgb(first->expected), rgb(first->actual));
    switch (kind) {
        case Kind::wrong_result:
            return fmt::format("dimension {}: {}{}", dim, counted(wrong_pixels, "wrong pixel"), where);
        case Kind::unwritten:
            return fmt::format("dimension {}: {} of dst left unwritten{}", dim, counted(unwritten_pixels, "pixel"),
                               where);
        case Kind::src_modified:
        case Kind::out_of_bounds:
        case Kind::crashed:
        case Kind::timed_out:
        case Kind::tampered:
            return fmt::format("dimension {}: {}", dim, detail);
    }
    return detail;
}

int Trial::laid_out(KernelHost& host, int dim) {
    if (host.dim() != dim) host.layout(dim);
    return dim;
}

Trial::Trial(KernelHost& host, int dim)
    : host_(host), dim_(laid_out(host, dim)), src_(host.src(), dim), dst_(host.dst(), dim) {}

void Trial::prepare(InputGenerator& inputs, unsigned timeout_seconds) {
    const InputGenerator::Draw input = inputs.next(), poison = inputs.next();
    src_before_.resize(src_.pixel_count());
    input.into(src_before_);
    poison_.resize(dst_.pixel_count());
    poison.into(poison_);
    // The host touches the images before they hold this call's input
    // (PERFLAB_HOST_OP_TOUCH), and again at the start of the call, timed
    // (host_protocol.h): at the call it has the images' pages at hand as a
    // one-process caller does. Then both images are written from the stream itself,
    // not copied from the records above: the copies' reads took the L2 from dst,
    // and the naive rotate at 256, whose column stores then missed it, ran 2% slower
    // in its host than in one process. src is written last: the AVX-512 rotate, which
    // reads src down its columns, ran 4% slower in its host with dst last.
    host_.touch_images(timeout_seconds);
    dst_.write([&](std::span<pixel> shared) { poison.into(shared); });
    src_.write([&](std::span<pixel> shared) { input.into(shared); });
}

HostCall Trial::run(const HostFunction& fn, unsigned timeout_seconds, std::span<CallBracket* const> brackets) {
    for (auto* b : brackets) b->begin();
    HostCall call = host_.call(fn, timeout_seconds);
    for (auto it = brackets.rbegin(); it != brackets.rend(); ++it) (*it)->end();
    return call;
}

std::optional<CheckFailure> Trial::verify(Kernel kernel, const CallOutcome& outcome) {
    const int n = dim();
    if (!outcome.ok()) return fault_failure(n, outcome, src_, dst_);
    src_.download();
    dst_.download();

    CheckFailure f;
    f.dim = n;
    for (auto [img, name] : {std::pair{&dst_, "dst"}, std::pair{&src_, "src"}}) {
        std::size_t before = img->damaged_canary_before(), after = img->damaged_canary_after();
        if (before || after) {
            f.kind = CheckFailure::Kind::out_of_bounds;
            f.detail = before ? fmt::format("wrote {} before the start of {}", counted(before, "byte"), name)
                              : fmt::format("wrote {} past the end of {}", counted(after, "byte"), name);
            return f;
        }
    }
    auto src_now = src_.pixels();
    auto changed = std::mismatch(src_now.begin(), src_now.end(), src_before_.begin(), same_pixel);
    if (changed.first != src_now.end()) {
        auto count = std::size_t(std::count_if(src_now.begin(), src_now.end(), [&, i = std::size_t{0}](const pixel& p) mutable {
            return !same_pixel(p, src_before_[i++]);
        }));
        auto at = std::size_t(changed.first - src_now.begin());
        f.kind = CheckFailure::Kind::src_modified;
        f.detail = fmt::format("src was modified ({}, first src[{}][{}])", counted(count, "pixel"),
                               at / std::size_t(n), at % std::size_t(n));
        return f;
    }

    expected_.resize(src_before_.size());
    oracle_for(kernel)(n, src_before_.data(), expected_.data());
    auto actual = dst_.pixels();
    for (std::size_t i = 0; i < expected_.size(); ++i) {
        if (same_pixel(actual[i], expected_[i])) continue;
        ++f.wrong_pixels;
        if (same_pixel(actual[i], poison_[i])) ++f.unwritten_pixels;
        if (!f.first) f.first = PixelDiff{int(i / std::size_t(n)), int(i % std::size_t(n)), expected_[i], actual[i]};
    }
    if (f.wrong_pixels == 0) return std::nullopt;
    f.kind = f.unwritten_pixels == f.wrong_pixels ? CheckFailure::Kind::unwritten : CheckFailure::Kind::wrong_result;
    return f;
}

std::optional<CheckFailure> check_variant(KernelHost& host, const HostFunction& fn, int dim, InputGenerator& inputs,
                                          unsigned timeout_seconds) {
    Trial trial(host, dim);
    trial.prepare(inputs, timeout_seconds);
    return trial.verify(fn.kernel, trial.run(fn, timeout_seconds).outcome);
}

}  // namespace perflab
