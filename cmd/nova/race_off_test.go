//go:build !race

package main

// raceBuild is false without -race: benchmarks (make bench) time a nova
// built as users get it. See race_on_test.go.
const raceBuild = false
