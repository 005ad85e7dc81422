// Package remote is nova serve: the HTTP API of seed 000 (sessions, chat,
// the chat stream as a Vercel AI SDK UI message stream, approvals, agents,
// memories) on the live-session core every frontend shares.
package remote
