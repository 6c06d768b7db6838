package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/packfs/packfs-mcp/internal/serving"
	"github.com/packfs/packfs-mcp/internal/tier"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The HTTP tests run the built binary with --http and drive it with the mcp-go client over streamable
// HTTP, and with plain HTTP requests where the status and headers are the point.

// testToken is the bearer token the tests' servers are started with.
const testToken = "test-token-0123456789abcdef"

// httpServer is the binary serving a fixture over HTTP.
type httpServer struct {
	url    string
	cmd    *exec.Cmd
	stdout bytes.Buffer
	mu     sync.Mutex
	stderr bytes.Buffer
	exited chan struct{}
}

func (s *httpServer) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// httpEnv is the test process's environment without a token, plus HOME, the cache and extra.
func httpEnv(f *fixture, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, serving.TokenEnv+"=") {
			env = append(env, kv)
		}
	}
	return append(env, append(cacheEnv(f.dir), extra...)...)
}

var listeningRE = regexp.MustCompile(`listening on http://(\S+)/mcp`)

// startHTTP starts the binary serving f's root over HTTP on a free loopback port (unless args name
// another address) and waits for it to log where it listens. On cleanup it sends SIGTERM and expects
// a clean exit, nothing on stdout, and the token nowhere in the log.
func startHTTP(t *testing.T, f *fixture, env []string, args ...string) *httpServer {
	t.Helper()
	if !slices.Contains(args, "--http") {
		args = append(args, "--http", "127.0.0.1:0")
	}
	return startHTTPArgs(t, env, append([]string{"serve", "--root", f.root, "--no-index", "--history-dir", filepath.Join(f.dir, "history")}, args...)...)
}

// startHTTPArgs is [startHTTP] with the whole command line: the binary run with args, which must
// name the address.
func startHTTPArgs(t *testing.T, env []string, args ...string) *httpServer {
	t.Helper()
	s := &httpServer{cmd: exec.Command(binPath, args...), exited: make(chan struct{})}
	s.cmd.Env = env
	s.cmd.Stdout = &s.stdout
	pipe, err := s.cmd.StderrPipe()
	must(t, err)
	must(t, s.cmd.Start())
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.stderr.WriteString(line + "\n")
			s.mu.Unlock()
			if m := listeningRE.FindStringSubmatch(line); m != nil {
				addr <- m[1]
			}
		}
		s.cmd.Wait()
		close(s.exited)
	}()
	select {
	case a := <-addr:
		_, port, err := net.SplitHostPort(a)
		must(t, err)
		s.url = "http://127.0.0.1:" + port + "/mcp" // also when the server listens on every interface
	case <-s.exited:
		t.Fatalf("the server exited (%v) before listening:\n%s", s.cmd.ProcessState, s.log())
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		t.Fatalf("the server did not log its address:\n%s", s.log())
	}
	t.Cleanup(func() {
		s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(20 * time.Second):
			s.cmd.Process.Kill()
			<-s.exited
			t.Errorf("the server did not stop on SIGTERM:\n%s", s.log())
		}
		if code := s.cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("exit code %d after SIGTERM, want 0:\n%s", code, s.log())
		}
		if s.stdout.Len() != 0 {
			t.Errorf("stdout is unused in HTTP mode, got %q", s.stdout.String())
		}
		if strings.Contains(s.log(), testToken) {
			t.Errorf("the log shows the token:\n%s", s.log())
		}
	})
	return s
}

// connect starts an mcp-go client on s and initializes it, returning the error of initialize.
func connect(t *testing.T, url string, copts []client.ClientOption, topts ...transport.StreamableHTTPCOption) (*client.Client, error) {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url, topts...)
	must(t, err)
	c := client.NewClient(tr, copts...)
	t.Cleanup(func() { c.Close() })
	// The transport keeps Start's context for its event stream (WithContinuousListening), where
	// it answers the server's requests: it must outlive the handshake.
	must(t, c.Start(context.Background()))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "http-test", Version: "1"}
	_, err = c.Initialize(ctx, req)
	return c, err
}

func withToken(token string) transport.StreamableHTTPCOption {
	return transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token})
}

// httpSession connects with the token and lists the tools, as [start] does over stdio.
func httpSession(t *testing.T, f *fixture, url string, copts []client.ClientOption, topts ...transport.StreamableHTTPCOption) *session {
	t.Helper()
	c, err := connect(t, url, copts, topts...)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	must(t, err)
	s := &session{t: t, c: c, f: f, schemas: map[string]*jsonschema.Schema{}}
	for _, tool := range list.Tools {
		raw := tool.RawOutputSchema
		if len(raw) == 0 {
			raw, err = json.Marshal(tool.OutputSchema)
			must(t, err)
		}
		s.schemas[tool.Name] = compileSchema(t, raw)
	}
	return s
}

func TestHTTPServe(t *testing.T) {
	f := newFixture(t)
	tokenFile := filepath.Join(f.dir, "token")
	must(t, os.WriteFile(tokenFile, []byte("  "+testToken+"\n"), 0o600)) // surrounding space is trimmed
	setups := []struct {
		name string
		env  []string
		args []string
		logs []string // what the log must say
	}{
		{"token from the environment", httpEnv(f, serving.TokenEnv+"="+testToken), nil, []string{"bearer token from $" + serving.TokenEnv}},
		{"token from a file", httpEnv(f, serving.TokenEnv+"=some-other-token-that-the-file-overrides"), []string{"--http-token-file", tokenFile},
			[]string{"bearer token from the token file " + tokenFile}},
		{"every interface with a token", httpEnv(f, serving.TokenEnv+"="+testToken), []string{"--http", "0.0.0.0:0"},
			[]string{"(every interface", "plain HTTP"}},
	}
	for _, setup := range setups {
		t.Run(setup.name, func(t *testing.T) {
			srv := startHTTP(t, f, setup.env, setup.args...)
			for _, era := range eras {
				t.Run(era.name, func(t *testing.T) {
					s := httpSession(t, f, srv.url, era.opts, withToken(testToken))
					var names []string
					for name := range s.schemas {
						names = append(names, name)
					}
					slices.Sort(names)
					if want := []string{reader, searcher}; !slices.Equal(names, want) {
						t.Errorf("tools = %v, want %v (writing is off)", names, want)
					}
					res, isErr := s.call(reader, access("read", "notes/a.md"))
					if isErr || !strings.Contains(fmt.Sprint(res["content"]), "hello world") {
						t.Errorf("read notes/a.md: %v", res)
					}
					// The policy applies over HTTP as over stdio.
					for _, tc := range []struct{ path, code string }{
						{"../outside/secret.md", "PATH_OUTSIDE_ROOT"},
						{"link_out.md", "PATH_OUTSIDE_ROOT"},
						{".env", "PATH_BLOCKED"},
					} {
						if res, _ := s.call(reader, access("read", tc.path)); res["code"] != tc.code {
							t.Errorf("read %s: code %v, want %s", tc.path, res["code"], tc.code)
						}
					}
					s.checkNoLeak()
				})
			}
			for _, want := range setup.logs {
				if !strings.Contains(srv.log(), want) {
					t.Errorf("the log does not say %q:\n%s", want, srv.log())
				}
			}
		})
	}
}

// initializeBody is an initialize request, padded with spaces to n bytes if n is larger.
func initializeBody(n int) string {
	b := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	if n > len(b) {
		b += strings.Repeat(" ", n-len(b))
	}
	return b
}

// refused is the JSON of a message a transport refused: an HTTP body, or a line on stdio.
type refused struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			Code         string `json:"code"`
			RetryAfterMs int64  `json:"retryAfterMs"`
		} `json:"data"`
	} `json:"error"`
}

// post sends body to url with the MCP headers and hdr, from the default client or hc.
func post(t *testing.T, hc *http.Client, url string, hdr map[string]string, body io.Reader) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, body)
	must(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	must(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	must(t, err)
	return resp, data
}

func TestHTTPRefusals(t *testing.T) {
	f := newFixture(t)
	const maxBody = 64 << 10
	srv := startHTTP(t, f, httpEnv(f, serving.TokenEnv+"="+testToken),
		"--max-request-bytes", fmt.Sprint(maxBody), "--http-allowed-origins", "https://app.example, http://tools.example:8080")
	auth := "Bearer " + testToken
	tests := []struct {
		name    string
		method  string // POST if empty
		path    string // /mcp if empty
		hdr     map[string]string
		body    io.Reader   // an initialize request if nil
		status  int         // the wanted status
		code    string      // the wanted data.code of a refusal
		headers [][2]string // wanted response headers: name, a substring of the value
	}{
		{name: "right token", hdr: map[string]string{"Authorization": auth}, status: 200},
		{name: "no token", status: 401, code: "UNAUTHENTICATED", headers: [][2]string{{"WWW-Authenticate", `Bearer realm="packfs-mcp"`}}},
		{name: "wrong token", hdr: map[string]string{"Authorization": "Bearer not-the-token-0123456789"}, status: 401, code: "UNAUTHENTICATED",
			headers: [][2]string{{"WWW-Authenticate", `error="invalid_token"`}}},
		{name: "the token's prefix", hdr: map[string]string{"Authorization": auth[:len(auth)-1]}, status: 401, code: "UNAUTHENTICATED"},
		{name: "the token with more", hdr: map[string]string{"Authorization": auth + "0"}, status: 401, code: "UNAUTHENTICATED"},
		{name: "another scheme", hdr: map[string]string{"Authorization": "Basic " + testToken}, status: 401, code: "UNAUTHENTICATED"},
		{name: "bearer without a token", hdr: map[string]string{"Authorization": "Bearer"}, status: 401, code: "UNAUTHENTICATED"},
		{name: "lowercase scheme", hdr: map[string]string{"Authorization": "bearer " + testToken}, status: 200},
		{name: "no token on another path", path: "/", status: 401, code: "UNAUTHENTICATED"},
		{name: "another path", path: "/other", hdr: map[string]string{"Authorization": auth}, status: 404},
		{name: "body at the cap", hdr: map[string]string{"Authorization": auth}, body: strings.NewReader(initializeBody(maxBody)), status: 200},
		{name: "body over the cap", hdr: map[string]string{"Authorization": auth}, body: strings.NewReader(initializeBody(maxBody + 1)), status: 413, code: "TOO_LARGE"},
		{name: "chunked body over the cap", hdr: map[string]string{"Authorization": auth},
			body: io.MultiReader(strings.NewReader(initializeBody(maxBody + 1))), status: 413, code: "TOO_LARGE"},
		{name: "huge body", hdr: map[string]string{"Authorization": auth}, body: strings.NewReader(initializeBody(8 * maxBody)), status: 413, code: "TOO_LARGE"},
		{name: "oversized without a token", body: strings.NewReader(initializeBody(maxBody + 1)), status: 401, code: "UNAUTHENTICATED"},
		{name: "disallowed origin", hdr: map[string]string{"Authorization": auth, "Origin": "https://evil.example"}, status: 403, code: "ORIGIN_NOT_ALLOWED"},
		{name: "lookalike origin", hdr: map[string]string{"Authorization": auth, "Origin": "http://localhost.evil.example"}, status: 403, code: "ORIGIN_NOT_ALLOWED"},
		{name: "allowed origin on another port", hdr: map[string]string{"Authorization": auth, "Origin": "https://app.example:8443"}, status: 403, code: "ORIGIN_NOT_ALLOWED"},
		{name: "null origin", hdr: map[string]string{"Authorization": auth, "Origin": "null"}, status: 403, code: "ORIGIN_NOT_ALLOWED"},
		{name: "disallowed origin without a token", hdr: map[string]string{"Origin": "https://evil.example"}, status: 403, code: "ORIGIN_NOT_ALLOWED"},
		{name: "allowed origin", hdr: map[string]string{"Authorization": auth, "Origin": "https://app.example"}, status: 200,
			headers: [][2]string{{"Access-Control-Allow-Origin", "https://app.example"}}},
		{name: "allowed origin with its port", hdr: map[string]string{"Authorization": auth, "Origin": "http://tools.example:8080"}, status: 200},
		{name: "allowed origin without a token", hdr: map[string]string{"Origin": "https://app.example"}, status: 401, code: "UNAUTHENTICATED",
			headers: [][2]string{{"Access-Control-Allow-Origin", "https://app.example"}}},
		{name: "localhost origin", hdr: map[string]string{"Authorization": auth, "Origin": "http://localhost:5173"}, status: 200},
		{name: "127.0.0.1 origin", hdr: map[string]string{"Authorization": auth, "Origin": "http://127.0.0.1:3000"}, status: 200},
		{name: "::1 origin", hdr: map[string]string{"Authorization": auth, "Origin": "http://[::1]:3000"}, status: 200},
		{name: "preflight from an allowed origin", method: http.MethodOptions,
			hdr:    map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type"},
			status: 204, headers: [][2]string{{"Access-Control-Allow-Methods", "POST"}, {"Access-Control-Allow-Headers", "authorization"}}},
		{name: "preflight from a disallowed origin", method: http.MethodOptions,
			hdr: map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"}, status: 403, code: "ORIGIN_NOT_ALLOWED"},
		{name: "rebound host name", hdr: map[string]string{"Authorization": auth, "Host": "evil.example"}, status: 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.body
			if body == nil {
				body = strings.NewReader(initializeBody(0))
			}
			method := cmpOr(tt.method, http.MethodPost)
			req, err := http.NewRequest(method, strings.TrimSuffix(srv.url, "/mcp")+cmpOr(tt.path, "/mcp"), body)
			must(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tt.hdr {
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := http.DefaultClient.Do(req)
			must(t, err)
			data, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			must(t, err)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tt.status, data)
			}
			for _, h := range tt.headers {
				if v := resp.Header.Get(h[0]); !strings.Contains(v, h[1]) {
					t.Errorf("%s = %q, want it to contain %q", h[0], v, h[1])
				}
			}
			if tt.code == "" {
				return
			}
			var r refused
			if err := json.Unmarshal(data, &r); err != nil {
				t.Fatalf("the refusal is not JSON: %s", data)
			}
			if r.JSONRPC != "2.0" || r.Error.Code != serving.RefusedCode || r.Error.Data.Code != tt.code || r.Error.Message == "" {
				t.Errorf("refusal %s, want a JSON-RPC error with data.code %s", data, tt.code)
			}
		})
	}

	// The mcp-go client reports the same refusals.
	big := map[string]any{"purpose": "read", "target": map[string]any{"path": strings.Repeat("a", maxBody)}}
	clientTests := []struct {
		name    string
		topts   []transport.StreamableHTTPCOption
		initErr error  // wanted from initialize
		callErr string // wanted in the error of an oversized call
	}{
		{name: "missing token", initErr: transport.ErrAuthorizationRequired},
		{name: "wrong token", topts: []transport.StreamableHTTPCOption{withToken("not-the-token-0123456789")}, initErr: transport.ErrAuthorizationRequired},
		{name: "oversized request", topts: []transport.StreamableHTTPCOption{withToken(testToken)}, callErr: "larger than this server's limit"},
	}
	for _, tt := range clientTests {
		for _, era := range eras {
			t.Run("client "+tt.name+" "+era.name, func(t *testing.T) {
				c, err := connect(t, srv.url, era.opts, tt.topts...)
				if tt.initErr != nil {
					if !errors.Is(err, tt.initErr) {
						t.Fatalf("initialize: %v, want %v", err, tt.initErr)
					}
					return
				}
				must(t, err)
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				req := mcp.CallToolRequest{}
				req.Params.Name = reader
				req.Params.Arguments = big
				if _, err := c.CallTool(ctx, req); err == nil || !strings.Contains(err.Error(), tt.callErr) {
					t.Fatalf("oversized call: %v, want an error saying %q", err, tt.callErr)
				}
				req.Params.Arguments = access("read", "notes/a.md")
				if res, err := c.CallTool(ctx, req); err != nil || res.IsError {
					t.Fatalf("a call after the oversized one: %v %v", err, res)
				}
			})
		}
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// fromAddress is an HTTP client whose connections come from the loopback address ip.
func fromAddress(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}, Timeout: 30 * time.Second}
}

// exhaust sends requests until one is refused with 429, which must come after at least limit were let
// through, and checks that refusal.
func exhaust(t *testing.T, hc *http.Client, url string, hdr map[string]string, limit int) {
	t.Helper()
	for i := 1; i <= 3*limit; i++ {
		resp, data := post(t, hc, url, hdr, strings.NewReader(initializeBody(0)))
		if resp.StatusCode != http.StatusTooManyRequests {
			continue
		}
		if i <= limit {
			t.Fatalf("request %d refused with 429, but the limit is %d", i, limit)
		}
		if ra := resp.Header.Get("Retry-After"); ra == "" || ra == "0" {
			t.Errorf("Retry-After = %q, want a number of seconds", ra)
		}
		var r refused
		must(t, json.Unmarshal(data, &r))
		if r.Error.Data.Code != "RATE_LIMITED" || r.Error.Data.RetryAfterMs <= 0 {
			t.Errorf("refusal %s, want RATE_LIMITED with retryAfterMs", data)
		}
		return
	}
	t.Fatalf("no 429 after %d requests with a limit of %d", 3*limit, limit)
}

func TestHTTPRateLimitPerClient(t *testing.T) {
	f := newFixture(t)
	const limit = 6
	tests := []struct {
		name string
		// env starts the server; hog and other are the two clients: their address and token.
		env              []string
		hogIP, hogToken  string
		otherIP, otherTk string
	}{
		// Without a token, clients are told apart by address: another loopback address is another client.
		{name: "by address", env: httpEnv(f), hogIP: "127.0.0.1", otherIP: "127.0.0.2"},
		// With one, the token holder has its own budget, which guessers on the same address cannot use up.
		{name: "by token", env: httpEnv(f, serving.TokenEnv+"="+testToken), hogIP: "127.0.0.1", hogToken: "guessed-token-0123456789",
			otherIP: "127.0.0.1", otherTk: testToken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, ip := range []string{tt.hogIP, tt.otherIP} {
				if ln, err := net.Listen("tcp", ip+":0"); err != nil {
					t.Skipf("no loopback address %s here: %v", ip, err)
				} else {
					ln.Close()
				}
			}
			srv := startHTTP(t, f, tt.env, "--http-client-rate-limit", fmt.Sprint(limit))
			hdr := map[string]string{}
			if tt.hogToken != "" {
				hdr["Authorization"] = "Bearer " + tt.hogToken
			}
			exhaust(t, fromAddress(tt.hogIP), srv.url, hdr, limit)

			topts := []transport.StreamableHTTPCOption{transport.WithHTTPBasicClient(fromAddress(tt.otherIP))}
			if tt.otherTk != "" {
				topts = append(topts, withToken(tt.otherTk))
			}
			s := httpSession(t, f, srv.url, eras[1].opts, topts...)
			if res, isErr := s.call(reader, access("read", "notes/a.md")); isErr {
				t.Errorf("the other client's read: %v", res)
			}
			if resp, _ := post(t, fromAddress(tt.hogIP), srv.url, hdr, strings.NewReader(initializeBody(0))); resp.StatusCode != http.StatusTooManyRequests {
				t.Errorf("the first client got %d after the other's calls, want 429 still", resp.StatusCode)
			}
		})
	}
}

func TestHTTPStartRefusals(t *testing.T) {
	f := newFixture(t)
	write := func(name, content string) string {
		p := filepath.Join(f.dir, name)
		must(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	tests := []struct {
		name string
		env  []string // besides httpEnv
		args []string
		want string // in stderr
	}{
		{name: "non-loopback without a token", args: []string{"--http", "0.0.0.0:0"}, want: "is not a loopback address, so clients must authenticate: put a bearer token in $" + serving.TokenEnv},
		{name: "every interface without a token", args: []string{"--http", ":0"}, want: "--http-token-file"},
		{name: "a host name without a token", args: []string{"--http", "example.com:0"}, want: "is not a loopback address"},
		{name: "no port", args: []string{"--http", "127.0.0.1"}, want: "want HOST:PORT"},
		{name: "empty token file", args: []string{"--http", "0.0.0.0:0", "--http-token-file", write("empty", " \n")}, want: "is empty"},
		{name: "missing token file", args: []string{"--http", "127.0.0.1:0", "--http-token-file", filepath.Join(f.dir, "absent")}, want: "token file"},
		{name: "short token", env: []string{serving.TokenEnv + "=short"}, want: "shorter than 16 characters"},
		{name: "blank token", env: []string{serving.TokenEnv + "=   "}, want: "holds only spaces"},
		{name: "token with a space", env: []string{serving.TokenEnv + "=abcdefgh ijklmnopqrst"}, want: "printable ASCII"},
		{name: "token file holding a document", args: []string{"--http-token-file", write("big", strings.Repeat("x", 5000))}, want: "must hold only the token"},
		{name: "wildcard origin", args: []string{"--http-allowed-origins", "*"}, want: "there is no wildcard"},
		{name: "origin with a path", args: []string{"--http-allowed-origins", "https://app.example/page"}, want: "want SCHEME://HOST[:PORT]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"serve", "--root", f.root, "--no-index"}, tt.args...)
			if !slices.Contains(args, "--http") {
				args = append(args, "--http", "127.0.0.1:0")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, binPath, args...)
			cmd.Env = httpEnv(f, tt.env...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Fatalf("exit: %v, want code 2; stderr:\n%s", err, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr does not say %q:\n%s", tt.want, stderr.String())
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout = %q, want nothing", stdout.String())
			}
		})
	}
}

// TestHTTPInProcess serves in this process, so that the race detector watches the HTTP layer under
// concurrent clients, and stops the server as an operator would, with SIGTERM.
func TestHTTPInProcess(t *testing.T) {
	tier.Full(t, "serves HTTP with many clients")
	f := newFixture(t)
	t.Setenv(serving.TokenEnv, testToken)
	pr, pw := io.Pipe()
	var stdout bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"serve", "--root", f.root, "--no-index", "--history-dir", filepath.Join(f.dir, "history"),
			"--http", "127.0.0.1:0", "--http-client-rate-limit", "100000"}, strings.NewReader(""), &stdout, pw)
		pw.Close()
	}()
	var mu sync.Mutex
	var log strings.Builder
	addr := make(chan string, 1)
	logged := make(chan struct{})
	go func() {
		defer close(logged)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if m := listeningRE.FindStringSubmatch(sc.Text()); m != nil {
				addr <- "http://" + m[1] + "/mcp"
			}
		}
	}()
	var url string
	select {
	case url = <-addr:
	case c := <-code:
		t.Fatalf("run returned %d before listening", c)
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not log its address")
	}

	const clients, calls, guesses = 6, 10, 10
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := connect(t, url, nil, withToken(testToken))
			if err != nil {
				t.Errorf("initialize: %v", err)
				return
			}
			for range calls {
				req := mcp.CallToolRequest{}
				req.Params.Name = reader
				req.Params.Arguments = access("read", "notes/a.md")
				if res, err := c.CallTool(context.Background(), req); err != nil || res.IsError {
					t.Errorf("read: %v %v", err, res)
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range guesses {
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeBody(0)))
			req.Header.Set("Authorization", "Bearer guessed-token-0123456789")
			if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("a guessed token: %v %v", err, resp)
			} else {
				resp.Body.Close()
			}
		}
	}()
	wg.Wait()

	must(t, terminateSelf())
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("exit code %d after SIGTERM, want 0", c)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not stop on SIGTERM")
	}
	<-logged
	if stdout.Len() != 0 {
		t.Errorf("stdout is unused in HTTP mode, got %q", stdout.String())
	}
	want := fmt.Sprintf("HTTP requests refused: %d without the right token", guesses)
	if got := log.String(); !strings.Contains(got, want) || strings.Contains(got, testToken) {
		t.Errorf("the log does not say %q, or shows the token:\n%s", want, got)
	}
}

// TestHTTPWideJSON is case J58's wide JSON over HTTP with the default message bounds: a body of
// more than serving.MaxMessageValues values (an array of 10 million numbers in a 20 MB tool call) is
// refused before mcp-go decodes it, with 413 and the TOO_LARGE refusal naming the limit, with
// the request's id; the mcp-go client reports it for its call and its next call is served; the
// server's peak memory stays under half of what a flat body as long costs (the array alone took
// it to 868 MB); and a write of the largest file, its text all brackets, commas, quotes and
// backslashes, is still served, whole.
func TestHTTPWideJSON(t *testing.T) {
	tier.Full(t, "sends messages of megabytes over HTTP")
	f := newFixture(t)
	srv := startHTTP(t, f, httpEnv(f, serving.TokenEnv+"="+testToken), "--allow-write")
	hdr := map[string]string{"Authorization": "Bearer " + testToken}
	const bodyBytes = 20_000_000
	readArgs := func(extra string) json.RawMessage {
		return json.RawMessage(`{"purpose":"read","target":{"path":"notes/a.md"}` + extra + `}`)
	}
	call := func(id int, args json.RawMessage) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"` + reader + `","arguments":` + string(args) + `}}`
	}
	wideArgs := readArgs(`,"x":` + wideArray((bodyBytes-len(call(7, readArgs(`,"x":`))))/2))
	body := call(7, wideArgs)
	if len(body) < bodyBytes-2 || int64(len(body)) > serving.DefaultMaxRequestBytes {
		t.Fatalf("the wide body is %d bytes, want some %d, under the byte bound", len(body), bodyBytes)
	}
	resp, data := post(t, nil, srv.url, hdr, strings.NewReader(body))
	var r refused
	limit := fmt.Sprintf("more than %d JSON values", serving.MaxMessageValues)
	if err := json.Unmarshal(data, &r); err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge || string(r.ID) != "7" || r.Error.Code != serving.RefusedCode ||
		r.Error.Data.Code != "TOO_LARGE" || !strings.Contains(r.Error.Message, limit) {
		t.Errorf("status %d, body %.300s: want 413 and a TOO_LARGE refusal with id 7 naming the limit", resp.StatusCode, data)
	}

	c, err := connect(t, srv.url, nil, withToken(testToken))
	must(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = reader
	req.Params.Arguments = wideArgs
	if _, err := c.CallTool(ctx, req); err == nil || !strings.Contains(err.Error(), limit) {
		t.Errorf("a call of %d values: %v, want an error saying %q", len(body)/2, err, limit)
	}
	req.Params.Arguments = readArgs("")
	if res, err := c.CallTool(ctx, req); err != nil || res.IsError {
		t.Fatalf("the call after: %v %v, want success", res, err)
	}
	peak, err := peakMB(srv.cmd.Process.Pid)
	must(t, err)
	flat := startHTTP(t, f, httpEnv(f, serving.TokenEnv+"="+testToken))
	flatArgs := readArgs(`,"x":"` + strings.Repeat("y", len(wideArgs)-len(readArgs(`,"x":""`))) + `"`)
	if resp, data := post(t, nil, flat.url, hdr, strings.NewReader(call(7, flatArgs))); resp.StatusCode == http.StatusRequestEntityTooLarge {
		t.Fatalf("a flat body as long was refused: %.300s", data)
	}
	flatPeak, err := peakMB(flat.cmd.Process.Pid)
	must(t, err)
	if peak > flatPeak/2 {
		t.Errorf("peak resident memory %.0f MB after two %d-byte bodies of %d values, want under half the %.0f MB of a flat body as long",
			peak, len(body), len(body)/2, flatPeak)
	}
	t.Logf("peak resident memory %.1f MB; after a flat body as long %.1f MB", peak, flatPeak)

	// The largest file is still written (see valueDenseContent).
	content := valueDenseContent()
	req.Params.Name = writer
	req.Params.Arguments = map[string]any{"purpose": "create", "target": map[string]any{"path": "big.md"}, "content": content}
	res, err := c.CallTool(ctx, req)
	if err != nil || res.IsError {
		t.Fatalf("a write of %d bytes: %v %v, want success", len(content), res, err)
	}
	if got, err := os.ReadFile(filepath.Join(f.root, "big.md")); err != nil || string(got) != content {
		t.Errorf("big.md holds %d bytes (%v), want the %d written", len(got), err, len(content))
	}
}
