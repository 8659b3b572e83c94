# The batch grader: grader/*.cpp in libgrader.a (unit-tested) plus main.cpp,
# linked with the driver library for scoring, baselines and atomic files.
# The binary goes to build/grader while grader/ holds the sources: a file
# ./grader cannot sit beside the directory (see the lead's move to src/).

GRADER_SOURCES := $(filter-out grader/main.cpp,$(wildcard grader/*.cpp))
GRADER_OBJECTS := $(patsubst %.cpp,$(B)/obj/%.o,$(GRADER_SOURCES))
GRADER_LIB     := $(B)/lib/libgrader.a
GRADER_BIN     := $(B)/grader

$(B)/obj/grader/layout.o: PERFLAB_CXXFLAGS += -DPERFLAB_ROOT='"$(CURDIR)"'

$(GRADER_LIB): $(GRADER_OBJECTS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(GRADER_BIN): $(B)/obj/grader/main.o $(GRADER_LIB) $(DRIVER_LIB)
	$(CXX) $(B)/obj/grader/main.o -Wl,--start-group $(GRADER_LIB) $(DRIVER_LIB) -Wl,--end-group $(PERFLAB_LDLIBS) -o $@

.PHONY: grader
grader: $(GRADER_BIN)

ALL_TARGETS  += $(GRADER_BIN)
TEST_LIBS    += $(GRADER_LIB)
TEST_PREREQS += $(GRADER_BIN) $(REFERENCE_DRIVER)

# The grader's tests include its headers by bare name, like the driver's.
$(B)/obj/tests/test_grader.o: PERFLAB_CXXFLAGS += -Igrader
