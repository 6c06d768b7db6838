package fsroot_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/packfs/packfs-mcp/fsroot"
)

// A program opens a folder as a Root once and then names files by root-relative, slash-separated
// paths; every operation resolves them from the root's handle.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "fsroot-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	root, err := fsroot.Open(dir, fsroot.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer root.Close()

	ctx := context.Background()
	if err := root.MkdirAll("notes"); err != nil {
		log.Fatal(err)
	}
	if err := root.WriteFile(ctx, "notes/todo.md", []byte("# To do\n- water the plants\n")); err != nil {
		log.Fatal(err)
	}

	// A max of 0 reads up to DefaultMaxFileSize.
	data, info, err := root.ReadFile(ctx, "notes/todo.md", 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s, %d bytes:\n%s", info.Path, info.Size, data)
	// Output:
	// notes/todo.md, 27 bytes:
	// # To do
	// - water the plants
}

// A name that climbs out of the root is refused before the operating system sees it, and the
// error names the path as the caller gave it, never the root's place on the host.
func ExampleRoot_ReadFile_escape() {
	// Any folder will do: the name is refused before anything in it is looked at.
	root, err := fsroot.Open(os.TempDir(), fsroot.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer root.Close()

	_, _, err = root.ReadFile(context.Background(), "../secret.txt", 0)
	fmt.Println(err)
	fmt.Println("escapes:", errors.Is(err, fsroot.ErrEscapes))
	fmt.Println("invalid:", errors.Is(err, fsroot.ErrInvalid))
	// Output:
	// read ../secret.txt: path escapes the root
	// escapes: true
	// invalid: true
}
