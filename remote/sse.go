package remote

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// sseDone ends every chat stream.
const sseDone = "data: [DONE]\n\n"

// sseFrame is one numbered frame: "id: <seq>" then the chunk's JSON.
func sseFrame(seq int64, data []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(data) + 24)
	b.WriteString("id: ")
	b.WriteString(strconv.FormatInt(seq, 10))
	b.WriteString("\ndata: ")
	b.Write(data)
	b.WriteString("\n\n")
	return b.Bytes()
}

// encodeChunk is a chunk's JSON; uiChunk holds only values that marshal.
func encodeChunk(c uiChunk) []byte {
	b, err := json.Marshal(c)
	if err != nil {
		b, _ = json.Marshal(uiChunk{Type: "error", ErrorText: "could not encode a stream part: " + err.Error()})
	}
	return b
}
