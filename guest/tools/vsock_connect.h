/* SPDX-License-Identifier: MIT */
/*
 * vsock_connect.h - the guest tools' AF_VSOCK client connect, shared by
 * vsockcheck and vsockbench (each a static program of its own, hence a
 * header of static functions).
 */
#ifndef SIDECORE_GUEST_TOOLS_VSOCK_CONNECT_H
#define SIDECORE_GUEST_TOOLS_VSOCK_CONNECT_H

#include <sys/socket.h>
#include <unistd.h>

#include <linux/vm_sockets.h>

#define VSOCK_CONNECT_TRIES	150
#define VSOCK_CONNECT_WAIT_US	200000		/* 150 tries, 30 s in all */

/* A SOCK_STREAM connection to cid:port, retried while the peer does not listen yet; -1 if none. */
static int vsock_connect(unsigned int cid, unsigned int port)
{
	struct sockaddr_vm addr = { .svm_family = AF_VSOCK, .svm_cid = cid, .svm_port = port };

	for (int tries = 0;; tries++) {
		int s = socket(AF_VSOCK, SOCK_STREAM, 0);

		if (s < 0)
			return -1;
		if (connect(s, (struct sockaddr *)&addr, sizeof(addr)) == 0)
			return s;
		close(s);
		if (tries + 1 == VSOCK_CONNECT_TRIES)
			return -1;
		usleep(VSOCK_CONNECT_WAIT_US);
	}
}

#endif
