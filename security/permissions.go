package security

import (
	"fmt"
	"strings"
)

// Permission names one kind of access a server may grant.
type Permission string

// The four permissions. Each intent purpose needs exactly one of them (the
// tools' table of purposes says which).
const (
	PermRead   Permission = "read"
	PermWrite  Permission = "write"
	PermSearch Permission = "search"
	PermList   Permission = "list"
)

// allPermissions is every Permission in display order; a Permission's bit
// in [Permissions] is its index here.
var allPermissions = [...]Permission{PermRead, PermWrite, PermSearch, PermList}

// bit returns q's bit in a Permissions set, or 0 for an unknown permission.
func (q Permission) bit() uint8 {
	for i, p := range allPermissions {
		if p == q {
			return 1 << i
		}
	}
	return 0
}

// gerund names the activity q permits, for messages ("writing needs ...").
func (q Permission) gerund() string {
	switch q {
	case PermRead:
		return "reading"
	case PermWrite:
		return "writing"
	case PermSearch:
		return "searching"
	case PermList:
		return "listing"
	}
	return string(q)
}

// Permissions is a set of [Permission] values. The zero value grants
// nothing. It is a small comparable value; With and Without return copies.
type Permissions struct {
	bits uint8
}

// ParsePermissions builds a set from permission names such as the values of
// a --permissions flag. Names are trimmed and matched case-insensitively;
// empty names are skipped, so "read,,list" split on commas is accepted. An
// unknown name is an error that lists the valid names.
func ParsePermissions(names []string) (Permissions, error) {
	var p Permissions
	for _, n := range names {
		n = strings.ToLower(strings.TrimSpace(n))
		if n == "" {
			continue
		}
		q := Permission(n)
		if q.bit() == 0 {
			return Permissions{}, fmt.Errorf("unknown permission %q: valid permissions are %s", n, AllPermissions())
		}
		p = p.With(q)
	}
	return p, nil
}

// DefaultPermissions returns read, search and list. Write is off by default:
// a server must be started with it deliberately.
func DefaultPermissions() Permissions {
	return Permissions{}.With(PermRead).With(PermSearch).With(PermList)
}

// AllPermissions returns every permission, write included.
func AllPermissions() Permissions {
	var p Permissions
	for _, q := range allPermissions {
		p = p.With(q)
	}
	return p
}

// Has reports whether q is in the set. An unknown permission is never in it.
func (p Permissions) Has(q Permission) bool {
	b := q.bit()
	return b != 0 && p.bits&b != 0
}

// With returns the set plus q. An unknown permission is ignored.
func (p Permissions) With(q Permission) Permissions {
	p.bits |= q.bit()
	return p
}

// Without returns the set minus q.
func (p Permissions) Without(q Permission) Permissions {
	p.bits &^= q.bit()
	return p
}

// List returns the permissions in the set in the order read, write,
// search, list.
func (p Permissions) List() []Permission {
	var out []Permission
	for _, q := range allPermissions {
		if p.Has(q) {
			out = append(out, q)
		}
	}
	return out
}

// String returns the set as a comma-separated list in [Permissions.List]
// order, such as "read,search,list", which [ParsePermissions] accepts back
// after splitting on commas. The empty set is "".
func (p Permissions) String() string {
	var b strings.Builder
	for _, q := range p.List() {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(string(q))
	}
	return b.String()
}

// DeniedError reports that a purpose needs a permission the server lacks,
// and says how to enable it, for example
//
//	writing needs the "write" permission, which this server has off: restart it with --allow-write (or --permissions read,write,search,list)
type DeniedError struct {
	// Purpose is the intent purpose that was refused, such as "delete".
	Purpose string
	// Need is the missing permission.
	Need Permission

	// have is the server's set when the error came from
	// [Permissions.Check]; it lets the message suggest a full flag value.
	have Permissions
}

// Error says which permission is missing and which flag enables it.
func (e *DeniedError) Error() string {
	flags := "--permissions " + e.have.With(e.Need).String()
	if e.Need == PermWrite {
		flags = "--allow-write (or " + flags + ")"
	}
	return fmt.Sprintf("%s needs the %q permission, which this server has off: restart it with %s", e.Need.gerund(), string(e.Need), flags)
}

// Unwrap returns [ErrDenied].
func (e *DeniedError) Unwrap() error { return ErrDenied }

// Check returns nil if the set grants need, the permission purpose needs
// (the tools' table of purposes says which), and a *[DeniedError] naming
// purpose otherwise.
func (p Permissions) Check(purpose string, need Permission) error {
	if !p.Has(need) {
		return &DeniedError{Purpose: purpose, Need: need, have: p}
	}
	return nil
}
