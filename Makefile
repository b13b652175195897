# meshpipe: build, test, demo and benchmark the toolchain.
# Plain make: programs are tools/<name>.c, the library is lib/*.c, unit
# tests are tests/unit/<name>.c, program tests are tests/<name>.bats.

VERSION = 0.1.0
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/meshpipe
DESTDIR ?=

CC ?= cc
CFLAGS ?= -O2 -g
WARN = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
       -Wvla -Wformat=2 -Wwrite-strings -Wundef
ifneq ($(WERROR),)
WARN += -Werror
endif
SANITIZE ?=
ifneq ($(SANITIZE),)
SANFLAGS = -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
ALL_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
	$(CFLAGS) $(WARN) $(SANFLAGS) -Ilib -MMD -MP -DMP_VERSION='"$(VERSION)"'
ALL_LDFLAGS = $(LDFLAGS) $(SANFLAGS)
LDLIBS = -lzstd -lcsv -lm

LIB_SRC = $(sort $(wildcard lib/*.c))
LIB_OBJ = $(LIB_SRC:.c=.o)
LIB = lib/libmeshpipe.a
PROG_SRC = $(sort $(wildcard tools/*.c))
PROGS = $(PROG_SRC:.c=)
UNIT_SRC = $(sort $(wildcard tests/unit/*.c))
UNITS = $(UNIT_SRC:.c=)
MANS = $(sort $(wildcard man/*.[1-9]))

# Debian packages the build, the tests and the pipelines need.
DEB_PKGS = libzstd-dev libcsv-dev bats gnuplot-nox zstd bzip2

# mptrace (tools/mptrace/): the launcher, a program like the others, and
# the PMPI library it preloads, built with mpicc (CC as its compiler)
# against OTF2 when both are installed (make deps installs openmpi-bin,
# libopenmpi-dev, libotf2-trace-dev, otf2-tools and gfortran when it
# can); without them only the launcher is built, and it says so. The
# library is never built with AddressSanitizer: it is preloaded into
# programs (mpirun, the ranks) that are not.
MPICC ?= mpicc
MPIFC ?= mpif90
HAVE_MPI := $(shell command -v $(MPICC) >/dev/null 2>&1 && command -v otf2-config >/dev/null 2>&1 && echo yes)
HAVE_MPIFC := $(shell $(MPIFC) --version >/dev/null 2>&1 && echo yes)
LIBDIR ?= $(PREFIX)/lib
MPTRACE = tools/mptrace/mptrace
MPT_SRC = $(sort $(wildcard tools/mptrace/mpt_*.c))
MPT_OBJ = $(MPT_SRC:.c=.o)
MPT_LIB = tools/mptrace/libmptrace.so
MPT_SAN = $(if $(findstring undefined,$(SANITIZE)),-fsanitize=undefined -fno-sanitize-recover=all)
MPT_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(CFLAGS) $(WARN) \
	$(MPT_SAN) -fPIC -MMD -MP -DMP_VERSION='"$(VERSION)"' $(filter-out -I/usr/include,$(shell otf2-config --cflags 2>/dev/null))
MPT_LIBS = $(shell otf2-config --ldflags 2>/dev/null) -lotf2 -lpthread
# The MPI programs of the tests (tests/mpi/).
MPI_TESTS = tests/mpi/stencil $(if $(HAVE_MPIFC),tests/mpi/fring tests/mpi/fring08)

all: $(PROGS) $(MPTRACE) $(if $(HAVE_MPI),$(MPT_LIB))

# Rebuild everything when the compiler flags change (e.g. SANITIZE=...).
lib/.cflags: FORCE
	@echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS)' | cmp -s - $@ || \
		echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS)' > $@

lib/%.o: lib/%.c lib/.cflags
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(LIB): $(LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $(LIB_OBJ)

tools/%: tools/%.c $(LIB) lib/.cflags
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

tests/unit/%: tests/unit/%.c $(LIB) lib/.cflags
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(MPTRACE): tools/mptrace/mptrace.c $(LIB) lib/.cflags
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(LDLIBS) -ldl

tools/mptrace/mpt_%.o: tools/mptrace/mpt_%.c lib/.cflags
	OMPI_CC=$(CC) MPICH_CC=$(CC) $(MPICC) $(MPT_CFLAGS) -c -o $@ $<

$(MPT_LIB): $(MPT_OBJ)
	OMPI_CC=$(CC) MPICH_CC=$(CC) $(MPICC) -shared $(MPT_SAN) -o $@ $(MPT_OBJ) $(MPT_LIBS)

tests/mpi/stencil: tests/mpi/stencil.c lib/.cflags
	OMPI_CC=$(CC) MPICH_CC=$(CC) $(MPICC) -std=c11 -D_POSIX_C_SOURCE=200809L $(CFLAGS) $(WARN) -o $@ $<

tests/mpi/%: tests/mpi/%.f90
	$(MPIFC) -O2 -o $@ $<

# The MPI test programs, when MPI is installed.
mpi-tests: $(if $(HAVE_MPI),$(MPI_TESTS))

# The end of a recipe that installs the Debian packages listed in the
# shell variable missing (needs root and apt-get).
apt_install = if [ -n "$$missing" ]; then \
		echo "make: installing$$missing"; \
		if [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then \
			echo "make: need root and apt-get to install:$$missing" >&2; exit 1; \
		fi; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get update -q >/dev/null && apt-get install -y -q $$missing >/dev/null || exit 1; \
	fi

# Install missing Debian packages.
deps:
	@missing=; \
	test -f /usr/include/zstd.h || missing="$$missing libzstd-dev"; \
	test -f /usr/include/csv.h || missing="$$missing libcsv-dev"; \
	command -v bats >/dev/null 2>&1 || missing="$$missing bats"; \
	command -v gnuplot >/dev/null 2>&1 || missing="$$missing gnuplot-nox"; \
	command -v zstd >/dev/null 2>&1 || missing="$$missing zstd"; \
	command -v bzip2 >/dev/null 2>&1 || missing="$$missing bzip2"; \
	$(apt_install)
	@missing=; \
	command -v mpicc >/dev/null 2>&1 || missing="$$missing libopenmpi-dev"; \
	command -v mpirun >/dev/null 2>&1 || missing="$$missing openmpi-bin"; \
	command -v otf2-config >/dev/null 2>&1 || missing="$$missing libotf2-trace-dev"; \
	command -v otf2-print >/dev/null 2>&1 || missing="$$missing otf2-tools"; \
	command -v gfortran >/dev/null 2>&1 || missing="$$missing gfortran"; \
	if [ -n "$$missing" ] && { [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; }; then \
		echo "make: not installed:$$missing (needs root and apt-get); mptrace is built without them as far as it can be, and its tests skip"; \
	else \
		$(apt_install); \
	fi

check: deps
	@$(MAKE) --no-print-directory all units mpi-tests
	@sh tests/run.sh

units: $(UNITS)

# Build everything with clang and warnings as errors (installing clang
# when it is missing), then run the unit tests.
check-clang:
	@missing=; command -v clang >/dev/null 2>&1 || missing=" clang"; \
	$(apt_install)
	@$(MAKE) --no-print-directory CC=clang WERROR=1 all units mpi-tests
	@for u in $(UNITS); do \
		./$$u >/dev/null || { echo "check-clang: $$u failed" >&2; exit 1; }; \
	done; echo "check-clang: built with clang -Werror, $(words $(UNITS)) unit tests passed"

demo: deps
	@$(MAKE) --no-print-directory all
	@sh pipelines/demo.sh

# GNU time and valgrind measure the benchmarks.
bench-deps: deps
	@missing=; \
	test -x /usr/bin/time || missing="$$missing time"; \
	command -v valgrind >/dev/null 2>&1 || missing="$$missing valgrind"; \
	$(apt_install)

bench: bench-deps
	@$(MAKE) --no-print-directory all mpi-tests
	@sh pipelines/bench/bench.sh

# Fuzz the decoders for FUZZ_SECONDS each (tests/fuzz/); not part of check.
FUZZ_SECONDS ?= 60
fuzz: deps
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS)

# Do lstat's confidence intervals cover? 40 seeds of one PO2 point
# (pipelines/cicover.sh); not part of check.
cicover: all
	@sh pipelines/cicover.sh

# The figures the studies' READMEs quote (pipelines/po2, pipelines/fedx,
# pipelines/damq), rewritten from their finished sweeps;
# readme-figures-check fails when a README says what the results do not.
# None runs a sweep (see pipelines/README.md).
readme-figures: all
	@$(MAKE) --no-print-directory -C pipelines/po2 readme
	@$(MAKE) --no-print-directory -C pipelines/fedx readme
	@$(MAKE) --no-print-directory -C pipelines/damq readme

readme-figures-check: all
	@$(MAKE) --no-print-directory -C pipelines/po2 readme-check
	@$(MAKE) --no-print-directory -C pipelines/fedx readme-check
	@$(MAKE) --no-print-directory -C pipelines/damq readme-check

# A long run near saturation: memory stays flat, nothing is lost.
soak: deps
	@$(MAKE) --no-print-directory all
	@sh tests/soak.sh

# The sample traces the manual pages name go to $(DATADIR)/traces.
TRACES = traces/README.md traces/sample.csv traces/netrace/README \
	traces/netrace/example.tra.bz2

install: all
	@$(MAKE) --no-print-directory install-files

# What install copies, without building first (tests/install.bats).
install-files:
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7
	mkdir -p $(DESTDIR)$(DATADIR)/traces/netrace
	for p in $(PROGS); do install -m 755 $$p $(DESTDIR)$(BINDIR)/; done
	install -m 755 $(MPTRACE) $(DESTDIR)$(BINDIR)/
	if [ -f $(MPT_LIB) ]; then mkdir -p $(DESTDIR)$(LIBDIR)/meshpipe && \
		install -m 755 $(MPT_LIB) $(DESTDIR)$(LIBDIR)/meshpipe/; fi
	for m in $(MANS); do s=$${m##*.}; install -m 644 $$m $(DESTDIR)$(MANDIR)/man$$s/; done
	for t in $(TRACES); do install -m 644 $$t $(DESTDIR)$(DATADIR)/$$t; done

# Remove what install put there (the same PREFIX and DESTDIR).
uninstall:
	for p in $(PROGS) $(MPTRACE); do rm -f $(DESTDIR)$(BINDIR)/$${p##*/}; done
	rm -f $(DESTDIR)$(LIBDIR)/meshpipe/libmptrace.so
	-rmdir $(DESTDIR)$(LIBDIR)/meshpipe 2>/dev/null
	for m in $(MANS); do s=$${m##*.}; rm -f $(DESTDIR)$(MANDIR)/man$$s/$${m##*/}; done
	for t in $(TRACES); do rm -f $(DESTDIR)$(DATADIR)/$$t; done
	-rmdir $(DESTDIR)$(DATADIR)/traces/netrace $(DESTDIR)$(DATADIR)/traces $(DESTDIR)$(DATADIR) 2>/dev/null

clean:
	rm -f lib/*.o lib/*.d $(LIB) lib/.cflags $(PROGS) tools/*.d $(UNITS) tests/unit/*.d
	rm -f $(MPTRACE) $(MPT_LIB) tools/mptrace/*.o tools/mptrace/*.d tests/mpi/stencil \
		tests/mpi/fring tests/mpi/fring08 tests/mpi/*.mod
	rm -rf tests/tmp

.PHONY: all check check-clang units mpi-tests demo bench bench-deps cicover readme-figures readme-figures-check fuzz soak install install-files uninstall clean deps FORCE
.SECONDARY: $(LIB_OBJ)

-include $(LIB_SRC:.c=.d) $(PROG_SRC:.c=.d) $(UNIT_SRC:.c=.d) $(MPT_SRC:.c=.d) tools/mptrace/mptrace.d
