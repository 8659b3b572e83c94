# The Catch2 suite: every tests/test_*.cpp links into one binary with the libraries
# the fragments list in TEST_LIBS. Tests that drive the real binaries find them
# through PERFLAB_ROOT, so `make test` first builds everything a user would run.

TEST_SOURCES := $(wildcard tests/test_*.cpp)
TEST_OBJECTS := $(patsubst %.cpp,$(B)/obj/%.o,$(TEST_SOURCES))
TEST_BIN     := $(B)/tests/perflab-tests

$(B)/obj/tests/%.o: PERFLAB_CXXFLAGS += -DPERFLAB_ROOT='"$(CURDIR)"' -Itests

$(TEST_BIN): $(B)/obj/tests/catch_main.o $(TEST_OBJECTS) $(TEST_LIBS)
	@mkdir -p $(dir $@)
	$(CXX) $^ $(PERFLAB_LDLIBS) -ldl -o $@

$(TEST_OBJECTS) $(B)/obj/tests/catch_main.o: | $(B)/.test-deps-ok

.PHONY: test
test: $(B)/.test-deps-ok $(ALL_TARGETS) $(TEST_PREREQS) $(TEST_BIN)
	@mk/run-tests.sh $(TEST_BIN) $(TEST_ARGS)
