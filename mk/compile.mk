# How perflab's files are compiled: the one set of rules the repository's Makefile
# and the student handout's Makefile both include, so the handout's ./driver is
# built exactly as the repository builds it.
#
# Set before including:
#   PL               where perflab's tree is, ending in / (empty in the repository,
#                    perflab/ in the handout)
#   B                the build directory
#   GEN              where the generated sources are (lab_settings.hpp, report_assets.cpp)
#   DEFS_DIR         the folder holding defs.h
#   CC KCFLAGS       the student's compiler and flags: every C file is a kernel or
#                    runs beside one, so all of them get exactly these
#   CXX CXXFLAGS     the C++ compiler and flags for perflab's own code
#   DEPS_PACKAGES    the Debian packages the build needs
#   PERFLAB_INCLUDES more include folders for C++ (optional)

DEPS_STAMP := $(B)/.deps-ok
LAB_HEADER := $(GEN)/lab_settings.hpp
PERFLAB_CXXFLAGS := -std=c++20 $(CXXFLAGS) -I$(PL)src -I$(GEN) -I$(PL)reference -I$(DEFS_DIR) $(PERFLAB_INCLUDES) -MMD -MP

# A file whose text is a make variable's value, rewritten only when the value changes,
# so that a new CXXFLAGS, `make NO_LIBPFM=1` or another KERNELS rebuilds exactly what
# it affects.
quote = '$(subst ','\'',$(1))'
define value_file
$(B)/values/$(1): FORCE
	@mkdir -p $$(@D)
	@printf '%s\n' $$(call quote,$(2)) | cmp -s - $$@ || printf '%s\n' $$(call quote,$(2)) > $$@
endef
$(eval $(call value_file,cxx,$(CXX) $(PERFLAB_CXXFLAGS)))
$(eval $(call value_file,cc,$(CC) $(KCFLAGS)))
$(eval $(call value_file,packages,$(DEPS_PACKAGES)))

# $(PL)mk/deps.sh installs the missing packages (as root or through password-less
# sudo) or prints the exact command and stops.
$(DEPS_STAMP): $(PL)mk/deps.sh $(B)/values/packages
	@sh $(PL)mk/deps.sh $(DEPS_PACKAGES)
	@touch $@

# Every C++ source compiles to $(B)/obj/<path>.o; EXTRA_DEFS is set per object.
$(B)/obj/%.o: %.cpp $(B)/values/cxx | $(DEPS_STAMP) $(LAB_HEADER)
	@mkdir -p $(@D)
	$(CXX) $(PERFLAB_CXXFLAGS) $(EXTRA_DEFS) -c $< -o $@

# The host runtime and the reference kernels: -MMD -MP so that a change to the host
# protocol's header rebuilds every host (a driver and a host that disagree on the
# control block's layout read each other's fields as garbage).
$(B)/obj/%.o: %.c $(B)/values/cc | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(KCFLAGS) -MMD -MP -I$(DEFS_DIR) -I$(PL)reference -c $< -o $@

.PHONY: FORCE
FORCE:

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
