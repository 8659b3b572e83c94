#include "kbest.hpp"

#include <algorithm>

namespace perflab {

void KBest::add(double ticks) {
    ++samples_;
    fastest_.insert(std::upper_bound(fastest_.begin(), fastest_.end(), ticks), ticks);
    if (int(fastest_.size()) > options_.k) fastest_.pop_back();
}

bool KBest::done() const {
    if (samples_ >= options_.max_samples) return true;
    if (int(fastest_.size()) < options_.k) return false;
    return fastest_.back() <= fastest_.front() * (1 + options_.epsilon);
}

KBestResult KBest::result() const {
    KBestResult r;
    r.samples = samples_;
    if (fastest_.empty()) return r;
    r.best_ticks = fastest_.front();
    r.spread = fastest_.front() > 0 ? fastest_.back() / fastest_.front() - 1 : 0;
    r.converged = int(fastest_.size()) >= options_.k && r.spread <= options_.epsilon;
    return r;
}

}  // namespace perflab
