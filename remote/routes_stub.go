package remote

// configRoutes registers fs, models, providers, config, agents and
// memories (config.go, agents.go, memories.go).
func (s *Server) configRoutes() {}
