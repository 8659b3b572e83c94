# The batch grader: src/grader/*.cpp in libgrader.a (unit-tested) plus main.cpp,
# linked with the driver library for scoring, baselines and atomic files. The
# binary is ./grader, which is why its sources are in src/grader/.

GRADER_SOURCES := $(filter-out src/grader/main.cpp,$(wildcard src/grader/*.cpp))
GRADER_OBJECTS := $(patsubst %.cpp,$(B)/obj/%.o,$(GRADER_SOURCES))
GRADER_LIB     := $(B)/lib/libgrader.a
GRADER_BIN     := grader

$(B)/obj/src/grader/layout.o: PERFLAB_CXXFLAGS += -DPERFLAB_ROOT='"$(CURDIR)"'

$(GRADER_LIB): $(GRADER_OBJECTS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(GRADER_BIN): $(B)/obj/src/grader/main.o $(GRADER_LIB) $(DRIVER_LIB) $(COMMON_LIB)
	$(CXX) $(B)/obj/src/grader/main.o -Wl,--start-group $(GRADER_LIB) $(DRIVER_LIB) $(COMMON_LIB) -Wl,--end-group $(PERFLAB_LDLIBS) -o $@

ALL_TARGETS  += $(GRADER_BIN)
TEST_LIBS    += $(GRADER_LIB)
TEST_PREREQS += $(GRADER_BIN) $(SOLUTIONS_HOST)


# A deployment, flat in one directory: perflab/ holds exactly what find_layout()
# (layout.cpp) and the build's toolkit (build.cpp) look for; beside it the Gradescope
# entry points and the Autolab Makefile. docs/grader.md, "Deploying", says how to ship it.
GRADER_BUNDLE       := $(B)/grader-bundle
GRADER_BUNDLE_FILES := $(GRADER_BIN) $(DRIVER_BIN) reference-host $(HOST_RUNTIME) $(DEFS_DIR)/defs.h \
                       mk/link-host.sh mk/host-exports mk/align-text.sh

.PHONY: grader-bundle
grader-bundle: $(GRADER_BUNDLE_FILES) src/grader/setup.sh src/grader/run_autograder src/grader/autolab.mk.template
	rm -rf $(GRADER_BUNDLE) && mkdir -p $(GRADER_BUNDLE)/perflab
	cp $(GRADER_BUNDLE_FILES) $(GRADER_BUNDLE)/perflab/
	cp src/grader/setup.sh src/grader/run_autograder $(GRADER_BUNDLE)/
	cp src/grader/autolab.mk.template $(GRADER_BUNDLE)/Makefile

TEST_PREREQS += grader-bundle
