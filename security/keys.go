package security

import (
	"bytes"
	"unicode/utf8"
)

// PrivateKey returns what kind of private key data begins with, or "" when it begins with none:
// its first line that is not blank is the header of a PEM private key block (`-----BEGIN RSA
// PRIVATE KEY-----`, PKCS#8, EC, DSA, encrypted, OpenSSH's), of a PGP private key block, or of a
// PuTTY key file. Such a file is refused like a blocked name whatever its name ([KeyRefusal]):
// a key saved as notes.txt is still a key. Only the start is looked at, so a note that quotes a
// header further down stays a note.
func PrivateKey(data []byte) string {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	data = bytes.TrimLeft(data, " \t\r\n")
	line, _, _ := bytes.Cut(data, []byte("\n"))
	line = bytes.TrimRight(line, " \t\r")
	switch {
	case bytes.HasPrefix(line, []byte("PuTTY-User-Key-File-")):
		return "PuTTY private key"
	case !bytes.HasPrefix(line, []byte("-----BEGIN ")):
		return ""
	case bytes.HasSuffix(line, []byte(" PRIVATE KEY-----")), bytes.HasSuffix(line, []byte(" PRIVATE KEY BLOCK-----")):
		kind := bytes.TrimSuffix(bytes.TrimPrefix(line, []byte("-----BEGIN ")), []byte("-----"))
		if len(kind) > maxDetailBytes || !utf8.Valid(kind) {
			return "private key"
		}
		return string(kind)
	}
	return ""
}

// KeyRefusal is the refusal of the file name, whose content begins with a private key of kind
// (from [PrivateKey]): [ErrBlocked], with [RuleSecretContent].
func KeyRefusal(name, kind string) error {
	return newPathError(name, RuleSecretContent, ErrBlocked, kind)
}
