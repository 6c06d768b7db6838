package main

import "io"

// Temporary stubs of the tools and call subcommands, replaced by their own files.
func toolsCmd(args []string, stdout, stderr io.Writer) int                 { return 2 }
func callCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int { return 2 }
