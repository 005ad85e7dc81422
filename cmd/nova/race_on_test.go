//go:build race

package main

// raceBuild says the test binary runs under the race detector (go test
// -race, as make test runs it): the nova binary the end-to-end tests run is
// then built with -race too, so the detector sees the TUI, the agent and the
// tools working together in one process, not only each package's own tests.
const raceBuild = true
