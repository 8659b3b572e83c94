# The sources make writes in the repository (the handout ships them as written):
# the lab's settings for C++, and the HTML pages' assets as C++ string constants.

$(LAB_HEADER): mk/lab.mk
	@mkdir -p $(@D)
	@{ echo '// Written by make from mk/lab.mk: edit that file, not this one.'; \
	   echo '#pragma once'; \
	   echo 'namespace perflab {'; \
	   echo 'inline constexpr const char* kLabKcflags = "$(LAB_KCFLAGS)";'; \
	   echo 'inline constexpr int kLabDims[] = {$(subst $(eval) ,$(comma) ,$(strip $(LAB_DIMS)))};'; \
	   echo '}  // namespace perflab'; } > $@.tmp && mv $@.tmp $@
comma := ,

# The HTML pages inline Chart.js (Debian's libjs-chart.js) and their own view
# scripts and styles, so a page read from a file:// URL fetches nothing.
CHART_JS      := /usr/share/javascript/chart.js/chart.min.js
REPORT_ASSETS := kChartJs=$(CHART_JS) kPageCss=src/driver/report/page.css \
                 kPageCommonJs=src/driver/report/page_common.js kRunPageJs=src/driver/report/run_page.js \
                 kBatchPageJs=src/grader/batch_page.js
# Chart.js comes with the packages: on a fresh machine it exists only once they are in.
$(CHART_JS): | $(DEPS_STAMP) ;
$(GEN)/report_assets.cpp: mk/embed-assets.sh $(foreach a,$(REPORT_ASSETS),$(lastword $(subst =, ,$(a)))) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	mk/embed-assets.sh $@ $(REPORT_ASSETS)
