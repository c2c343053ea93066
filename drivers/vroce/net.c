// SPDX-License-Identifier: GPL-2.0
/*
 * UDP port 4791 per network namespace.
 *
 * A vroce device works in whichever network namespace its netdev lives in,
 * so the RoCEv2 receive sockets are per netns: created on first use (the
 * first device in that namespace) and released when the namespace dies.
 * init_net's sockets are opened at module load, which is also how we notice
 * a second soft-RoCE driver (rdma_rxe) that already owns the port there.
 *
 * Lifetime: a device holds a reference on its netdev until dealloc_driver,
 * and netns teardown unregisters (and waits for) every netdev before the
 * subsys exit below runs, so no device outlives its namespace's sockets.
 */
#include <linux/module.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>

#include "vroce.h"

/**
 * struct vroce_netns - vroce's state in one network namespace
 * @lock: serialises socket creation against other device creations
 * @sk4: IPv4 socket bound to port 4791, NULL until first needed
 * @sk6: IPv6-only socket bound to port 4791, NULL without IPv6
 * @rx_unhandled: packets received before the transport could take them
 */
struct vroce_netns {
	struct mutex lock; /* socket creation and teardown */
	struct socket *sk4;
	struct socket *sk6;
	atomic64_t rx_unhandled;
};

static unsigned int vroce_net_id;

static struct vroce_netns *vroce_netns(struct net *net)
{
	return net_generic(net, vroce_net_id);
}

/*
 * Receive entry of RoCEv2 packets.  The transport is not wired yet: count
 * and drop.  Returning 0 tells UDP that the skb is consumed.
 */
static int vroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct vroce_netns *vn = vroce_netns(sock_net(sk));

	atomic64_inc(&vn->rx_unhandled);
	kfree_skb(skb);
	return 0;
}

static int vroce_sock_open(struct net *net, bool ipv6, struct socket **sockp)
{
	struct udp_tunnel_sock_cfg tnl = {};
	struct udp_port_cfg cfg = {};
	struct socket *sock;
	int err;

	if (ipv6) {
		cfg.family = AF_INET6;
		cfg.ipv6_v6only = 1;
	} else {
		cfg.family = AF_INET;
	}
	cfg.local_udp_port = htons(VROCE_ROCE_V2_PORT);

	err = udp_sock_create(net, &cfg, &sock);
	if (err)
		return err;

	tnl.encap_type = 1;
	tnl.encap_rcv = vroce_udp_encap_recv;
	setup_udp_tunnel_sock(net, sock, &tnl);
	*sockp = sock;
	return 0;
}

static void vroce_sock_close(struct socket **sockp)
{
	if (*sockp) {
		udp_tunnel_sock_release(*sockp);
		*sockp = NULL;
	}
}

static int vroce_netns_open(struct net *net)
{
	struct vroce_netns *vn = vroce_netns(net);
	int err;

	lockdep_assert_held(&vn->lock);
	if (vn->sk4)
		return 0;

	err = vroce_sock_open(net, false, &vn->sk4);
	if (err)
		return err;

	/* A kernel booted with IPv6 disabled still gets IPv4 RoCE. */
	err = vroce_sock_open(net, true, &vn->sk6);
	if (err == -EAFNOSUPPORT)
		err = 0;
	if (err)
		vroce_sock_close(&vn->sk4);
	return err;
}

/**
 * vroce_net_get() - make sure @net has its RoCEv2 sockets
 * @net: the network namespace of a device being created
 *
 * Return: 0, or -EADDRINUSE when another user owns UDP port 4791 in @net.
 */
int vroce_net_get(struct net *net)
{
	struct vroce_netns *vn = vroce_netns(net);
	int err;

	mutex_lock(&vn->lock);
	err = vroce_netns_open(net);
	mutex_unlock(&vn->lock);
	return err;
}

/**
 * vroce_net_put() - a device of @net is gone
 * @net: the namespace passed to vroce_net_get()
 *
 * Sockets stay open until the namespace dies: reopening them for each
 * device would let another program grab the port in between.
 */
void vroce_net_put(struct net *net)
{
}

static int __net_init vroce_netns_init(struct net *net)
{
	struct vroce_netns *vn = vroce_netns(net);

	mutex_init(&vn->lock);
	atomic64_set(&vn->rx_unhandled, 0);
	return 0;
}

static void __net_exit vroce_netns_exit(struct net *net)
{
	struct vroce_netns *vn = vroce_netns(net);

	mutex_lock(&vn->lock);
	vroce_sock_close(&vn->sk6);
	vroce_sock_close(&vn->sk4);
	mutex_unlock(&vn->lock);
	mutex_destroy(&vn->lock);
}

static struct pernet_operations vroce_net_ops = {
	.init = vroce_netns_init,
	.exit = vroce_netns_exit,
	.id = &vroce_net_id,
	.size = sizeof(struct vroce_netns),
};

/**
 * vroce_net_init() - register per-netns state and open init_net's sockets
 *
 * Return: 0, or -EADDRINUSE when port 4791 is already taken in init_net
 * (typically by rdma_rxe), or another errno.
 */
int vroce_net_init(void)
{
	int err;

	err = register_pernet_subsys(&vroce_net_ops);
	if (err)
		return err;

	err = vroce_net_get(&init_net);
	if (err)
		unregister_pernet_subsys(&vroce_net_ops);
	return err;
}

/**
 * vroce_net_exit() - close every namespace's sockets
 */
void vroce_net_exit(void)
{
	unregister_pernet_subsys(&vroce_net_ops);
}
