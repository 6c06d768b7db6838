package security_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/security"
)

// TestPrivateKey checks which contents are private keys by their first line, and the refusal of
// one.
func TestPrivateKey(t *testing.T) {
	tests := []struct{ data, want string }{
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIE...\n", "RSA PRIVATE KEY"},
		{"\ufeff\n  -----BEGIN PRIVATE KEY-----\r\nMIIE\r\n", "PRIVATE KEY"},
		{"-----BEGIN ENCRYPTED PRIVATE KEY-----\n", "ENCRYPTED PRIVATE KEY"},
		{"-----BEGIN EC PRIVATE KEY-----\n", "EC PRIVATE KEY"},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n", "OPENSSH PRIVATE KEY"},
		{"-----BEGIN PGP PRIVATE KEY BLOCK-----\n", "PGP PRIVATE KEY BLOCK"},
		{"PuTTY-User-Key-File-3: ssh-ed25519\n", "PuTTY private key"},
		{"-----BEGIN CERTIFICATE-----\nMIID\n", ""},
		{"-----BEGIN PUBLIC KEY-----\n", ""},
		{"-----BEGIN PGP PUBLIC KEY BLOCK-----\n", ""},
		{"# TLS setup\n\n```\n-----BEGIN RSA PRIVATE KEY-----\n```\n", ""},
		{"", ""},
		{"plain notes\n", ""},
	}
	for _, tt := range tests {
		if got := security.PrivateKey([]byte(tt.data)); got != tt.want {
			t.Errorf("PrivateKey(%q) = %q, want %q", tt.data, got, tt.want)
		}
	}
	err := security.KeyRefusal("notes.txt", "RSA PRIVATE KEY")
	var pe *security.PathError
	if !errors.Is(err, security.ErrBlocked) || !errors.As(err, &pe) || pe.Rule != security.RuleSecretContent || !strings.Contains(err.Error(), "private key") {
		t.Errorf("KeyRefusal = %v", err)
	}
}
