package boundary

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The rooms of the module, for TestBoundary.
var (
	// allowedProject lists which project packages each library package may import; a package not
	// listed (cmd, the commands, and internal/serving, the runtime cmd runs) may import any. A
	// package of internal or of tools is named by its folder (internal/tier, tools/errs).
	allowedProject = map[string][]string{
		"fsroot":   {},
		"security": {"fsroot"},
		"intents":  {},
		"markdown": {},
		"fulltext": {"markdown", "fsroot"},
		"semantic": {"fsroot", "markdown", "fulltext", "extract"},
		"tools":    {"fsroot", "security", "intents", "semantic", "markdown", "fulltext", "history", "extract", "tools/result", "tools/errs", "tools/text", "tools/docs", "tools/relink", "tools/undo", "tools/search", "tools/progress"},
		// The rooms of tools (tools/NAME): each holds one concern of the tools, below tools, which
		// alone wires them; none imports tools.
		"tools/result":      {"extract", "fulltext"},
		"tools/errs":        {"fsroot", "security", "intents", "semantic", "tools/result"},
		"tools/text":        {"intents", "markdown", "tools/errs", "tools/result"},
		"tools/docs":        {"extract", "fsroot", "intents", "markdown", "security", "semantic", "tools/errs", "tools/result", "tools/text"},
		"tools/relink":      {"fsroot", "history", "markdown", "security", "semantic", "tools/result", "tools/text"},
		"tools/undo":        {"fsroot", "history", "intents", "security", "tools/errs", "tools/result"},
		"tools/search":      {"extract", "fsroot", "fulltext", "intents", "markdown", "security", "semantic", "tools/docs", "tools/errs", "tools/result", "tools/text"},
		"tools/progress":    {"semantic"},
		"extract":           {},
		"audit":             {"fsroot"},
		"history":           {"fsroot"},
		"internal/tier":     {},
		"internal/corpora":  {},
		"internal/boundary": {},
		// fsroot's own tests import internal/testfs, so it imports no package of ours.
		"internal/testfs": {},
		// toolformat is a library for other programs too: it stands alone.
		"toolformat": {},
	}
	// otherPrograms are the folders of programs that are not the server: dev's eval and bench read
	// corpora and run peer servers outside any root, so the rules of the sandbox do not bind them.
	otherPrograms = map[string]bool{"dev": true}
	// runsProcess are the packages that run the server's process: cmd, its flags and commands, and
	// internal/serving, the runtime they wire. They may use the names of hostPackages that run a
	// process, and they speak MCP.
	runsProcess = map[string]bool{"cmd": true, "internal/serving": true}
	// testOnly are the packages only tests import (TestTestOnlyImports), each with why: like fsroot,
	// they may touch the filesystem, since what they touch is what a test sets up and checks.
	testOnly = map[string]string{
		"internal/testfs": "it makes and reads the host files the tests of several packages set up and check (a tree, a link, a FIFO, a temporary folder, the temporary files a write left, a journal), one copy for all",
	}
)

// speaksMCP are the library packages that speak MCP: tools, and of its rooms tools/progress alone,
// which sends a call's progress notifications to the client.
var speaksMCP = map[string]bool{"tools": true, "tools/progress": true}

// mcpTypes is the one package of mcp-go that toolformat may import: the protocol's types.
const mcpTypes = "github.com/mark3labs/mcp-go/mcp"

// hostPackages are the packages whose business is the operating system. A library package (every
// package but fsroot, cmd, internal/serving, the commands and the packages of testOnly) imports
// none of them: fsroot hands it what it needs. cmd and internal/serving (runsProcess) may use, of
// each, only the names its predicate accepts: those that run the process (its arguments,
// environment, streams, signals and exit) or are pure (path strings, error values, types), and
// touch no file, folder or working directory.
var hostPackages = map[string]func(name string) bool{
	"os": func(name string) bool {
		// Not Getwd, Hostname or Executable, which read the process's folder or files in /proc.
		// UserCacheDir, UserHomeDir, UserConfigDir and TempDir only read the environment.
		return processOS[name] || strings.HasPrefix(name, "Err") || strings.HasPrefix(name, "Is") || strings.HasPrefix(name, "Mode")
	},
	"path/filepath": func(name string) bool {
		// Not Abs, EvalSymlinks, Glob, Walk or WalkDir, which ask the filesystem (or, for Abs, the
		// working directory).
		return pureFilepath[name]
	},
	"syscall":               signalOrErrno,
	"golang.org/x/sys/unix": signalOrErrno,
	"io/ioutil": func(name string) bool {
		return name == "Discard" || name == "NopCloser" || name == "ReadAll"
	},
	// Running a program, reading the user database or loading a plugin opens files.
	"os/exec": none,
	"os/user": none,
	"plugin":  none,
	// go/build reads package folders.
	"go/build": none,
}

// processOS are the names of package os that run the process and touch no file.
var processOS = map[string]bool{
	"Args": true, "Exit": true, "Getenv": true, "LookupEnv": true, "Environ": true, "Expand": true, "ExpandEnv": true,
	"Getpid": true, "Getppid": true, "Getuid": true, "Geteuid": true, "Getgid": true, "Getegid": true,
	"Stdin": true, "Stdout": true, "Stderr": true, "Interrupt": true, "Kill": true, "Signal": true,
	"UserCacheDir": true, "UserHomeDir": true, "UserConfigDir": true, "TempDir": true,
	"File": true, "FileInfo": true, "FileMode": true, "PathError": true, "LinkError": true, "SyscallError": true,
	"PathSeparator": true, "PathListSeparator": true, "DevNull": true,
}

// pureFilepath are the names of package path/filepath that only work on strings.
var pureFilepath = map[string]bool{
	"Base": true, "Clean": true, "Dir": true, "Ext": true, "FromSlash": true, "IsAbs": true, "IsLocal": true,
	"Join": true, "Localize": true, "Match": true, "Rel": true, "Split": true, "SplitList": true, "ToSlash": true,
	"VolumeName": true, "Separator": true, "ListSeparator": true, "ErrBadPattern": true, "SkipDir": true,
	"SkipAll": true, "WalkFunc": true,
}

var signalOrErrno = regexp.MustCompile(`^(SIG[A-Z0-9]+|E[A-Z0-9]+|Signal|Errno)$`).MatchString

func none(string) bool { return false }

// hostCalls are the names, in packages otherwise free of the host, that open host files or
// folders by name. No package but fsroot uses them.
var hostCalls = map[string][]string{
	"net/http":       {"Dir", "ServeFile"},
	"archive/zip":    {"OpenReader"},
	"text/template":  {"ParseFiles", "ParseGlob"},
	"html/template":  {"ParseFiles", "ParseGlob"},
	"go/parser":      {"ParseDir"},
	"debug/elf":      {"Open"},
	"debug/macho":    {"Open", "OpenFat"},
	"debug/pe":       {"Open"},
	"debug/plan9obj": {"Open"},
}

// hostExceptions are the files outside fsroot that may reach the host's filesystem, each with the
// names it may use (an import path and a name; "*" for anything of the host packages) and why.
// Each is a hole in "only fsroot touches the filesystem" that DEVELOPERS.md names: keep the list
// short. TestBoundary fails when a file listed here no longer exists, so that a move updates it.
var hostExceptions = map[string]struct {
	names []string
	why   string
}{
	"fulltext/index.go": {names: []string{"*"},
		why: "it hands bleve its index folder, the operator's setting outside the root, and bleve opens it by path"},
	"extract/pdfcache.go": {names: []string{"os.Getuid", "os.TempDir", "os.Mkdir", "os.Lstat", "filepath.Join"},
		why: "it makes the private folder of PDFium's compiled code in the temporary folder when no server named one (tests and other callers), and wazero opens that folder by path, as bleve opens the index's"},
	"internal/corpora/corpora.go": {names: []string{"*"},
		why: "it unpacks the shared corpora for tests, eval and bench, which alone import it (TestCorporaOnlyInTests)"},
	"cmd/packfs-mcp/config.go": {names: []string{"os.ReadFile"},
		why: "it reads the config file the operator names, before any root exists; read through a root, a config file that is a link (a dotfiles repository) would be refused"},
	"internal/serving/cputime_unix.go": {names: []string{"syscall.Getrusage", "syscall.Rusage", "syscall.RUSAGE_SELF"},
		why: "it reads the process's own CPU time, which opens no file, to pace the walks that stand in for file events by what they cost"},
	"internal/serving/http.go": {names: []string{"os.ReadFile"},
		why: "it reads the bearer token file the operator names, often a link to a mounted secret, which a root would refuse"},
}

// TestBoundary walks the module's source and fails when a package steps out of its room: only fsroot
// touches the operating system's filesystem (save the packages of testOnly, which only tests
// import, and the files of hostExceptions), only tools, cmd and internal/serving speak MCP
// (toolformat uses MCP's types, not its server), and imports point one way (cmd ->
// internal/serving -> tools -> intents, security, semantic -> fsroot; semantic -> fulltext ->
// markdown; cmd -> toolformat; cmd, internal/serving -> audit).
//
// What the walk sees is every use of a host package's name, by whatever name the file imports it,
// in every non-test file outside examples and testdata. What it cannot see is a method called on a
// value the package was handed (the *os.File of stdin, an fs.FS from fsroot): to have a value that
// reaches a host file, a package must first call one of the names above, or be given it by one
// that did.
func TestBoundary(t *testing.T) {
	const module = "github.com/packfs/packfs-mcp/"
	root := filepath.Join("..", "..")
	for file, e := range hostExceptions {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(file))); err != nil {
			t.Errorf("hostExceptions lists %s, which is gone (%v): move its entry with the file, or drop it", file, err)
		}
		if e.why == "" || len(e.names) == 0 {
			t.Errorf("hostExceptions lists %s without the names it may use and why", file)
		}
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "examples" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		pkg := packageOf(rel)
		if otherPrograms[pkg] {
			return nil
		}
		file, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
		if err != nil {
			return err
		}
		for _, v := range checkFile(rel, pkg, module, file) {
			t.Error(v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// packageOf is the room of the file at rel, as allowedProject names it: the first folder, or the
// first two for a package of internal or of tools.
func packageOf(rel string) string {
	parts := strings.Split(rel, "/")
	if (parts[0] == "internal" || parts[0] == "tools") && len(parts) > 2 {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}

// checkFile returns how file, at rel in package pkg, steps out of its room.
func checkFile(rel, pkg, module string, file *ast.File) []string {
	var out []string
	// fsroot is the one room that touches the filesystem, with the rooms of testOnly, which only
	// tests import; a file of hostExceptions may use what it lists.
	allowed := hostExceptions[rel].names
	if pkg == "fsroot" || testOnly[pkg] != "" {
		allowed = []string{"*"}
	}
	local := map[string]string{} // the name each import goes by in the file -> its path
	for _, imp := range file.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := path[strings.LastIndexByte(path, '/')+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		_, host := hostPackages[path]
		_, calls := hostCalls[path]
		switch {
		case strings.HasPrefix(path, "github.com/mark3labs/mcp-go") && !speaksMCP[pkg] && !runsProcess[pkg] && !(pkg == "toolformat" && path == mcpTypes):
			out = append(out, rel+" imports "+path+": only tools and cmd speak MCP (cmd's runtime, internal/serving, too), and toolformat uses only "+mcpTypes)
		case strings.HasPrefix(path, module):
			dep := strings.TrimPrefix(path, module)
			if deps, ok := allowedProject[pkg]; ok && !slices.Contains(deps, dep) {
				out = append(out, rel+" imports "+path+": "+pkg+" may import only "+strings.Join(deps, ", "))
			}
		case host && !runsProcess[pkg] && len(allowed) == 0:
			out = append(out, rel+" imports "+path+": only fsroot touches the filesystem (a library is handed an fs.FS or a *fsroot.Root)")
		case (host || calls) && name == ".":
			out = append(out, rel+" imports "+path+" with a dot, so the uses of its names cannot be checked")
		case host || calls:
			local[name] = path
		}
	}
	ast.Inspect(file, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok || id.Obj != nil { // a local variable of the same name is not the package
			return true
		}
		path, ok := local[id.Name]
		if !ok {
			return true
		}
		name := sel.Sel.Name
		use := path + "." + name
		if slices.Contains(allowed, "*") || slices.Contains(allowed, use) {
			return true
		}
		if pure, host := hostPackages[path]; host && !pure(name) || slices.Contains(hostCalls[path], name) {
			out = append(out, rel+" uses "+use+", which reaches the host's filesystem: only fsroot does (go through it, or list the file in hostExceptions with why)")
		}
		return true
	})
	return out
}

// TestBoundaryCatches runs TestBoundary's check on files made to step out of their room, and on
// files that only look as if they did, so that TestBoundary cannot pass for want of looking.
func TestBoundaryCatches(t *testing.T) {
	const module = "github.com/packfs/packfs-mcp/"
	tests := []struct {
		name, rel, src string
		want           []string // a substring of each violation, in order; none for a file in its room
	}{
		{name: "cmd runs the process", rel: "cmd/packfs-mcp/x.go",
			src: `import ("os"; "path/filepath"; "syscall"); var _ = []any{os.Args, os.Getenv, os.Stdin, os.UserCacheDir, os.ErrNotExist, os.IsNotExist, filepath.Join, filepath.Dir, syscall.SIGTERM, syscall.ENOTDIR}`},
		{name: "cmd reads a file", rel: "cmd/packfs-mcp/x.go", src: `import "os"; var _, _ = os.ReadFile("f")`,
			want: []string{"uses os.ReadFile"}},
		{name: "cmd resolves a path", rel: "cmd/packfs-mcp/x.go", src: `import "path/filepath"; var _, _ = filepath.Abs("f"); var _, _ = filepath.EvalSymlinks("f")`,
			want: []string{"uses path/filepath.Abs", "uses path/filepath.EvalSymlinks"}},
		{name: "cmd walks", rel: "cmd/packfs-mcp/x.go", src: `import "path/filepath"; var _ = filepath.WalkDir; var _ = filepath.Walk; var _, _ = filepath.Glob("*")`,
			want: []string{"path/filepath.WalkDir", "path/filepath.Walk,", "path/filepath.Glob"}},
		{name: "cmd under another name", rel: "cmd/packfs-mcp/x.go", src: `import fp "path/filepath"; var _, _ = fp.Abs("f")`,
			want: []string{"uses path/filepath.Abs"}},
		{name: "cmd with a dot", rel: "cmd/packfs-mcp/x.go", src: `import . "os"; var _ = Args`,
			want: []string{"imports os with a dot"}},
		{name: "a variable named like the package", rel: "cmd/packfs-mcp/x.go", src: `import "os"; var _ = os.Args; func f() { var os struct{ ReadFile int }; _ = os.ReadFile }`},
		{name: "cmd working directory", rel: "cmd/packfs-mcp/x.go", src: `import "os"; var _, _ = os.Getwd()`,
			want: []string{"uses os.Getwd"}},
		{name: "cmd raw system call", rel: "cmd/packfs-mcp/x.go", src: `import "syscall"; var _, _ = syscall.Open("f", 0, 0)`,
			want: []string{"uses syscall.Open"}},
		{name: "cmd runs a program", rel: "cmd/packfs-mcp/x.go", src: `import "os/exec"; var _ = exec.Command("ls")`,
			want: []string{"uses os/exec.Command"}},
		{name: "cmd serves a folder", rel: "cmd/packfs-mcp/x.go", src: `import "net/http"; var _ = http.FileServer(http.Dir("/"))`,
			want: []string{"uses net/http.Dir"}},
		{name: "cmd's excepted file", rel: "cmd/packfs-mcp/config.go", src: `import "os"; var _, _ = os.ReadFile("f"); var _ = os.WriteFile`,
			want: []string{"uses os.WriteFile"}},
		{name: "the runtime runs the process", rel: "internal/serving/x.go",
			src: `import ("os"; "os/signal"; "syscall"); var _ = []any{os.Args, os.Getenv, os.Stdin, signal.NotifyContext, syscall.SIGTERM}`},
		{name: "the runtime reads a file", rel: "internal/serving/x.go", src: `import "os"; var _, _ = os.ReadFile("f")`,
			want: []string{"uses os.ReadFile"}},
		{name: "the runtime walks", rel: "internal/serving/x.go", src: `import "path/filepath"; var _ = filepath.WalkDir`,
			want: []string{"uses path/filepath.WalkDir"}},
		{name: "the runtime's excepted file", rel: "internal/serving/http.go", src: `import "os"; var _, _ = os.ReadFile("f"); var _ = os.Create`,
			want: []string{"uses os.Create"}},
		{name: "the runtime speaks MCP", rel: "internal/serving/x.go", src: `import ("github.com/mark3labs/mcp-go/server"; "github.com/packfs/packfs-mcp/tools"); var _ = server.NewMCPServer; var _ = tools.New`},
		{name: "an internal library imports os", rel: "internal/tier/x.go", src: `import "os"; var _ = os.Getenv`,
			want: []string{"internal/tier/x.go imports os: only fsroot"}},
		{name: "an internal library imports ours", rel: "internal/tier/x.go", src: `import "github.com/packfs/packfs-mcp/internal/serving"; var _ = serving.Build`,
			want: []string{"internal/tier may import only"}},
		{name: "library imports os", rel: "tools/x.go", src: `import "os"; var _ = os.Getenv`,
			want: []string{"tools/x.go imports os: only fsroot"}},
		{name: "a room of tools imports tools", rel: "tools/errs/x.go", src: `import "github.com/packfs/packfs-mcp/tools"; var _ = tools.New`,
			want: []string{"tools/errs may import only"}},
		{name: "a room of tools speaks MCP", rel: "tools/search/x.go", src: `import "github.com/mark3labs/mcp-go/server"; var _ = server.NewMCPServer`,
			want: []string{"only tools and cmd speak MCP"}},
		{name: "progress notifies the client", rel: "tools/progress/x.go", src: `import "github.com/mark3labs/mcp-go/server"; var _ = server.ServerFromContext`},
		{name: "a room of tools imports os", rel: "tools/result/x.go", src: `import "os"; var _ = os.Getenv`,
			want: []string{"tools/result/x.go imports os: only fsroot"}},
		{name: "library imports filepath", rel: "security/x.go", src: `import "path/filepath"; var _ = filepath.Join`,
			want: []string{"imports path/filepath: only fsroot"}},
		{name: "library parses templates from files", rel: "audit/x.go", src: `import "text/template"; var _, _ = template.ParseFiles("t")`,
			want: []string{"uses text/template.ParseFiles"}},
		{name: "the excepted index file", rel: "fulltext/index.go", src: `import ("os"; "path/filepath"); var _ = os.RemoveAll; var _ = filepath.Join`},
		{name: "toolformat uses MCP's types", rel: "toolformat/x.go", src: `import "github.com/mark3labs/mcp-go/mcp"; var _ mcp.Tool`},
		{name: "toolformat serves MCP", rel: "toolformat/x.go", src: `import "github.com/mark3labs/mcp-go/server"; var _ = server.NewMCPServer`,
			want: []string{"only tools and cmd speak MCP"}},
		{name: "toolformat imports ours", rel: "toolformat/x.go", src: `import "github.com/packfs/packfs-mcp/tools"; var _ = tools.New`,
			want: []string{"toolformat may import only"}},
		{name: "fsroot touches the filesystem", rel: "fsroot/x.go", src: `import ("os"; "path/filepath"); var _ = os.OpenRoot; var _, _ = filepath.EvalSymlinks("f")`},
		{name: "the tests' helpers touch the filesystem", rel: "internal/testfs/x.go",
			src: `import ("os"; "path/filepath"; "syscall"); var _ = []any{os.WriteFile, os.Symlink, filepath.WalkDir, syscall.Mkfifo}`},
		{name: "the tests' helpers import ours", rel: "internal/testfs/x.go", src: `import "github.com/packfs/packfs-mcp/fsroot"; var _ = fsroot.TempPrefix`,
			want: []string{"internal/testfs may import only"}},
		{name: "an import running back up", rel: "fsroot/x.go", src: `import "github.com/packfs/packfs-mcp/security"; var _ = security.Cost`,
			want: []string{"fsroot may import only"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file, err := parser.ParseFile(token.NewFileSet(), tt.rel, "package x\n"+tt.src, 0)
			if err != nil {
				t.Fatal(err)
			}
			got := checkFile(tt.rel, packageOf(tt.rel), module, file)
			if len(got) != len(tt.want) {
				t.Fatalf("violations %q, want %d: %q", got, len(tt.want), tt.want)
			}
			for i, want := range tt.want {
				if !strings.Contains(got[i], want) {
					t.Errorf("violation %q lacks %q", got[i], want)
				}
			}
		})
	}
}

// eachImport calls fn with the slash path, relative to the repository, and each import of every
// non-test Go file of the repository.
func eachImport(t *testing.T, fn func(rel, path string)) {
	t.Helper()
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		file, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for _, imp := range file.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			fn(filepath.ToSlash(rel), path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCorporaOnlyInTests fails when a file other than a test or of the commands eval and bench
// imports internal/corpora, which touches the filesystem directly.
func TestCorporaOnlyInTests(t *testing.T) {
	eachImport(t, func(rel, path string) {
		if path == "github.com/packfs/packfs-mcp/internal/corpora" && !strings.HasPrefix(rel, "dev/") {
			t.Errorf("%s imports internal/corpora: only tests, eval and bench may", rel)
		}
	})
}

// TestTestOnlyImports fails when a file other than a test imports a package of testOnly, which
// touches the filesystem directly: only tests may.
func TestTestOnlyImports(t *testing.T) {
	const module = "github.com/packfs/packfs-mcp/"
	eachImport(t, func(rel, path string) {
		if pkg, ok := strings.CutPrefix(path, module); ok && testOnly[pkg] != "" {
			t.Errorf("%s imports %s: only tests may, since %s", rel, pkg, testOnly[pkg])
		}
	})
}

// TestNoBleveRoot fails when a file other than a test imports bleve's root package: fulltext opens
// scorch directly, and the root package would link every index type, store and highlighter bleve
// has (3.4 MB of binary, about 1 MB of memory at start) back in.
func TestNoBleveRoot(t *testing.T) {
	eachImport(t, func(rel, path string) {
		if path == "github.com/blevesearch/bleve/v2" {
			t.Errorf("%s imports bleve's root package: use its subpackages (scorch, mapping, search)", rel)
		}
	})
}
