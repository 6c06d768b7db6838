package semantic

import (
	"testing"
	"time"
)

// TestLeftByWork checks that the build's estimate of the time left follows the work left, bytes
// and files, not the count of files: one big file read of a hundred small ones left leaves about
// what the small ones weigh.
func TestLeftByWork(t *testing.T) {
	e := &Engine{}
	e.setPhase(PhaseIndexing)
	small, big := fileWork(300), fileWork(1_000_000)
	e.total.Store(101)
	e.done.Store(1)
	e.work.Store(big + 100*small)
	e.worked.Store(big)
	e.readFrom.Store(time.Now().Add(-10 * time.Second).UnixNano())
	want := 10 * time.Second * time.Duration(100*small) / time.Duration(big) // 1 s
	got := e.Status().Left
	if got < want*9/10 || got > want*11/10 {
		t.Errorf("Left = %v, want about %v (by files it would be 1000 s)", got, want)
	}
}
