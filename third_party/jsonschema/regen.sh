#!/usr/bin/env bash
# Regenerates third_party/jsonschema: github.com/santhosh-tekuri/jsonschema/v6 at the
# version recorded in VERSION, taken from the Go module cache (the module
# proxy fills it), less what nova's build never reads, plus lazy.patch.
# NOVA.md says why; lazy.patch is the change to review.
#
#   regen.sh                   regenerate the copy at the recorded version
#   regen.sh VERSION           move to another jsonschema version: regenerate,
#                              record it in VERSION and require it in go.mod
#   regen.sh --check           regenerate into a temporary directory and fail
#                              if the committed copy differs (make test runs it)
#   regen.sh --update-patch [VERSION]
#                              after editing the copy by hand: rewrite
#                              lazy.patch as the difference between jsonschema
#                              VERSION (default: the recorded one) and the copy
#
# Needs go and git, and the module proxy unless the module cache already
# holds that version.
name=jsonschema
mod=github.com/santhosh-tekuri/jsonschema/v6
# nova's own files in the copy; everything else comes from the module.
own=(NOVA.md VERSION lazy.patch regen.sh)

# module_find lists the module's files that nova's build reads: the
# library's Go files (no tests, tools or commands), the data they embed, the
# module's go.mod/go.sum, its licence and README.
module_find() {
	find . -type f \( \
		-name '*.go' ! -name '*_test.go' ! -path './cmd/*' \
		! -path '*/testdata/*' ! -path './.*' \
		-o -path './metaschemas/*' \
		-o -path ./go.mod -o -path ./go.sum -o -path ./LICENSE -o -path ./README.md \
		\)
}

. "$(dirname "$0")/../regen-copy.sh"
