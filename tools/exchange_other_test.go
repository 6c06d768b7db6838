//go:build !linux && !darwin

package tools

import "errors"

// exchange would swap the entries a and b atomically; this system has no call for it.
func exchange(a, b string) error {
	return errors.ErrUnsupported
}
