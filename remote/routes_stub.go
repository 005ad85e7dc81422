package remote

// sessionRoutes registers sessions and chat (sessions.go, chat.go).
func (s *Server) sessionRoutes() {}

// configRoutes registers fs, models, providers, config, agents and
// memories (config.go, agents.go, memories.go).
func (s *Server) configRoutes() {}
