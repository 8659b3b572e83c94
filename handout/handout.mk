# The student handout (issue 6): `make handout` writes build/perflab-handout.tar, a
# directory's worth of files students build with `make` and run as ./driver:
# kernels.c, defs.h, the students' Makefile and README, the driver's sources and the
# naive oracle (no reference solution), and the build scripts.
#   make handout BASELINE=file POLICY=file   bakes a fixed baseline and grading policy
#                                            into the handout's driver (the baseline from
#                                            ./driver --calibrate on the grading machine,
#                                            covering the default dimensions)
#   make handout HANDOUT_TAR=path            writes it elsewhere

HANDOUT_TAR    ?= $(B)/perflab-handout.tar
# Every source the repository builds the driver and the kernel hosts from, with the
# rules it builds them by (the reference host is built without the reference kernels
# there), and the sources make generated for them.
HANDOUT_DRIVER := $(COMMON_SOURCES) $(filter-out $(GEN)/%,$(DRIVER_SOURCES)) src/driver/driver.mk \
                  $(wildcard src/common/*.hpp src/driver/*/*.hpp src/driver/*/*/*.hpp src/host/*.c src/host/*.h)
HANDOUT_GENERATED := $(LAB_HEADER) $(GEN)/report_assets.cpp
HANDOUT_ORACLE := reference/naive.c reference/oracle.h reference/speed_of_light.c
HANDOUT_FILES  := handout/Makefile handout/README handout/team.c \
                  handout/make-handout.sh handout/handout.mk kernels/kernels.c kernels/defs.h mk/deps.sh mk/link-host.sh mk/align-text.sh mk/host-exports mk/lab.mk mk/lab-setting.sh mk/compile.mk

# Rewritten when BASELINE or POLICY changes, so that the tarball is rebuilt.
$(HANDOUT_TAR).bake: FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' '$(abspath $(BASELINE))' '$(abspath $(POLICY))' | cmp -s - $@ || \
	    printf '%s\n' '$(abspath $(BASELINE))' '$(abspath $(POLICY))' > $@

# The driver built here gives the README its --help and checks a baked file
# (make-handout.sh), with its hosts.
$(HANDOUT_TAR): $(HANDOUT_FILES) $(HANDOUT_DRIVER) $(HANDOUT_GENERATED) $(HANDOUT_ORACLE) $(BASELINE) $(POLICY) $(HANDOUT_TAR).bake \
                $(DRIVER_BIN) $(if $(BASELINE)$(POLICY),kernel-host reference-host)
	@echo "handout/make-handout.sh $@$(if $(BASELINE), BASELINE=$(BASELINE))$(if $(POLICY), POLICY=$(POLICY))"
	@HANDOUT_DRIVER='$(HANDOUT_DRIVER)' HANDOUT_ORACLE='$(HANDOUT_ORACLE)' HANDOUT_GENERATED='$(HANDOUT_GENERATED)' \
	DRIVER='$(abspath $(DRIVER_BIN))' BASELINE='$(BASELINE)' POLICY='$(POLICY)' handout/make-handout.sh $@

.PHONY: handout
handout: $(HANDOUT_TAR)

TEST_PREREQS += $(B)/perflab-handout.tar
