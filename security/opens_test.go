package security

import "testing"

// TestOpens checks what a listing says the tools do with a file, from its name alone, under the
// default list, a strict list and the defaults with a type added.
func TestOpens(t *testing.T) {
	defaults, err := NewPolicy(PolicyConfig{})
	if err != nil {
		t.Fatal(err)
	}
	strict, err := NewPolicy(PolicyConfig{AllowedExtensions: []string{".md", ".docx"}})
	if err != nil {
		t.Fatal(err)
	}
	added, err := NewPolicy(PolicyConfig{AddExtensions: []string{".zip", ".tmpl"}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                    string
		defaults, strict, added Opening
	}{
		{"notes.md", OpensText, OpensText, OpensText},
		{"a/b/NOTES.MD", OpensText, OpensText, OpensText},
		{"Makefile", OpensText, OpensText, OpensText},
		{"report.pdf", OpensDocument, OpensNot, OpensDocument},
		{"Budget.XLSX", OpensDocument, OpensNot, OpensDocument},
		{"shot.PNG", OpensImage, OpensNot, OpensImage},
		{"letter.docx", OpensDocument, OpensDocument, OpensDocument},
		{"old.doc", OpensNot, OpensNot, OpensNot},
		{"case.txtar", OpensIfText, OpensNot, OpensIfText},
		{"page.tmpl", OpensIfText, OpensNot, OpensText},
		{"Kconfig", OpensIfText, OpensNot, OpensIfText},
		{"archive.zip", OpensNot, OpensNot, OpensBinary},
		{"setup.EXE", OpensNot, OpensNot, OpensNot},
		{"x.md.exe", OpensNot, OpensNot, OpensNot},
		{"x\uff0eexe", OpensNot, OpensNot, OpensNot}, // a fullwidth dot is a dot
		{"run.bat", OpensNot, OpensNot, OpensNot},
		{"Open.command", OpensNot, OpensNot, OpensNot},
		{".zshrc", OpensNot, OpensNot, OpensNot},
		{".profile.local", OpensNot, OpensNot, OpensNot},
		{".gitignore", OpensText, OpensText, OpensText},
		{".env", OpensNot, OpensNot, OpensNot},
		{"id_rsa", OpensNot, OpensNot, OpensNot},
		{".git/config", OpensNot, OpensNot, OpensNot},
	}
	for _, tt := range tests {
		for _, c := range []struct {
			policy *Policy
			label  string
			want   Opening
		}{{defaults, "defaults", tt.defaults}, {strict, "strict", tt.strict}, {added, "added", tt.added}} {
			if got := c.policy.Opens(tt.name); got != c.want {
				t.Errorf("%s: Opens(%q) = %s, want %s", c.label, tt.name, got, c.want)
			}
		}
	}
}
