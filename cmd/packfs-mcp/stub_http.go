package main

import "context"

// Temporary stub of the HTTP transport, replaced by http.go.
func (a *app) listenHTTP(ctx context.Context) error { return nil }
