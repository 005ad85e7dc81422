package acp

import (
	"context"

	acpsdk "github.com/coder/acp-go-sdk"
)

// editor reads files through the client (fs/read_text_file): an open
// file's unsaved buffer is what the person sees, and so what Read shows
// the model (tools.BufferReader).
type editor struct {
	conn    *acpsdk.AgentSideConnection
	session acpsdk.SessionId
}

// ReadBuffer implements tools.BufferReader.
func (e editor) ReadBuffer(ctx context.Context, abs string) (string, error) {
	resp, err := e.conn.ReadTextFile(ctx, acpsdk.ReadTextFileRequest{SessionId: e.session, Path: abs})
	if err != nil {
		return "", err
	}
	return resp.Content, nil
}
