# perflab - top-level build. `make` builds ./driver from $(KERNELS); see README.md.
#
# Each part of the project has its own fragment (src/driver/driver.mk, probe/*.mk, ...);
# this file holds only what they share: tools, flags, the dependency check and the
# test aggregation.

.DEFAULT_GOAL := all
SHELL := /bin/bash

# The student's file is compiled by gcc, as the classic handout did (make's own
# default CC is cc); a CC given on the command line or in the environment wins.
ifeq ($(origin CC),default)
CC       := gcc
endif
CXX      ?= g++
B        := build
# The classic handout compiled kernels with `gcc -Wall -O2 -m32`; on x86-64 we keep
# -O2 and -Wall and drop -m32. -g changes no code and lets cachegrind name functions.
KCFLAGS  ?= -O2 -Wall -g
KERNELS  ?= kernels/kernels.c
CXXFLAGS ?= -O2 -g -Wall -Wextra
PERFLAB_CXXFLAGS := -std=c++20 $(CXXFLAGS) -Isrc -Ikernels -Ireference -Iprobe -MMD -MP
PERFLAB_LDLIBS   := -lfmt -lpfm -lsodium -lm -pthread

# Debian packages the build needs; mk/deps.sh installs them or prints the command.
DEPS_PACKAGES := g++ make binutils libfmt-dev libpfm4-dev libcli11-dev nlohmann-json3-dev \
                 libtomlplusplus-dev libsodium-dev libjs-chart.js
# chromium: the page tests open the HTML reports in a real headless browser.
TEST_PACKAGES := catch2 valgrind gnuplot-nox chromium
DEPS_STAMP := $(B)/.deps-ok

$(DEPS_STAMP): mk/deps.sh
	@mkdir -p $(B)
	@mk/deps.sh $(DEPS_PACKAGES)
	@touch $@

$(B)/.test-deps-ok: mk/deps.sh
	@mkdir -p $(B)
	@mk/deps.sh $(TEST_PACKAGES)
	@touch $@

.PHONY: deps
deps: $(DEPS_STAMP) $(B)/.test-deps-ok

# Generic rules: every C++ source under the tree compiles to build/obj/<path>.o.
$(B)/obj/%.o: %.cpp | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CXX) $(PERFLAB_CXXFLAGS) -c $< -o $@

# C sources that are kernels (reference/) get exactly the student's flags.
$(B)/obj/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -Ikernels -Ireference -c $< -o $@

ALL_TARGETS :=
TEST_BINARIES :=

# Every other fragment (src/grader, reference, probe, handout, bench) adds its own
# targets; tests.mk comes last because it links what the others put in TEST_LIBS.
include src/driver/driver.mk
include $(sort $(filter-out src/driver/driver.mk tests/tests.mk,$(wildcard */*.mk src/*/*.mk)))
include tests/tests.mk

.PHONY: all clean
all: $(ALL_TARGETS)

clean:
	rm -rf $(B) driver kernel-host reference-host grader cacheprobe mountain cachesim  # the binaries, not src/

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
