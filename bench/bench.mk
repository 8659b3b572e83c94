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
bench-reference: $(DRIVER_BIN) reference-host $(SOLUTIONS_HOST) $(BENCH_TABLE)
	./$(DRIVER_BIN) --host $(SOLUTIONS_HOST) --speed-of-light --json $(B)/bench.json > $(B)/bench.txt
	$(BENCH_TABLE) $(B)/bench.json

bench-repeatability: $(DRIVER_BIN)
	bench/repeatability.sh ./$(DRIVER_BIN) 10

BENCH_TARGETS := bench-reference bench-repeatability $(BENCH_TARGETS)

# One after another, never in parallel: each measures with the machine to itself.
bench:
	@for target in $(BENCH_TARGETS); do \
	  echo "== $$target"; $(MAKE) --no-print-directory -j1 $$target || exit 1; done

# bench-engine: the two-process engine's CPEs against the one-process measurement it
# replaced, for every reference variant (issue 12's goal: within 5% at dims >= 128,
# 10% at 64). The in-process timer registers reference/solutions.c itself.
ENGINE_COMPARE := $(B)/bench/engine_compare
$(B)/obj/bench/engine_compare.o: PERFLAB_CXXFLAGS += -Ikernels
# The in-process side links the variants' code page-aligned too, as every host does,
# so both sides run each variant from the same places (mk/align-text.sh).
ENGINE_ALIGNED := $(B)/bench/engine-aligned
$(ENGINE_ALIGNED)/solutions.o: $(B)/obj/reference/solutions.o
$(ENGINE_ALIGNED)/libreference.a: $(REFERENCE_LIB)
$(ENGINE_ALIGNED)/solutions.o $(ENGINE_ALIGNED)/libreference.a: mk/align-text.sh
	@mkdir -p $(@D)
	mk/align-text.sh $(filter-out mk/align-text.sh,$^) $@
$(ENGINE_COMPARE): $(B)/obj/bench/engine_compare.o $(ENGINE_ALIGNED)/solutions.o $(ENGINE_ALIGNED)/libreference.a \
                   $(DRIVER_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CXX) $(filter %.o %.a,$^) $(PERFLAB_LDLIBS) -o $@

# To look into one figure: make bench-engine ENGINE_DIMS=256 ENGINE_VARIANT='rotate: AVX-512'
# (the variants whose description holds that text; the dims without touching LAB_DIMS,
# which the driver is built with).
ENGINE_DIMS ?= $(LAB_DIMS)
.PHONY: bench-engine
bench-engine: $(DRIVER_BIN) reference-host $(SOLUTIONS_HOST) $(ENGINE_COMPARE)
	$(ENGINE_COMPARE) ./$(DRIVER_BIN) $(SOLUTIONS_HOST) $(subst $(eval) ,$(comma),$(strip $(ENGINE_DIMS))) \
	    $(if $(ENGINE_VARIANT),'$(ENGINE_VARIANT)')

BENCH_TARGETS += bench-engine

# bench-fairness: issue 13's goals (bench/fairness.cpp says which). Every corpus file
# gets its own kernel host here, linked as ./kernel-host is, so one driver times them
# all and ./kernel-host stays the student's.
FAIRNESS        := $(B)/bench/fairness
BENCH_HOSTS     := $(B)/bench/hosts
CORPUS          := $(sort $(wildcard bench/corpus/*.c))
CORPUS_HOSTS    := $(patsubst bench/corpus/%.c,$(BENCH_HOSTS)/%,$(CORPUS))
BLOCKED_KERNELS := $(firstword $(wildcard bench/corpus/05_*.c))

$(FAIRNESS): $(B)/obj/bench/fairness.o $(DRIVER_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CXX) $^ $(PERFLAB_LDLIBS) -o $@

define link_bench_host
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -Ikernels -I$(dir $<) -c $< -o $@.o
	KCFLAGS='$(KCFLAGS)' mk/link-host.sh $@ $(HOST_RUNTIME) $< $@.o
endef
$(BENCH_HOSTS)/%: bench/corpus/%.c kernels/defs.h $(HOST_RUNTIME) $(LINK_HOST)
	$(link_bench_host)
$(BENCH_HOSTS)/stock: kernels/kernels.c kernels/defs.h $(HOST_RUNTIME) $(LINK_HOST)
	$(link_bench_host)

.PHONY: bench-fairness
bench-fairness: $(DRIVER_BIN) reference-host $(GRADER_BIN) $(FAIRNESS) $(BENCH_HOSTS)/stock $(CORPUS_HOSTS)
	$(FAIRNESS) ./$(DRIVER_BIN) ./$(GRADER_BIN) $(B)/bench/fairness-run $(BENCH_HOSTS)/stock \
	  $(BENCH_HOSTS)/$(basename $(notdir $(BLOCKED_KERNELS))) $(BLOCKED_KERNELS) $(CORPUS_HOSTS)

BENCH_TARGETS += bench-fairness

# bench-model: issue 45's goals for the machine model (bench/model_bench.cpp says which),
# over the same corpus hosts and the driver's reference host.
MODEL_BENCH := $(B)/bench/model_bench

$(MODEL_BENCH): $(B)/obj/bench/model_bench.o $(DRIVER_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CXX) $^ $(PERFLAB_LDLIBS) -o $@

.PHONY: bench-model
bench-model: $(DRIVER_BIN) $(GRADER_BIN) reference-host $(MODEL_BENCH) $(BENCH_HOSTS)/stock $(CORPUS_HOSTS)
	$(MODEL_BENCH) ./$(DRIVER_BIN) ./$(GRADER_BIN) ./reference-host $(B)/bench/model-run $(BLOCKED_KERNELS) \
	  $(BENCH_HOSTS)/stock $(CORPUS_HOSTS)

BENCH_TARGETS += bench-model

# Built, never run, by make test: a change to the code they share then breaks the
# test build, not the next `make bench` (engine_compare once stopped compiling unseen).
TEST_PREREQS += $(BENCH_TABLE) $(ENGINE_COMPARE) $(FAIRNESS) $(MODEL_BENCH)
