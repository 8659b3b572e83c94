# The Catch2 suite: every tests/test_*.cpp links into one binary with the libraries
# the fragments list in TEST_LIBS. Tests that drive the real binaries find them
# through PERFLAB_ROOT, so `make test` first builds everything a user would run.

TEST_SOURCES := $(wildcard tests/test_*.cpp)
TEST_OBJECTS := $(patsubst %.cpp,$(B)/obj/%.o,$(TEST_SOURCES))
TEST_BIN     := $(B)/tests/perflab-tests

$(B)/obj/tests/%.o: PERFLAB_CXXFLAGS += -DPERFLAB_ROOT='"$(CURDIR)"' -Itests

TEST_SUPPORT := $(B)/obj/tests/catch_main.o $(B)/obj/tests/harness.o $(B)/obj/tests/json_schema.o

# The libraries as one group: they call each other (probe -> driver) in any order.
$(TEST_BIN): $(TEST_SUPPORT) $(TEST_OBJECTS) $(TEST_LIBS)
	@mkdir -p $(dir $@)
	$(CXX) $(TEST_SUPPORT) $(TEST_OBJECTS) -Wl,--start-group $(TEST_LIBS) -Wl,--end-group $(PERFLAB_LDLIBS) -ldl -o $@

$(TEST_OBJECTS) $(TEST_SUPPORT): | $(B)/.test-deps-ok

# Tests link fixture kernels files against the driver core, as make does.
TEST_PREREQS += $(HOST_RUNTIME)

.PHONY: test
test: $(B)/.test-deps-ok $(ALL_TARGETS) $(TEST_PREREQS) $(TEST_BIN)
	@mk/run-tests.sh $(TEST_BIN) $(TEST_ARGS)
