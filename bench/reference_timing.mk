# The reference kernels' own timer (bench/reference_timing.c), pinned to one core.
# `make bench-reference-timing` runs it at the default dims. The library is named
# literally: bench/ is included before reference/reference.mk defines REFERENCE_LIB.

REFERENCE_TIMING := $(B)/bench/reference_timing

$(REFERENCE_TIMING): $(B)/obj/bench/reference_timing.o $(B)/lib/libreference.a
	@mkdir -p $(dir $@)
	$(CC) $^ -o $@

$(B)/obj/bench/reference_timing.o: KCFLAGS += -Ireference

.PHONY: bench-reference-timing
bench-reference-timing: $(REFERENCE_TIMING)
	taskset -c 1 $(REFERENCE_TIMING)

BENCH_TARGETS += bench-reference-timing
