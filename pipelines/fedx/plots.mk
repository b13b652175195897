# plots.mk: the plot step shared by the Fed-X sweeps, included after
# ../../sweep.mk. The study's plot.gp draws its figures from results.csv
# into out/plots/; PLOT_EACH (for example the workloads) runs it once per
# value, given to gnuplot as the variable wl.

all: $(OUT)/plots/.done

$(OUT)/plots/.done: $(OUT)/results.csv plot.gp
	@mkdir -p $(@D)
	$(Q)for wl in $(or $(PLOT_EACH),-); do \
		gnuplot -e "data='$<'; dir='$(@D)'; wl='$$wl'" plot.gp || exit 1; \
	done
	@touch $@
	@echo "$(@D): plots"

.PHONY: all
.DEFAULT_GOAL := all
