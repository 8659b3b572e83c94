# The trusted driver and the kernel hosts it runs kernels in.
#
#   ./driver          src/common + src/driver (the oracle from reference/ for checking);
#                     it never links a kernels file
#   ./kernel-host     src/host's runtime + $(KERNELS), linked by mk/link-host.sh
#   ./reference-host  the same runtime + the driver's own functions (oracle, memcpy,
#                     reference kernels): what the driver times on its own behalf

DRIVER_SOURCES := $(wildcard src/common/*.cpp src/driver/*/*.cpp)
DRIVER_OBJECTS := $(patsubst %.cpp,$(B)/obj/%.o,$(DRIVER_SOURCES)) $(B)/obj/reference/naive.o \
                  $(B)/obj/$(B)/gen/report_assets.o

# The HTML pages inline Chart.js (Debian's libjs-chart.js) and their own view
# scripts and styles, so a page read from a file:// URL fetches nothing: they are
# compiled in as string constants generated from the files.
CHART_JS      := /usr/share/javascript/chart.js/chart.min.js
REPORT_ASSETS := kChartJs=$(CHART_JS) kPageCss=src/driver/report/page.css \
                 kPageCommonJs=src/driver/report/page_common.js kRunPageJs=src/driver/report/run_page.js \
                 kBatchPageJs=src/grader/batch_page.js
$(B)/gen/report_assets.cpp: mk/embed-assets.sh $(foreach a,$(REPORT_ASSETS),$(lastword $(subst =, ,$(a)))) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	mk/embed-assets.sh $@ $(REPORT_ASSETS)
DRIVER_LIB     := $(B)/lib/libperflab.a
DRIVER_MAIN    := $(B)/obj/src/driver/cli/main.o

$(DRIVER_LIB): $(filter-out $(DRIVER_MAIN),$(DRIVER_OBJECTS))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(DRIVER_BIN): $(DRIVER_MAIN) $(DRIVER_LIB)
	$(CXX) $^ $(PERFLAB_LDLIBS) -o $@

# The host runtime, in C like the kernels, with every symbol but the C surface
# made local (mk/host-exports), so no name in a kernels file collides with it.
$(B)/obj/src/host/%.o: KCFLAGS += -Isrc/host
$(HOST_RUNTIME): $(B)/obj/src/host/kernel_host.o mk/host-exports
	ld -r $(filter %.o,$^) -o $@.merged
	objcopy --keep-global-symbols=mk/host-exports $@.merged $@
	rm -f $@.merged

# The student's file, compiled exactly as the classic handout did. The path is
# remembered so that `make KERNELS=other.c` rebuilds even when other.c is older.
$(B)/kernels-path: FORCE
	@mkdir -p $(B)
	@echo '$(abspath $(KERNELS))' | cmp -s - $@ || echo '$(abspath $(KERNELS))' > $@

$(B)/obj/student/kernels.o: $(KERNELS) kernels/defs.h $(B)/kernels-path | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -Ikernels -I$(dir $(KERNELS)) -c $(KERNELS) -o $@

kernel-host: $(B)/obj/student/kernels.o $(HOST_RUNTIME) mk/link-host.sh
	KCFLAGS='$(KCFLAGS)' mk/link-host.sh $@ $(HOST_RUNTIME) $(KERNELS) $(B)/obj/student/kernels.o

# The reference host plays a kernels file that registers the driver's own functions.
$(B)/obj/reference/reference_registration.o: KCFLAGS += -Isrc/host
reference-host: $(B)/obj/src/host/reference_kernels.o $(B)/obj/reference/naive.o $(B)/obj/reference/speed_of_light.o \
                $(B)/obj/reference/reference_registration.o $(REFERENCE_OBJECTS) $(HOST_RUNTIME) mk/link-host.sh
	KCFLAGS='$(KCFLAGS)' mk/link-host.sh $@ $(HOST_RUNTIME) src/host/reference_kernels.c $(filter %.o,$(filter-out $(HOST_RUNTIME),$^))

.PHONY: FORCE
FORCE:

ALL_TARGETS += $(DRIVER_BIN) kernel-host reference-host
TEST_LIBS   += $(DRIVER_LIB)
