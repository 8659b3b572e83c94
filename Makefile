# perflab - top-level build. `make` builds ./driver from $(KERNELS); see README.md.
#
# Each part of the project has its own fragment (src/driver/driver.mk, probe/*.mk, ...);
# this file holds only what they share: tools, flags, the dependency check and the
# test aggregation. How files compile is mk/compile.mk, shared with the handout.

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
KERNELS_CPPFLAGS := -Ikernels -I$(dir $(KERNELS))
CXXFLAGS ?= -O2 -g -Wall -Wextra
# perflab's tree is this directory; make writes the generated sources under build/.
PL       :=
GEN      := $(B)/gen
DEFS_DIR := kernels
PERFLAB_INCLUDES := -Iprobe

# Debian packages (mk/lab.mk); mk/deps.sh installs the missing ones or prints the command.
DEPS_PACKAGES := $(LAB_DRIVER_PACKAGES) $(LAB_PFM_PACKAGE) $(LAB_GRADER_PACKAGES) $(LAB_PAGE_PACKAGES)
TEST_PACKAGES := $(LAB_TEST_PACKAGES)

include mk/compile.mk mk/generated.mk

.PHONY: print-packages
print-packages:
	@echo $(DEPS_PACKAGES) $(TEST_PACKAGES)

# After the build's: two apt-gets at once would fight over dpkg's lock.
$(B)/.test-deps-ok: mk/deps.sh $(DEPS_STAMP)
	@mkdir -p $(B)
	@mk/deps.sh $(TEST_PACKAGES)
	@touch $@

.PHONY: deps
deps: $(DEPS_STAMP) $(B)/.test-deps-ok

ALL_TARGETS :=
TEST_BINARIES :=

# Each fragment adds its own targets; tests.mk comes last because it links what the
# others put in TEST_LIBS.
# In the order they use each other's variables: the driver and hosts (shared with the
# handout, so it adds to nothing itself), the reference kernels, the grader, the
# probes, the handout, the benches, the tests.
include src/driver/driver.mk reference/reference.mk
ALL_TARGETS += $(DRIVER_BIN) kernel-host reference-host
TEST_LIBS   += $(DRIVER_LIB) $(COMMON_LIB)
# The grader reads hand-in archives too.
PERFLAB_LDLIBS := $(DRIVER_LDLIBS) -larchive
include src/grader/grader.mk probe/hierarchy.mk probe/cachesim.mk \
        handout/handout.mk bench/bench.mk bench/reference_timing.mk tests/tests.mk mk/screenshots.mk

.PHONY: all clean
all: $(ALL_TARGETS)

clean:
	rm -rf $(B) driver kernel-host reference-host grader cacheprobe mountain cachesim  # the binaries, not src/
