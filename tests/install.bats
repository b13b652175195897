#!/usr/bin/env bats
# make install and make uninstall into a scratch DESTDIR: programs, manual
# pages, and the sample traces the manual pages name; uninstall removes
# them all. (install-files: install without building first.)

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	T=$BATS_TEST_TMPDIR
}

@test "install puts programs, manual pages and traces under PREFIX; uninstall removes them" {
	run make -s -C "$TOP" install-files DESTDIR="$T/d" PREFIX=/opt/mp
	[ "$status" -eq 0 ]
	for p in wlgen sched netrun lstat mpcat hexflow swsim; do
		[ -x "$T/d/opt/mp/bin/$p" ]
		[ -f "$T/d/opt/mp/share/man/man1/$p.1" ]
	done
	[ -f "$T/d/opt/mp/share/man/man5/meshpipe.5" ]
	[ -f "$T/d/opt/mp/share/man/man7/meshpipe.7" ]
	# The files wlgen(1) names are installed where it says.
	for f in traces/README.md traces/sample.csv traces/netrace/README \
		traces/netrace/example.tra.bz2; do
		cmp "$TOP/$f" "$T/d/opt/mp/share/meshpipe/$f"
	done
	grep -q 'share/meshpipe/traces/README.md' "$T/d/opt/mp/share/man/man1/wlgen.1"
	# The installed wlgen replays the installed sample trace.
	"$T/d/opt/mp/bin/wlgen" --replay "$T/d/opt/mp/share/meshpipe/traces/sample.csv" |
		"$T/d/opt/mp/bin/mpcat" -n > "$T/n"
	grep -q '^msg' "$T/n"
	run make -s -C "$TOP" uninstall DESTDIR="$T/d" PREFIX=/opt/mp
	[ "$status" -eq 0 ]
	run find "$T/d" -type f
	[ "$output" = "" ]
	[ ! -e "$T/d/opt/mp/share/meshpipe" ]
}
