# make bench: the speed goals, measured in one run each and reported as ratios, so
# they hold on any machine. Never part of make test: timings are not asserted.
#   bench-reference      every reference variant vs naive and vs memcpy (build/bench.json)
#   bench-repeatability  CV of ten back-to-back `./driver -t -g` runs (goal <= 2%)
# plus what other fragments add to BENCH_TARGETS (cachesim speed, mountain, ...).

BENCH_TABLE := $(B)/bench/bench_table

$(BENCH_TABLE): $(B)/obj/bench/bench_table.o
	@mkdir -p $(dir $@)
	$(CXX) $^ -lfmt -o $@

.PHONY: bench bench-reference bench-repeatability
# $$: the reference driver and the other fragments' targets are defined later.
bench-reference: $(DRIVER_BIN) reference-host $$(SOLUTIONS_HOST) $(BENCH_TABLE)
	./$(DRIVER_BIN) --host $(SOLUTIONS_HOST) --speed-of-light --json $(B)/bench.json > $(B)/bench.txt
	$(BENCH_TABLE) $(B)/bench.json

bench-repeatability: $(DRIVER_BIN)
	bench/repeatability.sh ./$(DRIVER_BIN) 10

BENCH_TARGETS := bench-reference bench-repeatability $(BENCH_TARGETS)

# One after another, never in parallel: each measures with the machine to itself.
bench:
	@for target in $(BENCH_TARGETS); do \
	  echo "== $$target"; $(MAKE) --no-print-directory -j1 $$target || exit 1; done
