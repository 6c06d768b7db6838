package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/packfs/packfs-mcp/internal/serving"
)

// loadConfig reads a JSON or YAML config file (by its extension; JSON when unsure; see
// parseConfig). Unknown settings are refused so a misspelt one is not silently ignored.
func loadConfig(file string) (serving.Config, error) {
	var c serving.Config
	data, err := os.ReadFile(file)
	if err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	lower := strings.ToLower(file)
	isYAML := strings.HasSuffix(lower, ".yaml") || strings.HasSuffix(lower, ".yml")
	if err := parseConfig(data, !isYAML, &c); err != nil {
		return c, fmt.Errorf("config %s: %w", file, err)
	}
	return c, nil
}
