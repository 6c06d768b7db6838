package fsroot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// attackTree is the root/ layout every attack runs against; outside/ is
// its sibling (see newTree).
var attackTree = []string{
	"d/",
	"d/f.md=in-root content",
	"link_to_outside_file => ../outside/secret.txt",
	"link_to_outside_dir => ../outside",
	"abs_link => {base}/outside/secret.txt",
	"abs_link_inside => {base}/root/d/f.md",
	"chain1 => chain2",
	"chain2 => d/chain3",
	"d/chain3 => ../../outside/secret.txt",
	"d/up2 => ../../outside",
	"dangling_abs => {base}/pwned",
	"dangling_rel => ../pwned",
	"loop_a => loop_b",
	"loop_b => loop_a",
	"d/loop => ..",
	"dev_zero => /dev/zero",
}

// The operations of the attack table. Each runs name through one Root
// method and returns whatever data came back, for the marker check.
var attackOps = []struct {
	op  string
	run func(ctx context.Context, r *Root, name string) (any, error)
}{
	{"Stat", func(_ context.Context, r *Root, name string) (any, error) { return r.Stat(name) }},
	{"Lstat", func(_ context.Context, r *Root, name string) (any, error) { return r.Lstat(name) }},
	{"Resolve", func(_ context.Context, r *Root, name string) (any, error) { return r.Resolve(name) }},
	{"ReadFile", func(ctx context.Context, r *Root, name string) (any, error) {
		data, info, err := r.ReadFile(ctx, name, 1<<20)
		return fmt.Sprint(string(data), info), err
	}},
	{"Lookup", func(ctx context.Context, r *Root, name string) (any, error) {
		e, err := r.Lookup(name)
		if err != nil {
			return nil, err
		}
		defer e.Close()
		found, _ := e.Info()
		data, info, err := e.ReadFile(ctx, 1<<20)
		return fmt.Sprint(e.Path(), found, string(data), info), err
	}},
	{"ReadDir", func(ctx context.Context, r *Root, name string) (any, error) {
		entries, _, err := r.ReadDir(ctx, name, 0)
		return entries, err
	}},
	{"Walk", func(ctx context.Context, r *Root, name string) (any, error) {
		var seen []Info
		err := r.Walk(ctx, name, 0, func(info Info, err error) error {
			seen = append(seen, info)
			return err
		})
		return seen, err
	}},
	{"CreateFile", func(ctx context.Context, r *Root, name string) (any, error) {
		return nil, r.CreateFile(ctx, name, []byte("pwn"), 0)
	}},
	{"WriteFile", func(ctx context.Context, r *Root, name string) (any, error) {
		return nil, r.WriteFile(ctx, name, []byte("pwn"))
	}},
	{"AppendFile", func(ctx context.Context, r *Root, name string) (any, error) {
		return nil, r.AppendFile(ctx, name, []byte("pwn"), 1<<20)
	}},
	{"MkdirAll", func(_ context.Context, r *Root, name string) (any, error) { return nil, r.MkdirAll(name) }},
	{"Remove", func(_ context.Context, r *Root, name string) (any, error) { return nil, r.Remove(name, false) }},
	{"RemoveAll", func(_ context.Context, r *Root, name string) (any, error) { return nil, r.Remove(name, true) }},
	{"RenameFrom", func(_ context.Context, r *Root, name string) (any, error) {
		return nil, r.Rename(name, "d/moved", false)
	}},
	{"RenameTo", func(_ context.Context, r *Root, name string) (any, error) {
		return nil, r.Rename("d/f.md", name, false)
	}},
	{"RenameToOverwrite", func(_ context.Context, r *Root, name string) (any, error) {
		return nil, r.Rename("d/f.md", name, true)
	}},
	{"FSOpen", func(_ context.Context, r *Root, name string) (any, error) {
		f, err := r.FS().Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		data, err := io.ReadAll(f)
		return string(data), err
	}},
}

// leafLink are the results for a name whose last component is a link:
// operations that act on the entry itself may succeed (they change the
// link, never its target); operations that follow it must not.
func leafLink(follow error) map[string]error {
	return map[string]error{
		"Stat":              follow,
		"Resolve":           follow,
		"ReadFile":          follow,
		"Lookup":            follow,
		"ReadDir":           follow,
		"Walk":              follow,
		"WriteFile":         follow,
		"AppendFile":        follow,
		"MkdirAll":          follow,
		"FSOpen":            follow,
		"Lstat":             nil,
		"Remove":            nil,
		"RemoveAll":         nil,
		"RenameFrom":        nil,
		"RenameToOverwrite": nil,
		"CreateFile":        fs.ErrExist,
		"RenameTo":          fs.ErrExist,
	}
}

// all gives every operation the same result.
func all(want error) map[string]error {
	m := map[string]error{}
	for _, op := range attackOps {
		m[op.op] = want
	}
	return m
}

// attacks is the shared attack table (security cases A and B): each name
// with the error every operation must give (nil: allowed, and still
// harmless outside).
var attacks = []struct {
	name string
	want map[string]error
}{
	{"../outside/secret.txt", all(ErrEscapes)},
	{"a/../../outside/secret.txt", all(ErrEscapes)},
	{"./././../outside/secret.txt", all(ErrEscapes)},
	{"..", all(ErrEscapes)},
	{"d/../..", all(ErrEscapes)},
	{"/etc/passwd", all(ErrInvalid)},
	{"{base}/outside/secret.txt", all(ErrInvalid)},
	{"d/", all(ErrInvalid)},
	{"", all(ErrInvalid)},
	{"d//f.md", all(ErrInvalid)},
	{"d/./f.md", all(ErrInvalid)},
	{"d/\x00", all(ErrInvalid)},
	{strings.Repeat("a/", 2100) + "x", all(ErrInvalid)},
	{`d\..\..\outside\secret.txt`, map[string]error{ // a literal name on Linux
		"Stat": fs.ErrNotExist, "Lstat": fs.ErrNotExist, "ReadFile": fs.ErrNotExist, "Lookup": fs.ErrNotExist,
		"ReadDir": fs.ErrNotExist, "Walk": fs.ErrNotExist, "AppendFile": fs.ErrNotExist,
		"Remove": fs.ErrNotExist, "RemoveAll": fs.ErrNotExist, "RenameFrom": fs.ErrNotExist,
		"FSOpen": fs.ErrNotExist, "Resolve": nil, "CreateFile": nil, "WriteFile": nil,
		"MkdirAll": nil, "RenameTo": nil, "RenameToOverwrite": nil,
	}},
	{"link_to_outside_file", leafLink(ErrEscapes)},
	{"link_to_outside_dir", leafLink(ErrEscapes)},
	{"link_to_outside_dir/secret.txt", all(ErrEscapes)},
	{"link_to_outside_dir/sub/new.md", all(ErrEscapes)},
	{"abs_link", leafLink(ErrEscapes)},
	{"chain1", leafLink(ErrEscapes)},
	{"d/chain3", leafLink(ErrEscapes)},
	{"d/up2", leafLink(ErrEscapes)},
	{"d/up2/secret.txt", all(ErrEscapes)},
	{"d/loop/link_to_outside_dir/secret.txt", all(ErrEscapes)},
	{"d/loop/d/loop/chain1", leafLink(ErrEscapes)},
	{"dangling_abs", leafLink(ErrEscapes)},
	{"dangling_abs/x", all(ErrEscapes)},
	{"dangling_rel", leafLink(ErrEscapes)},
	{"dev_zero", leafLink(ErrEscapes)},
	{"abs_link_inside", leafLink(ErrEscapes)}, // absolute text, even pointing inside
	{"loop_a", leafLink(ErrInvalid)},
	{"loop_a/x", all(ErrInvalid)},
}

// TestAttacks runs every attack against every operation on a fresh tree
// and checks the error, that nothing returned holds outside data or host
// paths, and that nothing outside the root changed.
func TestAttacks(t *testing.T) {
	for _, a := range attacks {
		for _, op := range attackOps {
			t.Run(fmt.Sprintf("%s/%q", op.op, a.name), func(t *testing.T) {
				base, r := newTree(t, Options{}, attackTree...)
				name := strings.ReplaceAll(a.name, "{base}", base)
				before := snapshot(t, base)
				want, ok := a.want[op.op]
				if !ok {
					t.Fatalf("attack %q has no expectation for %s", a.name, op.op)
				}
				got, err := op.run(context.Background(), r, name)
				switch {
				case want == nil && err != nil:
					t.Errorf("error = %v, want success", err)
				case want != nil && !errors.Is(err, want):
					t.Errorf("error = %v, want %v", err, want)
				}
				// The name itself may hold a host path (the caller's
				// own text); nothing else in the error may.
				if err != nil && strings.Contains(strings.ReplaceAll(err.Error(), name, ""), base) {
					t.Errorf("error %q contains the host path %q", err, base)
				}
				s := fmt.Sprint(got)
				if strings.Contains(s, marker) {
					t.Errorf("result leaks outside data: %s", s)
				}
				// Lstat reports a link's text as stored, which may be
				// an absolute host path; that is the documented Target.
				if op.op != "Lstat" && strings.Contains(s, base) {
					t.Errorf("result leaks a host path: %s", s)
				}
				if diff := cmp.Diff(before, snapshot(t, base)); diff != "" {
					t.Errorf("outside changed (-before +after):\n%s", diff)
				}
			})
		}
	}
}
