package web

import (
	"crypto/subtle"
	"net"
	"net/http"
	"strings"
)

// The access token never travels in a cookie: a browser sends a cookie
// for 127.0.0.1 to every port of 127.0.0.1, so any local server the
// browser is led to would receive it. The token is in the URL's fragment,
// which a browser sends to no server; the page's script keeps it in the
// tab's sessionStorage (scoped to scheme, host and port) and presents it
// only when it opens a live channel, as a WebSocket subprotocol, which no
// page of another origin can make the browser send.
//
// Only the live channels carry session data, so only they need the
// token; the pages, script and style sheet are the same for everyone.

// Subprotocol is the WebSocket subprotocol the server answers with.
const Subprotocol = "pty-web"

// TokenProtocolPrefix prefixes the token in the subprotocol list a live
// channel's handshake offers: "pty-web", "pty-web.token.TOKEN".
const TokenProtocolPrefix = "pty-web.token."

// hasToken reports whether the handshake offers the token, comparing in
// constant time.
func (s *server) hasToken(r *http.Request) bool {
	want := []byte(TokenProtocolPrefix + s.o.Token)
	ok := 0
	for _, h := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(h, ",") {
			ok |= subtle.ConstantTimeCompare([]byte(strings.TrimSpace(p)), want)
		}
	}
	return ok == 1
}

// validHost reports whether a request's Host is an IP address or
// localhost. A page of a DNS name made to resolve to this machine (DNS
// rebinding) has that name as its Host, and is refused.
func validHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.EqualFold(host, "localhost") || net.ParseIP(host) != nil
}
