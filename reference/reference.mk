# The reference kernels: every variant of rotate and smooth, compiled as C with
# the student's flags into libreference.a for the tests and the timing bench, and
# into the reference host (src/driver/driver.mk). naive.c and speed_of_light.c
# are the oracle and the memcpy; solutions.c is the reference "student" file.

REFERENCE_SOURCES   := $(wildcard reference/rotate_*.c reference/smooth_*.c)
REFERENCE_OBJECTS   := $(patsubst %.c,$(B)/obj/%.o,$(REFERENCE_SOURCES))
REFERENCE_SOLUTIONS := reference/solutions.c
REFERENCE_LIB       := $(B)/lib/libreference.a

$(REFERENCE_OBJECTS): reference/reference.h kernels/defs.h

$(REFERENCE_LIB): $(REFERENCE_OBJECTS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

TEST_LIBS += $(REFERENCE_LIB)

# The reference host (src/driver/driver.mk) registers every reference variant beside
# the driver's own functions.
$(B)/obj/reference/reference_registration.o: KCFLAGS += -Isrc/host
reference-host: $(B)/obj/reference/reference_registration.o $(REFERENCE_OBJECTS)

# The solutions host: solutions.c plays the student, so every reference variant is
# registered, checked and timed exactly as a hand-in is. `make run` is the
# project's main job: every variant, the speed-of-light rows, one report.
SOLUTIONS_HOST := $(B)/solutions-host

$(B)/obj/reference/solutions.o: $(REFERENCE_SOLUTIONS) reference/reference.h reference/variants.def kernels/defs.h

$(SOLUTIONS_HOST): $(B)/obj/reference/solutions.o $(REFERENCE_OBJECTS) $(HOST_RUNTIME) $(LINK_HOST)
	KCFLAGS='$(KCFLAGS)' mk/link-host.sh $@ $(HOST_RUNTIME) $(REFERENCE_SOLUTIONS) \
	    $(B)/obj/reference/solutions.o $(REFERENCE_OBJECTS)

.PHONY: run
run: $(DRIVER_BIN) reference-host $(SOLUTIONS_HOST)
	./$(DRIVER_BIN) --host $(SOLUTIONS_HOST) --speed-of-light --html $(B)/report.html $(RUN_ARGS)
	@echo "The report page: $(B)/report.html (open file://$(CURDIR)/$(B)/report.html in a browser)"

ALL_TARGETS += $(SOLUTIONS_HOST)
