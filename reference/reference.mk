# The reference kernels: every variant of rotate and smooth, compiled as C with
# the student's flags into libreference.a for the tests and the timing bench.
# naive.c and speed_of_light.c (the oracle) and solutions.c (the reference
# "student" file) belong to the driver's link, not to this library.

REFERENCE_SOURCES   := $(wildcard reference/rotate_*.c reference/smooth_*.c)
REFERENCE_OBJECTS   := $(patsubst %.c,$(B)/obj/%.o,$(REFERENCE_SOURCES))
REFERENCE_SOLUTIONS := reference/solutions.c
REFERENCE_LIB       := $(B)/lib/libreference.a

$(B)/obj/reference/%.o: KCFLAGS += -Ireference
$(REFERENCE_OBJECTS): reference/reference.h kernels/defs.h

$(REFERENCE_LIB): $(REFERENCE_OBJECTS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

TEST_LIBS += $(REFERENCE_LIB)
