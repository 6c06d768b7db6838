package main

import "io"

// Temporary stub of the doctor subcommand, replaced by doctor.go.
func doctorCmd(args []string, stdout, stderr io.Writer) int { return 2 }
