package serving

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools"
	"github.com/packfs/packfs-mcp/tools/errs"
)

// The streamable HTTP transport. Every request passes, in this order: the Origin check (a browser page
// may call only from a loopback origin or one the operator listed, so a hostile page cannot drive a
// local server by DNS rebinding), the per-client rate limit, the bearer token, and the body's caps
// on bytes and on JSON values; then mcp-go's handler, which also refuses a non-loopback Host header
// on a loopback connection. Tool calls then go through the same MCP server, and so the same
// permissions, policy and tool limiter, as on stdio.

const (
	// MinTokenLen is the shortest bearer token accepted: a shorter one could be guessed.
	MinTokenLen = 16
	// maxTokenBytes is the largest token file read: a token is a line, not a document.
	maxTokenBytes = 4096
	// readHeaderTimeout stops a client that opens a connection and sends its headers slowly.
	readHeaderTimeout = 10 * time.Second
	// bodyReadTimeout bounds reading one request body. It is set per request rather than as the
	// server's ReadTimeout, which would also end the long-lived event streams.
	bodyReadTimeout = time.Minute
	// idleTimeout closes keep-alive connections left unused.
	idleTimeout = 2 * time.Minute
	// maxHeaderBytes caps a request's headers; MCP needs a few hundred bytes.
	maxHeaderBytes = 64 << 10
	// sessionIdleTTL is when mcp-go forgets the state of a session that stopped sending requests
	// without ending it.
	sessionIdleTTL = 30 * time.Minute
	// heartbeatInterval keeps an idle event stream from being cut by a proxy.
	heartbeatInterval = 30 * time.Second
)

// httpAccess is what the HTTP transport checks, resolved from [HTTPConfig].
type httpAccess struct {
	// token is the bearer token clients must send. If empty, none is needed (loopback only).
	token string
	// source says where the token came from, for the log; never the token itself.
	source string
	// origins are the allowed origins besides loopback ones, normalized by [normalizeOrigin].
	origins map[string]bool
}

// Check reports a problem with the HTTP settings, so the server refuses to start with a usage error
// rather than fail later.
func (h HTTPConfig) Check() error {
	_, err := h.access()
	return err
}

// access resolves the token and the allowed origins, refusing a non-loopback address without a token.
func (h HTTPConfig) access() (httpAccess, error) {
	var acc httpAccess
	host, _, err := net.SplitHostPort(h.Addr)
	if err != nil {
		return acc, fmt.Errorf("HTTP address %q: want HOST:PORT, such as 127.0.0.1:8080", h.Addr)
	}
	if acc.token, acc.source, err = h.loadToken(); err != nil {
		return acc, err
	}
	if acc.token == "" && !loopbackHost(host) {
		return acc, fmt.Errorf("HTTP address %s is not a loopback address, so clients must authenticate: "+
			"put a bearer token in $%s or in a file named by --http-token-file (make one with: openssl rand -hex 32)", h.Addr, TokenEnv)
	}
	acc.origins = map[string]bool{}
	for _, o := range h.AllowedOrigins {
		n, ok := normalizeOrigin(o)
		if !ok {
			return acc, fmt.Errorf("allowed origin %q: want SCHEME://HOST[:PORT] exactly as a browser sends it, such as https://app.example.com (list each origin; there is no wildcard)", o)
		}
		acc.origins[n] = true
	}
	return acc, nil
}

// loadToken reads the bearer token from the token file if one is set, else from the environment. It
// returns an empty token when neither holds one.
func (h HTTPConfig) loadToken() (token, source string, err error) {
	if h.TokenFile != "" {
		data, err := os.ReadFile(h.TokenFile)
		if err != nil {
			return "", "", fmt.Errorf("token file: %w", err)
		}
		if len(data) > maxTokenBytes {
			return "", "", fmt.Errorf("token file %s is over %d bytes: it must hold only the token", h.TokenFile, maxTokenBytes)
		}
		source = "the token file " + h.TokenFile
		token = strings.TrimSpace(string(data))
		if token == "" {
			return "", "", fmt.Errorf("token file %s is empty: write a bearer token in it (such as the output of openssl rand -hex 32)", h.TokenFile)
		}
	} else {
		raw := os.Getenv(TokenEnv)
		if raw == "" {
			return "", "", nil
		}
		source = "$" + TokenEnv
		if token = strings.TrimSpace(raw); token == "" {
			return "", "", fmt.Errorf("$%s holds only spaces: set it to a bearer token (such as the output of openssl rand -hex 32), or unset it", TokenEnv)
		}
	}
	if len(token) < MinTokenLen {
		return "", "", fmt.Errorf("the bearer token in %s is shorter than %d characters, which could be guessed: use a long random one (such as the output of openssl rand -hex 32)", source, MinTokenLen)
	}
	for i := 0; i < len(token); i++ {
		if c := token[i]; c <= ' ' || c > '~' {
			return "", "", fmt.Errorf("the bearer token in %s must be printable ASCII without spaces, so it fits in a header", source)
		}
	}
	return token, source, nil
}

// loopbackHost reports whether host (a name or an address, without a port) is a loopback one.
// "localhost" counts; other names do not, since they may resolve anywhere.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && ip.IsLoopback()
}

// normalizeOrigin returns an origin in the form a browser sends it (lowercase scheme and host, no
// default port, no path), or false if s is not an origin.
func normalizeOrigin(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") ||
		u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", false
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host, true
}

// listenHTTP serves MCP over streamable HTTP at /mcp on the configured address until ctx ends, then
// shuts down gracefully: it stops accepting, ends the event streams and lets calls in flight finish.
func (a *app) listenHTTP(ctx context.Context) error {
	acc, err := a.cfg.HTTP.access()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", a.cfg.HTTP.Addr)
	if err != nil {
		return fmt.Errorf("HTTP: %w", err)
	}
	// A name such as localhost could resolve anywhere: what counts is the address bound.
	bound, _ := ln.Addr().(*net.TCPAddr)
	loopback := bound != nil && bound.IP.IsLoopback()
	if acc.token == "" && !loopback {
		ln.Close()
		return fmt.Errorf("HTTP address %s resolved to %s, which is not a loopback address, so clients must authenticate: put a bearer token in $%s or in a file named by --http-token-file",
			a.cfg.HTTP.Addr, ln.Addr(), TokenEnv)
	}
	hs := &http.Server{
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          a.logs.stderr(),
	}
	streams := server.NewStreamableHTTPServer(a.mcp,
		server.WithStreamableHTTPServer(hs),
		server.WithStreamableHTTPLogger(slog.New(slog.NewTextHandler(a.logs.stderr().Writer(), &slog.HandlerOptions{Level: slog.LevelWarn}))),
		server.WithSessionIdleTTL(sessionIdleTTL),
		server.WithHeartbeatInterval(heartbeatInterval),
	)
	mux := http.NewServeMux()
	mux.Handle("/mcp", streams)
	g := newGate(mux, acc, a.cfg)
	hs.Handler = g

	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	auth := "clients must send the bearer token from " + acc.source
	if acc.token == "" {
		auth = "no bearer token: any local program can connect (set $" + TokenEnv + " to require one)"
	}
	where := ""
	if bound != nil && bound.IP.IsUnspecified() {
		where = " (every interface: use this machine's name or address)"
	}
	a.log.Printf("listening on http://%s/mcp%s; %s; at most %d requests a minute per client, %d bytes a request",
		ln.Addr(), where, auth, g.limits.PerClient(), g.maxBody)
	if !loopback {
		a.warn.Print("this is plain HTTP, where the token and the files travel unencrypted: across a network, put a TLS proxy in front")
	}

	select {
	case err := <-served:
		return fmt.Errorf("HTTP: %w", err)
	case <-ctx.Done():
	}
	grace := a.cfg.timeout()
	if grace <= 0 {
		grace = tools.DefaultTimeout
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace+5*time.Second)
	defer cancel()
	if err := streams.Shutdown(sctx); err != nil {
		a.warn.Printf("HTTP: calls still running at shutdown were cut off: %v", err)
		hs.Close()
	}
	<-served
	if s := g.summary(); s != "" {
		a.log.Print(s)
	}
	return nil
}

// gate is the middleware in front of mcp-go's handler.
type gate struct {
	next    http.Handler
	auth    bool     // a token is required
	sum     [32]byte // the token's SHA-256, compared in constant time
	key     string   // the rate limiter's key for clients holding the token: a hash, never the token
	origins map[string]bool
	maxBody int64
	// limits is each client's budget of requests a minute, by its key: the token's, or its address.
	limits *security.ClientLimiter

	// refusals, for the summary at shutdown
	unauthorized, forbidden, tooLarge, limited atomic.Int64
}

func newGate(next http.Handler, acc httpAccess, c Config) *gate {
	g := &gate{next: next, origins: acc.origins, maxBody: maxRequest(c)}
	g.limits = security.NewClientLimiter(security.ClientLimitConfig{PerClient: c.HTTP.ClientRateLimit, Window: time.Minute})
	if acc.token != "" {
		g.auth = true
		g.sum = sha256.Sum256([]byte(acc.token))
		g.key = "token " + hex.EncodeToString(g.sum[:8])
	}
	return g
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if origin := r.Header.Get("Origin"); origin != "" {
		if !g.originAllowed(origin) {
			g.forbidden.Add(1)
			refuse(w, nil, http.StatusForbidden, errs.CodeOriginNotAllowed, fmt.Sprintf("requests from web pages at %s are not allowed: "+
				"only loopback origins are, and those the server lists in --http-allowed-origins", origin), 0)
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
		h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
			if asked := r.Header.Get("Access-Control-Request-Headers"); asked != "" {
				h.Set("Access-Control-Allow-Headers", asked)
			}
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}

	// A request without the token is limited by its address, so guessing tokens is as slow as any
	// other traffic and does not use up the budget of the clients that hold it.
	presented, hasToken := bearer(r)
	authed := false
	if g.auth && hasToken {
		sum := sha256.Sum256([]byte(presented))
		authed = subtle.ConstantTimeCompare(sum[:], g.sum[:]) == 1
	}
	key := g.key
	if !authed {
		key = "addr " + remoteIP(r)
	}
	var limited *security.RateLimitError
	if err := g.limits.Allow(key, time.Now()); errors.As(err, &limited) {
		g.limited.Add(1)
		secs := int(math.Ceil(limited.RetryAfter.Seconds()))
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		refuse(w, nil, http.StatusTooManyRequests, errs.CodeRateLimited, fmt.Sprintf("too many requests from this client: at most %d a minute; retry in %d seconds",
			g.limits.PerClient(), secs), limited.RetryAfter.Milliseconds())
		return
	}
	if g.auth && !authed {
		g.unauthorized.Add(1)
		challenge := `Bearer realm="packfs-mcp"`
		msg := "this server requires a bearer token: send the header \"Authorization: Bearer TOKEN\" with the token it was started with (from its $" + TokenEnv + " or --http-token-file)"
		if hasToken {
			challenge += `, error="invalid_token"`
			msg = "the bearer token is not the one this server was started with: send the header \"Authorization: Bearer TOKEN\" with the token from its $" + TokenEnv + " or --http-token-file"
		}
		w.Header().Set("WWW-Authenticate", challenge)
		refuse(w, nil, http.StatusUnauthorized, errs.CodeUnauthenticated, msg, 0)
		return
	}

	if r.ContentLength > g.maxBody {
		g.refuseTooLarge(w)
		return
	}
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = http.MaxBytesReader(w, r.Body, g.maxBody)
		if r.Method == http.MethodPost {
			// mcp-go reads the whole body anyway; reading it here turns an oversized one into a 413
			// rather than a parse error, bounds the time a slow client can take to send it, and
			// refuses one of more than MaxMessageValues values before mcp-go decodes it, as soon
			// as its values pass the limit.
			rc := http.NewResponseController(w)
			_ = rc.SetReadDeadline(time.Now().Add(bodyReadTimeout))
			body, err := io.ReadAll(&countingReader{r: r.Body, values: valueCount{max: MaxMessageValues}})
			_ = rc.SetReadDeadline(time.Time{})
			var tooLarge *http.MaxBytesError
			switch {
			case errors.As(err, &tooLarge):
				g.refuseTooLarge(w)
				return
			case errors.Is(err, errTooManyValues):
				g.tooLarge.Add(1)
				refuse(w, idOf(body[:min(len(body), idHead)]), http.StatusRequestEntityTooLarge, errs.CodeTooLarge, tooManyValues(), 0)
				return
			case err != nil:
				refuse(w, nil, http.StatusBadRequest, errs.CodeInvalidArgument, "the request body could not be read in full", 0)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
	}
	g.next.ServeHTTP(w, r)
}

// errTooManyValues is what a countingReader returns once its body holds more than its limit of
// JSON values.
var errTooManyValues = errors.New("too many JSON values")

// countingReader passes a request body through, counting its JSON values as they go by (see
// [valueCount]), and fails with errTooManyValues once they pass the limit, so a wide body is
// refused when its head has been read, not held whole first.
type countingReader struct {
	r      io.Reader
	values valueCount
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.values.scan(p[:n]) {
		return n, errTooManyValues
	}
	return n, err
}

func (g *gate) refuseTooLarge(w http.ResponseWriter) {
	g.tooLarge.Add(1)
	refuse(w, nil, http.StatusRequestEntityTooLarge, errs.CodeTooLarge, tooLarge(g.maxBody), 0)
}

// originAllowed reports whether a browser page at origin may call: a loopback origin, or one listed.
func (g *gate) originAllowed(origin string) bool {
	n, ok := normalizeOrigin(origin)
	if !ok {
		return false // including "null", sent by sandboxed frames and local files
	}
	if g.origins[n] {
		return true
	}
	u, _ := url.Parse(n)
	return (u.Scheme == "http" || u.Scheme == "https") && loopbackHost(u.Hostname())
}

// summary tells how many requests were refused, or nothing if none was.
func (g *gate) summary() string {
	a, f, t, l := g.unauthorized.Load(), g.forbidden.Load(), g.tooLarge.Load(), g.limited.Load()
	if a+f+t+l == 0 {
		return ""
	}
	return fmt.Sprintf("HTTP requests refused: %d without the right token, %d from a disallowed origin, %d too large, %d over the rate limit", a, f, t, l)
}

// bearer returns the token of an "Authorization: Bearer" header, and whether there was one.
func bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", r.Header.Get("Authorization") != ""
	}
	return strings.TrimSpace(token), true
}

func remoteIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// refuse writes a refusal as a JSON-RPC error (see [refusal]) with the HTTP status, and id, or null
// if id is nil.
func refuse(w http.ResponseWriter, id json.RawMessage, status int, code, msg string, retryAfterMs int64) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(refusal(id, code, msg, retryAfterMs))
}
