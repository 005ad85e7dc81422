package main

import (
	"github.com/nova-dev/nova/headless"
	"github.com/nova-dev/nova/live"
)

// offerStructured gives the model the tool it answers s's schema through;
// nil s (no schema) offers nothing.
func offerStructured(rt *live.Runtime, s *headless.StructuredOutput) error {
	if s == nil {
		return nil
	}
	if err := rt.Registry.Register(s.Tool()); err != nil {
		return failure(err)
	}
	return nil
}

// sdkStructured is the structured output of an SDK session: the
// initialize request's jsonSchema (the SDK sends its outputFormat there
// and as --json-schema) or else flag's.
func sdkStructured(flag *headless.StructuredOutput, init *headless.InitializeRequest) (*headless.StructuredOutput, error) {
	if init == nil || init.Schema() == nil {
		return flag, nil
	}
	s, err := headless.NewStructuredOutput(init.Schema())
	if err != nil {
		return nil, usageErr("initialize jsonSchema: %v", err)
	}
	return s, nil
}
