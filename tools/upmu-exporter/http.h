/* SPDX-License-Identifier: GPL-2.0 */
/* upmu-exporter's HTTP server (http.c) */
#ifndef __UPMU_EXPORTER_HTTP_H__
#define __UPMU_EXPORTER_HTTP_H__

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

struct config;
struct collector;
struct server;

/*
 * Serve @col's counters as @c says, taking @lock around every use of
 * @col; with @no_listen, only on connections server_add_connection()
 * gives it (the fuzzer).  NULL with @err set if it cannot.
 */
struct server *server_start(const struct config *c, struct collector *col,
			    pthread_mutex_t *lock, bool no_listen, char *err, size_t errlen);
/* Serve the connected socket @fd too; 0 or -EIO. */
int server_add_connection(struct server *s, int fd);
void server_stop(struct server *s);

#endif
