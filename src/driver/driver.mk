# The trusted driver and the kernel hosts it runs kernels in: the one build of them,
# included by the repository's Makefile and by the student handout's (after
# $(PL)mk/compile.mk, whose variables it uses).
#
#   ./driver          src/driver + src/common (the oracle from reference/ for checking);
#                     it never links a kernels file
#   ./kernel-host     src/host's runtime + $(KERNELS), linked by mk/link-host.sh
#   ./reference-host  the same runtime + the driver's own functions (oracle, memcpy,
#                     and in the repository the reference kernels): what the driver
#                     times on its own behalf
#
# Set before including, besides compile.mk's: KERNELS (the student's file) and
# KERNELS_CPPFLAGS (where its headers are, if not beside it); optionally NO_LIBPFM=1
# (build without libpfm4: --counters then says so) and BAKED_BASELINE /
# BAKED_POLICY (files beside ./driver that it uses by default).

# src/common is what the driver, the grader and the probes share (libperflab-common.a);
# the driver's own code is libperflab.a, and main.o makes ./driver of the two.
COMMON_SOURCES := $(wildcard $(PL)src/common/*.cpp)
COMMON_LIB     := $(B)/lib/libperflab-common.a
DRIVER_SOURCES := $(wildcard $(PL)src/driver/*/*.cpp $(PL)src/driver/*/*/*.cpp) $(GEN)/report_assets.cpp
DRIVER_OBJECTS := $(patsubst %.cpp,$(B)/obj/%.o,$(DRIVER_SOURCES)) $(B)/obj/$(PL)reference/naive.o
DRIVER_LIB     := $(B)/lib/libperflab.a
DRIVER_MAIN    := $(B)/obj/$(PL)src/driver/cli/main.o
DRIVER_BIN     := driver
HOST_RUNTIME   := $(B)/host-runtime.o
# What links a host: prerequisites of every host, so a change relinks them all.
LINK_HOST      := $(PL)mk/link-host.sh $(PL)mk/align-text.sh

ifneq ($(filter 1 yes,$(NO_LIBPFM)),)
PFM_DEFS := -DPERFLAB_NO_LIBPFM
PFM_LIBS :=
else
PFM_DEFS :=
PFM_LIBS := -lpfm
endif
DRIVER_LDLIBS := -lfmt $(PFM_LIBS) -lsodium -lseccomp -lm -pthread
BAKED_DEFS    := $(if $(BAKED_BASELINE),-DPERFLAB_DEFAULT_BASELINE='"$(BAKED_BASELINE)"') \
                 $(if $(BAKED_POLICY),-DPERFLAB_DEFAULT_POLICY='"$(BAKED_POLICY)"')

# Only perf_counters.cpp depends on libpfm4 and only options.cpp on the baked-in
# files, so switching either rebuilds one file.
$(eval $(call value_file,pfm,$(PFM_DEFS)))
$(eval $(call value_file,baked,$(BAKED_DEFS)))
$(eval $(call value_file,link,$(DRIVER_LDLIBS)))
$(eval $(call value_file,kernels,$(abspath $(KERNELS))))
$(B)/obj/$(PL)src/common/perf_counters.o: EXTRA_DEFS = $(PFM_DEFS)
$(B)/obj/$(PL)src/common/perf_counters.o: $(B)/values/pfm
$(B)/obj/$(PL)src/driver/cli/options.o: EXTRA_DEFS = $(BAKED_DEFS)
$(B)/obj/$(PL)src/driver/cli/options.o: $(B)/values/baked

$(COMMON_LIB): $(patsubst %.cpp,$(B)/obj/%.o,$(COMMON_SOURCES))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(DRIVER_LIB): $(filter-out $(DRIVER_MAIN),$(DRIVER_OBJECTS))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(DRIVER_BIN): $(DRIVER_MAIN) $(DRIVER_LIB) $(COMMON_LIB) $(B)/values/link
	$(CXX) $(DRIVER_MAIN) $(DRIVER_LIB) $(COMMON_LIB) $(DRIVER_LDLIBS) -o $@

# The host runtime, in C like the kernels, with every symbol but the C surface
# made local (mk/host-exports), so no name in a kernels file collides with it.
$(B)/obj/$(PL)src/host/%.o: KCFLAGS += -I$(PL)src/host
$(HOST_RUNTIME): $(B)/obj/$(PL)src/host/kernel_host.o $(PL)mk/host-exports
	ld -r $< -o $@.merged
	objcopy --keep-global-symbols=$(PL)mk/host-exports $@.merged $@
	rm -f $@.merged

# The student's file, compiled exactly as the classic handout did; remembering its
# path makes `make KERNELS=other.c` rebuild even when other.c is older.
$(B)/kernels.o: $(KERNELS) $(DEFS_DIR)/defs.h $(B)/values/kernels $(B)/values/cc | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(strip $(KCFLAGS) $(KERNELS_CPPFLAGS)) -c $(KERNELS) -o $@

kernel-host: $(B)/kernels.o $(HOST_RUNTIME) $(LINK_HOST)
	CC='$(CC)' KCFLAGS='$(KCFLAGS)' bash $(PL)mk/link-host.sh $@ $(HOST_RUNTIME) $(KERNELS) $(B)/kernels.o

# The reference host plays a kernels file that registers the driver's own functions
# (the repository adds the reference kernels to its prerequisites).
reference-host: $(B)/obj/$(PL)src/host/reference_kernels.o $(B)/obj/$(PL)reference/naive.o \
                $(B)/obj/$(PL)reference/speed_of_light.o $(HOST_RUNTIME) $(LINK_HOST)
	CC='$(CC)' KCFLAGS='$(KCFLAGS)' bash $(PL)mk/link-host.sh $@ $(HOST_RUNTIME) $(PL)src/host/reference_kernels.c \
	    $(filter-out $(HOST_RUNTIME),$(filter %.o,$^))
