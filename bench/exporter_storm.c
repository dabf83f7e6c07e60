// SPDX-License-Identifier: GPL-2.0
/*
 * exporter_storm: upmu-exporter under abuse (bench/README, "upmu-exporter").
 *
 * For S seconds, against http://ADDR:PORT: 64 clients loop on
 * GET /metrics (HTTP/1.1, Connection: close), 32 slow clients each send
 * half a request and hold it until the server closes it (then again, until
 * the end), and 10^4 malformed requests (bad method, a 20 KiB header, random
 * garbage, a request line over 8 KiB, NUL bytes) go out evenly over its
 * first 90%, up to 32 (-M) in flight, from threads of 4 connections each
 * (non-blocking sockets and epoll; each request given 2 s); meanwhile a
 * scraper does GET /metrics once a second, as Prometheus would, and records
 * how long it took and whether it got 200 with upmu_exporter_build_info in
 * the body (Prometheus's up).  The exporter's open fds and VmRSS
 * (/proc/PID) are taken before, at the end of the storm and after
 * timeout + 2 s (the exporter's timeout_s, 5 by default).  One block of
 * "key value" lines; figures, not a test: exit 0 whatever they are, 1 only
 * if it cannot measure (no answer at the start, no such PID), 2 on a usage
 * error.
 *
 *   exporter_storm -p PID [-s SECS] [-T TIMEOUT_S] [-c N] [-w N] [-m N]
 *                  [-M N] [http://ADDR:PORT]
 */

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define NS		1000000000LL
#define MS		1000000LL
#define MAX_CLIENTS	1024
#define MAX_SCRAPES	4096
#define STACK_SIZE	(256 * 1024)
#define UP_SERIES	"upmu_exporter_build_info"
#define MREQ_MAX	32768		/* a malformed request's room */
#define SENDER_CONNS	4		/* a malformed requests' sender's connections */

enum kind { K_METRICS, K_SLOW, K_BAD_METHOD, K_BIG_HEADER, K_GARBAGE, K_LONG_LINE, K_NUL,
	    K_SCRAPE, NR_KINDS };
static const char *const kind_name[NR_KINDS] = {
	"metrics", "slow", "bad_method", "big_header", "garbage", "long_line", "nul", "scrape",
};
#define FIRST_MALFORMED	K_BAD_METHOD
#define NR_MALFORMED	(K_NUL - K_BAD_METHOD + 1)

/* How a request ended besides a status code (res[kind][code]) */
enum { R_NONE = 0,	/* closed or reset with no status line */
       R_TIMEOUT = 1,	/* no (complete) answer in time */
       R_CONNFAIL = 2,	/* connect() failed */
       R_HELD = 3,	/* a slow client's connection still open at the end */
       R_BADREPLY = 4,	/* an answer that is no HTTP status line */
       NR_RES = 600 };
static const char *const res_name[] = { "none", "timeout", "connfail", "held", "badreply" };

static struct sockaddr_storage addr;
static socklen_t addrlen;
static char target[128];
static int64_t t_start, t_end;		/* the storm, CLOCK_MONOTONIC ns */
static volatile int stop;		/* the storm is over */
static unsigned long sent[NR_KINDS];
static unsigned long res[NR_KINDS][NR_RES];
static unsigned long metrics_bytes;
static int64_t lat_ns[NR_KINDS], lat_max_ns[NR_KINDS];	/* malformed requests' time */
static pid_t pid;

static unsigned int nr_malformed = 10000, nr_inflight = 32, nr_senders;

/* the scraper's */
static double scrape_s[MAX_SCRAPES];
static int scrape_ok[MAX_SCRAPES], nr_scrapes;
static long fds_max = -1, rss_max = -1;

/* the slow clients' */
static pthread_mutex_t slow_lock = PTHREAD_MUTEX_INITIALIZER;
static double slow_hold_max;
static unsigned long slow_closed;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

static void sleep_until(int64_t t)
{
	struct timespec ts = { .tv_sec = t / NS, .tv_nsec = t % NS };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void count(enum kind k, unsigned int r)
{
	__atomic_fetch_add(&res[k][r < NR_RES ? r : R_BADREPLY], 1, __ATOMIC_RELAXED);
}

/* poll @fd for @ev until @deadline (or, with @at_stop, the storm's end): >0, 0 on timeout */
static int wait_fd(int fd, short ev, int64_t deadline, bool at_stop)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = ev };
		int64_t left = deadline - now_ns();
		int ms, r;

		if (left <= 0 || (at_stop && stop))
			return 0;
		ms = left > 100 * MS ? 100 : (int)((left + MS - 1) / MS);
		r = poll(&p, 1, ms);
		if (r > 0)
			return r;
		if (r < 0 && errno != EINTR)
			return -errno;
	}
}

/* A connected socket (non-blocking), or -errno */
static int connect_to(int64_t deadline)
{
	int fd = socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int err = 0, r;
	socklen_t len = sizeof(err);

	if (fd < 0)
		return -errno;
	if (!connect(fd, (struct sockaddr *)&addr, addrlen))
		return fd;
	if (errno != EINPROGRESS) {
		err = errno;
		close(fd);
		return -err;
	}
	r = wait_fd(fd, POLLOUT, deadline, false);
	if (r <= 0) {
		close(fd);
		return r ? r : -ETIMEDOUT;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) || err) {
		close(fd);
		return -(err ? err : EIO);
	}
	return fd;
}

static int send_all(int fd, const char *buf, size_t len, int64_t deadline)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n > 0) {
			buf += n;
			len -= n;
		} else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			int r = wait_fd(fd, POLLOUT, deadline, false);

			if (r <= 0)
				return r ? r : -ETIMEDOUT;
		} else {
			return n < 0 ? -errno : -EIO;
		}
	}
	return 0;
}

struct reply {
	char head[64];		/* the first bytes: the status line */
	size_t headlen, bytes;
	char *body;		/* all of it, if wanted (the scraper) */
	size_t cap;
	bool eof, timeout;
};

/* @n more bytes of an answer: its first in head, all of them in body if @keep; still @keep */
static bool reply_add(struct reply *rp, const char *buf, size_t n, bool keep)
{
	size_t h = sizeof(rp->head) - 1 - rp->headlen;

	if (h > n)
		h = n;
	memcpy(rp->head + rp->headlen, buf, h);
	rp->headlen += h;
	rp->head[rp->headlen] = 0;
	if (keep && rp->bytes + n + 1 > rp->cap) {
		size_t cap = (rp->bytes + n + 1) * 2;
		char *b = realloc(rp->body, cap);

		if (!b) {
			keep = false;
		} else {
			rp->body = b;
			rp->cap = cap;
		}
	}
	if (keep) {
		memcpy(rp->body + rp->bytes, buf, n);
		rp->body[rp->bytes + n] = 0;
	}
	rp->bytes += n;
	return keep;
}

/* Read until the server closes (or resets) the connection, or @deadline */
static void read_reply(int fd, int64_t deadline, struct reply *rp, bool keep)
{
	char buf[16384];

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n > 0) {
			keep = reply_add(rp, buf, n, keep);
		} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			rp->eof = true;		/* closed, or reset */
			return;
		} else if (wait_fd(fd, POLLIN, deadline, false) <= 0) {
			rp->timeout = true;
			return;
		}
	}
}

/* The status code of an answer, or R_NONE / R_TIMEOUT / R_BADREPLY */
static unsigned int status_of(const struct reply *rp)
{
	unsigned int code;

	if (!rp->headlen)
		return rp->timeout ? R_TIMEOUT : R_NONE;
	if (sscanf(rp->head, "HTTP/1.%*1[01] %3u", &code) == 1 && code >= 100 && code < 600)
		return code;
	return R_BADREPLY;
}

/* How a request ended: its status code, or R_NONE / R_TIMEOUT / R_BADREPLY */
static unsigned int outcome(const struct reply *rp)
{
	unsigned int st = status_of(rp);

	if (rp->timeout && st >= 100)
		st = R_TIMEOUT;		/* a status line, but no whole answer in time */
	return st;
}

/*
 * One request: connect, send @req, read the answer until the server
 * closes or @deadline.  The status code, or one of R_*.
 */
static unsigned int request(const char *req, size_t len, int64_t deadline, struct reply *rp,
			    bool keep)
{
	int fd = connect_to(deadline);

	if (fd < 0)
		return R_CONNFAIL;
	/* a server that answers before it has read everything may reset us: read anyway */
	send_all(fd, req, len, deadline);
	read_reply(fd, deadline, rp, keep);
	close(fd);
	return outcome(rp);
}

static const char metrics_req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";

static void *metrics_client(void *arg)
{
	(void)arg;
	while (!stop) {
		struct reply rp = { .bytes = 0 };
		int64_t t = now_ns();
		unsigned int st;

		/* in flight at the end: 2 s more at most */
		st = request(metrics_req, sizeof(metrics_req) - 1,
			     (t + 5 * NS < t_end + 2 * NS ? t + 5 * NS : t_end + 2 * NS), &rp, false);
		__atomic_fetch_add(&sent[K_METRICS], 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&metrics_bytes, rp.bytes, __ATOMIC_RELAXED);
		count(K_METRICS, st);
		if (st == R_CONNFAIL) {
			struct timespec ts = { .tv_nsec = 10 * MS };

			nanosleep(&ts, NULL);	/* refused: do not spin */
		}
	}
	return NULL;
}

static const char slow_req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n";

static void *slow_client(void *arg)
{
	(void)arg;
	while (!stop) {
		int64_t t0 = now_ns();
		int fd, r;
		struct reply rp = { .bytes = 0 };

		if (t0 >= t_end)
			break;		/* the storm is over: no connection to count */
		fd = connect_to(t_end);
		if (fd < 0) {
			struct timespec ts = { .tv_nsec = 10 * MS };

			if (!stop)
				count(K_SLOW, R_CONNFAIL);
			nanosleep(&ts, NULL);
			continue;
		}
		__atomic_fetch_add(&sent[K_SLOW], 1, __ATOMIC_RELAXED);
		if (send_all(fd, slow_req, sizeof(slow_req) - 1, t_end)) {
			count(K_SLOW, R_NONE);
			close(fd);
			continue;
		}
		/* hold it: until the server answers or closes, or the end */
		r = wait_fd(fd, POLLIN, t_end, true);
		if (r > 0) {
			double held = (now_ns() - t0) / 1e9;

			read_reply(fd, now_ns() + NS, &rp, false);
			count(K_SLOW, status_of(&rp));
			pthread_mutex_lock(&slow_lock);
			slow_closed++;
			if (held > slow_hold_max)
				slow_hold_max = held;
			pthread_mutex_unlock(&slow_lock);
		} else {
			count(K_SLOW, R_HELD);
		}
		close(fd);
	}
	return NULL;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Malformed request number @i into @buf (MREQ_MAX); its length */
static size_t malformed(unsigned int i, enum kind k, char *buf, size_t cap, uint64_t *rng)
{
	static const char *const methods[] = { "BREW", "POST", "DELETE", "G3T", "get", "PUT" };
	size_t n = 0, len, j;

	switch (k) {
	case K_BAD_METHOD:
		return snprintf(buf, cap, "%s /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
				methods[i / NR_MALFORMED % (sizeof(methods) / sizeof(*methods))]);
	case K_BIG_HEADER:	/* one 20 KiB header: beyond the 16 KiB pool */
		n = snprintf(buf, cap, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: ");
		memset(buf + n, 'b', 20480);
		n += 20480;
		return n + snprintf(buf + n, cap - n, "\r\n\r\n");
	case K_GARBAGE:		/* 1 to 2048 random bytes, then an end of header */
		len = 1 + xorshift(rng) % 2048;
		for (j = 0; j < len; j++)
			buf[j] = (char)xorshift(rng);
		return len + snprintf(buf + len, cap - len, "\r\n\r\n");
	case K_LONG_LINE:	/* a request line of 9 KiB */
		n = snprintf(buf, cap, "GET /metrics?");
		memset(buf + n, 'a', 9216);
		n += 9216;
		return n + snprintf(buf + n, cap - n, " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	case K_NUL:		/* NULs in the request line, and in a header */
		n = snprintf(buf, cap, "GET /met");
		buf[n++] = 0;
		n += snprintf(buf + n, cap - n, "rics HTTP/1.1\r\nHost: x");
		buf[n++] = 0;
		return n + snprintf(buf + n, cap - n, "y\r\nConnection: close\r\n\r\n");
	default:
		return 0;
	}
}

/* A malformed request's connection: fd -1 for a free slot */
struct mconn {
	int fd;
	bool connecting;	/* connect() still in progress */
	enum kind k;
	uint32_t events;	/* what epoll waits for */
	int64_t deadline, t0;
	size_t len, off;	/* the request's length, how much of it went out */
	struct reply rp;
	char *req;		/* MREQ_MAX */
};

/* @c is over: count it (connect() failed, or how its answer went), close it */
static void mconn_end(struct mconn *c, bool connfail)
{
	int64_t ns = now_ns() - c->t0, max = __atomic_load_n(&lat_max_ns[c->k], __ATOMIC_RELAXED);

	__atomic_fetch_add(&lat_ns[c->k], ns, __ATOMIC_RELAXED);
	/* the senders' threads end requests of the same kind at once */
	while (ns > max && !__atomic_compare_exchange_n(&lat_max_ns[c->k], &max, ns, false,
							__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	count(c->k, connfail ? R_CONNFAIL : outcome(&c->rp));
	close(c->fd);
	c->fd = -1;
}

/* Request number @i on the free @c: its socket, connect() begun; false if over already */
static bool mconn_start(int epfd, struct mconn *c, unsigned int i, uint64_t *rng)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT, .data.ptr = c };
	int64_t now = now_ns();

	c->k = FIRST_MALFORMED + i % NR_MALFORMED;
	c->len = malformed(i, c->k, c->req, MREQ_MAX, rng);
	c->off = 0;
	c->t0 = now;
	memset(&c->rp, 0, sizeof(c->rp));
	/* in flight at the end: 1 s more at most */
	c->deadline = now + 2 * NS < t_end + NS ? now + 2 * NS : t_end + NS;
	__atomic_fetch_add(&sent[c->k], 1, __ATOMIC_RELAXED);
	c->fd = socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		count(c->k, R_CONNFAIL);
		return false;
	}
	c->connecting = connect(c->fd, (struct sockaddr *)&addr, addrlen) != 0;
	if ((c->connecting && errno != EINPROGRESS) ||
	    epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev)) {
		mconn_end(c, true);
		return false;
	}
	c->events = ev.events;		/* writable: connected, and room to send */
	return true;
}

/*
 * @c's socket is ready: on with its connect(), its request (what the socket
 * takes), its answer (what has come, until the server closes or resets it).
 * False when it is over.
 */
static bool mconn_step(int epfd, struct mconn *c)
{
	char buf[16384];
	ssize_t n;

	if (c->connecting) {
		int err = 0;
		socklen_t len = sizeof(err);

		if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) || err) {
			mconn_end(c, true);
			return false;
		}
		c->connecting = false;
	}
	while (c->off < c->len) {
		n = send(c->fd, c->req + c->off, c->len - c->off, MSG_NOSIGNAL);
		if (n > 0)
			c->off += n;
		else if (n < 0 && errno == EAGAIN)
			break;
		else if (n == 0 || errno != EINTR)
			c->off = c->len;	/* answered and closed, or reset: read anyway */
	}
	for (;;) {
		n = recv(c->fd, buf, sizeof(buf), 0);
		if (n > 0) {
			reply_add(&c->rp, buf, n, false);
		} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			c->rp.eof = true;	/* closed, or reset */
			mconn_end(c, false);
			return false;
		} else if (errno == EAGAIN) {
			break;
		}
	}
	if (c->off == c->len && c->events != EPOLLIN) {
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };

		if (epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev)) {
			mconn_end(c, false);
			return false;
		}
		c->events = EPOLLIN;
	}
	return true;
}

/* When malformed request number @i is due: evenly over the first 90% of the storm */
static int64_t mreq_due(unsigned int i)
{
	int64_t span = (t_end - t_start) / 10 * 9;	/* slack at the end for a slow answer */

	return t_start + span / nr_malformed * i + span % nr_malformed * i / nr_malformed;
}

/*
 * Malformed requests number @t, @t + nr_senders, ..., each at its time, on
 * up to its share of the nr_inflight connections at once (non-blocking,
 * epoll), each given 2 s: past that it is closed, and "timeout" (or
 * "connfail", still connecting).  Behind time, for want of a free
 * connection, it catches up as they come free.
 */
static void *malformed_sender(void *arg)
{
	unsigned int t = (unsigned int)(uintptr_t)arg, i = t, busy = 0, j;
	unsigned int nr = nr_inflight / nr_senders + (t < nr_inflight % nr_senders);
	uint64_t rng = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)(t + 1) << 32) ^ (uint64_t)now_ns();
	struct epoll_event *evs = calloc(nr, sizeof(*evs));
	struct mconn *conn = calloc(nr, sizeof(*conn));
	int epfd = epoll_create1(EPOLL_CLOEXEC);

	if (!evs || !conn || epfd < 0)
		goto out;
	for (j = 0; j < nr; j++) {
		conn[j].fd = -1;
		conn[j].req = malloc(MREQ_MAX);
		if (!conn[j].req)
			goto out;
	}
	while ((i < nr_malformed && !stop) || busy) {
		int64_t now = now_ns(), wake = now + 100 * MS;	/* and see stop */
		int n, e;

		/* the requests due, on the free connections */
		for (j = 0; j < nr && busy < nr && i < nr_malformed && !stop &&
			    mreq_due(i) <= now; j++) {
			if (conn[j].fd < 0) {
				busy += mconn_start(epfd, &conn[j], i, &rng);
				i += nr_senders;
			}
		}
		/* until a socket is ready, the next is due (and free), or a deadline */
		for (j = 0; j < nr; j++)
			if (conn[j].fd >= 0 && conn[j].deadline < wake)
				wake = conn[j].deadline;
		if (busy < nr && i < nr_malformed && !stop && mreq_due(i) < wake)
			wake = mreq_due(i);
		n = epoll_wait(epfd, evs, nr, wake > now ? (int)((wake - now + MS - 1) / MS) : 0);
		for (e = 0; e < n; e++)
			busy -= !mconn_step(epfd, evs[e].data.ptr);
		/* past its deadline, what had come read: over */
		now = now_ns();
		for (j = 0; j < nr; j++) {
			if (conn[j].fd >= 0 && conn[j].deadline <= now) {
				conn[j].rp.timeout = true;
				mconn_end(&conn[j], conn[j].connecting);
				busy--;
			}
		}
	}
out:
	if (i < nr_malformed && !stop)
		fprintf(stderr, "exporter_storm: a malformed requests' sender: %s\n",
			strerror(errno));
	for (j = 0; conn && j < nr; j++)
		free(conn[j].req);
	if (epfd >= 0)
		close(epfd);
	free(conn);
	free(evs);
	return NULL;
}

static long proc_fds(void)
{
	char path[64];
	struct dirent *de;
	long n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static long proc_rss_kb(void)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* GET /metrics as Prometheus does: 200 and the build info series; its seconds in @secs */
static bool scrape(double *secs)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\nUser-Agent: exporter_storm"
				  "\r\nAccept: text/plain\r\nConnection: close\r\n\r\n";
	struct reply rp = { .bytes = 0 };
	int64_t t0 = now_ns();
	unsigned int st;
	bool ok;

	st = request(req, sizeof(req) - 1, t0 + 10 * NS, &rp, true);	/* scrape_timeout 10 s */
	*secs = (now_ns() - t0) / 1e9;
	ok = st == 200 && rp.body && strstr(rp.body, "\r\n\r\n") &&
	     strstr(strstr(rp.body, "\r\n\r\n"), "\n" UP_SERIES);
	free(rp.body);
	return ok;
}

static void sample_proc(void)
{
	long f = proc_fds(), r = proc_rss_kb();

	if (f > fds_max)
		fds_max = f;
	if (r > rss_max)
		rss_max = r;
}

/* Once a second, from 0.5 s into the storm; and the fds and RSS at their highest */
static void *scraper(void *arg)
{
	int64_t next = t_start + NS / 2;

	(void)arg;
	while (next < t_end && nr_scrapes < MAX_SCRAPES) {
		bool ok;

		sleep_until(next);
		sample_proc();
		ok = scrape(&scrape_s[nr_scrapes]);
		scrape_ok[nr_scrapes++] = ok;
		__atomic_fetch_add(&sent[K_SCRAPE], 1, __ATOMIC_RELAXED);
		count(K_SCRAPE, ok ? 200 : R_NONE);
		sample_proc();
		/* a scrape longer than the interval: the ticks it overran are skipped */
		do
			next += NS;
		while (next < now_ns());
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int parse_target(const char *url)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV }, *ai;
	char host[96], port[16];
	const char *p = url, *e;

	if (!strncmp(p, "http://", 7))
		p += 7;
	if (*p == '[') {
		e = strchr(++p, ']');
		if (!e || e[1] != ':')
			return -1;
		snprintf(host, sizeof(host), "%.*s", (int)(e - p), p);
		e++;
	} else {
		e = strrchr(p, ':');
		if (!e)
			return -1;
		snprintf(host, sizeof(host), "%.*s", (int)(e - p), p);
	}
	snprintf(port, sizeof(port), "%.*s", (int)strcspn(e + 1, "/"), e + 1);
	if (getaddrinfo(host, port, &hints, &ai))
		return -1;
	memcpy(&addr, ai->ai_addr, ai->ai_addrlen);
	addrlen = ai->ai_addrlen;
	freeaddrinfo(ai);
	snprintf(target, sizeof(target), "%s%s%s:%s", strchr(host, ':') ? "[" : "", host,
		 strchr(host, ':') ? "]" : "", port);
	return 0;
}

static const char usage[] =
"usage: exporter_storm -p PID [-s SECS] [-T TIMEOUT_S] [-c N] [-w N] [-m N] [-M N]\n"
"                      [URL]\n"
"A storm against upmu-exporter at URL (default http://127.0.0.1:9464), PID its\n"
"process; figures as \"key value\" lines (bench/README, \"upmu-exporter\").\n"
"  -p PID        the exporter's process (its fds and VmRSS)\n"
"  -s SECS       the storm's length (default 10)\n"
"  -T TIMEOUT_S  the exporter's timeout_s (default 5): settled is TIMEOUT_S + 2 s\n"
"                after the storm\n"
"  -c N          clients looping on GET /metrics (default 64)\n"
"  -w N          slow clients holding half a request (default 32)\n"
"  -m N          malformed requests over the storm's first 90% (default 10000)\n"
"  -M N          of them in flight at most, 4 to a thread, each given 2 s\n"
"                (default 32)\n";

static void spawn(pthread_t *t, pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
	int err = pthread_create(t, a, fn, arg);

	if (err) {
		fprintf(stderr, "exporter_storm: pthread_create: %s\n", strerror(err));
		exit(1);
	}
}

static void print_status(enum kind k)
{
	unsigned int r;
	bool any = false;

	printf("status_%s", kind_name[k]);
	for (r = 100; r < NR_RES; r++)
		if (res[k][r]) {
			printf(" %u:%lu", r, res[k][r]);
			any = true;
		}
	for (r = 0; r < sizeof(res_name) / sizeof(*res_name); r++)
		if (res[k][r]) {
			printf(" %s:%lu", res_name[r], res[k][r]);
			any = true;
		}
	printf("%s\n", any ? "" : " -");
	if (k >= FIRST_MALFORMED && k < FIRST_MALFORMED + NR_MALFORMED && sent[k])
		printf("latency_ms_%s avg %.1f max %.1f\n", kind_name[k],
		       lat_ns[k] / 1e6 / sent[k], lat_max_ns[k] / 1e6);
}

int main(int argc, char **argv)
{
	unsigned int secs = 10, timeout_s = 5, nr_fast = 64, nr_slow = 32, i, k, r, ok = 0;
	long fds_before, fds_after, fds_settled, rss_before, rss_after, rss_settled;
	unsigned long cls[5] = { 0 }, others[5] = { 0 };
	static pthread_t th[MAX_CLIENTS * 3 + 1];
	double sorted[MAX_SCRAPES], back_s = -1, probe_s;
	const char *url = "http://127.0.0.1:9464";
	unsigned int nth = 0;
	pthread_attr_t attr;
	int64_t settle;
	char *end;
	int c;

	while ((c = getopt(argc, argv, "p:s:T:c:w:m:M:h")) != -1) {
		unsigned long v = 0;

		if (c != 'h' && c != '?') {
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || end == optarg || v > 1000000) {
				fprintf(stderr, "exporter_storm: -%c: '%s' is not a number\n", c, optarg);
				return 2;
			}
		}
		switch (c) {
		case 'p': pid = (pid_t)v; break;
		case 's': secs = v; break;
		case 'T': timeout_s = v; break;
		case 'c': nr_fast = v; break;
		case 'w': nr_slow = v; break;
		case 'm': nr_malformed = v; break;
		case 'M': nr_inflight = v; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (optind < argc)
		url = argv[optind++];
	if (optind < argc || !secs || nr_fast > MAX_CLIENTS || nr_slow > MAX_CLIENTS ||
	    !nr_inflight || nr_inflight > MAX_CLIENTS) {
		fputs(usage, stderr);
		return 2;
	}
	if (parse_target(url)) {
		fprintf(stderr, "exporter_storm: '%s' is not http://ADDRESS:PORT\n", url);
		return 2;
	}
	if (pid <= 0) {
		fprintf(stderr, "exporter_storm: the exporter's PID (-p) is needed\n");
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	fds_before = proc_fds();
	if (fds_before < 0 || proc_rss_kb() < 0) {
		fprintf(stderr, "exporter_storm: cannot read /proc/%d/fd or status: %s\n", (int)pid,
			strerror(errno));
		return 1;
	}
	/* it answers, and its first snapshot is taken, before the baseline */
	if (!scrape(&probe_s)) {
		fprintf(stderr, "exporter_storm: no scrape of %s/metrics succeeds before the storm\n",
			target);
		return 1;
	}
	usleep(300000);
	fds_before = proc_fds();
	rss_before = proc_rss_kb();

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_SIZE);
	t_start = now_ns();
	t_end = t_start + (int64_t)secs * NS;
	spawn(&th[nth++], &attr, scraper, NULL);
	for (i = 0; i < nr_slow; i++)
		spawn(&th[nth++], &attr, slow_client, NULL);
	for (i = 0; i < nr_fast; i++)
		spawn(&th[nth++], &attr, metrics_client, NULL);
	nr_senders = (nr_inflight + SENDER_CONNS - 1) / SENDER_CONNS;
	for (i = 0; i < nr_senders; i++)
		spawn(&th[nth++], &attr, malformed_sender, (void *)(uintptr_t)i);
	sleep_until(t_end);
	stop = 1;
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	pthread_attr_destroy(&attr);

	/* the end of the storm: every client's socket closed */
	fds_after = proc_fds();
	rss_after = proc_rss_kb();
	settle = now_ns() + (int64_t)(timeout_s + 2) * NS;
	while (now_ns() < settle) {
		int64_t t = now_ns();

		if (back_s < 0 && proc_fds() == fds_before)
			back_s = (t - t_end) / 1e9;
		usleep(100000);
	}
	fds_settled = proc_fds();
	rss_settled = proc_rss_kb();

	for (i = 0; i < (unsigned int)nr_scrapes; i++)
		ok += scrape_ok[i];
	memcpy(sorted, scrape_s, nr_scrapes * sizeof(*sorted));
	qsort(sorted, nr_scrapes, sizeof(*sorted), cmp_double);
	for (k = 0; k < NR_KINDS; k++) {
		if (k == K_SCRAPE)
			continue;
		for (r = 100; r < NR_RES; r++)
			cls[r / 100 - 1] += res[k][r];
		for (r = 0; r < 5; r++)
			others[r] += res[k][r];
	}

	printf("target %s\n", target);
	printf("pid %d\n", (int)pid);
	printf("storm_seconds %u\n", secs);
	printf("clients_metrics %u\n", nr_fast);
	printf("clients_slow %u\n", nr_slow);
	printf("scrapes_ok %u\n", ok);
	printf("scrapes_total %d\n", nr_scrapes);
	printf("scrape_max_s %.3f\n", nr_scrapes ? sorted[nr_scrapes - 1] : -1.0);
	printf("scrape_median_s %.3f\n", !nr_scrapes ? -1.0 : nr_scrapes % 2 ?
	       sorted[nr_scrapes / 2] : (sorted[nr_scrapes / 2 - 1] + sorted[nr_scrapes / 2]) / 2);
	printf("scrape_seconds");
	for (i = 0; i < (unsigned int)nr_scrapes; i++)
		printf(" %.3f%s", scrape_s[i], scrape_ok[i] ? "" : "!");
	printf("\n");
	printf("fds_before %ld\n", fds_before);
	printf("fds_max %ld\n", fds_max);
	printf("fds_after %ld\n", fds_after);
	printf("fds_settled %ld\n", fds_settled);
	printf("fds_back_after_s %.1f\n", back_s);
	printf("rss_kb_before %ld\n", rss_before);
	printf("rss_kb_max %ld\n", rss_max);
	printf("rss_kb_after %ld\n", rss_after);
	printf("rss_kb_settled %ld\n", rss_settled);
	printf("rss_kb_growth %ld\n", rss_settled >= 0 && rss_before >= 0 ? rss_settled - rss_before : -1);
	for (k = 0; k < NR_KINDS; k++)
		if (k != K_SCRAPE)
			printf("sent_%s %lu\n", kind_name[k], sent[k]);
	printf("sent_malformed %lu of %u\n", sent[K_BAD_METHOD] + sent[K_BIG_HEADER] +
	       sent[K_GARBAGE] + sent[K_LONG_LINE] + sent[K_NUL], nr_malformed);
	printf("metrics_bytes %lu\n", metrics_bytes);
	for (r = 0; r < 5; r++)
		printf("replies_%uxx %lu\n", r + 1, cls[r]);
	for (r = 0; r < 5; r++)
		printf("replies_%s %lu\n", res_name[r], others[r]);
	for (k = 0; k < NR_KINDS; k++)
		if (k != K_SCRAPE)
			print_status(k);
	printf("slow_closed_by_server %lu\n", slow_closed);
	printf("slow_hold_max_s %.1f\n", slow_hold_max);
	printf("alive %d\n", kill(pid, 0) == 0 || errno == EPERM);
	printf("final_scrape_ok %d\n", scrape(&probe_s));
	printf("final_scrape_s %.3f\n", probe_s);
	return 0;
}
