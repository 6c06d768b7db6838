package fulltext

import (
	"testing"

	"github.com/packfs/packfs-mcp/internal/corpora"
)

func TestMain(m *testing.M) { corpora.Main(m) }
