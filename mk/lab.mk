# The lab's settings, in one place. make includes this file (the repository's and the
# handout's Makefiles), shell scripts read a value with mk/lab-setting.sh NAME, and C++
# gets them as build/gen/lab_settings.hpp (written from this file by make).

# The student's compile flags: the classic `gcc -Wall -O2 -m32` without -m32 (x86-64);
# -g changes no code and lets cachegrind name functions.
LAB_KCFLAGS := -O2 -Wall -g

# The dimensions both kernels are timed at by default.
LAB_DIMS := 64 128 256 512

# Debian packages. The driver's (the handout builds it too), the optional libpfm4
# (hardware counters), the grader's, and what the tests run. valgrind runs the machine
# model (--model, a policy's basis = "model", which the grader then grades by) and
# --simulate.
LAB_DRIVER_PACKAGES := g++ make binutils libfmt-dev libcli11-dev nlohmann-json3-dev libtomlplusplus-dev \
                       libsodium-dev libseccomp-dev valgrind
LAB_PFM_PACKAGE     := libpfm4-dev
LAB_GRADER_PACKAGES := bubblewrap libarchive-dev
# Chart.js, compiled into the driver's HTML pages (the handout ships the result).
LAB_PAGE_PACKAGES   := libjs-chart.js
# slurmctld, slurmd, slurm-client and munge: the Slurm tests start a one-node cluster
# on 127.0.0.1 (tests/slurm/cluster.sh).
# chromium: the page tests open the HTML reports in a real headless browser.
LAB_TEST_PACKAGES   := catch2 gnuplot-nox slurmctld slurmd slurm-client munge chromium
