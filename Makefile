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
include mk/lab.mk
KCFLAGS  ?= $(LAB_KCFLAGS)
KERNELS  ?= kernels/kernels.c
CXXFLAGS ?= -O2 -g -Wall -Wextra
PERFLAB_CXXFLAGS := -std=c++20 $(CXXFLAGS) -Isrc -I$(B)/gen -Ikernels -Ireference -Iprobe -MMD -MP
PERFLAB_LDLIBS   := -lfmt -lpfm -lsodium -lseccomp -larchive -lm -pthread

# Debian packages (mk/lab.mk); mk/deps.sh installs the missing ones or prints the command.
DEPS_PACKAGES := $(LAB_DRIVER_PACKAGES) $(LAB_PFM_PACKAGE) $(LAB_GRADER_PACKAGES) $(LAB_PAGE_PACKAGES)
TEST_PACKAGES := $(LAB_TEST_PACKAGES)
DEPS_STAMP := $(B)/.deps-ok

.PHONY: print-packages
print-packages:
	@echo $(DEPS_PACKAGES) $(TEST_PACKAGES)

$(DEPS_STAMP): mk/deps.sh mk/lab.mk
	@mkdir -p $(B)
	@mk/deps.sh $(DEPS_PACKAGES)
	@touch $@

# After the build's: two apt-gets at once would fight over dpkg's lock.
$(B)/.test-deps-ok: mk/deps.sh $(DEPS_STAMP)
	@mkdir -p $(B)
	@mk/deps.sh $(TEST_PACKAGES)
	@touch $@

.PHONY: deps
deps: $(DEPS_STAMP) $(B)/.test-deps-ok

# The lab's settings for C++, from mk/lab.mk.
LAB_HEADER := $(B)/gen/lab_settings.hpp
$(LAB_HEADER): mk/lab.mk
	@mkdir -p $(dir $@)
	@{ echo '// Written by make from mk/lab.mk: edit that file, not this one.'; \
	   echo '#pragma once'; \
	   echo 'namespace perflab {'; \
	   echo 'inline constexpr const char* kLabKcflags = "$(LAB_KCFLAGS)";'; \
	   echo 'inline constexpr int kLabDims[] = {$(subst $(eval) ,$(comma) ,$(strip $(LAB_DIMS)))};'; \
	   echo '}  // namespace perflab'; } > $@.tmp && mv $@.tmp $@
comma := ,

# Generic rules: every C++ source under the tree compiles to build/obj/<path>.o.
$(B)/obj/%.o: %.cpp | $(DEPS_STAMP) $(LAB_HEADER)
	@mkdir -p $(dir $@)
	$(CXX) $(PERFLAB_CXXFLAGS) -c $< -o $@

# C sources that are kernels (reference/) get exactly the student's flags.
$(B)/obj/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -Ikernels -Ireference -c $< -o $@

ALL_TARGETS :=
TEST_BINARIES :=
# What the fragments build for each other: the driver, and the runtime every kernel
# host is linked with (src/driver/driver.mk builds both).
DRIVER_BIN   := driver
HOST_RUNTIME := $(B)/host-runtime.o

# Each fragment adds its own targets; tests.mk comes last because it links what the
# others put in TEST_LIBS.
# In the order they use each other's variables: the reference kernels, then the driver
# and hosts built from them, the grader, the probes, the handout, the benches, the tests.
include reference/reference.mk src/driver/driver.mk src/grader/grader.mk probe/hierarchy.mk probe/cachesim.mk \
        handout/handout.mk bench/bench.mk bench/reference_timing.mk tests/tests.mk

.PHONY: all clean
all: $(ALL_TARGETS)

clean:
	rm -rf $(B) driver kernel-host reference-host grader cacheprobe mountain cachesim  # the binaries, not src/

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
