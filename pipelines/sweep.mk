# sweep.mk: the machinery shared by every study under pipelines/.
#
# A study's Makefile sets its axes and stage commands, then includes this
# file, which expands the axes into points (their cartesian product),
# gives every point its own cached files, and gathers one CSV of results:
#
#   AXES      := workload route load seed      axis names, in order
#   workload  := uniform long10                one line per axis: its values
#   ...
#   MSG_KEYS  := workload load seed            axes the message stream uses
#   DLV_KEYS  := workload route load seed      axes the deliveries use
#   msg_cmd    = wlgen ...                     writes a message stream to stdout
#   dlv_cmd    = sched ... $< | netrun ...     reads $< (messages), writes deliveries
#   stat_cmd   = lstat --csv ... $<            reads $< (deliveries), writes CSV
#
# Inside the commands, $(workload) etc. are the point's values. Values
# must not contain spaces, '/', '_' or '='. Any axis can be overridden
# from the command line (make load=0.55) to run other points.
#
# Files: $(OUT)/msg/<ids>.mps, $(OUT)/dlv/<ids>.mps, $(OUT)/stat/<ids>.csv
# (ids: the point's values joined by '_'), $(OUT)/results.csv. Every file
# is written to a temporary name and renamed when complete, so an
# interrupted or failed run never leaves a file make would take as done.
#
# LAUNCH selects how points run: local (default; use make -j), slurm (the
# points go to a Slurm cluster as one job array, batched SLURM_BATCH points
# to a task; options SLURM_PARTITION, SLURM_TIME, SLURM_CPUS, SLURM_ARGS),
# or any launcher in pipelines/launch-<name>.sh. The files are the same
# whichever ran them. See pipelines/README.md.
#
# Each stage prints one line ("po2: dlv uniform_best_0.50_1"); V=1 prints
# the commands instead.

SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
.DELETE_ON_ERROR:

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
export PATH := $(TOP)/tools:$(PATH)
OUT ?= out
LAUNCH ?= local
V ?= 0
Q := $(if $(filter 0,$(V)),@)
sweep_say = $(if $(Q),@echo '$(notdir $(CURDIR)): $(1) $(basename $(@F))')

empty :=
space := $(empty) $(empty)
comma := ,

# Cartesian product of the axes: "a=1/b=2/.../." per point.
sweep_cross = $(if $(1),$(foreach v,$($(firstword $(1))),$(addprefix \
	$(firstword $(1))=$(v)/,$(call sweep_cross,$(wordlist 2,99,$(1))))),.)
POINTS := $(patsubst %/.,%,$(call sweep_cross,$(AXES)))
# Value of axis $(2) in point $(1); id of point $(1) over axes $(2).
sweep_val = $(patsubst $(2)=%,%,$(filter $(2)=%,$(subst /, ,$(1))))
sweep_id = $(subst $(space),_,$(foreach k,$(2),$(call sweep_val,$(1),$(k))))

STAT_KEYS := $(AXES)
MSG_FILE = $(OUT)/msg/$(call sweep_id,$(1),$(MSG_KEYS)).mps
DLV_FILE = $(OUT)/dlv/$(call sweep_id,$(1),$(DLV_KEYS)).mps
STAT_FILE = $(OUT)/stat/$(call sweep_id,$(1),$(STAT_KEYS)).csv
STATS := $(foreach p,$(POINTS),$(call STAT_FILE,$(p)))

# Per point: the files it needs, and its axis values as target variables
# (override: an axis given on the command line with several values must
# not replace the point's own value inside its commands).
define sweep_point
$(call STAT_FILE,$(1)): $(call DLV_FILE,$(1))
$(call DLV_FILE,$(1)): $(call MSG_FILE,$(1))
$(foreach k,$(AXES),$(call STAT_FILE,$(1)): override $(k) := $(call sweep_val,$(1),$(k))
$(call DLV_FILE,$(1)): override $(k) := $(call sweep_val,$(1),$(k))
$(call MSG_FILE,$(1)): override $(k) := $(call sweep_val,$(1),$(k))
)
endef
$(foreach p,$(POINTS),$(eval $(call sweep_point,$(p))))

# Runs a stage command for target $@ through the launcher:
# $(RUN) TARGET 'COMMAND' PREREQUISITES...
RUN = $(TOP)/pipelines/launch-$(LAUNCH).sh

# A launcher other than local is first called once, as $(RUN) --batch
# (sweep-launch, before any stage file), to make every stage file the goals
# need in one go, e.g. as one Slurm job array running `make LAUNCH=local`
# on groups of points; the stage recipes then only check that their file
# was made. It reads its options from the environment, and asks make
# (make -n SWEEP_LIST=1) which files are out of date and what each point's
# files are.
ifneq ($(LAUNCH),local)
SWEEP_FIRST := sweep-launch
SWEEP_MAKE = $(MAKE)
export SLURM_PARTITION SLURM_TIME SLURM_BATCH SLURM_CPUS SLURM_ARGS
sweep-launch:
	@SWEEP_MAKE='$(SWEEP_MAKE)' SWEEP_DIR='$(CURDIR)' \
	SWEEP_MAKEFILE='$(abspath $(firstword $(MAKEFILE_LIST)))' \
	SWEEP_GOALS='$(MAKECMDGOALS)' SWEEP_OUT='$(abspath $(OUT))' $(RUN) --batch
.PHONY: sweep-launch
endif
ifneq ($(SWEEP_LIST),)
$(foreach p,$(POINTS),$(info sweep-point $(call STAT_FILE,$(p)) $(call DLV_FILE,$(p)) $(call MSG_FILE,$(p))))
endif

$(OUT)/msg/%.mps: | $(SWEEP_FIRST)
	@mkdir -p $(@D)
	$(call sweep_say,msg)
	$(Q)$(RUN) $@ '$(msg_cmd)' $^

$(OUT)/dlv/%.mps: | $(SWEEP_FIRST)
	@mkdir -p $(@D)
	$(call sweep_say,dlv)
	$(Q)$(RUN) $@ '$(dlv_cmd)' $^

# One CSV row per lstat group, prefixed with the point's axis values.
$(OUT)/stat/%.csv: | $(SWEEP_FIRST)
	@mkdir -p $(@D)
	$(call sweep_say,stat)
	$(Q)$(RUN) $@ '$(stat_cmd) | awk -v pre="$(subst $(space),$(comma),$(foreach k,$(AXES),$($(k))))" -v hdr="$(subst $(space),$(comma),$(AXES))" '\''{ print (NR == 1 ? hdr : pre) "," $$0 }'\''' $^

# The list of points, rewritten (while make reads this file) only when it
# changes: results.csv depends on it, so adding or removing a point (an
# edited axis, or one set on the command line) remakes it even when no
# stat file is newer than it.
SWEEP_POINTS_FILE := $(OUT)/.points
$(shell mkdir -p $(OUT))
ifneq ($(file < $(SWEEP_POINTS_FILE)),$(POINTS))
$(file > $(SWEEP_POINTS_FILE),$(POINTS))
endif

# All points, in the order of the axes (not of completion), so the
# result does not depend on -j.
$(OUT)/results.csv: $(STATS) $(SWEEP_POINTS_FILE)
	@mkdir -p $(@D)
	@{ head -n 1 $(firstword $(STATS)); for f in $(STATS); do tail -n +2 $$f; done; } > $@.tmp
	@mv $@.tmp $@
	@echo "$@: $(words $(STATS)) points"

sweep-clean:
	rm -rf $(OUT)

sweep-points:
	@$(foreach p,$(POINTS),echo '$(p)';)

.PHONY: sweep-clean sweep-points
