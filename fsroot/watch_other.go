//go:build !linux && !windows

package fsroot

import "context"

// Elsewhere (macOS, the BSDs) no file events are used: see [ErrWatchUnsupported] for why. An
// index there walks the tree to find other programs' changes.

// sysWatch is never made here.
type sysWatch struct{}

// watchSystem returns [ErrWatchUnsupported].
func (r *Root) watchSystem(context.Context, func(dir string) bool) (*sysWatch, error) {
	return nil, ErrWatchUnsupported
}

// folders is never called: watchSystem makes no sysWatch.
func (*sysWatch) folders() int { return 0 }

// feed is never called: watchSystem makes no sysWatch.
func (*sysWatch) feed(context.Context, chan<- string) error { return nil }
