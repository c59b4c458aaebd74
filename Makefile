# SPDX-License-Identifier: GPL-2.0
# dm-raid456: out-of-tree build, tests and helpers.  See README.
#
#   make                  module for the newest kernel with headers
#   make KVER=<release>   module for that kernel (build/<release>/)
#   make all-kernels      module for every installed kernel with headers
#   make sparse           sparse (C=2) over the code for every kernel
#   make unit             userspace unit tests
#   make tools            the dmeventd plugin, raid45-monitor and raid45ctl,
#                         the boot units and udev rule (build/tools/)
#   make check            everything: setup, builds, unit and VM tests
#                         (each guest test on the kernels its header
#                         names), ending with a time table
#   make check-full       the same with every guest test on every kernel
#   make check T='62- 87-' K='6.12'
#                         development loop: those guest tests (names
#                         containing a pattern) on those kernel series,
#                         no sparse, dkms, crash or swap boot
#   make check-debug      the debug kernel (KASAN, lockdep, kmemleak, fault
#                         injection): built once and cached, then its tests
#   make demo             build, boot, create an array and show it working
#   make bench            benchmarks in the VM
#   make install          install-module and install-tools:
#   make install-module   the module into /lib/modules/$(KVER)/updates
#   make install-tools    the dmeventd plugin beside lvm2's plugins, the
#                         raid45-monitor and raid45ctl commands into
#                         /usr/local/sbin, the boot units (raid45@,
#                         raid45-last-resort@) and the udev rule
#                         (69-raid45.rules) into systemd's and udev's
#                         directories (tools/systemd)

KVER ?= $(shell scripts/kernels newest)
KERNELS = $(shell scripts/kernels)
KO = build/$(KVER)/dm-raid456.ko
DESTDIR ?=

.PHONY: module all-kernels sparse unit tools check check-full check-debug demo bench install \
	install-module install-tools clean setup

module:
	@[ -n "$(KVER)" ] || { echo "no kernel headers: run scripts/setup" >&2; exit 1; }
	scripts/build-module $(KVER) W=1

all-kernels:
	@for k in $(KERNELS); do scripts/build-module $$k W=1 || exit 1; done

sparse:
	@for k in $(KERNELS); do scripts/build-module $$k C=2 || exit 1; done

unit:
	$(MAKE) -C tests/unit

tools:
	$(MAKE) -C tools/dmeventd OUT=$(CURDIR)/build/tools
	$(MAKE) -C tools/systemd OUT=$(CURDIR)/build/tools

setup:
	scripts/setup

check:
	R45_KERNELS="$(K)" R45_TESTS="$(T)" scripts/check

check-full:
	R45_CHECK_FULL=1 R45_KERNELS="$(K)" scripts/check

check-debug:
	scripts/check-debug

demo:
	scripts/demo

bench:
	scripts/bench

install: install-module install-tools

# the guest tests install the module into an overlay (tests/guest/lib.sh)
install-module:
	@[ -f $(KO) ] || $(MAKE) module KVER=$(KVER)
	install -D -m 644 $(KO) $(DESTDIR)/lib/modules/$(KVER)/updates/dm-raid456.ko
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi

install-tools:
	$(MAKE) -C tools/dmeventd OUT=$(CURDIR)/build/tools install DESTDIR=$(DESTDIR)
	$(MAKE) -C tools/systemd OUT=$(CURDIR)/build/tools install DESTDIR=$(DESTDIR)

clean:
	rm -rf build
	$(MAKE) -C tests/unit clean
