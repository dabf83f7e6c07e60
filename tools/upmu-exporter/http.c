// SPDX-License-Identifier: GPL-2.0
/*
 * upmu-exporter's HTTP side, on libmicrohttpd: GET /metrics serves the
 * exposition of a snapshot that answers every scrape within cache_ms of
 * its reading (concurrent scrapers get one consistent read, and one
 * response, which libmicrohttpd reference-counts); "/" a pointer to it;
 * anything else 404, another method 405.  libmicrohttpd keeps the
 * abusive clients in bounds: a connection limit, an idle timeout (a
 * half-sent request is dropped after timeout_s), and a per-connection
 * memory pool (a request whose header does not fit gets 431).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exporter.h"
#include "http.h"

#define CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"
#define CONN_MEMORY	(16 * 1024)

struct server {
	const struct config *cfg;
	struct collector *col;
	pthread_mutex_t *lock;		/* the collector's */
	struct MHD_Daemon *d;
	struct MHD_Response *metrics;	/* the snapshot's, or NULL */
	uint64_t taken_ns;
	struct MHD_Response *index, *not_found, *bad_method, *oom;
	uint64_t scrapes, dropped;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* A fresh snapshot's response, or NULL (out of memory). */
static struct MHD_Response *snapshot(struct server *s)
{
	struct samples smp = { 0 };
	struct MHD_Response *r = NULL;
	unsigned int dropped = 0;
	uint64_t t0 = mono_ns();
	size_t len;
	char *text = NULL;

	collector_rescan(s->col);
	if (!collector_read(s->col, &smp) &&
	    !samples_add(&smp, "upmu_exporter_scrapes", "Scrapes served, from snapshots or fresh",
			 M_COUNTER, false, s->scrapes, 0, "%s", "") &&
	    !samples_add(&smp, "upmu_exporter_series_dropped",
			 "Series left out of an exposition for a name with two types, or given twice (a bug)",
			 M_COUNTER, false, s->dropped, 0, "%s", "") &&
	    !samples_add(&smp, "upmu_exporter_collect_seconds",
			 "How long reading the counters for this snapshot took", M_GAUGE, true, 0,
			 (mono_ns() - t0) / 1e9, "%s", ""))
		text = expo_render(&smp, &len, &dropped);
	samples_free(&smp);
	s->dropped += dropped;
	if (text) {
		r = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
		if (!r)
			free(text);
	}
	if (r && MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, CONTENT_TYPE) != MHD_YES) {
		MHD_destroy_response(r);
		r = NULL;
	}
	return r;
}

/* Queue the snapshot's response on @c, under the lock that replaces it. */
static enum MHD_Result metrics(struct server *s, struct MHD_Connection *c)
{
	uint64_t now = mono_ns();
	struct MHD_Response *r;
	enum MHD_Result ret;

	pthread_mutex_lock(s->lock);
	s->scrapes++;
	if (!s->metrics || now - s->taken_ns >= (uint64_t)s->cfg->cache_ms * 1000000ULL) {
		r = snapshot(s);
		if (r) {
			if (s->metrics)
				MHD_destroy_response(s->metrics);
			s->metrics = r;
			s->taken_ns = now;
		}
	}
	if (s->metrics)
		ret = MHD_queue_response(c, MHD_HTTP_OK, s->metrics);
	else
		ret = MHD_queue_response(c, MHD_HTTP_SERVICE_UNAVAILABLE, s->oom);
	pthread_mutex_unlock(s->lock);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **state)
{
	static int seen;
	struct server *s = cls;
	struct MHD_Response *r;
	unsigned int status = MHD_HTTP_OK;

	(void)version;
	(void)upload;
	if (!*state) {
		/* headers only so far: answer once the request is complete */
		*state = &seen;
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0;	/* a body: read and ignored */
		return MHD_YES;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		r = s->bad_method;
		status = MHD_HTTP_METHOD_NOT_ALLOWED;
	} else if (!strcmp(url, "/metrics")) {
		return metrics(s, c);
	} else if (!strcmp(url, "/")) {
		r = s->index;
	} else {
		r = s->not_found;
		status = MHD_HTTP_NOT_FOUND;
	}
	return MHD_queue_response(c, status, r);
}

static struct MHD_Response *fixed(const char *text, const char *allow)
{
	struct MHD_Response *r;

	r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	if (!r)
		return NULL;
	if (MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				    "text/plain; charset=utf-8") != MHD_YES ||
	    (allow && MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow) != MHD_YES)) {
		MHD_destroy_response(r);
		return NULL;
	}
	return r;
}

struct server *server_start(const struct config *c, struct collector *col,
			    pthread_mutex_t *lock, bool no_listen, char *err, size_t errlen)
{
	struct server *s = calloc(1, sizeof(*s));
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in a4 = { .sin_family = AF_INET };
	unsigned int flags = MHD_USE_AUTO_INTERNAL_THREAD;
	const struct sockaddr *sa = (const struct sockaddr *)&a4;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->cfg = c;
	s->col = col;
	s->lock = lock;
	s->index = fixed("upmu-exporter: the uncore PMUs' counters are at /metrics\n", NULL);
	s->not_found = fixed("not found: the counters are at /metrics\n", NULL);
	s->bad_method = fixed("only GET and HEAD\n", "GET, HEAD");
	s->oom = fixed("out of memory\n", NULL);
	if (!s->index || !s->not_found || !s->bad_method || !s->oom) {
		snprintf(err, errlen, "out of memory");
		server_stop(s);
		return NULL;
	}
	if (inet_pton(AF_INET, c->listen_addr, &a4.sin_addr) == 1) {
		a4.sin_port = htons(c->port);
	} else if (inet_pton(AF_INET6, c->listen_addr, &a6.sin6_addr) == 1) {
		a6.sin6_port = htons(c->port);
		sa = (const struct sockaddr *)&a6;
		flags |= MHD_USE_IPv6;
	} else {
		snprintf(err, errlen, "listen: '%s' is not an address", c->listen_addr);
		server_stop(s);
		return NULL;
	}
	if (no_listen)
		flags |= MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC;
	errno = 0;
	s->d = MHD_start_daemon(flags, c->port, NULL, NULL, handle, s,
				MHD_OPTION_SOCK_ADDR, sa,
				MHD_OPTION_CONNECTION_LIMIT, c->max_clients,
				MHD_OPTION_CONNECTION_TIMEOUT, c->timeout_s,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
				MHD_OPTION_END);
	if (!s->d) {
		snprintf(err, errlen, "cannot listen on %s%s%s:%u: %s",
			 sa == (const struct sockaddr *)&a6 ? "[" : "", c->listen_addr,
			 sa == (const struct sockaddr *)&a6 ? "]" : "", c->port,
			 errno ? strerror(errno) : "libmicrohttpd refused its options");
		server_stop(s);
		return NULL;
	}
	return s;
}

int server_add_connection(struct server *s, int fd)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

	return MHD_add_connection(s->d, fd, (struct sockaddr *)&a, sizeof(a)) == MHD_YES ? 0 : -EIO;
}

void server_stop(struct server *s)
{
	if (!s)
		return;
	if (s->d)
		MHD_stop_daemon(s->d);
	if (s->metrics)
		MHD_destroy_response(s->metrics);
	if (s->index)
		MHD_destroy_response(s->index);
	if (s->not_found)
		MHD_destroy_response(s->not_found);
	if (s->bad_method)
		MHD_destroy_response(s->bad_method);
	if (s->oom)
		MHD_destroy_response(s->oom);
	free(s);
}
