package security

import (
	"errors"
	"path"
	"strings"
)

// Opening says what the tools do with a file, judged from its name alone (no read), so a listing
// can say it of every entry: [Policy.Opens].
type Opening int

const (
	// OpensText is a file of an allowed extension or name: read, searched and edited as text.
	OpensText Opening = iota
	// OpensBinary is an allowed binary type (a PDF): a read answers its media type, and its bytes
	// as base64 when asked.
	OpensBinary
	// OpensImage is an allowed image type a read hands a model as an image (PNG, JPEG, GIF,
	// WebP).
	OpensImage
	// OpensDocument is an allowed document type whose text a read and the searches extract
	// (PDF, Word, PowerPoint, Excel, OpenDocument text, EPUB): never written as text.
	OpensDocument
	// OpensIfText is a file of a type not on the list, or of no extension, that is read, searched
	// and edited as text when its content is text (no NUL byte and valid UTF-8
	// in its first bytes); it cannot be created.
	OpensIfText
	// OpensNot is a file the tools do not open: a known binary type (archives, programs, media,
	// office files), a type that runs when opened, a dotfile not allowed by name, or, under a
	// strict extension list, any type not on it. Listings still name it, with its size.
	OpensNot
)

// String is the word listings use for o: "text", "binary", "image", "if text" or "no".
func (o Opening) String() string {
	switch o {
	case OpensText:
		return "text"
	case OpensBinary:
		return "binary"
	case OpensIfText:
		return "if text"
	case OpensImage:
		return "image"
	case OpensDocument:
		return "document"
	}
	return "no"
}

// binaryTypes are the extensions whose files are not text, whether or not they are allowed: an
// allowed one opens as binary ([OpensBinary]); one that is not allowed is never opened by
// content ([OpensNot]), as reading it is wasted, and writing it would plant what runs.
var binaryTypes = setOf(
	// Documents and images the server reports as binary by default.
	".pdf", ".png", ".jpg", ".jpeg", ".gif", ".webp",
	// Office and e-books.
	".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods", ".odp", ".epub", ".pages", ".numbers",
	// Images, audio, video and fonts.
	".heic", ".heif", ".avif", ".bmp", ".tif", ".tiff", ".ico", ".icns", ".psd", ".raw", ".cr2", ".nef", ".dng",
	".mp3", ".wav", ".flac", ".aac", ".m4a", ".ogg", ".opus", ".mp4", ".m4v", ".mov", ".avi", ".mkv", ".webm",
	".ttf", ".otf", ".woff", ".woff2",
	// Archives, disk images and packages.
	".zip", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".tar", ".dmg", ".iso", ".img",
	".pkg", ".deb", ".rpm", ".apk", ".msi", ".jar", ".war", ".whl", ".nupkg", ".crx", ".xpi",
	// Programs, libraries and compiled code.
	".exe", ".dll", ".so", ".dylib", ".a", ".o", ".obj", ".lib", ".bin", ".class", ".pyc", ".pyo",
	".wasm", ".ko", ".sys", ".com", ".scr", ".cpl", ".msc",
	// Databases.
	".db", ".sqlite", ".sqlite3", ".mdb", ".accdb",
)

// imageTypes are the binary types a read hands a model as an image (package extract).
var imageTypes = setOf(imageExts...)

var imageExts = []string{".png", ".jpg", ".jpeg", ".gif", ".webp"}

// DocumentTypes are the binary types whose text package extract reads: allowed by default, opened
// as their text, never written as text.
var DocumentTypes = []string{".pdf", ".docx", ".pptx", ".xlsx", ".odt", ".odp", ".epub"}

var documentTypes = setOf(DocumentTypes...)

// runTypes are text types that run when opened (double-clicked, or by a shell's file
// association): never opened by content, so no call writes a program the user may launch.
var runTypes = setOf(
	".bat", ".cmd", ".vbs", ".vbe", ".jse", ".wsf", ".wsh", ".hta", ".reg", ".inf", ".lnk", ".url",
	".command", ".tool", ".scpt", ".applescript", ".desktop", ".app", ".action", ".workflow",
)

func setOf(exts ...string) map[string]struct{} {
	m := make(map[string]struct{}, len(exts))
	for _, e := range exts {
		m[e] = struct{}{}
	}
	return m
}

// Opens says what the tools do with the file name, a root-relative name the policy would not
// block, from the name alone ([Opening]). A file of a type not on the list opens by content
// ([OpensIfText]) only while the list is the default one (with or without
// [PolicyConfig.AddExtensions]): a strict [PolicyConfig.AllowedExtensions] never widens. A blocked
// name is [OpensNot]; listings do not name those at all.
func (p *Policy) Opens(name string) Opening {
	err := p.CheckName(name, false)
	base := fold(path.Base(name))
	ext := ""
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		ext = base[i:]
	}
	_, binary := binaryTypes[ext]
	_, img := imageTypes[ext]
	_, doc := documentTypes[ext]
	var pe *PathError
	switch {
	case err == nil && img:
		return OpensImage
	case err == nil && doc:
		return OpensDocument
	case err == nil && binary:
		return OpensBinary
	case err == nil:
		return OpensText
	case !p.byContent || !errors.As(err, &pe) || pe.Rule != RuleExtension:
		return OpensNot
	case binary || strings.HasPrefix(base, "."):
		return OpensNot // a dotfile such as .zshrc often exports tokens
	}
	if _, run := runTypes[ext]; run {
		return OpensNot
	}
	return OpensIfText
}

// NotText is the refusal of the file name, which [Policy.Opens] opens only when its content is
// text, when it is not.
func NotText(name string) error {
	return newPathError(name, RuleNotText, ErrExtension, "")
}
