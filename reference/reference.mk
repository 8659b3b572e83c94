# The reference kernels: every variant of rotate and smooth, compiled as C with
# the student's flags into libreference.a for the tests and the timing bench.
# naive.c and speed_of_light.c (the oracle) and solutions.c (the reference
# "student" file) belong to the driver's link, not to this library.

REFERENCE_SOURCES   := $(wildcard reference/rotate_*.c reference/smooth_*.c)
REFERENCE_OBJECTS   := $(patsubst %.c,$(B)/obj/%.o,$(REFERENCE_SOURCES))
REFERENCE_SOLUTIONS := reference/solutions.c
REFERENCE_LIB       := $(B)/lib/libreference.a
# The catalog through which the driver's --explain reaches the reference kernels.
REFERENCE_CATALOG   := $(B)/obj/reference/catalog.o

$(B)/obj/reference/%.o: KCFLAGS += -Ireference
$(REFERENCE_OBJECTS): reference/reference.h kernels/defs.h

$(REFERENCE_LIB): $(REFERENCE_OBJECTS) $(REFERENCE_CATALOG)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

TEST_LIBS += $(REFERENCE_LIB)

# The reference driver: solutions.c plays the student, so every reference variant
# is registered, checked and timed exactly as a hand-in is. `make run` is the
# project's main job: every variant, the speed-of-light rows, one report.
REFERENCE_DRIVER := $(B)/reference-driver

$(B)/obj/reference/solutions.o: $(REFERENCE_SOLUTIONS) reference/reference.h kernels/defs.h

# The core already holds the reference kernels (made local): solutions.c reaches
# them through their names before the core's are hidden, so they are linked twice.
$(REFERENCE_DRIVER): $(B)/obj/reference/solutions.o $(REFERENCE_OBJECTS) $(DRIVER_CORE) mk/link-driver.sh
	KCFLAGS='$(KCFLAGS)' mk/link-driver.sh $@ $(DRIVER_CORE) $(REFERENCE_SOLUTIONS) \
	    $(B)/obj/reference/solutions.o $(REFERENCE_OBJECTS)

.PHONY: run
run: $(REFERENCE_DRIVER)
	$(REFERENCE_DRIVER) --speed-of-light $(RUN_ARGS)

ALL_TARGETS += $(REFERENCE_DRIVER)
