package security_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/security"
)

func TestParsePermissions(t *testing.T) {
	tests := []struct {
		name    string
		in      []string
		want    []security.Permission
		wantErr bool
	}{
		{name: "nil", in: nil, want: nil},
		{name: "one", in: []string{"read"}, want: []security.Permission{security.PermRead}},
		{name: "all four reordered", in: []string{"list", "write", "search", "read"},
			want: []security.Permission{security.PermRead, security.PermWrite, security.PermSearch, security.PermList}},
		{name: "trimmed and case-insensitive", in: []string{" READ ", "Search"},
			want: []security.Permission{security.PermRead, security.PermSearch}},
		{name: "duplicates", in: []string{"read", "read"}, want: []security.Permission{security.PermRead}},
		{name: "empty entries skipped", in: []string{"", " ", "list"}, want: []security.Permission{security.PermList}},
		{name: "unknown", in: []string{"read", "admin"}, wantErr: true},
		{name: "all is not a name", in: []string{"all"}, wantErr: true},
		{name: "plural", in: []string{"reads"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := security.ParsePermissions(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("ParsePermissions(%q) = %v, want an error", tt.in, got)
				}
				// The error must help: it lists every valid name.
				for _, q := range security.AllPermissions().List() {
					if !strings.Contains(err.Error(), string(q)) {
						t.Errorf("error %q does not list %q", err, q)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("ParsePermissions(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got.List()); diff != "" {
				t.Errorf("List() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPermissionsSet(t *testing.T) {
	tests := []struct {
		name string
		p    security.Permissions
		want string
	}{
		{name: "zero", p: security.Permissions{}, want: ""},
		{name: "default", p: security.DefaultPermissions(), want: "read,search,list"},
		{name: "all", p: security.AllPermissions(), want: "read,write,search,list"},
		{name: "default with write", p: security.DefaultPermissions().With(security.PermWrite), want: "read,write,search,list"},
		{name: "all without search", p: security.AllPermissions().Without(security.PermSearch), want: "read,write,list"},
		{name: "without absent", p: security.DefaultPermissions().Without(security.PermWrite), want: "read,search,list"},
		{name: "unknown ignored", p: security.Permissions{}.With("admin"), want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			// String round-trips through ParsePermissions.
			back, err := security.ParsePermissions(strings.Split(tt.p.String(), ","))
			if err != nil || back != tt.p {
				t.Errorf("ParsePermissions(String()) = %v, %v; want %v", back, err, tt.p)
			}
		})
	}
	if security.DefaultPermissions().Has(security.PermWrite) {
		t.Error("DefaultPermissions() has write; it must be off by default")
	}
	if security.AllPermissions().Has("admin") {
		t.Error(`AllPermissions().Has("admin") = true`)
	}
}

func TestCheck(t *testing.T) {
	readOnly, err := security.ParsePermissions([]string{"read"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		p       security.Permissions
		purpose string
		need    security.Permission
		denied  bool
		flag    string // the flag the message must suggest
	}{
		{name: "default read", p: security.DefaultPermissions(), purpose: "read", need: security.PermRead},
		{name: "default list", p: security.DefaultPermissions(), purpose: "list", need: security.PermList},
		{name: "default search", p: security.DefaultPermissions(), purpose: "search_semantic", need: security.PermSearch},
		{name: "default delete", p: security.DefaultPermissions(), purpose: "delete", need: security.PermWrite, denied: true,
			flag: "--allow-write (or --permissions read,write,search,list)"},
		{name: "default move", p: security.DefaultPermissions(), purpose: "move", need: security.PermWrite, denied: true, flag: "--allow-write"},
		{name: "all edit", p: security.AllPermissions(), purpose: "edit", need: security.PermWrite},
		{name: "read-only search", p: readOnly, purpose: "search_content", need: security.PermSearch, denied: true,
			flag: "--permissions read,search"},
		{name: "read-only list", p: readOnly, purpose: "list", need: security.PermList, denied: true, flag: "--permissions read,list"},
		{name: "none metadata", p: security.Permissions{}, purpose: "metadata", need: security.PermRead, denied: true, flag: "--permissions read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.p.Check(tt.purpose, tt.need)
			if !tt.denied {
				if err != nil {
					t.Fatalf("Check(%q) = %v, want nil", tt.purpose, err)
				}
				return
			}
			if !errors.Is(err, security.ErrDenied) {
				t.Fatalf("Check(%q) = %v, want ErrDenied", tt.purpose, err)
			}
			var de *security.DeniedError
			if !errors.As(err, &de) {
				t.Fatalf("Check(%q) = %T, want *security.DeniedError", tt.purpose, err)
			}
			if diff := cmp.Diff(tt.purpose, de.Purpose); diff != "" {
				t.Errorf("Purpose mismatch (-want +got):\n%s", diff)
			}
			if de.Need != tt.need {
				t.Errorf("Need = %q, want %q", de.Need, tt.need)
			}
			if !strings.Contains(err.Error(), tt.flag) {
				t.Errorf("message %q does not suggest %q", err, tt.flag)
			}
		})
	}
}

func TestDeniedErrorExample(t *testing.T) {
	err := security.DefaultPermissions().Check("create", security.PermWrite)
	want := `writing needs the "write" permission, which this server has off: restart it with --allow-write (or --permissions read,write,search,list)`
	if err == nil || err.Error() != want {
		t.Errorf("Check(\"create\") = %v, want %s", err, want)
	}
}
