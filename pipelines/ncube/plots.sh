#!/bin/sh
# plots.sh OUT: the figures of the ncube study from OUT/*.csv into
# OUT/plots/ (PNG and SVG), with gnuplot; skipped, with a note, when
# gnuplot is missing.
out=${1:-out}
command -v gnuplot >/dev/null 2>&1 || {
	echo "ncube: gnuplot not installed: no plots (the CSVs are in $out/)"
	exit 0
}
mkdir -p "$out/plots" || exit 1
for term in png svg; do
	case $term in
	png) t="pngcairo size 800,560 noenhanced" ;;
	svg) t="svg size 800,560 noenhanced" ;;
	esac
	gnuplot -e "out='$out'; ext='$term'; term='$t'" plot.gp || exit 1
done
echo "ncube: plots in $out/plots/"
