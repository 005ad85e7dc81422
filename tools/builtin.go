package tools

// Builtin returns nova's built-in tools in the order the model sees them.
// The order is part of the prompt prefix: change it only on purpose.
func Builtin() []Tool {
	return []Tool{
		&Read{}, &Write{}, &Edit{}, &MultiEdit{}, &ApplyPatch{}, &NotebookEdit{},
		&Glob{}, &Grep{}, &LS{},
		&Bash{}, &BashOutput{}, &KillShell{},
		&WebFetch{}, &TodoWrite{}, &AskUserQuestion{},
		&EnterPlanMode{}, &ExitPlanMode{},
	}
}
