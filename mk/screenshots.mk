# make screenshots: the README's pictures of the three pages, taken by headless
# Chromium from real runs on this machine (mk/screenshots.sh).
.PHONY: screenshots
screenshots: $(B)/.test-deps-ok $(DRIVER_BIN) reference-host $(SOLUTIONS_HOST) $(GRADER_BIN) kernel-host
	mk/screenshots.sh $(B)/screenshots docs
