#include "student.hpp"

namespace perflab {

StudentFile student_file(const HostRegistration& r) {
    StudentFile s;
    s.team = {r.team[0].text, r.team[1].text, r.team[2].text, r.team[3].text, r.team[4].text,
              r.team[3].present && !r.team[3].text.empty()};
    s.graded_address[0] = r.graded_address[0];
    s.graded_address[1] = r.graded_address[1];
    s.build = {r.kernels_path, r.kernels_sha256, r.kcflags, r.build_time};
    return s;
}

}  // namespace perflab
