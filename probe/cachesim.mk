# ./cachesim (issue 8): the course's cache model run on valgrind lackey traces.
# The simulator, the trace reader and the ELF reader are src/common's (the driver's
# --explain uses them too); the function lookup and the valgrind runner form
# libcachesim.a, which the tests link; cachesim_main.cpp is only the command line.

CACHESIM_LIB_SOURCES := probe/cachesim_elf.cpp probe/cachesim_program.cpp
CACHESIM_LIB         := $(B)/lib/libcachesim.a

$(CACHESIM_LIB): $(patsubst %.cpp,$(B)/obj/%.o,$(CACHESIM_LIB_SOURCES))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# The valgrind runner starts valgrind through src/common's one way of running a program.
cachesim: $(B)/obj/probe/cachesim_main.o $(CACHESIM_LIB) $(COMMON_LIB)
	$(CXX) $^ -lfmt -o $@

# Programs the tests trace: the same sweep built as a PIE (Debian's default) and
# not, so that --function is checked against both ways of loading.
CACHESIM_FIXTURES := $(B)/tests/cachesim-sweep-pie $(B)/tests/cachesim-sweep-nopie

$(B)/tests/cachesim-sweep-pie: tests/fixtures/cachesim/sweep.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fpie -pie $< -o $@

$(B)/tests/cachesim-sweep-nopie: tests/fixtures/cachesim/sweep.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fno-pie -no-pie $< -o $@

.PHONY: bench-cachesim
bench-cachesim: cachesim
	bench/cachesim_bench.sh

ALL_TARGETS   += cachesim
TEST_LIBS     += $(CACHESIM_LIB)
TEST_PREREQS  += $(CACHESIM_FIXTURES)
BENCH_TARGETS += bench-cachesim
