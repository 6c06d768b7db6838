package fulltext

import (
	"os"
	"testing"

	"github.com/packfs/packfs-mcp/internal/corpora"
)

func TestMain(m *testing.M) {
	code := m.Run()
	corpora.Remove()
	os.Exit(code)
}
