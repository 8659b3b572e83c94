# The driver: C++ sources in src/driver/, the oracle and the speed-of-light kernel from
# reference/, linked with one student kernels file by mk/link-driver.sh, which makes
# every symbol but main and the two add_*_function calls local.

DRIVER_MAIN_SOURCES := src/driver/main.cpp src/driver/student.cpp
DRIVER_LIB_SOURCES  := $(filter-out $(DRIVER_MAIN_SOURCES),$(wildcard src/driver/*.cpp))
DRIVER_LIB_OBJECTS  := $(patsubst %.cpp,$(B)/obj/%.o,$(DRIVER_LIB_SOURCES)) \
                       $(B)/obj/reference/naive.o $(B)/obj/reference/speed_of_light.o
DRIVER_LIB          := $(B)/lib/libperflab.a
DRIVER_CORE         := $(B)/driver-core.o

$(DRIVER_LIB): $(DRIVER_LIB_OBJECTS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# Everything of the driver but the student's file, in one relocatable object whose
# only global definitions are main and the two add_*_function calls.
# The repository's driver includes the reference kernels for --explain's comparisons
# (defined by reference/reference.mk, which is read later: hence $$).
.SECONDEXPANSION:
$(DRIVER_CORE): $(patsubst %.cpp,$(B)/obj/%.o,$(DRIVER_MAIN_SOURCES)) $(DRIVER_LIB_OBJECTS) \
                $$(REFERENCE_OBJECTS) $$(REFERENCE_CATALOG) mk/driver-exports
	ld -r $(filter %.o,$^) -o $@.merged
	objcopy --keep-global-symbols=mk/driver-exports $@.merged $@
	rm -f $@.merged

# The student's file, compiled exactly as the classic handout did. The path is
# remembered so that `make KERNELS=other.c` rebuilds even when other.c is older.
$(B)/kernels-path: FORCE
	@mkdir -p $(B)
	@echo '$(abspath $(KERNELS))' | cmp -s - $@ || echo '$(abspath $(KERNELS))' > $@

$(B)/obj/student/kernels.o: $(KERNELS) kernels/defs.h $(B)/kernels-path | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -Ikernels -I$(dir $(KERNELS)) -c $(KERNELS) -o $@

# The student-facing binary, where students expect it. (It is why the C++ sources
# live in src/driver/: a directory cannot share the name.)
DRIVER_BIN := driver

$(DRIVER_BIN): $(B)/obj/student/kernels.o $(DRIVER_CORE) mk/link-driver.sh
	KCFLAGS='$(KCFLAGS)' mk/link-driver.sh $@ $(DRIVER_CORE) $(KERNELS) $(B)/obj/student/kernels.o

.PHONY: FORCE
FORCE:

ALL_TARGETS += $(DRIVER_BIN)
TEST_LIBS   += $(DRIVER_LIB)
