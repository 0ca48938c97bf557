/* SPDX-License-Identifier: GPL-2.0 */
/*
 * node_conf.h - a node's configuration for tests of the core and the CUSE
 * front end, made with the core's own policy calls (core/policy.h) and the
 * defaults kcsmux.conf gives a node, without config/'s parser.
 */
#ifndef KCSMUX_TEST_NODE_CONF_H
#define KCSMUX_TEST_NODE_CONF_H

#include "core/conf.h"

/* NAME with the PRESET's policy and the ACCESS preset's rules; events on,
 * commands where nothing is restricted, max_outstanding 100, max_clients
 * 30 (the configuration's defaults). Tests change fields after. */
void test_node_conf(struct kcsmux_node_conf *n, const char *name,
		    enum kcsmux_preset preset,
		    enum kcsmux_access_preset access);

#endif /* KCSMUX_TEST_NODE_CONF_H */
