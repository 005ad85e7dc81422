package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/nova-dev/nova/tools"
	"github.com/nova-dev/nova/tools/mcp/mcptest"
)

// BenchmarkStartFiveServers measures what five configured stdio servers
// cost the first prompt (Start returning: nothing waits for them) and
// how long until all five are connected with their tools registered.
func BenchmarkStartFiveServers(b *testing.B) {
	var ready time.Duration
	for b.Loop() {
		servers := make([]Server, 5)
		for i := range servers {
			servers[i] = stdioServer(fmt.Sprintf("s%d", i), mcptest.Options{})
		}
		start := time.Now()
		m := NewManager(servers, Options{Registry: tools.NewRegistry()})
		m.Start()
		b.StopTimer()
		m.Wait(context.Background())
		ready += time.Since(start)
		_ = m.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(ready.Milliseconds())/float64(b.N), "ms-until-connected")
}

// BenchmarkCallOverhead is one echo call through the pipeline to a local
// stdio server and back.
func BenchmarkCallOverhead(b *testing.B) {
	reg := tools.NewRegistry()
	m := NewManager([]Server{stdioServer("t", mcptest.Options{})}, Options{Registry: reg})
	m.Start()
	defer m.Close()
	m.Wait(context.Background())
	pipe := &tools.Pipeline{Registry: reg, Checker: allowAll{}}
	env := tools.NewEnv(b.TempDir())
	input, _ := json.Marshal(map[string]string{"text": "x"})
	for b.Loop() {
		o := pipe.Run(context.Background(), tools.Call{ID: "c", Name: "mcp__t__echo", Input: input}, env)
		if o.Result.Output != "x" {
			b.Fatalf("%+v", o.Result)
		}
	}
}
