package remote

// sessionRoutes registers sessions and chat (sessions.go, chat.go).
func (s *Server) sessionRoutes() {}
