# cacheprobe and mountain: the memory hierarchy measured (docs/probe.md). Their
# measuring code is libprobe.a, which the tests link too; each binary adds its main.

PROBE_LIB_SOURCES := probe/huge_buffer.cpp probe/latency.cpp \
                     probe/line_size.cpp probe/knees.cpp \
                     probe/hierarchy.cpp probe/mountain.cpp
PROBE_LIB := $(B)/lib/libprobe.a

$(PROBE_LIB): $(patsubst %.cpp,$(B)/obj/%.o,$(PROBE_LIB_SOURCES))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# With what they share with the driver (src/common): the clock, pinning, machine facts, K-best.
cacheprobe mountain: %: $(B)/obj/probe/%_main.o $(PROBE_LIB) $(COMMON_LIB)
	$(CXX) $^ $(PERFLAB_LDLIBS) -o $@

# The mountain at full size, for the course's plots.
.PHONY: bench-mountain
bench-mountain: mountain
	./mountain

ALL_TARGETS   += cacheprobe mountain
BENCH_TARGETS += bench-mountain
TEST_LIBS     += $(PROBE_LIB)
