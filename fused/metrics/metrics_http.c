// SPDX-License-Identifier: GPL-2.0
/*
 * metrics_http.c - the metrics served over HTTP (libevent's evhttp, in the
 * daemon's loop): GET and HEAD /metrics, the listener paused after
 * EMFILE, the connection caps (metrics_conns.c), metrics_listen's
 * address.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <event2/buffer.h>
#include <event2/listener.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "util/error.h"
#include "util/log.h"
#include "metrics/metrics.h"
#include "metrics/metrics_priv.h"

/*
 * The one exception to the context rule here: libevent calls the
 * listener's error callback (on_accept_error) with the listener's own
 * arg, which evhttp set to its struct evhttp, never one of ours, and
 * neither evhttp nor the listener has a way back to ours. So the server
 * whose listener that is is noted here (metrics_http_start) and checked against
 * the arg. One daemon, one metrics server.
 */
static struct metrics *accepting;

unsigned long metrics_http_accept_errors(const struct daemon *d)
{
	return d->mx != NULL ? d->mx->accept_errors : 0;
}

unsigned int metrics_http_conns(const struct daemon *d)
{
	return d->mx != NULL ? mconns_count(d->mx->conns) : 0;
}

unsigned long metrics_http_refused(const struct daemon *d)
{
	return d->mx != NULL ? mconns_refused(d->mx->conns) : 0;
}

static void resume_cb(evutil_socket_t fd, short what, void *arg)
{
	struct metrics *mx = arg;

	(void)fd;
	(void)what;
	evconnlistener_enable(evhttp_bound_socket_get_listener(mx->sock));
	mx->paused = false;
}

static void pause_accepting(struct metrics *mx, const char *why)
{
	struct evconnlistener *lev = evhttp_bound_socket_get_listener(mx->sock);

	if (!lev || mx->paused)
		return;
	evconnlistener_disable(lev);
	mx->paused = true;
	log_ratelimited(&mx->rl, LOG_WARNING,
			"metrics: accept: %s: not "
			"accepting for %d s",
			why, METRICS_EMFILE_RETRY_S);
}

/* EMFILE/ENFILE: libevent would retry at once, forever (100% CPU and a
 * log line each time); pause, and try again in a second. */
static void on_accept_error(struct evconnlistener *lev, void *arg)
{
	struct metrics *mx = accepting;
	struct timeval tv = { METRICS_EMFILE_RETRY_S, 0 };
	int err = errno;

	(void)lev;
	if (mx == NULL || mx->http != arg)
		return;
	mx->accept_errors++;
	if (err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM) {
		pause_accepting(mx, strerror(err));
		evtimer_add(mx->resume, &tv);
		return;
	}
	log_ratelimited(&mx->rl, LOG_WARNING, "metrics: accept: %s",
			strerror(err));
}

/* libevent 2.1 sends a body with a reply to HEAD: send none, and the
 * Content-Length a GET would have had. */
static void send_head(struct evhttp_request *req, int code, const char *reason,
		      size_t len)
{
	char v[32];

	snprintf(v, sizeof(v), "%zu", len);
	evhttp_add_header(evhttp_request_get_output_headers(req),
			  "Content-Length", v);
	evhttp_send_reply(req, code, reason, NULL);
}

static void reply_text(struct evhttp_request *req, int code, const char *reason,
		       const char *text)
{
	struct evbuffer *body;

	evhttp_add_header(evhttp_request_get_output_headers(req),
			  "Content-Type", "text/plain; charset=utf-8");
	if (evhttp_request_get_command(req) == EVHTTP_REQ_HEAD) {
		send_head(req, code, reason, strlen(text));
		return;
	}
	body = evbuffer_new();
	if (body)
		evbuffer_add(body, text, strlen(text));
	evhttp_send_reply(req, code, reason, body);
	if (body)
		evbuffer_free(body);
}

static void on_http(struct evhttp_request *req, void *arg)
{
	struct daemon *d = arg;
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
	struct evbuffer *body;

	if (!path || strcmp(path, "/metrics") != 0) {
		reply_text(req, HTTP_NOTFOUND, "Not Found",
			   "not found: the metrics are at /metrics\n");
		return;
	}
	if (cmd != EVHTTP_REQ_GET && cmd != EVHTTP_REQ_HEAD) {
		evhttp_add_header(evhttp_request_get_output_headers(req),
				  "Allow", "GET, HEAD");
		reply_text(req, HTTP_BADMETHOD, "Method Not Allowed",
			   "method not allowed: GET or HEAD\n");
		return;
	}
	body = evbuffer_new();
	if (!body || metrics_render_daemon_ev(d, body) < 0) {
		if (body)
			evbuffer_free(body);
		reply_text(req, HTTP_INTERNAL, "Internal Server Error",
			   "out of memory\n");
		return;
	}
	evhttp_add_header(evhttp_request_get_output_headers(req),
			  "Content-Type", METRICS_CONTENT_TYPE);
	if (cmd == EVHTTP_REQ_HEAD)
		send_head(req, HTTP_OK, "OK", evbuffer_get_length(body));
	else
		evhttp_send_reply(req, HTTP_OK, "OK", body);
	evbuffer_free(body);
}

/* "HOST:PORT" or "[V6ADDR]:PORT" (config_keys.c has checked the shape). */
static int split_listen(const char *v, char **host, unsigned short *port)
{
	const char *colon = strrchr(v, ':');
	const char *h = v, *he = colon;
	char *end;
	unsigned long p;

	if (!colon || colon == v)
		return -1;
	if (*v == '[') {
		if (colon[-1] != ']' || colon - v < 3)
			return -1;
		h = v + 1;
		he = colon - 1;
	}
	errno = 0;
	p = strtoul(colon + 1, &end, 10);
	if (errno || end == colon + 1 || *end || p > 65535)
		return -1;
	*host = strndup(h, (size_t)(he - h));
	if (!*host)
		return -1;
	*port = (unsigned short)p;
	return 0;
}

bool metrics_listen_loopback(const char *listen)
{
	struct in6_addr a6;
	struct in_addr a4;
	unsigned short port;
	char *host = NULL;
	bool lo = false;

	if (split_listen(listen, &host, &port) < 0)
		return false;
	if (strcmp(host, "localhost") == 0)
		lo = true;
	else if (inet_pton(AF_INET, host, &a4) == 1)
		lo = (ntohl(a4.s_addr) >> 24) == 127;
	else if (inet_pton(AF_INET6, host, &a6) == 1)
		lo = IN6_IS_ADDR_LOOPBACK(&a6) ||
		     (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
	free(host);
	return lo;
}

int metrics_http_start(struct metrics *mx, const char *listen, char **cause)
{
	struct daemon *d = mx->d;
	char *host = NULL;
	unsigned short port;
	int err;

	if (split_listen(listen, &host, &port) < 0) {
		*cause = xasprintf("metrics_listen: bad address '%s'", listen);
		return -1;
	}
	mx->http = evhttp_new(d->base);
	if (!mx->http) {
		free(host);
		*cause = xasprintf("metrics_listen: evhttp_new failed");
		return -1;
	}
	/* Every method reaches on_http, which answers 405 (not evhttp's
	 * 501) to all but GET and HEAD. */
	evhttp_set_allowed_methods(
		mx->http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD | EVHTTP_REQ_POST |
				  EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE |
				  EVHTTP_REQ_OPTIONS | EVHTTP_REQ_TRACE |
				  EVHTTP_REQ_CONNECT | EVHTTP_REQ_PATCH);
	evhttp_set_timeout(mx->http, 10);
	evhttp_set_max_headers_size(mx->http, 8192);
	evhttp_set_max_body_size(mx->http, 4096);
	evhttp_set_gencb(mx->http, on_http, d);
	errno = 0;
	mx->sock = evhttp_bind_socket_with_handle(mx->http, host, port);
	if (!mx->sock) {
		err = errno;
		*cause = xasprintf("metrics_listen %s: cannot listen%s%s",
				   listen, err ? ": " : "",
				   err ? strerror(err) : "");
		free(host);
		evhttp_free(mx->http);
		mx->http = NULL;
		return -1;
	}
	free(host);
	mx->resume = evtimer_new(d->base, resume_cb, mx);
	if (!mx->resume ||
	    (mx->conns = mconns_start(mx->http, d->base)) == NULL) {
		*cause = xasprintf("metrics_listen: out of memory");
		return -1;
	}
	evconnlistener_set_error_cb(evhttp_bound_socket_get_listener(mx->sock),
				    on_accept_error);
	accepting = mx;
	log_info("metrics: serving http://%s/metrics", listen);
	if (!metrics_listen_loopback(listen))
		log_warn("metrics_listen %s is not a loopback address: anyone "
			 "who reaches the port reads the metrics (no "
			 "authentication)",
			 listen);
	return 0;
}

unsigned int metrics_http_port(const struct daemon *d)
{
	const struct metrics *mx = d->mx;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int fd;

	if (mx == NULL || !mx->sock)
		return 0;
	fd = evhttp_bound_socket_get_fd(mx->sock);
	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return 0;
}

void metrics_http_stop(struct metrics *mx)
{
	if (accepting == mx)
		accepting = NULL;
	if (mx->http)
		evhttp_free(mx->http); /* its socket and connections too */
	mconns_stop(mx->conns);
	if (mx->resume)
		event_free(mx->resume);
}
