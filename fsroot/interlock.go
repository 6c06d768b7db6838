package fsroot

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"syscall"
	"time"
)

// lockSlots is how many lock files a shared lock folder holds: each file's
// lock is one of them, by a hash of its key, so two files share one with a
// chance of 1 in lockSlots, which costs only parallelism.
const lockSlots = 1024

// ShareLocks makes [Root.Lock] also take, for each file, an advisory lock
// (flock) on a lock file in dir, a Root over a folder outside this one
// that other packfs-mcp processes of this user share: two servers on one
// folder then apply their writes of one file one after another, as one
// server does. Call it before the Root serves writes; nil turns it off.
// The lock files are empty, made on demand, and never removed (removing a
// lock file that another process holds would break the lock).
func (r *Root) ShareLocks(dir *Root) { r.locks.Store(dir) }

// slot is the lock file of k in a shared lock folder.
func (k lockKey) slot() uint32 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d %d %s", k.dev, k.ino, k.name)
	return uint32(h.Sum64() % lockSlots)
}

// slotName is the name of a slot's lock file.
func slotName(slot uint32) string { return fmt.Sprintf("%04d.lock", slot) }

// lockSlot takes the advisory lock of slot in dir, polling until it is
// free or ctx is done, and returns the open lock file, whose Close lets
// go of it.
func lockSlot(ctx context.Context, dir *Root, slot uint32) (*os.File, error) {
	var fd handle
	err := dir.atRoot(func(top handle) error {
		var err error
		fd, err = lockFileFD(top, slotName(slot), 0o600)
		return err
	})
	if err != nil {
		return nil, dir.pathErr("lock", slotName(slot), err)
	}
	f := os.NewFile(uintptr(fd), slotName(slot))
	wait := time.Millisecond
	for {
		err := tryFlock(f)
		if err == nil {
			return f, nil
		}
		if err != errLocked && err != syscall.EINTR {
			f.Close()
			return nil, dir.pathErr("lock", slotName(slot), err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}
