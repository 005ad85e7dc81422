#!/usr/bin/env bash
# The body of every third_party/*/regen.sh: it remakes a patched copy of a Go
# module from the module cache plus the copy's lazy.patch. Not run by itself:
# each copy's regen.sh sets name, mod and own, defines module_find (the
# module's files nova's build reads, as find output, run in the module's
# directory), and sources this file with its arguments. Its usage is the
# copy's regen.sh header.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
patch=$here/lazy.patch

usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

mode=regen version=
case "${1:-}" in
--check) mode=check; [ $# -eq 1 ] || usage ;;
--update-patch) mode=update; version=${2:-} ;;
-h | --help) usage ;;
v*) version=$1; [ $# -eq 1 ] || usage ;;
"") ;;
*) usage ;;
esac

read -r recorded recorded_sum <"$here/VERSION"
version=${version:-$recorded}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/$name-regen.XXXXXX")
keep_tmp=false
cleanup() { $keep_tmp || rm -rf "$tmp"; }
trap cleanup EXIT

# The module, downloaded (and verified against the checksum database) by the
# go command, outside any module so that no go.mod is consulted or changed.
json=$(cd "$tmp" && GOFLAGS= GO111MODULE=on go mod download -json "$mod@$version") || {
	echo "regen: go mod download $mod@$version failed:" >&2
	echo "$json" >&2
	exit 1
}
field() { printf '%s\n' "$json" | sed -n "s/^[[:space:]]*\"$1\": \"\(.*\)\",\{0,1\}$/\1/p"; }
dir=$(field Dir)
sum=$(field Sum)
if [ -z "$dir" ] || [ -z "$sum" ]; then
	echo "regen: cannot read Dir and Sum from go mod download:" >&2
	echo "$json" >&2
	exit 1
fi
if [ "$version" = "$recorded" ] && [ "$sum" != "$recorded_sum" ]; then
	echo "regen: $mod@$version has checksum $sum, but VERSION records $recorded_sum" >&2
	exit 1
fi

# pristine writes the module's files that nova's build reads into $1: the
# library's Go files (no tests, tools or commands), the data they embed, the
# module's go.mod/go.sum, its licence and README.
pristine() {
	mkdir -p "$1"
	(cd "$dir" && module_find | LC_ALL=C sort | tar -cf - -T -) | tar -xf - -C "$1"
	chmod -R u+w "$1"
	# A repository of its own, so that git apply and git diff work on paths
	# relative to it wherever the temporary directory is.
	git -C "$1" init -q
	git -C "$1" add -A
	git -C "$1" -c user.name=regen -c user.email=regen@localhost commit -q -m "$mod@$version"
}

# module_files lists the files under $1 that come from the module.
module_files() {
	(cd "$1" && find . -type f ! -path './.git/*' $(printf " ! -path ./%s" "${own[@]}") | LC_ALL=C sort)
}

if [ "$mode" = update ]; then
	pristine "$tmp/module"
	(cd "$tmp/module" && git ls-files -z | xargs -0 rm -f)
	(cd "$here" && module_files . | tar -cf - -T -) | tar -xf - -C "$tmp/module"
	git -C "$tmp/module" add -A
	header=$(sed '/^diff --git /,$d' "$patch")
	{
		printf '%s\n\n' "$header"
		git -C "$tmp/module" -c core.quotePath=false diff --cached --no-color --no-ext-diff --src-prefix=a/ --dst-prefix=b/
	} >"$patch.new"
	mv "$patch.new" "$patch"
	printf '%s %s\n' "$version" "$sum" >"$here/VERSION"
	echo "regen: wrote lazy.patch against $mod@$version; now run $0 to check that it reproduces the copy"
	exit 0
fi

out=$tmp/module
pristine "$out"
# git apply skips the explanation above the first diff.
if ! (cd "$out" && git apply --whitespace=nowarn "$patch"); then
	keep_tmp=true
	cat >&2 <<-EOF
	regen: lazy.patch does not apply to $mod@$version.
	The unpatched module is in $out (a git repository). Apply the change by
	hand there (cd $out && git apply --reject $patch, then fix the *.rej
	files), copy the result over third_party/$name (keeping ${own[*]}),
	and run: $0 --update-patch $version
	EOF
	exit 1
fi
rm -rf "$out/.git"

if [ "$mode" = check ]; then
	excludes=()
	for f in "${own[@]}"; do excludes+=(-x "$f"); done
	if ! diff -r "${excludes[@]}" "$out" "$here" >"$tmp/diff"; then
		head -n 40 "$tmp/diff" >&2
		echo "regen: third_party/$name is not $mod@$version plus lazy.patch." >&2
		echo "To change the copy, edit it, fold the change into lazy.patch with $0 --update-patch, and check with $0 --check." >&2
		exit 1
	fi
	echo "regen: third_party/$name is $mod@$version plus lazy.patch"
	exit 0
fi

# Replace the copy's module files, keeping nova's own.
(cd "$here" && module_files . | xargs rm -f)
find "$here" -mindepth 1 -type d -empty -delete
(cd "$out" && tar -cf - .) | tar -xf - -C "$here"
printf '%s %s\n' "$version" "$sum" >"$here/VERSION"
if [ "$version" != "$recorded" ]; then
	(cd "$root" && go mod edit -require="$mod@$version" && go mod tidy)
fi
echo "regen: third_party/$name is now $mod@$version plus lazy.patch"
