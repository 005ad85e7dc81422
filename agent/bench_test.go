package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
)

// BenchmarkParallelReadOnlyBatch measures what the streaming executor buys:
// a turn of 4 read-only calls of 50 ms each against the same calls run one
// after another through the pipeline. The target is batch/slowest within
// 1.2: a batch costs about as much as its slowest call.
func BenchmarkParallelReadOnlyBatch(b *testing.B) {
	const calls, delay = 4, 50 * time.Millisecond
	slow := &exSlowTool{name: "Slow", delay: delay}
	var toolCalls []llm.ToolCall
	for i := 1; i <= calls; i++ {
		toolCalls = append(toolCalls, call(fmt.Sprintf("c%d", i), "Slow", fmt.Sprintf(`{"n":%d}`, i)))
	}
	ctx := context.Background()
	var batch, serial, slowest time.Duration
	iters := 0
	for b.Loop() {
		b.StopTimer()
		h := newExHarness(b, permission.ModeDefault, slow)
		h.client.add(reply("", toolCalls...), reply("done"))
		b.StartTimer()

		start := time.Now()
		evs := drainAll(h.agent.Run(ctx, llm.UserText("read")))
		batch += time.Since(start)
		if d := evs[len(evs)-1].Done; d == nil || d.Subtype != SubtypeSuccess {
			b.Fatalf("batch run: %+v", d)
		}

		start = time.Now()
		var worst time.Duration
		for _, c := range toolCalls {
			t0 := time.Now()
			out := h.pipe.Run(ctx, tools.Call{ID: c.ID, Name: c.Name, Input: json.RawMessage(c.Input)}, h.env)
			worst = max(worst, time.Since(t0))
			if out.Result.IsError {
				b.Fatalf("serial call: %+v", out.Result)
			}
		}
		serial += time.Since(start)
		slowest += worst
		iters++
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(iters) }
	b.ReportMetric(ms(batch), "batch-ms")
	b.ReportMetric(ms(serial), "serial-ms")
	b.ReportMetric(ms(slowest), "slowest-single-ms")
	b.ReportMetric(float64(batch)/float64(slowest), "batch/slowest")
}

// BenchmarkParallelReadOnlyBash: four read-only Bash calls of 200 ms in
// one turn. They run side by side, each in a shell of its own, so the turn
// costs about one of them (Claude Code: 1.76 s for four sleep 1; nova
// serial: 4.06 s).
func BenchmarkParallelReadOnlyBash(b *testing.B) {
	var calls []llm.ToolCall
	for i := 1; i <= 4; i++ {
		calls = append(calls, call(fmt.Sprintf("c%d", i), "Bash", `{"command":"sleep 0.2"}`))
	}
	var total time.Duration
	n := 0
	for b.Loop() {
		b.StopTimer()
		h := newExHarness(b, permission.ModeDefault, &tools.Bash{})
		h.client.add(reply("", calls...), reply("done"))
		b.StartTimer()
		start := time.Now()
		drainAll(h.agent.Run(context.Background(), llm.UserText("wait")))
		total += time.Since(start)
		n++
	}
	b.ReportMetric(float64(total)/float64(time.Millisecond)/float64(n), "turn-ms")
	b.ReportMetric(float64(total)/float64(n)/float64(200*time.Millisecond), "turn/single")
}
