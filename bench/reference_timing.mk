# The reference kernels' own timer (bench/reference_timing.c), pinned to one core.
# `make bench-reference-timing` runs it at the lab's dims (LAB_DIMS in mk/lab.mk).

REFERENCE_TIMING := $(B)/bench/reference_timing

$(REFERENCE_TIMING): $(B)/obj/bench/reference_timing.o $(REFERENCE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $^ -o $@

.PHONY: bench-reference-timing
bench-reference-timing: $(REFERENCE_TIMING)
	taskset -c 1 $(REFERENCE_TIMING) $(LAB_DIMS)

BENCH_TARGETS += bench-reference-timing
TEST_PREREQS += $(REFERENCE_TIMING)  # built by make test, as bench/bench.mk says why
