package tools

import (
	"testing"

	"github.com/packfs/packfs-mcp/internal/corpora"
)

// TestMain removes the corpora the tests unpacked (the vault of the relink tests).
func TestMain(m *testing.M) { corpora.Main(m) }
