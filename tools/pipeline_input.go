package tools

import (
	"context"
	"encoding/json"

	"github.com/nova-dev/nova/permission"
)

// replaceInput makes input, which the person's answer put in place of the
// model's, the call's input, and reports whether the call may still run.
// The person approved the call, not whatever the new input does: it is
// validated and checked again, and what the check denies outright (a
// dangerous command, a deny rule, a path never to be touched) stays
// denied. An ask of the check is what the person just answered.
func (pr *Prepared) replaceInput(ctx context.Context, input json.RawMessage) bool {
	if err := pr.p.Registry.validate(pr.tool.Name(), input); err != nil {
		pr.finish(Errorf("the input the user gave in place of yours is not valid: %v. The call was not run.", err), permission.Decision{})
		return false
	}
	pr.call.Input = input
	pr.check(ctx)
	return pr.done == nil
}
